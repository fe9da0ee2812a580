//! Memoized reads: the same unchanged data reads back as the identical `Arc`.

use std::any::{Any, TypeId};
use std::sync::Arc;

use crate::json::Value;
use serde::de::DeserializeOwned;

use super::ctx::Ctx;
use super::deps::Dep;
use super::keys::{KeysEntry, KeysMemo};
use super::pk::Pk;
use super::prior::{ListVerdicts, Prior};
use super::top::read_with;
use crate::error::ReadError;
use crate::schema::{Entity, Schema};
use crate::store::{FastMap, State};

struct Entry {
    /// `Ok(None)`: the read found nothing; `Err`: it failed. Both are kept for
    /// their dependencies (a later write that matters reads again).
    value: Result<Option<Arc<dyn Any + Send + Sync>>, ReadError>,
    /// Version of the result the read started from, if it read a result.
    result_version: Option<u64>,
    deps: Vec<Dep>,
    /// State version at which `deps` were last found unchanged.
    checked_at: u64,
    /// The verdicts on the items of the read's top-level list, if it has one.
    list: Option<ListVerdicts>,
    /// The args the read was made with (its scalars' lenses), if any.
    args: Option<Value>,
}

/// A cache of typed reads, keyed by what was read (a result key, an entity...)
/// and the Rust type read into. A warm read checks only what the cached value
/// depended on: it costs the same whatever else the store holds.
///
/// ```
/// # use rdc_core::{Entity, MemoCache, State, WriteMeta};
/// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// let mut state = State::default();
/// state.write_entities(&User::schema(), rdc_core::json!({"id": "1", "name": "Ada"}), &rdc_core::json::Value::Null, WriteMeta::at(0, 1000)).unwrap();
/// let mut memo = MemoCache::default();
/// let a = memo.entity::<User>(&state, "1").unwrap().unwrap();
/// let b = memo.entity::<User>(&state, "1").unwrap().unwrap();
/// assert!(std::sync::Arc::ptr_eq(&a, &b));
/// ```
#[derive(Default)]
pub struct MemoCache {
    entries: FastMap<TypeId, FastMap<String, Entry>>,
    /// Reads of stored lists as their keys (`Vec<Pk>`), patched after edits.
    keys: KeysMemo,
}

impl std::fmt::Debug for MemoCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoCache").field("entries", &self.len()).finish()
    }
}

impl MemoCache {
    /// Number of memoized reads.
    pub fn len(&self) -> usize {
        self.entries.values().map(FastMap::len).sum::<usize>() + self.keys.entries.len()
    }

