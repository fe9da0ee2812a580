//! `Lazy` (after data-client's): a field normalized through its schema as
//! usual but read as its keys; [`LazyQuery`] reads those keys' entities when
//! asked, so the parent's read neither follows nor depends on them.

use std::any::TypeId;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;

use super::{args_key, HasSchema, Schema, SchemaOf};
use crate::error::ReadError;
use crate::json::Value;
use crate::read::MemoCache;
#[cfg(doc)]
use crate::read::Pk;
use crate::store::State;

/// A field whose entities are stored as usual but not read with the parent:
/// the parent reads the field's keys as they are stored (a [`Pk`], a
/// `Vec<Pk>`...), and [`Lazy::query`] reads the entities from those keys.
/// A change to those entities neither re-reads nor wakes the parent.
/// `T` is what the inner schema reads as (`Vec<Building>`). On a derived
/// entity, `#[entity(lazy = "Vec<Building>")]` makes a field's schema
/// `Lazy::<Vec<Building>>::of()` and checks its type holds the keys
/// ([`LazyKeys`]).
///
/// ```
/// use rdc_core::{json, Entity, Lazy, MemoCache, Pk, State, WriteMeta};
/// #[derive(Debug, serde::Deserialize, Entity)]
/// struct Building { id: String, name: String }
/// #[derive(Debug, serde::Deserialize, Entity)]
/// struct Department { id: String, #[entity(lazy = "Vec<Building>")] buildings: Vec<Pk> }
///
/// let mut state = State::default();
/// let dept = json!({"id": "d1", "buildings": [{"id": "b1", "name": "North"}]});
/// state.write_entities(&Department::schema(), dept, &json!(null), WriteMeta::at(0, 60_000))?;
/// let mut memo = MemoCache::default();
/// let read = memo.entity::<Department>(&state, "d1")?.unwrap();
/// assert_eq!(read.buildings, [Pk::from("b1")]);                     // the keys
/// let buildings = Lazy::<Vec<Building>>::of().query().read(&mut memo, &state, &read.buildings)?.unwrap();
/// assert_eq!(buildings[0].name, "North");                          // the entities
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Lazy<T> {
    inner: SchemaOf<T>,
}

impl<T> Lazy<T> {
    /// Wraps `inner`: normalized through it, read as what it stores (a
    /// collection: its list's key, read as JSON and given to the query so).
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Building { id: String }
    /// use rdc_core::{Collection, Entity, Lazy, Schema};
    /// let lists = Lazy::new(Collection::of("Buildings", Building::schema()));
    /// let schema: Schema = lists.into();
    /// assert_eq!(format!("{schema:?}"), "Lazy(Collection(Buildings))");
    /// ```
    pub fn new(inner: SchemaOf<T>) -> Lazy<T> {
        Lazy { inner }
    }

    /// What reads the entities of the keys a lazy field holds.
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Building { id: String }
    /// let query = rdc_core::Lazy::<Building>::of().query();
    /// assert_eq!(format!("{:?}", query.schema()), "Entity(Building)");
    /// ```
    pub fn query(&self) -> LazyQuery<T> {
        LazyQuery::new(self.inner.clone())
    }
}

impl<T: HasSchema> Lazy<T> {
    /// A lazy field of `T`'s own schema: `Lazy::<Vec<Building>>::of()`.
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Building { id: String }
    /// let schema: rdc_core::Schema = rdc_core::Lazy::<Vec<Building>>::of().into();
    /// assert_eq!(format!("{schema:?}"), "Lazy(Array(Entity(Building)))");
    /// ```
    pub fn of() -> Lazy<T> {
        Lazy::new(SchemaOf::of())
    }
}

impl<T> Clone for Lazy<T> {
    fn clone(&self) -> Self {
        Lazy::new(self.inner.clone())
    }
}

impl<T> fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Lazy").field(&*self.inner).finish()
    }
}

impl<T> From<Lazy<T>> for Schema {
    fn from(lazy: Lazy<T>) -> Schema {
        Schema::lazy(lazy.inner)
    }
}

