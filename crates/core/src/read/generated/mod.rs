//! What the readers `#[derive(Entity)]` and `#[derive(Schema)]` generate call: a
//! stored entity (or plain object) read straight into its struct without serde's
//! visitor. One walk matches the members to the fields; the struct is then built
//! with strings, numbers and booleans taken from the stored values directly and
//! other field types through serde; if a field does not fit, serde reads the
//! whole value again and its answer (its error) stands.
//!
//! A reader runs where the type read is known: the top of a read and the nested
//! fields of a generated reader ([`read_value`]), lists of entities included.
//! Entities reached through a type without a reader (a `Vec<User>` inside a
//! struct that only derives `Deserialize`) are read by serde's visitor, with the
//! same result.

use serde::de::{self, DeserializeOwned};
use serde_json::Error;

mod choice;
mod slot;
mod stored;

use choice::reader_of;
pub use choice::{uses_reader, Reader};
pub use slot::{fill, Filled, Slot};
use slot::{owned, pushed};
use stored::Missing;
pub use stored::{Probe, ReadSerde, ReadStored, StoredField};

use super::ctx::Ctx;
use super::de::{resolves, EntityDe, Item, List, Presented, Tagged, ValueDe};
use super::names::same;
use super::path::{PlainDe, Segment};
use crate::json::Value;
use crate::schema::{pk_string_ref, All, Entity, EntityDef, NestedField, Object, Schema};
use crate::ByAddress;

/// The reader of entity type `T`, as the derive generates it (held by
/// [`EntityDef::reader`]; reads use it whenever it is set).
///
/// ```
/// # use rdc_core::Entity;
/// #[derive(serde::Deserialize, rdc_core::Entity)]
/// struct User { id: String, name: String }
/// assert!(User::DEF.reader.is_some());
/// ```
pub type ReadFn<T> = for<'r, 'a, 's> fn(&mut EntityReader<'r, 'a>, Slot<'s, T>) -> Result<Filled<'s>, Error>;

/// A field of a struct a generated reader builds: its wire name, and whether
/// it holds a nested schema (`#[entity(nested)]`).
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Member {
    /// The name on the wire.
    pub name: &'static str,
    /// Whether the field holds a nested schema.
    pub nested: bool,
}

/// One stored entity (or object) as a generated reader reads it: its members
/// matched to the struct's fields by [`EntityReader::collect`], then each field
/// read from its member; when that fails, serde reads the whole value again
/// ([`EntityReader::serde`]), so an error is serde's own.
#[doc(hidden)]
pub struct EntityReader<'r, 'a> {
    ctx: &'r Ctx<'a>,
    object: &'a Object,
    nested: Nested<'r>,
    /// Inside an entity already on the path (see `ValueDe::revisit`).
    revisit: bool,
    /// The entity's dependency slot, when the read records fields.
    track: Option<usize>,
    /// What serde reads when the reader's own read fails.
    source: Source<'r, 'a>,
    /// Whether the entity was entered on the read's path (left by `close`).
    entered: bool,
}

/// What a reader reads, as serde would be given it.
#[derive(Clone, Copy)]
enum Source<'r, 'a> {
    /// A stored entity, with its dependency slot.
    Entity { def: &'static EntityDef, pk: &'a str, slot: usize },
    /// A plain object read through its (derived) object schema.
    Object { value: &'a Value, schema: &'r Schema },
}

/// Where the schemas of a reader's nested members are.
#[derive(Clone, Copy)]
enum Nested<'r> {
    /// An entity's nested fields.
    Entity(&'static [NestedField]),
    /// An object schema's members (all required, as `Fields::Named` has them).
    Object(&'r [(String, Schema)]),
}

impl<'r> Nested<'r> {
    /// The schema of member `name`, and whether it is required.
    fn get(self, name: &str) -> Option<(&'r Schema, bool)> {
        match self {
            Nested::Entity(fields) => fields.iter().find(|f| same(f.name, name)).map(|f| (&f.schema, f.required)),
            Nested::Object(fields) => fields.iter().find(|(n, _)| same(n, name)).map(|(_, s)| (s, true)),
        }
    }
}

impl std::fmt::Debug for EntityReader<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntityReader").field("members", &self.object.len()).field("revisit", &self.revisit).finish()
    }
}