    /// Whether nothing is memoized.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every memoized read.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.keys.entries.clear();
    }

    /// How many items of stored lists this cache has checked while reading
    /// them as their keys (`Vec<Pk>`): a list read whole counts every item,
    /// a list read again after an edit only the items the edit concerns.
    ///
    /// ```
    /// # use rdc_core::{Entity, MemoCache, Pk, Schema, State, WriteMeta};
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct User { id: String }
    /// let mut state = State::default();
    /// let schema = Schema::array(User::schema());
    /// let users = rdc_core::json!([{"id": "a"}, {"id": "b"}, {"id": "c"}]);
    /// state.write_result("users", &schema, users, &rdc_core::json!(null), WriteMeta::at(0, 1000))?;
    /// let mut memo = MemoCache::default();
    /// memo.read_result::<Vec<Pk>>(&state, "users", &schema)?;
    /// assert_eq!(memo.list_items_checked(), 3);
    /// state.write_entities(&Schema::invalidate::<User>(), rdc_core::json!("b"), &rdc_core::json!(null), WriteMeta::at(1, 1000))?;
    /// let keys = memo.read_result::<Vec<Pk>>(&state, "users", &schema)?.unwrap();
    /// assert_eq!((keys.len(), memo.list_items_checked()), (2, 4));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn list_items_checked(&self) -> u64 {
        self.keys.visited
    }

    /// The [`Topic`](crate::Topic)s of what the memoized read of
    /// `key` into the type `type_id` depended on (also when it found nothing
    /// or failed), with the fields it looked at: a write that touches none of
    /// them leaves that read as it was.
    ///
    /// ```
    /// # use rdc_core::{Entity, MemoCache, State, WriteMeta};
    /// #[derive(Debug, serde::Deserialize, Entity)]
    /// struct User { id: String, name: String }
    /// let mut state = State::default();
    /// state.write_entities(&User::schema(), rdc_core::json!({"id": "1", "name": "Ada"}), &rdc_core::json!(null), WriteMeta::at(0, 1000))?;
    /// let mut memo = MemoCache::default();
    /// memo.entity::<User>(&state, "1")?;
    /// let topics: Vec<_> = memo.topics(std::any::TypeId::of::<User>(), "1").collect();
    /// // Row 0 of table "User", and only that table.
    /// assert!(topics.iter().any(|t| t.topic.kind() == rdc_core::TopicKind::Fields(0)));
    /// assert!(topics.iter().all(|t| t.topic.table_key() == "User"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn topics(&self, type_id: TypeId, key: &str) -> impl Iterator<Item = crate::TopicFields> + '_ {
        let deps: &[Dep] =
            self.entries.get(&type_id).and_then(|by_key| by_key.get(key)).map_or(&[], |entry| &entry.deps);
        let keys = self.keys.entries.get(key).filter(|_| type_id == TypeId::of::<Vec<Pk>>());
        deps.iter().chain(keys.into_iter().flat_map(KeysEntry::deps)).filter_map(Dep::topic)
    }

    /// After rows were shown that the store may no longer have at their index
    /// (optimistic layers): memoized reads compare row versions only, never row
    /// contents, and liveness dependencies (which name no version) are void.
    pub fn forget_fields(&mut self) {
        // A list's keys are patched from the rows that changed: read them whole.
        self.keys.entries.clear();
        for entry in self.entries.values_mut().flat_map(FastMap::values_mut) {
            for dep in &mut entry.deps {
                match dep {
                    Dep::Entity { seen, .. } => *seen = None,
                    Dep::Alive { .. } => *dep = Dep::Void,
                    Dep::Table { .. } | Dep::Void => {}
                }
            }
        }
    }

    /// Reads the stored result of endpoint `key` through `schema` into `T`.
    /// `Ok(None)` when there is no result (or it finds nothing, see
    /// [`denormalize`](crate::denormalize)). Use one schema per `(key, T)`.
    /// A result written through a [`Scalar`](crate::Scalar) reads the lens of
    /// the args it was written with ([`ResultEntry::args`](crate::ResultEntry::args)).
    pub fn read_result<T: DeserializeOwned + Send + Sync + 'static>(
        &mut self,
        state: &State,
        key: &str,
        schema: &Schema,
    ) -> Result<Option<Arc<T>>, ReadError> {
        let Some(result) = state.result(key) else { return Ok(None) };
        if TypeId::of::<T>() == TypeId::of::<Vec<Pk>>() {
            if let Some(keys) = self.keys.read(state, key, &result.value, schema) {
                return Ok((keys as Arc<dyn Any + Send + Sync>).downcast::<T>().ok());
            }
        }
        // Written through a scalar: read through the lens it was written with.
        let args = result.args.as_deref();
        self.read_memo(state, key, Some(result.version), schema, Input::Result(&result.value), args)
    }

    /// [`MemoCache::read_result`] with the args the result was fetched with:
    /// its [`Scalar`](crate::Scalar) fields read the cells of the lens these
    /// args give. A read with other args reads again (never the value read
    /// through another lens).
    ///
    /// ```
    /// use rdc_core::{json, Entity, MemoCache, Scalar, Schema, State, WriteMeta};
    /// # #[derive(serde::Deserialize)] struct In { currency: String }
    /// fn currency() -> Scalar { Scalar::new("currency", |a: &In| Some(a.currency.clone())) }
    /// #[derive(Debug, serde::Deserialize, Entity)]
    /// struct Product { id: u32, #[entity(scalar = "currency()")] price: f64 }
    ///
    /// let mut state = State::default();
    /// let (eur, usd) = (json!({ "currency": "EUR" }), json!({ "currency": "USD" }));
    /// let schema = Product::schema().into_schema();
    /// state.write_result("p", &schema, json!({ "id": 1, "price": 9.0 }), &eur, WriteMeta::at(0, 1000))?;
    /// state.write_entities(&schema, json!({ "id": 1, "price": 10.0 }), &usd, WriteMeta::at(1, 1000))?;
    /// let mut memo = MemoCache::default();
    /// let in_eur = memo.read_result_with::<Product>(&state, "p", &schema, &eur)?.unwrap();
    /// let in_usd = memo.read_result_with::<Product>(&state, "p", &schema, &usd)?.unwrap();
    /// assert_eq!((in_eur.price, in_usd.price), (9.0, 10.0));
    /// // Without args, the result reads through the lens it was written with.
    /// let kept = memo.read_result::<Product>(&state, "p", &schema)?.unwrap();
    /// assert_eq!(kept.price, 9.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_result_with<T: DeserializeOwned + Send + Sync + 'static>(
        &mut self,
        state: &State,
        key: &str,
        schema: &Schema,
        args: &Value,
    ) -> Result<Option<Arc<T>>, ReadError> {
        let Some(result) = state.result(key) else { return Ok(None) };
        if TypeId::of::<T>() == TypeId::of::<Vec<Pk>>() {
            // A list's keys read no field.
            return self.read_result(state, key, schema);
        }
        self.read_memo(state, key, Some(result.version), schema, Input::Result(&result.value), Some(args))
    }

    /// Reads the plain (not normalized) result of `key` into `T`.
    ///
    /// # Errors
    /// When the stored JSON does not fit `T`.
    pub fn read_plain<T: DeserializeOwned + Send + Sync + 'static>(
        &mut self,
        state: &State,
        key: &str,
    ) -> Result<Option<Arc<T>>, ReadError> {
        let Some(result) = state.result(key) else { return Ok(None) };
        let by_key = self.entries.entry(TypeId::of::<T>()).or_default();
        if let Some(entry) = by_key.get(key).filter(|e| e.result_version == Some(result.version)) {
            if let Ok(Some(Ok(value))) = entry.value.clone().map(|v| v.map(|v| v.downcast::<T>())) {
                return Ok(Some(value));
            }
        }
        let value = super::path::deserialize_at::<T>(&result.value)
            .map_err(|err| ReadError::Type { path: err.path, message: err.message })?;
        let value = Arc::new(value);
        let entry = Entry {
            value: Ok(Some(Arc::clone(&value) as Arc<dyn Any + Send + Sync>)),
            result_version: Some(result.version),
            deps: Vec::new(),
            checked_at: state.version(),
            list: None,
            args: None,
        };
        by_key.insert(key.to_owned(), entry);
        Ok(Some(value))
    }

    /// Reads entity `E` with primary key `pk`.
    pub fn entity<E: Entity>(&mut self, state: &State, pk: &str) -> Result<Option<Arc<E>>, ReadError> {
        self.read_memo(state, pk, None, &E::schema(), Input::Pk(pk), None)
    }

    /// Reads a schema that needs no stored input (an `All`, or a value of
    /// references), memoized under `memo_key`.
    pub fn read<T: DeserializeOwned + Send + Sync + 'static>(
        &mut self,
        state: &State,
        memo_key: &str,
        schema: &Schema,
        input: &Value,
    ) -> Result<Option<Arc<T>>, ReadError> {
        self.read_memo(state, memo_key, None, schema, Input::Value(input), None)
    }

    /// As [`MemoCache::read`], its entries kept apart under `ty` (a lazy
    /// query's own, so no other read's key can name them).
    pub(crate) fn read_under<T: DeserializeOwned + Send + Sync + 'static>(
        &mut self,
        state: &State,
        ty: TypeId,
        memo_key: &str,
        schema: &Schema,
        input: &Value,
    ) -> Result<Option<Arc<T>>, ReadError> {
        let read: &ReadFn = &|ctx, schema, input| {
            read_with::<T>(ctx, schema, input).map(|v| v.map(|v| Arc::new(v) as Arc<dyn Any + Send + Sync>))
        };
        let value = self.read_erased(state, memo_key, ty, None, schema, Input::Value(input), None, read)?;
        Ok(value.and_then(|value| value.downcast::<T>().ok()))
    }

    /// The typed face of [`MemoCache::read_erased`]: only the read itself and the
    /// final downcast exist once per type read, the memo logic once in all.
    fn read_memo<T: DeserializeOwned + Send + Sync + 'static>(
        &mut self,
        state: &State,
        key: &str,
        result_version: Option<u64>,
        schema: &Schema,
        input: Input<'_>,
        args: Option<&Value>,
    ) -> Result<Option<Arc<T>>, ReadError> {
        let read: &ReadFn = &|ctx, schema, input| {
            read_with::<T>(ctx, schema, input).map(|v| v.map(|v| Arc::new(v) as Arc<dyn Any + Send + Sync>))
        };
        let value = self.read_erased(state, key, TypeId::of::<T>(), result_version, schema, input, args, read)?;
        // Entries are kept by type: the value is a `T`.
        Ok(value.and_then(|value| value.downcast::<T>().ok()))
    }

    #[allow(clippy::too_many_arguments)]
    fn read_erased(
        &mut self,
        state: &State,
        key: &str,
        ty: TypeId,
        result_version: Option<u64>,
        schema: &Schema,
        input: Input<'_>,
        args: Option<&Value>,
        read: &ReadFn,
    ) -> Erased {
        let by_key = self.entries.entry(ty).or_default();
        let (mut prior, mut known) = (None, 0);
        // Read through other args (another lens): read again.
        if let Some(entry) = by_key.get_mut(key).filter(|entry| entry.args.as_ref() == args) {
            known = entry.deps.len();
            if entry.checked_at == state.version() {
                return entry.value.clone();
            } else {
                let same_input = entry.result_version == result_version;
                // A stored result's list (the same result or a new one) reuses what
                // its unchanged dependencies decided, matching items by reference.
                let list = entry.list.take().filter(|_| result_version.is_some());
                let mut last = super::deps::LastTable::default();
                // With a list, which dependencies changed (all are looked at); else
                // whether any did (only worth knowing for the same input).
                let changed: Vec<bool> = match list {
                    Some(_) => entry.deps.iter_mut().map(|dep| !dep.unchanged(state, &mut last)).collect(),
                    None if same_input => vec![!entry.deps.iter_mut().all(|dep| dep.unchanged(state, &mut last))],
                    None => vec![true],
                };
                if same_input && !changed.contains(&true) {
                    entry.checked_at = state.version();
                    entry.list = list;
                    return entry.value.clone();
                } else if let Some(list) = list {
                    prior = Some(Prior::new(std::mem::take(&mut entry.deps), changed, list));
                }
            }
        }
        let mut ctx = Ctx::new(state);
        ctx.reuse.lists = result_version.is_some();
        if let Input::Result(result) = input {
            ctx.reuse.result = Some(Arc::clone(result));
        }
        ctx.reuse.prior = prior;
        ctx.args = args.cloned();
        // A read done again records about as many dependencies as last time.
        ctx.recording.deps.borrow_mut().reserve(known);
        // An entity's reference is built only when the entity is read.
        let reference;
        let input = match input {
            Input::Value(value) => value,
            Input::Result(result) => &**result,
            Input::Pk(pk) => {
                reference = Value::String(pk.into());
                &reference
            }
        };
        let value = read(&ctx, schema, input);
        let list = ctx.reuse.list.take();
        let mut deps = ctx.into_deps();
        if deps.capacity() > 2 * deps.len() + 16 {
            // Reserved for more than this read recorded: kept entries stay small.
            deps.shrink_to_fit();
        }
        let args = args.cloned();
        let entry = Entry { value: value.clone(), result_version, deps, checked_at: state.version(), list, args };
        match by_key.get_mut(key) {
            Some(slot) => *slot = entry,
            None => {
                by_key.insert(key.to_owned(), entry);
            }
        }
        value
    }
}

/// A read's value, its type erased.
type Erased = Result<Option<Arc<dyn Any + Send + Sync>>, ReadError>;

/// A read into one type, its result erased.
type ReadFn = dyn for<'a> Fn(&Ctx<'a>, &Schema, &'a Value) -> Erased;

/// What a memoized read starts from.
#[derive(Clone, Copy)]
enum Input<'v> {
    Value(&'v Value),
    /// A stored result (its list can be matched against the next read's).
    Result(&'v Arc<Value>),
    /// An entity's primary key (its reference is made only if the read runs).
    Pk(&'v str),
}
