//! Denormalization as a serde `Deserializer`: the user's types are built straight
//! from the normalized store, resolving references as serde asks for fields, with
//! no intermediate JSON tree.

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor};
use serde_json::Error;

use crate::json::Value;

mod list;
mod members;

pub(crate) use list::{is_reference, resolves, AllRows, Item, Items, List};
use members::Fields;
pub(crate) use members::Members;

use super::ctx::Ctx;
use super::names::same;
use super::path::{PlainDe, Segment};
use super::pk::PK_MARKER;
use super::prior::ListSource;
use crate::schema::{cell_pk, pk_string_ref, All, EntityDef, NestedField, Object, Place, ScalarSchema, Schema};
use crate::store::StoredEntity;

/// A normalized value read through its schema.
pub(crate) struct ValueDe<'a, 's, 'c> {
    pub value: &'a Value,
    pub schema: &'s Schema,
    pub ctx: &'c Ctx<'a>,
    /// Inside an entity already on the path: lists read empty (breaks cycles).
    pub revisit: bool,
    /// The token of the entity field this value is, or 0 (see `Members`).
    pub token: u32,
}

impl<'a, 's, 'c> ValueDe<'a, 's, 'c> {
    fn entity(&self, def: &'static EntityDef, value: &'a Value) -> Result<EntityDe<'a, 'c>, Error> {
        let pk = pk_string_ref(value).ok_or_else(|| {
            de::Error::custom(format!("expected a {} reference, found {}", def.key, crate::json_text(value)))
        })?;
        let (pk, object, slot) = self
            .ctx
            .lookup_fields(def, &pk, true)
            .ok_or_else(|| de::Error::custom(format!("{} {pk:?} is not in the store", def.key)))?;
        Ok(EntityDe { def, pk, object, slot: Some(slot), ctx: self.ctx })
    }

    /// What scalar `value` (where an entity's cells are) reads as in the
    /// read's lens, recording the cell as a dependency.
    fn scalar(&self, scalar: &ScalarSchema) -> Cell<'a> {
        let key = scalar.scalar().key();
        let Some(cells) = pk_string_ref(self.value) else {
            return Cell::Missing(format!("expected where `{key}` cells are, found {}", crate::json_text(self.value)));
        };
        let Some(lens) = self.ctx.lens(scalar.scalar()) else {
            return Cell::Missing(format!("no `{key}` lens: the read has no args that give one"));
        };
        let Some((_, cell)) = self.ctx.lookup(scalar.scalar().def, &cell_pk(&cells, &lens)) else {
            return Cell::Missing(format!("no `{key}` cell of {cells} in lens {lens:?}"));
        };
        match &scalar.place {
            Place::Columns(_) => Cell::Columns(cell),
            Place::Field { name, .. } => match cell.get(name) {
                Some(value) => Cell::Value(value),
                None => Cell::Missing(format!("no `{name}` in the `{key}` cell of {cells} in lens {lens:?}")),
            },
        }
    }
}