impl<'r, 'a> EntityReader<'r, 'a> {
    /// Puts each member that is a field of the struct at the field's index in
    /// `out`. Nested members that do not resolve are left out (the field then
    /// reads as missing), as are optional references inside a cycle. Records
    /// which members the read depends on.
    pub fn collect(&self, fields: &'static [Member], out: &mut [Option<&'a Value>]) {
        let (mut guess, mut read) = (0, 0u64);
        for (position, (name, value)) in self.object.iter().enumerate() {
            let name = name.as_str();
            let (index, field) = match fields.get(guess) {
                Some(field) if same(field.name, name) => (guess, field),
                _ => match fields.iter().enumerate().find(|(_, f)| same(f.name, name)) {
                    Some(found) => found,
                    None => continue,
                },
            };
            guess = index + 1;
            // Positions past 63 always count (see `Dep::Entity`).
            let bit = 1u64.checked_shl(position as u32).unwrap_or(0);
            // (A member without a schema is plain, as serde's path reads it.)
            if let Some((schema, required)) = field.nested.then(|| self.nested.get(name)).flatten() {
                if self.revisit && !required && super::de::is_reference(schema) {
                    continue;
                }
                if !value.is_null() && !resolves(self.ctx, schema, value) {
                    // Left out because of its value: the read depends on it.
                    read |= bit;
                    continue;
                }
            }
            read |= bit;
            if let Some(slot) = out.get_mut(index) {
                *slot = Some(value);
            }
        }
        if let Some(slot) = self.track {
            self.ctx.fields_read(slot, read);
        }
    }

    /// What serde reads of the same value: the reader's answer when its own
    /// read failed (so the error, or whatever serde makes of it, is serde's).
    pub fn serde<T: DeserializeOwned>(&mut self) -> Result<T, Error> {
        let ctx = self.ctx;
        // The failed read's path is not this one's.
        ctx.path.succeeded();
        if self.entered {
            // Serde enters the entity itself.
            ctx.leave();
            self.entered = false;
        }
        match self.source {
            Source::Entity { def, pk, slot } => {
                // As serde's read leaves it when it fails midway: every field counts.
                if self.track.is_some() {
                    ctx.fields_read(slot, u64::MAX);
                }
                T::deserialize(EntityDe { def, pk, object: self.object, slot: Some(slot), ctx })
            }
            Source::Object { value, schema } => {
                T::deserialize(ValueDe { value, schema, ctx, revisit: self.revisit, token: 0 })
            }
        }
    }

    /// Reads a plain member through serde; `None` when it does not fit (the
    /// reader then leaves the whole value to serde, for its error).
    pub fn plain<T: DeserializeOwned>(&self, value: &'a Value) -> Option<T> {
        T::deserialize(PlainDe { value, path: &self.ctx.path, ignored: None }).ok()
    }

    /// Reads nested member `name` through its schema; `None` when that fails.
    pub fn nested<T: DeserializeOwned + 'static>(&self, name: &'static str, value: &'a Value) -> Option<T> {
        let (schema, _) = self.nested.get(name)?;
        read_value::<T>(self.ctx, schema, value, self.revisit).ok()
    }

    /// A field the entity has no member for: `None` inside for an `Option`;
    /// `None` when the field is required (serde then says it is missing).
    pub fn missing<T: DeserializeOwned>(&self, name: &'static str) -> Option<T> {
        T::deserialize(Missing(name)).ok()
    }
}

