//! `Cell` and `RefCell` that threads can share: the controller's listeners,
//! endpoints and managers are `Send + Sync`, so what tests capture in them is
//! too. On one thread they behave as the std types do (a conflicting borrow
//! panics instead of waiting).
#![allow(dead_code)]

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError};

/// A `Cell` on a lock.
#[derive(Debug, Default)]
pub struct SyncCell<T>(RwLock<T>);

impl<T: Copy> SyncCell<T> {
    pub fn new(value: T) -> SyncCell<T> {
        SyncCell(RwLock::new(value))
    }
    pub fn get(&self) -> T {
        *self.0.read().unwrap_or_else(|e| e.into_inner())
    }
    pub fn set(&self, value: T) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = value;
    }
    pub fn replace(&self, value: T) -> T {
        std::mem::replace(&mut *self.0.write().unwrap_or_else(|e| e.into_inner()), value)
    }
    pub fn take(&self) -> T
    where
        T: Default,
    {
        self.replace(T::default())
    }
}

/// A `RefCell` on a lock.
#[derive(Debug, Default)]
pub struct SyncRefCell<T>(RwLock<T>);

impl<T> SyncRefCell<T> {
    pub fn new(value: T) -> SyncRefCell<T> {
        SyncRefCell(RwLock::new(value))
    }
    pub fn borrow(&self) -> RwLockReadGuard<'_, T> {
        match self.0.try_read() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            // Another thread writing: wait for it.
            Err(TryLockError::WouldBlock) => self.0.read().unwrap_or_else(|e| e.into_inner()),
        }
    }
    pub fn borrow_mut(&self) -> RwLockWriteGuard<'_, T> {
        match self.0.try_write() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => self.0.write().unwrap_or_else(|e| e.into_inner()),
        }
    }
    pub fn replace(&self, value: T) -> T {
        std::mem::replace(&mut *self.borrow_mut(), value)
    }
    pub fn take(&self) -> T
    where
        T: Default,
    {
        self.replace(T::default())
    }
}