/// A scalar in the read's lens (see [`ValueDe::scalar`]).
enum Cell<'a> {
    /// A field's value.
    Value(&'a Value),
    /// An entity's cell (what a columns value reads as).
    Columns(&'a Object),
    /// None: why (an `Option` reads `None`, others fail with it).
    Missing(String),
}

/// What a normalized value presents to serde, worked out without the visitor's
/// type (so this code exists once, not once per type read).
pub(crate) enum Presented<'a, 's, 'c> {
    Entity(EntityDe<'a, 'c>),
    /// An entity as the enum variant named after its type key.
    Tagged(EntityDe<'a, 'c>),
    List(List<'a, 's, 'c>),
    Map(Members<'a, 's, 'c>),
    /// JSON as stored (no schema applies, or an unmapped union member).
    Plain(&'a Value),
    /// Through a schema built on use (resolved per read).
    Cyclic,
}

/// An empty object, for maps read empty inside a cycle.
static EMPTY: std::sync::LazyLock<Object> = std::sync::LazyLock::new(Object::new);

impl<'a, 's, 'c> ValueDe<'a, 's, 'c> {
    pub(crate) fn presented(self) -> Result<Presented<'a, 's, 'c>, Error> {
        let ctx = self.ctx;
        let value = self.value;
        let members = |map: &'a Object, fields, revisit| Members {
            iter: map.iter(),
            fields,
            pending: None,
            ctx,
            revisit,
            track: None,
            position: 0,
            read: 0,
        };
        let items = |items: &'a [Value], schema| {
            List::Items(Items { items: items.iter().enumerate(), schema, ctx, tracked: false })
        };
        // The read's own list (not one nested in what it reads) keeps its items'
        // validity verdicts for the next read of the same memo entry.
        let tracked = |items: &'a [Value], schema, source: Option<ListSource>| match source {
            Some(source) => {
                ctx.track_list(source, items.len());
                let tracked = ctx.keeps_verdicts(schema);
                List::Items(Items { items: items.iter().enumerate(), schema, ctx, tracked })
            }
            None => List::Items(Items { items: items.iter().enumerate(), schema, ctx, tracked: false }),
        };
        Ok(match self.schema {
            Schema::Entity(def) | Schema::Invalidate(def) => Presented::Entity(self.entity(def, value)?),
            Schema::Union(poly) => match poly.reference(value) {
                Some((def, pk)) => {
                    let (pk, object, slot) = ctx
                        .lookup_fields(def, &pk, true)
                        .ok_or_else(|| de::Error::custom(format!("{} {pk:?} is not in the store", def.key)))?;
                    Presented::Tagged(EntityDe { def, pk, object, slot: Some(slot), ctx })
                }
                None => Presented::Plain(value),
            },
            Schema::Array(inner) => match value {
                Value::Array(list) if !self.revisit && ctx.is_root(value) => {
                    Presented::List(tracked(list, inner, ctx.reuse.result.clone().map(ListSource::Result)))
                }
                Value::Array(list) if !self.revisit => Presented::List(items(list, inner)),
                Value::Array(_) => Presented::List(items(&[], inner)),
                other => Presented::Plain(other),
            },
            Schema::Values(inner) => match value {
                Value::Object(map) if !self.revisit => Presented::Map(members(map, Fields::All(inner), false)),
                Value::Object(_) => Presented::Map(members(&EMPTY, Fields::All(inner), false)),
                other => Presented::Plain(other),
            },
            Schema::Object(fields) => match value {
                Value::Object(map) => Presented::Map(members(map, Fields::Named(&fields[..]), self.revisit)),
                other => Presented::Plain(other),
            },
            Schema::CollectionEdit(collection, edit) => {
                ValueDe { value, schema: collection.edited(*edit), ctx, revisit: self.revisit, token: 0 }.presented()?
            }
            Schema::Collection(collection) if collection.map().is_some() => {
                let stored = pk_string_ref(value)
                    .and_then(|pk| ctx.lookup(collection.def, &pk))
                    .and_then(|(_, row)| row.get("items"))
                    .and_then(Value::as_object);
                match stored {
                    Some(map) if !self.revisit => Presented::Map(members(map, Fields::All(&collection.item), false)),
                    _ => Presented::Map(members(&EMPTY, Fields::All(&collection.item), false)),
                }
            }
            Schema::Collection(collection) => {
                let pk = pk_string_ref(value);
                let stored = pk
                    .as_deref()
                    .and_then(|pk| ctx.lookup(collection.def, pk))
                    .and_then(|(_, row)| row.get("items"))
                    .and_then(Value::as_array);
                match stored {
                    Some(list) if !self.revisit && ctx.is_root(value) => {
                        let row = pk.as_deref().and_then(|pk| ctx.row_object(collection.def, pk));
                        Presented::List(tracked(list, &collection.item, row.map(ListSource::row)))
                    }
                    Some(list) if !self.revisit => Presented::List(items(list, &collection.item)),
                    _ => Presented::List(items(&[], &collection.item)),
                }
            }
            Schema::All(all) => {
                let rows = if self.revisit { Vec::new() } else { ctx.all_rows(all).unwrap_or_default() };
                Presented::List(List::Rows(AllRows { rows: rows.into_iter(), read: 0, all, ctx }))
            }
            Schema::Cyclic(_) => Presented::Cyclic,
            // Its keys, as stored: nothing is looked up.
            Schema::Lazy(_) => Presented::Plain(value),
            Schema::Scalar(scalar) => match self.scalar(scalar) {
                Cell::Value(value) => Presented::Plain(value),
                Cell::Columns(cell) => Presented::Map(members(cell, Fields::Named(&[]), false)),
                Cell::Missing(why) => return Err(de::Error::custom(why)),
            },
        })
    }
}

