//! Schemas: how a response's shape maps onto entities.
//!
//! A [`Schema`] is a cheap-to-clone value. Entities come from [`Entity::schema`];
//! the others from the constructors here and in [`All`] and [`Union`].

mod all;
mod collection;
mod entity;
mod holds;
mod lazy;
mod meta;
mod polymorphic;
mod scalar;
mod typed;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

pub use all::All;
pub use collection::{Collection, ListEdit};
pub use lazy::{assert_lazy_keys, Lazy, LazyKeys, LazyQuery};
pub use meta::{EntityMeta, Millis};

pub(crate) use collection::{args_key, join_pages, same_arg};
pub use entity::{
    canonical_text, composite_pk, json_text, pk_string, Entity, EntityDef, FieldError, Found, NestedField, Object,
};
pub(crate) use entity::{integer_text, pk_string_ref};
pub use polymorphic::{entry, ChooseFn, Chooser, Polymorphic, Union};
pub(crate) use scalar::{cell_pk, cells_of, Place};
pub use scalar::{Scalar, ScalarSchema};
pub use typed::SchemaOf;

/// The shape of a response, or of a nested field.
///
/// ```
/// use rdc_core::{Entity, Schema};
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
/// let users = Schema::array(User::schema());
/// let page = Schema::object([("results", users.clone())]);
/// let by_id = Schema::values(User::schema());
/// # let _ = (page, by_id);
/// ```
#[derive(Clone)]
pub enum Schema {
    /// One entity, stored by type key and primary key.
    Entity(&'static EntityDef),
    /// A list, each item of the inner schema (an object: its values, in order).
    Array(Arc<Schema>),
    /// An object whose named members have schemas; other members pass through.
    Object(Arc<ObjectSchema>),
    /// A map whose every value has the inner schema (`null` members are dropped).
    Values(Arc<Schema>),
    /// One entity of several types, chosen per value.
    Union(Arc<Polymorphic>),
    /// Every cached entity of a type (or of several types).
    All(Arc<All>),
    /// Deletes the entity (or pk) it is given.
    Invalidate(&'static EntityDef),
    /// Lists keyed by their request args, which writes can grow or shrink.
    Collection(Arc<Collection>),
    /// Edits the lists of a collection with the value (an item): adds it to
    /// each matching list, takes it out of every list, or moves it to the
    /// lists its fields now match. Made by [`Collection::push`],
    /// [`Collection::unshift`], [`Collection::remove`] and [`Collection::moving`].
    CollectionEdit(Arc<Collection>, ListEdit),
    /// A schema built on first use: for circular definitions between schemas.
    Cyclic(fn() -> Schema),
    /// Normalized through the inner schema, read as stored (its keys): see [`Lazy`].
    Lazy(Arc<Schema>),
    /// A lens-dependent field of an entity, or the columns of one lens bound
    /// to an entity type: made by [`Scalar::field`] (and
    /// `#[entity(scalar = "..")]`) and [`Scalar::bound_to`].
    Scalar(Arc<ScalarSchema>),
}

/// The members of an [`Schema::Object`] that have schemas (it derefs to
/// them, by wire name), and, when the schema was derived from a struct
/// (`#[derive(Schema)]`), that struct's generated reader.
///
/// ```
/// let schema = rdc_core::Schema::object([("id", rdc_core::Schema::array(rdc_core::Schema::object::<&str>([])))]);
/// let rdc_core::Schema::Object(object) = schema else { unreachable!() };
/// assert_eq!(object[0].0, "id");
/// ```
#[derive(Debug, Clone)]
pub struct ObjectSchema {
    fields: Vec<(String, Schema)>,
    /// Which members `null` may stand for (see [`ObjectSchema::null_member`]).
    nulls: Nulls,
    pub(crate) reader: Option<&'static (dyn std::any::Any + Send + Sync)>,
}

/// Which members of an object schema `null` may stand for.
#[derive(Debug, Clone)]
enum Nulls {
    /// Any but a list ([`Schema::object`]: no Rust type is known; a list
    /// field would not read `null`).
    NoList,
    /// Per member, in order, whether it is required (a derived struct's
    /// field that is no `Option`): a required one takes no `null`.
    Required(Vec<bool>),
}

/// What `null` may stand for as a member of an object (see
/// [`ObjectSchema::null_member`] and [`NestedField::required`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NullMember {
    /// Anything: an optional field.
    Allowed,
    /// Nothing: a required field.
    Refused,
    /// Anything but a list.
    NoList,
}

impl ObjectSchema {
    /// What `null` may stand for as member `i`.
    pub(crate) fn null_member(&self, i: usize) -> NullMember {
        match &self.nulls {
            Nulls::NoList => NullMember::NoList,
            Nulls::Required(required) => match required.get(i) {
                Some(true) => NullMember::Refused,
                _ => NullMember::Allowed,
            },
        }
    }