impl Schema {
    /// The untyped [`Lazy`]: normalized through `inner`, read as stored (the
    /// keys, or whatever `inner` stores: a union's `{"id", "schema"}`).
    ///
    /// ```
    /// use rdc_core::{json, Entity, Schema, State, WriteMeta};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Building { id: String }
    /// let schema = Schema::object([("main", Schema::lazy(Building::schema()))]);
    /// let mut state = State::default();
    /// state.write_result("GET /d", &schema, json!({"main": {"id": "b1"}}), &json!(null), WriteMeta::at(0, 1000))?;
    /// assert!(state.entity("Building", "b1").is_some());
    /// let read: rdc_core::json::Value = rdc_core::denormalize(&state, &schema, &state.result("GET /d").unwrap().value)?.unwrap();
    /// assert_eq!(read, json!({"main": "b1"}));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn lazy(inner: impl Into<Schema>) -> Schema {
        Schema::Lazy(Arc::new(inner.into()))
    }
}

/// Reads the entities of a lazy field's keys (data-client's `LazyQuery`):
/// its own memoized read, so a change to those entities wakes its readers
/// and not the parent's. Made by [`Lazy::query`].
///
/// ```
/// use rdc_core::{json, Entity, Lazy, MemoCache, Pk, State, WriteMeta};
/// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Building { id: String, name: String }
/// let mut state = State::default();
/// state.write_entities(&Building::schema(), json!({"id": "b1", "name": "North"}), &json!(null), WriteMeta::at(0, 1000))?;
/// let query = Lazy::<Building>::of().query();
/// let mut memo = MemoCache::default();
/// let north = query.read(&mut memo, &state, &Pk::from("b1"))?.unwrap();
/// assert_eq!(north.name, "North");
/// assert!(query.read(&mut memo, &state, &Pk::from("b2"))?.is_none(), "not stored");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct LazyQuery<T> {
    inner: SchemaOf<T>,
    /// The schema's part of every memo key, made once.
    named: Arc<str>,
}

impl<T> LazyQuery<T> {
    fn new(inner: SchemaOf<T>) -> LazyQuery<T> {
        let named = format!("lazy {:?} ", *inner).into();
        LazyQuery { inner, named }
    }

    /// The memo key of the keys' stored form `input`.
    fn key_of(&self, input: &Value) -> String {
        let mut key = String::from(&*self.named);
        key.push_str(&args_key(input));
        key
    }

    /// The schema the keys are read through (the lazy field's inner one).
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Building { id: String }
    /// let query = rdc_core::Lazy::<Vec<Building>>::of().query();
    /// assert_eq!(format!("{:?}", query.schema()), "Array(Entity(Building))");
    /// ```
    pub fn schema(&self) -> &SchemaOf<T> {
        &self.inner
    }

    /// The key the read of `keys` is memoized under: the schema and the keys,
    /// among the entries of type `LazyQuery<T>` (apart from other reads':
    /// what [`MemoCache::topics`] takes).
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Building { id: String }
    /// use rdc_core::{Lazy, Pk};
    /// let query = Lazy::<Vec<Building>>::of().query();
    /// assert_ne!(query.memo_key(&vec![Pk::from("1")]), query.memo_key(&vec![Pk::from("2")]));
    /// ```
    pub fn memo_key<K: LazyKeys<T> + ?Sized>(&self, keys: &K) -> String {
        self.key_of(&keys.stored_keys())
    }
}

impl<T: DeserializeOwned + Send + Sync + 'static> LazyQuery<T> {
    /// The entities of `keys`, read through the inner schema; `Ok(None)` when
    /// the keys find nothing (one entity that is not stored). The same `Arc`
    /// while neither the keys nor what they read change.
    ///
    /// ```
    /// use rdc_core::{json, Entity, Lazy, MemoCache, Pk, State, WriteMeta};
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Building { id: String }
    /// let mut state = State::default();
    /// state.write_entities(&Building::schema(), json!({"id": "b1"}), &json!(null), WriteMeta::at(0, 1000))?;
    /// let query = Lazy::<Vec<Building>>::of().query();
    /// let read = query.read(&mut MemoCache::default(), &state, &vec![Pk::from("b1"), Pk::from("b2")])?.unwrap();
    /// assert_eq!(read.len(), 1, "b2 is not stored");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// When the stored entities do not read as `T`.
    pub fn read<K: LazyKeys<T> + ?Sized>(
        &self,
        memo: &mut MemoCache,
        state: &State,
        keys: &K,
    ) -> Result<Option<Arc<T>>, ReadError> {
        // Its own entries (under `LazyQuery<T>`): an entity's pk cannot name them.
        let input = keys.stored_keys();
        memo.read_under::<T>(state, TypeId::of::<LazyQuery<T>>(), &self.key_of(&input), &self.inner, &input)
    }
}

