//! Where a generated reader builds its struct: memory the caller owns. The
//! one module of the read path with `unsafe`, each block with its proof.

use std::marker::PhantomData;

use serde::de;
use serde_json::Error;

/// Where a generated reader puts the struct it builds: memory its caller owns
/// (a list's next element), so a struct is built where it stays instead of
/// being moved there (each move of a wide struct is a copy of all of it).
#[doc(hidden)]
pub struct Slot<'s, T> {
    at: &'s mut std::mem::MaybeUninit<T>,
    _only: PhantomData<fn(&'s ()) -> &'s ()>,
}

impl<T> std::fmt::Debug for Slot<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Slot")
    }
}

/// Proof that the [`Slot`] of the same lifetime was filled: only [`fill`]
/// makes one (the lifetime is invariant, so no other slot's proof fits).
#[doc(hidden)]
#[derive(Debug)]
pub struct Filled<'s>(PhantomData<fn(&'s ()) -> &'s ()>);

/// Puts `value` in `slot`. (The value comes first: a reader that gives up
/// while building it still has its slot for serde's answer.)
///
/// ```
/// // What a generated reader ends with (see `ReadFn`).
/// # use rdc_core::__private::{fill, Filled, Slot};
/// fn read<'s>(slot: Slot<'s, u8>) -> Filled<'s> {
///     fill(7, slot)
/// }
/// ```
#[doc(hidden)]
#[inline(always)]
pub fn fill<T>(value: T, slot: Slot<'_, T>) -> Filled<'_> {
    slot.at.write(value);
    Filled(PhantomData)
}

/// What `read` fills, as a value of its own.
#[inline(always)]
pub(super) fn owned<T>(read: impl for<'s> FnOnce(Slot<'s, T>) -> Result<Filled<'s>, Error>) -> Result<T, Error> {
    let mut at = std::mem::MaybeUninit::uninit();
    read(Slot { at: &mut at, _only: PhantomData })?;
    // SAFETY: `read` returned the proof that this slot was filled: only `fill`
    // makes a `Filled`, by writing its slot, and `read` must work for every
    // lifetime `'s` (with `'s` invariant), so its `Filled<'s>` can only have
    // come from filling the one `Slot<'s, T>` it was given.
    #[allow(unsafe_code)]
    Ok(unsafe { at.assume_init() })
}

/// Adds what `read` fills to the end of `out`, built in place.
#[inline(always)]
pub(super) fn pushed<T>(
    out: &mut Vec<T>,
    read: impl for<'s> FnOnce(Slot<'s, T>) -> Result<Filled<'s>, Error>,
) -> Result<(), Error> {
    out.reserve(1);
    let len = out.len();
    let Some(at) = out.spare_capacity_mut().first_mut() else { return Err(de::Error::custom("no room in a list")) };
    read(Slot { at, _only: PhantomData })?;
    // SAFETY: the element past the end was filled (see `owned`), and the
    // capacity holds it (reserved above).
    #[allow(unsafe_code)]
    unsafe {
        out.set_len(len + 1)
    };
    Ok(())
}
