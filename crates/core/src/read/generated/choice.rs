//! Which reader reads a type: the derive decides. It generates a reader unless
//! told not to (`#[entity(serde_read)]`, for a hand-written `Deserialize`) or
//! the type uses a serde option the reader does not mirror; reads use the
//! reader whenever there is one.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

use super::{Member, ReadFn};
use crate::schema::{Entity, EntityDef};

/// A type's generated reader, with the struct it reads as serde names it
/// (checked in debug builds against the type's `Deserialize`).
#[doc(hidden)]
pub struct Reader<T> {
    read: ReadFn<T>,
    name: &'static str,
    fields: &'static [Member],
    /// Whether the debug check ran.
    checked: std::sync::atomic::AtomicBool,
}

impl<T> std::fmt::Debug for Reader<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader").field("name", &self.name).finish()
    }
}

impl<T> Reader<T> {
    /// The reader `read` of a struct serde calls `name`, with `fields`.
    pub const fn new(read: ReadFn<T>, name: &'static str, fields: &'static [Member]) -> Self {
        Reader { read, name, fields, checked: std::sync::atomic::AtomicBool::new(false) }
    }
}

impl<T: DeserializeOwned> Reader<T> {
    /// The reader. In debug builds its first use checks that `T`'s
    /// `Deserialize` asks for the struct it builds.
    fn get(&self) -> ReadFn<T> {
        if cfg!(debug_assertions) && !self.checked.swap(true, std::sync::atomic::Ordering::Relaxed) {
            self.check_serde_asks_the_same();
        }
        self.read
    }

    /// Panics when `T`'s `Deserialize` asks for another struct than the one
    /// this reader builds (another name or other wire fields): a hand-written
    /// `Deserialize` the derive could not see. One that asks for the same
    /// struct and changes what it reads passes: the attribute is the contract.
    #[allow(clippy::panic, reason = "a debug-build check of the app's code, with the fix in its message")]
    fn check_serde_asks_the_same(&self) {
        let seen = std::cell::Cell::new(None);
        let _ = T::deserialize(StructProbe(&seen));
        let agrees = seen.get().is_some_and(|(name, fields): (&str, &[&str])| {
            name == self.name
                && fields.len() == self.fields.len()
                && fields.iter().zip(self.fields).all(|(a, b)| *a == b.name)
        });
        if !agrees {
            panic!(
                "`{}` has a hand-written `Deserialize` (it does not ask for struct `{}` with the derive's fields): \
                 add `#[entity(serde_read)]` so reads go through it",
                std::any::type_name::<T>(),
                self.name
            );
        }
    }
}

impl<T: DeserializeOwned + 'static> Reader<T> {
    /// `T`'s reader, when `reader` (type-erased) is one.
    pub(super) fn of(reader: &'static (dyn std::any::Any + Send + Sync)) -> Option<ReadFn<T>> {
        reader.downcast_ref::<Reader<T>>().map(Reader::get)
    }
}

/// Whether reads of entity type `E` use its generated reader.
///
/// ```
/// #[derive(serde::Deserialize, rdc_core::Entity)]
/// struct User { id: String }
/// assert!(rdc_core::__private::uses_reader::<User>());
/// ```
#[doc(hidden)]
pub fn uses_reader<E: Entity>() -> bool {
    reader_of::<E>(E::DEF).is_some()
}

/// `T`'s reader, from the `reader` of its definition.
pub(super) fn reader_of<T: DeserializeOwned + 'static>(def: &EntityDef) -> Option<ReadFn<T>> {
    def.reader.and_then(Reader::<T>::of)
}

/// What a `Deserialize` asked for: a struct's name and its fields.
type Asked = Option<(&'static str, &'static [&'static str])>;

/// Records the struct a `Deserialize` asks for, and fails.
struct StructProbe<'p>(&'p std::cell::Cell<Asked>);

impl<'de> Deserializer<'de> for StructProbe<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("a probe, not data"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.set(Some((name, fields)));
        Err(de::Error::custom("a probe, not data"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}