/// Deserializer methods for a type asked for: see [`ValueDe::typed`].
macro_rules! typed_hints {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
                self.typed(visitor)
            }
        )*
    };
}

impl<'a, 's, 'c> ValueDe<'a, 's, 'c> {
    /// A read of a type asked for: a scalar with no cell fails saying why
    /// (only a read as JSON, through `deserialize_any`, takes it as `null`).
    fn typed<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        if let Schema::Scalar(scalar) = self.schema {
            if let Cell::Missing(why) = self.scalar(scalar) {
                return Err(de::Error::custom(why));
            }
        }
        self.deserialize_any(visitor)
    }
}

impl<'a, 's, 'c> Deserializer<'a> for ValueDe<'a, 's, 'c> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        let (value, schema, ctx, revisit) = (self.value, self.schema, self.ctx, self.revisit);
        // The hot path (every entity reference) skips building a `Presented`.
        if let Schema::Entity(def) | Schema::Invalidate(def) = schema {
            return self.entity(def, value)?.deserialize_any(visitor);
        }
        // Read as JSON (no type asked for), a scalar with no cell is `null`.
        if let Schema::Scalar(scalar) = schema {
            if let Cell::Missing(_) = self.scalar(scalar) {
                return visitor.visit_unit();
            }
        }
        match self.presented()? {
            Presented::Entity(entity) => entity.deserialize_any(visitor),
            Presented::Tagged(entity) => visitor.visit_map(OneEntry(Some(entity))),
            Presented::List(list) => visitor.visit_seq(list),
            Presented::Map(members) => visitor.visit_map(members),
            Presented::Plain(value) => super::path::visit_plain(value, &ctx.path, visitor),
            Presented::Cyclic => {
                let resolved = schema.resolved().into_owned();
                ValueDe { value, schema: &resolved, ctx, revisit, token: 0 }.deserialize_any(visitor)
            }
        }
    }

    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        if let Schema::Scalar(scalar) = self.schema {
            // No lens, no cell or a `null` value: `None`.
            if matches!(self.scalar(scalar), Cell::Missing(_) | Cell::Value(Value::Null)) {
                return visitor.visit_none();
            }
        }
        if self.value.is_null() && !matches!(self.schema, Schema::All(_)) {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(self, name: &'static str, visitor: V) -> Result<V::Value, Error> {
        if name == PK_MARKER {
            // A `Pk`: the key of the reference, without reading the entity.
            let reference = match self.schema {
                Schema::Entity(_) | Schema::Invalidate(_) => {
                    // The stored reference's text, shared rather than copied.
                    if let Value::String(text) = self.value {
                        return crate::json::hand_over(text, || visitor.visit_str(text.as_str()));
                    }
                    pk_string_ref(self.value)
                }
                Schema::Union(poly) => poly.reference(self.value).map(|(_, pk)| pk.into()),
                Schema::CollectionEdit(c, edit) => {
                    let item = ValueDe { schema: c.edited(*edit), ..self };
                    return item.deserialize_newtype_struct(name, visitor);
                }
                Schema::Cyclic(_) => {
                    let resolved = self.schema.resolved().into_owned();
                    return ValueDe { schema: &resolved, ..self }.deserialize_newtype_struct(name, visitor);
                }
                _ => None,
            };
            if let Some(pk) = reference {
                return visitor.visit_str(&pk);
            }
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'a>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let ctx = self.ctx;
        match self.schema {
            Schema::Union(poly) => match poly.reference(self.value) {
                Some((def, pk)) => {
                    let (pk, object, slot) = ctx
                        .lookup_fields(def, &pk, true)
                        .ok_or_else(|| de::Error::custom(format!("{} {pk:?} is not in the store", def.key)))?;
                    visitor.visit_enum(Tagged(EntityDe { def, pk, object, slot: Some(slot), ctx }))
                }
                None => self.value.deserialize_enum(name, variants, visitor),
            },
            _ => self.deserialize_any(visitor),
        }
    }

    /// A field the type does not read: nothing is looked up, so the read does
    /// not depend on it (a list read as ids is not woken by its items' authors).
    fn deserialize_ignored_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.token != 0 {
            self.ctx.ignored.set(self.token);
        }
        visitor.visit_unit()
    }

    typed_hints! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128 deserialize_f32
        deserialize_f64 deserialize_char deserialize_str deserialize_string deserialize_bytes
        deserialize_byte_buf deserialize_unit deserialize_seq deserialize_map deserialize_identifier
    }

    fn deserialize_unit_struct<V: Visitor<'a>>(self, _: &'static str, visitor: V) -> Result<V::Value, Error> {
        self.typed(visitor)
    }

    fn deserialize_tuple<V: Visitor<'a>>(self, _: usize, visitor: V) -> Result<V::Value, Error> {
        self.typed(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'a>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.typed(visitor)
    }

    fn deserialize_struct<V: Visitor<'a>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.typed(visitor)
    }
}

