//! Which reader reads a type: its generated reader once serde's own view of the
//! type agrees, else serde.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

use super::{Member, ReadFn};
use crate::schema::{Entity, EntityDef};

/// A type's generated reader, used once serde's own view of the type says it
/// reads the same: the first read of the type asks `T`'s `Deserialize` for the
/// struct it deserializes (serde's derive names it, its wire fields and its
/// visitor); a different name, field list or visitor (a hand-written
/// `Deserialize`, say) leaves the type to serde.
#[doc(hidden)]
pub struct Reader<T> {
    read: ReadFn<T>,
    name: &'static str,
    fields: &'static [Member],
    /// 0 until the first read checked; then 1 (same as serde) or 2 (not).
    verdict: std::sync::atomic::AtomicU8,
}

impl<T> std::fmt::Debug for Reader<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader").field("name", &self.name).field("verdict", &self.verdict).finish()
    }
}

impl<T> Reader<T> {
    /// The reader `read` of a struct serde calls `name`, with `fields`.
    pub const fn new(read: ReadFn<T>, name: &'static str, fields: &'static [Member]) -> Self {
        Reader { read, name, fields, verdict: std::sync::atomic::AtomicU8::new(0) }
    }
}

impl<T: DeserializeOwned> Reader<T> {
    /// The reader, when `T`'s `Deserialize` reads what it reads.
    fn get(&self) -> Option<ReadFn<T>> {
        use std::sync::atomic::Ordering::Relaxed;
        let verdict = match self.verdict.load(Relaxed) {
            0 => {
                // Threads that race here work out the same answer.
                let verdict = if self.serde_agrees() { 1 } else { 2 };
                self.verdict.store(verdict, Relaxed);
                verdict
            }
            known => known,
        };
        (verdict == 1).then_some(self.read)
    }

    /// Whether `T`'s `Deserialize` asks for the struct this reader builds, by
    /// the same name and wire fields, with serde's derived visitor for `T`.
    fn serde_agrees(&self) -> bool {
        let seen = std::cell::Cell::new(None);
        let _ = T::deserialize(StructProbe(&seen));
        let Some((name, fields, visitor)) = seen.get() else { return false };
        name == self.name
            && fields.len() == self.fields.len()
            && fields.iter().zip(self.fields).all(|(a, b)| *a == b.name)
            && derived_visitor_of(visitor, std::any::type_name::<T>())
    }
}

impl<T: DeserializeOwned + 'static> Reader<T> {
    /// `T`'s reader, when `reader` (type-erased) is one.
    pub(super) fn of(reader: &'static (dyn std::any::Any + Send + Sync)) -> Option<ReadFn<T>> {
        reader.downcast_ref::<Reader<T>>()?.get()
    }
}

/// Whether `visitor` (a type name) is the visitor serde's derive makes for the
/// type named `ty`: `<path>::_::<impl ..Deserialize<'_> for <ty>>::deserialize::__Visitor<'_>`.
/// (A same-named struct a hand-written impl delegates to has another path;
/// should the naming change, every type is left to serde.)
fn derived_visitor_of(visitor: &str, ty: &str) -> bool {
    let bytes = visitor.as_bytes();
    let Some(at) = bytes.windows(5).rposition(|w| w == b" for ") else { return false };
    let rest = visitor.get(at + 5..).unwrap_or("");
    rest.strip_prefix(ty).is_some_and(|rest| rest.starts_with(">::deserialize::__Visitor"))
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

/// What a `Deserialize` asked for: a struct's name, its fields, and the type of
/// the visitor it asked with.
type Asked = Option<(&'static str, &'static [&'static str], &'static str)>;

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
        self.0.set(Some((name, fields, std::any::type_name::<V>())));
        Err(de::Error::custom("a probe, not data"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}