/// Reads `value` through `schema` into `T`: by `T`'s generated reader when
/// `schema` is an entity of type `T`, by its list reader when `schema` is a
/// list of them (an array, a collection, an `All`) and `T` a `Vec` of them,
/// otherwise through serde.
pub(crate) fn read_value<'a, T: DeserializeOwned + 'static>(
    ctx: &Ctx<'a>,
    schema: &Schema,
    value: &'a Value,
    revisit: bool,
) -> Result<T, Error> {
    let entity = |schema: &Schema| match schema {
        Schema::Entity(def) | Schema::Invalidate(def) => Some(*def),
        _ => None,
    };
    let de = ValueDe { value, schema, ctx, revisit, token: 0 };
    let list_of = match schema {
        // A lazy field's keys, as stored: nothing is looked up.
        Schema::Lazy(_) => return T::deserialize(PlainDe { value, path: &ctx.path, ignored: None }),
        Schema::Entity(def) | Schema::Invalidate(def) => {
            if let Some(read) = reader_of::<T>(def) {
                return owned(|slot| read_entity(ctx, def, value, read, slot));
            }
            None
        }
        Schema::Object(object) => {
            if let (Some(read), Value::Object(map)) = (object.reader.and_then(Reader::<T>::of), value) {
                let mut reader = EntityReader {
                    ctx,
                    object: map,
                    nested: Nested::Object(&object[..]),
                    revisit,
                    track: None,
                    source: Source::Object { value, schema },
                    entered: false,
                };
                return owned(|slot| read(&mut reader, slot));
            }
            None
        }
        Schema::Array(item) => entity(item),
        Schema::Collection(collection) if collection.map().is_none() => entity(&collection.item),
        Schema::All(all) => match **all {
            All::Single(def) => Some(def),
            All::Poly(_) => None,
        },
        _ => None,
    };
    if list_of.is_some() && std::any::TypeId::of::<T>() == std::any::TypeId::of::<Vec<super::Pk>>() {
        // A list's keys (what a list of rows shows): taken from the references.
        if let Presented::List(mut list) = de.presented()? {
            let mut out: Option<T> = None;
            if let Some(slot) = (&mut out as &mut dyn std::any::Any).downcast_mut::<Option<Vec<super::Pk>>>() {
                *slot = Some(read_keys(&mut list)?);
            }
            if let Some(out) = out {
                return Ok(out);
            }
        }
        return T::deserialize(ValueDe { value, schema, ctx, revisit, token: 0 });
    }
    if let Some(read) = list_of.and_then(|def| def.list_reader).and_then(|r| r.downcast_ref::<ReadListFn<T>>()) {
        if let Presented::List(list) = de.presented()? {
            return read(&mut ListReader { list });
        }
        return T::deserialize(ValueDe { value, schema, ctx, revisit, token: 0 });
    }
    T::deserialize(de)
}

/// The stored entity `value` refers to, read by `read`.
fn read_entity<'a, 's, T>(
    ctx: &Ctx<'a>,
    def: &'static EntityDef,
    value: &'a Value,
    read: ReadFn<T>,
    into: Slot<'s, T>,
) -> Result<Filled<'s>, Error> {
    let (pk, object, slot) = stored(ctx, def, value)?;
    run(ctx, def, pk, object, slot, read, into)
}

/// The stored entity `value` refers to: its pk, object and dependency slot.
fn stored<'a>(ctx: &Ctx<'a>, def: &'static EntityDef, value: &'a Value) -> Result<(&'a str, &'a Object, usize), Error> {
    let pk = pk_string_ref(value).ok_or_else(|| {
        de::Error::custom(format!("expected a {} reference, found {}", def.key, crate::json_text(value)))
    })?;
    ctx.lookup_fields(def, &pk, true)
        .ok_or_else(|| de::Error::custom(format!("{} {pk:?} is not in the store", def.key)))
}

/// Entity `def`/`pk`, stored as `object` with dependency `slot`, read by `read`
/// into `into`.
#[inline]
fn run<'a, 's, T>(
    ctx: &Ctx<'a>,
    def: &'static EntityDef,
    pk: &'a str,
    object: &'a Object,
    slot: usize,
    read: ReadFn<T>,
    into: Slot<'s, T>,
) -> Result<Filled<'s>, Error> {
    let mut reader = open(ctx, def, pk, object, slot)?;
    let out = read(&mut reader, into);
    close(&reader);
    out
}

/// The reader of entity `def`/`pk` (entered on the read's path when it can
/// lead further: an entity with no nested fields has no cycle or depth to track).
fn open<'r, 'a>(
    ctx: &'r Ctx<'a>,
    def: &'static EntityDef,
    pk: &'a str,
    object: &'a Object,
    slot: usize,
) -> Result<EntityReader<'r, 'a>, Error> {
    let nested = (def.nested)();
    let entered = !nested.is_empty();
    let revisit = if entered { ctx.enter(def.key, pk).map_err(de::Error::custom)? } else { false };
    Ok(EntityReader {
        ctx,
        object,
        nested: Nested::Entity(nested),
        revisit,
        track: ctx.recording.on.then_some(slot),
        source: Source::Entity { def, pk, slot },
        entered,
    })
}

/// Leaves what [`open`] entered.
fn close(reader: &EntityReader<'_, '_>) {
    if reader.entered {
        reader.ctx.leave();
    }
}

/// The list reader of entity type `T`'s lists (`T` a `Vec` of the entity).
///
/// ```
/// # use rdc_core::Entity;
/// #[derive(serde::Deserialize, rdc_core::Entity)]
/// struct User { id: String, name: String }
/// assert!(User::DEF.list_reader.is_some());
/// ```
pub type ReadListFn<T> = for<'r, 'a> fn(&mut ListReader<'r, 'a>) -> Result<T, Error>;