    /// The generated reader of the struct the schema was derived from, if any
    /// (a hidden `Reader` of it).
    #[doc(hidden)]
    pub fn reader(&self) -> Option<&'static (dyn std::any::Any + Send + Sync)> {
        self.reader
    }
}

impl std::ops::Deref for ObjectSchema {
    type Target = [(String, Schema)];
    fn deref(&self) -> &Self::Target {
        &self.fields
    }
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schema::Entity(def) => write!(f, "Entity({})", def.key),
            Schema::Array(inner) => f.debug_tuple("Array").field(inner).finish(),
            Schema::Object(fields) => f.debug_map().entries(fields.iter().map(|(k, v)| (k, v))).finish(),
            Schema::Values(inner) => f.debug_tuple("Values").field(inner).finish(),
            Schema::Union(poly) => f.debug_tuple("Union").field(poly).finish(),
            Schema::All(all) => f.debug_tuple("All").field(all).finish(),
            Schema::Invalidate(def) => write!(f, "Invalidate({})", def.key),
            Schema::Collection(c) => write!(f, "Collection({})", c.name()),
            Schema::CollectionEdit(c, edit) => write!(f, "{edit:?}({})", c.name()),
            Schema::Cyclic(_) => f.write_str("Cyclic(..)"),
            Schema::Lazy(inner) => f.debug_tuple("Lazy").field(inner).finish(),
            Schema::Scalar(scalar) => write!(f, "{scalar}"),
        }
    }
}

impl Schema {
    /// A list of `inner`. An object in its place is the list of its values,
    /// in order (as data-client's `Array` takes it).
    ///
    /// ```
    /// use rdc_core::{json, Entity, Schema, State, WriteMeta};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
    /// let mut state = State::default();
    /// let body = json!({"ada": {"id": "1"}, "bo": {"id": "2"}});
    /// state.write_result("GET /u", &Schema::array(User::schema()), body, &json!(null), WriteMeta::at(0, 1000))?;
    /// assert_eq!(*state.result("GET /u").unwrap().value, json!(["1", "2"]));
    /// # Ok::<(), rdc_core::NormalizeError>(())
    /// ```
    pub fn array(inner: impl Into<Schema>) -> Schema {
        Schema::Array(Arc::new(inner.into()))
    }

    /// An object with schema'd members; members not named pass through as they are.
    /// For a struct, `#[derive(Schema)]` builds it from the `#[entity(nested)]`
    /// fields (and reads the struct with a generated reader):
    ///
    /// ```
    /// use rdc_core::{json, Entity, MemoCache, Schema, State, WriteMeta};
    /// #[derive(Debug, serde::Deserialize, Entity)]
    /// struct User { id: String, name: String }
    /// #[derive(Debug, serde::Deserialize, Schema)]
    /// struct Page { #[entity(nested)] results: Vec<User>, next: Option<String> }
    ///
    /// assert_eq!(format!("{:?}", Page::schema()), format!("{:?}", Schema::object([("results", Schema::array(User::schema()))])));
    /// let mut state = State::default();
    /// let page = json!({"results": [{"id": "1", "name": "Ada"}], "next": "/p/2"});
    /// state.write_result("GET /p", &Page::schema(), page, &json!(null), WriteMeta::at(0, 60_000)).unwrap();
    /// let read = MemoCache::default().read_result::<Page>(&state, "GET /p", &Page::schema()).unwrap().unwrap();
    /// assert_eq!((read.results[0].name.as_str(), read.next.as_deref()), ("Ada", Some("/p/2")));
    /// ```
    pub fn object<K: Into<String>>(fields: impl IntoIterator<Item = (K, Schema)>) -> Schema {
        let fields = fields.into_iter().map(|(k, s)| (k.into(), s)).collect();
        Schema::Object(Arc::new(ObjectSchema { fields, nulls: Nulls::NoList, reader: None }))
    }