impl<T> Clone for LazyQuery<T> {
    fn clone(&self) -> Self {
        LazyQuery { inner: self.inner.clone(), named: Arc::clone(&self.named) }
    }
}

impl<T> fmt::Debug for LazyQuery<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("LazyQuery").field(&*self.inner).finish()
    }
}

/// A type that holds the keys of a `T` as a lazy field stores them: a [`Pk`]
/// (or `String`) for an entity (`#[derive(Entity)]` implements both), a
/// `Vec` of keys for a `Vec` of entities, `Option`s and maps alike; and the
/// JSON as stored for any `T` (unchecked: what a lazy collection or union
/// holds).
///
/// ```
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Building { id: String }
/// use rdc_core::{LazyKeys, Pk};
/// fn keys_of<T, K: LazyKeys<T>>(keys: &K) -> rdc_core::json::Value { keys.stored_keys() }
/// assert_eq!(keys_of::<Vec<Building>, _>(&vec![Pk::from("b1")]), rdc_core::json!(["b1"]));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not hold the keys of `{T}`",
    label = "not the keys of `{T}`",
    note = "a lazy field of an entity holds a `Pk` (or a `String`), of a `Vec` of entities a `Vec<Pk>`"
)]
pub trait LazyKeys<T: ?Sized> {
    /// The keys as a lazy field stores them (the input the query's schema
    /// reads).
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Building { id: String }
    /// use rdc_core::{json, LazyKeys, Pk};
    /// let keys = Some(vec![Pk::from("b1")]);
    /// assert_eq!(LazyKeys::<Option<Vec<Building>>>::stored_keys(&keys), json!(["b1"]));
    /// ```
    fn stored_keys(&self) -> Value;
}

impl<T, K: LazyKeys<T>> LazyKeys<Vec<T>> for Vec<K> {
    fn stored_keys(&self) -> Value {
        Value::Array(self.iter().map(K::stored_keys).collect())
    }
}

impl<T, K: LazyKeys<T>> LazyKeys<Vec<T>> for [K] {
    fn stored_keys(&self) -> Value {
        Value::Array(self.iter().map(K::stored_keys).collect())
    }
}

impl<T, K: LazyKeys<T>> LazyKeys<Option<T>> for Option<K> {
    fn stored_keys(&self) -> Value {
        self.as_ref().map_or(Value::Null, K::stored_keys)
    }
}

impl<T, K: LazyKeys<T>> LazyKeys<HashMap<String, T>> for HashMap<String, K> {
    fn stored_keys(&self) -> Value {
        Value::Object(self.iter().map(|(name, keys)| (name.clone(), keys.stored_keys())).collect())
    }
}

impl<T, K: LazyKeys<T>> LazyKeys<BTreeMap<String, T>> for BTreeMap<String, K> {
    fn stored_keys(&self) -> Value {
        Value::Object(self.iter().map(|(name, keys)| (name.clone(), keys.stored_keys())).collect())
    }
}

/// The value as stored, taken on your word (a collection's list key, a
/// union's `{"id", "schema"}`), as [`SchemaOf::unchecked`] is.
impl<T: ?Sized> LazyKeys<T> for Value {
    fn stored_keys(&self) -> Value {
        self.clone()
    }
}

/// Checks at compile time that a lazy field's type `K` holds the keys of `T`
/// (what `#[entity(lazy = "T")]` generates).
#[doc(hidden)]
pub fn assert_lazy_keys<K: LazyKeys<T> + ?Sized, T>() {}