/// One stored entity, read as a map of its fields.
pub(crate) struct EntityDe<'a, 'c> {
    pub def: &'static EntityDef,
    pub pk: &'a str,
    pub object: &'a Object,
    /// Its dependency, to mark the fields read (see `Ctx::lookup_fields`).
    pub slot: Option<usize>,
    pub ctx: &'c Ctx<'a>,
}

impl<'a, 'c> Deserializer<'a> for EntityDe<'a, 'c> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        // An entity with no nested fields leads nowhere: no cycle or depth to track.
        let nested = (self.def.nested)();
        let revisit =
            if nested.is_empty() { false } else { self.ctx.enter(self.def.key, self.pk).map_err(de::Error::custom)? };
        let fields = Fields::Nested(nested);
        let out = visitor.visit_map(Members {
            iter: self.object.iter(),
            fields,
            pending: None,
            ctx: self.ctx,
            revisit,
            track: self.slot.filter(|_| self.ctx.recording.on).map(|slot| (slot, self.ctx.token())),
            read: 0,
            position: 0,
        });
        if !nested.is_empty() {
            self.ctx.leave();
        }
        out
    }

    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(self, name: &'static str, visitor: V) -> Result<V::Value, Error> {
        if name == PK_MARKER {
            return visitor.visit_borrowed_str(self.pk);
        }
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'a>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// An entity presented as the enum variant named after its type key
/// (`FeedItem::Link(..)`), for unions and polymorphic `All`.
pub(crate) struct Tagged<'a, 'c>(pub EntityDe<'a, 'c>);

impl<'a, 'c> Deserializer<'a> for Tagged<'a, 'c> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_map(OneEntry(Some(self.0)))
    }

    fn deserialize_enum<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(self, name: &'static str, visitor: V) -> Result<V::Value, Error> {
        if name == PK_MARKER {
            return visitor.visit_borrowed_str(self.0.pk);
        }
        self.deserialize_any(visitor)
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'a>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'a, 'c> EnumAccess<'a> for Tagged<'a, 'c> {
    type Error = Error;
    type Variant = EntityDe<'a, 'c>;

    fn variant_seed<S: DeserializeSeed<'a>>(self, seed: S) -> Result<(S::Value, Self::Variant), Error> {
        let variant = seed.deserialize(BorrowedStrDeserializer::<Error>::new(self.0.def.key))?;
        Ok((variant, self.0))
    }
}

impl<'a, 'c> VariantAccess<'a> for EntityDe<'a, 'c> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Err(de::Error::custom(format!("{} is an entity, not a unit variant", self.def.key)))
    }

    fn newtype_variant_seed<S: DeserializeSeed<'a>>(self, seed: S) -> Result<S::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'a>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_any(visitor)
    }

    fn struct_variant<V: Visitor<'a>>(self, _fields: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        self.deserialize_any(visitor)
    }
}

/// `{ "<type key>": entity }`, the externally tagged form.
struct OneEntry<'a, 'c>(Option<EntityDe<'a, 'c>>);

impl<'a, 'c> MapAccess<'a> for OneEntry<'a, 'c> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'a>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        match &self.0 {
            Some(entity) => seed.deserialize(BorrowedStrDeserializer::<Error>::new(entity.def.key)).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'a>>(&mut self, seed: S) -> Result<S::Value, Error> {
        match self.0.take() {
            Some(entity) => seed.deserialize(entity),
            None => Err(de::Error::custom("value requested before key")),
        }
    }
}