    /// The object schema `#[derive(Schema)]` builds: its nested `fields`, and
    /// the reader of the struct (a hidden `Reader` of it) its values are read
    /// into. `null` is refused for a required field (one that is no `Option`),
    /// as for an entity's nested fields.
    ///
    /// ```
    /// use rdc_core::{json, Entity, NestedField, Schema, State, WriteMeta};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
    /// let page = Schema::derived_object(
    ///     vec![
    ///         NestedField { name: "results", schema: Schema::array(User::schema()), required: true },
    ///         NestedField { name: "previous", schema: Schema::array(User::schema()), required: false },
    ///     ],
    ///     None,
    /// );
    /// let mut state = State::default();
    /// let (args, meta) = (json!(null), WriteMeta::at(0, 1000));
    /// assert!(state.write_result("GET /p", &page, json!({"results": [], "previous": null}), &args, meta).is_ok());
    /// let err = state.write_result("GET /p", &page, json!({"results": null}), &args, meta).unwrap_err();
    /// assert_eq!(err.to_string(), "expected an array at results, found null");
    /// ```
    #[doc(hidden)]
    pub fn derived_object(
        fields: Vec<NestedField>,
        reader: Option<&'static (dyn std::any::Any + Send + Sync)>,
    ) -> Schema {
        let required = fields.iter().map(|f| f.required).collect();
        let fields = fields.into_iter().map(|f| (f.name.to_owned(), f.schema)).collect();
        Schema::Object(Arc::new(ObjectSchema { fields, nulls: Nulls::Required(required), reader }))
    }

    /// A map (string keys) whose every value is `inner`. A `null` member is
    /// dropped (as data-client does), so the map reads as entities.
    ///
    /// ```
    /// use rdc_core::{json, Entity, Schema, State, WriteMeta};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
    /// let mut state = State::default();
    /// let body = json!({"ada": {"id": "1"}, "bo": null});
    /// state.write_result("GET /u", &Schema::values(User::schema()), body, &json!(null), WriteMeta::at(0, 1000))?;
    /// assert_eq!(*state.result("GET /u").unwrap().value, json!({"ada": "1"}));
    /// # Ok::<(), rdc_core::NormalizeError>(())
    /// ```
    pub fn values(inner: impl Into<Schema>) -> Schema {
        Schema::Values(Arc::new(inner.into()))
    }

    /// Deletes entities of type `E`: the value normalized is the entity (or its pk).
    pub fn invalidate<E: Entity>() -> Schema {
        Schema::Invalidate(E::DEF)
    }

    /// Resolves `Cyclic` wrappers.
    pub(crate) fn resolved(&self) -> std::borrow::Cow<'_, Schema> {
        match self {
            Schema::Cyclic(make) => {
                let mut schema = make();
                while let Schema::Cyclic(next) = schema {
                    schema = next();
                }
                std::borrow::Cow::Owned(schema)
            }
            other => std::borrow::Cow::Borrowed(other),
        }
    }
}

/// Types that know their own schema, so `#[entity(nested)]` fields can be typed
/// naturally: an entity, `Vec<E>`, `Option<E>`, `Box<E>`, `Arc<E>`, maps of `E`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no schema to normalize it with",
    label = "no schema",
    note = "derive `Entity` (an entity) or `Schema` (a struct holding entities) for it, or read it as sent, without a schema (`returns = {Self}` in `rest!`)"
)]
pub trait HasSchema {
    /// The schema values of this type are normalized with.
    fn schema() -> Schema;
    /// Whether a missing value is acceptable (true only for `Option`).
    const OPTIONAL: bool = false;
}

impl<T: HasSchema> HasSchema for Vec<T> {
    fn schema() -> Schema {
        Schema::array(T::schema())
    }
}

impl<T: HasSchema> HasSchema for Option<T> {
    fn schema() -> Schema {
        T::schema()
    }
    const OPTIONAL: bool = true;
}

impl<T: HasSchema> HasSchema for Box<T> {
    fn schema() -> Schema {
        T::schema()
    }
}

impl<T: HasSchema> HasSchema for Arc<T> {
    fn schema() -> Schema {
        T::schema()
    }
}

impl<T: HasSchema> HasSchema for HashMap<String, T> {
    fn schema() -> Schema {
        Schema::values(T::schema())
    }
}

impl<T: HasSchema> HasSchema for BTreeMap<String, T> {
    fn schema() -> Schema {
        Schema::values(T::schema())
    }
}