/// The items of a list of entities, as [`read_list`] walks them.
#[doc(hidden)]
pub struct ListReader<'r, 'a> {
    list: List<'a, 'r, 'r>,
}

impl std::fmt::Debug for ListReader<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListReader").field("left", &self.list.size_hint()).finish()
    }
}

/// Reads a list of entities of type `E`, each by `E`'s generated reader (what
/// [`ReadListFn`]s the derive generates are).
#[doc(hidden)]
pub fn read_list<E: Entity>(reader: &mut ListReader<'_, '_>) -> Result<Vec<E>, Error> {
    let read = reader_of::<E>(E::DEF);
    let list = &mut reader.list;
    let ctx = list.ctx();
    // At most a mebibyte up front, as serde's `Vec` does (rows left out are not known yet).
    let mut out = Vec::with_capacity(list.size_hint().min((1 << 20) / std::mem::size_of::<E>().max(1)));
    while let Some(item) = list.next_item() {
        // Each item is built in the list's memory (see `Slot`).
        let (index, done) = match (item, read) {
            (Item::Value(i, item), Some(read)) => match item.schema {
                Schema::Entity(def) | Schema::Invalidate(def) => {
                    (i, pushed(&mut out, |slot| read_entity(ctx, def, item.value, read, slot)))
                }
                _ => (i, E::deserialize(item).map(|value| out.push(value))),
            },
            (Item::Value(i, item), None) => (i, E::deserialize(item).map(|value| out.push(value))),
            (Item::Row(i, row, false, _), Some(read)) => {
                (i, pushed(&mut out, |slot| run(ctx, row.def, row.pk, row.object, row.slot.unwrap_or(0), read, slot)))
            }
            (Item::Row(i, row, false, _), None) => (i, E::deserialize(row).map(|value| out.push(value))),
            (Item::Row(i, row, true, _), _) => (i, E::deserialize(Tagged(row)).map(|value| out.push(value))),
        };
        ctx.path.at(Segment::Index(index), done)?;
    }
    Ok(out)
}

/// The keys of a list of entities, as `Vec<Pk>`'s `Deserialize` reads them
/// (without the visitor: the key of each valid item's reference, or row).
fn read_keys(list: &mut List<'_, '_, '_>) -> Result<Vec<super::Pk>, Error> {
    let ctx = list.ctx();
    let mut out = Vec::with_capacity(list.size_hint());
    while let Some(item) = list.next_item() {
        let key = match item {
            Item::Value(i, item) => match (item.schema, item.value) {
                // The reference's own text, shared (as `Pk`'s `Deserialize` takes it).
                (Schema::Entity(_) | Schema::Invalidate(_), Value::String(text)) => super::Pk(text.clone()),
                _ => ctx.path.at(Segment::Index(i), <super::Pk as serde::Deserialize>::deserialize(item))?,
            },
            // A row of an `All`: its key as stored, shared.
            Item::Row(_, _, _, key) => super::Pk(key.clone()),
        };
        out.push(key);
    }
    Ok(out)
}

thread_local! {
    /// The derived object schemas being built on this thread (by the address of
    /// their cell): a struct that contains itself gets a `Cyclic` schema there.
    static BUILDING: std::cell::RefCell<Vec<ByAddress<std::sync::OnceLock<Schema>>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The schema `#[derive(Schema)]` generates: built once into `cell` by
/// `build`; while it is being built, a struct met again (it contains itself,
/// directly or through others) is `Schema::Cyclic(again)`.
///
/// ```
/// use std::sync::OnceLock;
/// use rdc_core::Schema;
/// static CELL: OnceLock<Schema> = OnceLock::new();
/// fn schema() -> Schema {
///     rdc_core::__private::object_schema(&CELL, || Schema::object([("child", schema())]), schema)
/// }
/// assert_eq!(format!("{:?}", schema()), r#"{"child": Cyclic(..)}"#);
/// ```
#[doc(hidden)]
pub fn object_schema(
    cell: &'static std::sync::OnceLock<Schema>,
    build: fn() -> Schema,
    again: fn() -> Schema,
) -> Schema {
    if let Some(schema) = cell.get() {
        return schema.clone();
    }
    let address = ByAddress(cell);
    if BUILDING.with(|b| b.borrow().contains(&address)) {
        return Schema::Cyclic(again);
    }
    BUILDING.with(|b| b.borrow_mut().push(address));
    let schema = build();
    BUILDING.with(|b| b.borrow_mut().retain(|a| *a != address));
    cell.get_or_init(|| schema).clone()
}
