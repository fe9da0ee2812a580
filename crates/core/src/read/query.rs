//! `Query`: a memoized selector over the store (filter, sort, count...).

use std::sync::{Arc, Mutex};

use crate::json::Value;
use serde::de::DeserializeOwned;

use super::memo::MemoCache;
use crate::error::ReadError;
use crate::schema::{args_key, Schema};
use crate::store::{FastMap, State};

type Select<T, R> = dyn Fn(&T, &Value) -> R + Send + Sync;
/// Per args key: the input read and the output selected from it.
type Selected<T, R> = Mutex<FastMap<String, (Arc<T>, Arc<R>)>>;

/// Reads `schema` (typically an `All`) and derives a value from it with `select`.
/// The result is memoized by the read it came from and the args: while neither
/// changes, the same `Arc` comes back and `select` does not run.
///
/// ```
/// use rdc_core::{All, Entity, MemoCache, Query, State, WriteMeta};
/// use rdc_core::json;
/// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// let count_named = Query::new("users named", All::of::<User>().into(), |users: &Vec<User>, args| {
///     users.iter().filter(|u| Some(u.name.as_str()) == args["name"].as_str()).count()
/// });
/// let mut state = State::default();
/// state.write_entities(&All::of::<User>().into(), json!([{"id": "1", "name": "Ada"}, {"id": "2", "name": "Bo"}]), &json!(null), WriteMeta::at(0, 1000))?;
/// let mut memo = MemoCache::default();
/// let a = count_named.read(&mut memo, &state, &json!({"name": "Ada"}))?.unwrap();
/// let b = count_named.read(&mut memo, &state, &json!({"name": "Ada"}))?.unwrap();
/// assert_eq!(*a, 1);
/// assert!(std::sync::Arc::ptr_eq(&a, &b));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Query<T, R> {
    name: &'static str,
    schema: Schema,
    select: Arc<Select<T, R>>,
    cache: Selected<T, R>,
}

impl<T, R> std::fmt::Debug for Query<T, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query").field("name", &self.name).field("schema", &self.schema).finish_non_exhaustive()
    }
}

impl<T: DeserializeOwned + Send + Sync + 'static, R> Query<T, R> {
    /// A query named `name` (unique per query: it keys the memo) over `schema`.
    pub fn new(name: &'static str, schema: Schema, select: impl Fn(&T, &Value) -> R + Send + Sync + 'static) -> Self {
        Query { name, schema, select: Arc::new(select), cache: Mutex::default() }
    }

    /// Its name (the key of the read it memoizes).
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
    /// let count = rdc_core::Query::new("user count", rdc_core::All::of::<User>().into(), |users: &Vec<User>, _| users.len());
    /// assert_eq!(count.name(), "user count");
    /// ```
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The selected value for `args`; `Ok(None)` when the schema finds nothing.
    ///
    /// # Errors
    /// When the store does not read as `T`.
    pub fn read(&self, memo: &mut MemoCache, state: &State, args: &Value) -> Result<Option<Arc<R>>, ReadError> {
        let Some(input) = memo.read::<T>(state, self.name, &self.schema, &Value::Null)? else { return Ok(None) };
        let key = args_key(args);
        let mut cache = self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((seen, out)) = cache.get(&key) {
            if Arc::ptr_eq(seen, &input) {
                return Ok(Some(Arc::clone(out)));
            }
        }
        let out = Arc::new((self.select)(&input, args));
        cache.insert(key, (input, Arc::clone(&out)));
        Ok(Some(out))
    }
}
