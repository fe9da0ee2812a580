//! Invalidation by endpoint, by typed args and by entity type. The store
//! keys results by text; which endpoint and args made a key is remembered
//! here (the args of its last fetch, write or read), and a key counts as an
//! endpoint's when that endpoint makes the same key from those args.

use super::sync::{Gate, Slot};

use rdc_core::json::Value;
use rdc_core::FastMap;
use serde::de::DeserializeOwned;

use super::{Controller, TypedEndpoint};

/// The JSON args each stored result's key was last made from.
pub(crate) struct Origins(Slot<FastMap<String, Value>>);

impl Origins {
    pub(crate) fn new(gate: &std::sync::Arc<Gate>) -> Origins {
        Origins(Slot::new(gate, "origins", Default::default()))
    }
}

impl Controller {
    /// Remembers that `args` make `key` (a fetch, a write or a read of it).
    pub(crate) fn note_args(&self, key: &str, args: &Value) {
        let mut origins = self.inner.origins.0.borrow_mut();
        match origins.get_mut(key) {
            Some(known) if known == args => return,
            Some(known) => *known = args.clone(),
            None => {
                origins.insert(key.to_owned(), args.clone());
            }
        }
        // Keys whose result went (swept, reset) are dropped now and then:
        // the map stays within twice what the store holds.
        let stored = self.with_state(|state| state.result_keys().count());
        if origins.len() > 2 * stored + 64 {
            self.with_state(|state| origins.retain(|key, _| state.result(key).is_some()));
        }
    }

    /// The JSON args each key was last fetched, set or read with.
    pub(crate) fn origins(&self) -> crate::sync::SlotRef<'_, FastMap<String, Value>> {
        self.inner.origins.0.borrow()
    }

    /// Remembers the args of a typed read of `key`, when not known yet.
    pub(crate) fn note_read_args<C: TypedEndpoint>(&self, endpoint: &C, key: &str, args: &C::Args) {
        if self.inner.origins.0.borrow().contains_key(key) || self.with_state(|s| s.result(key).is_none()) {
            return;
        }
        if let Ok(json) = endpoint.encode_args(args) {
            self.note_args(key, &json);
        }
    }

    /// Invalidates every stored read of `endpoint`, whatever its args:
    /// mounted readers fetch again, the others when next read. A read counts
    /// as the endpoint's when it was fetched, set or read through it (or
    /// through an endpoint making the same keys) since the page loaded.
    ///
    /// ```
    /// use rdc_controller::{from_fn, Controller, ExpiryStatus, FakeTime, LocalTasks};
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// async fn square(n: u32) -> Result<u32, String> { Ok(n * n) }
    /// let squares = from_fn("square", square);
    /// controller.set_response(&squares, &2, rdc_core::json!(4))?;
    /// controller.set_response(&squares, &3, rdc_core::json!(9))?;
    /// controller.invalidate_endpoint(&squares);
    /// let status = |n| controller.read::<_, u32>(&squares, &n).map(|r| r.status);
    /// assert_eq!((status(2)?, status(3)?), (ExpiryStatus::Invalid, ExpiryStatus::Invalid));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn invalidate_endpoint<C: TypedEndpoint>(&self, endpoint: &C) {
        self.invalidate_keys(self.keys_of(endpoint, |_| true));
    }

    /// Invalidates the stored reads of `endpoint` whose args satisfy
    /// `predicate` (TanStack's query filters, with the args typed): "every
    /// page of this user's posts", "every search with this filter". Reads
    /// count as in [`Controller::invalidate_endpoint`]; args that do not read
    /// back as `C::Args` do not match.
    ///
    /// ```
    /// use rdc_controller::{from_fn, Controller, ExpiryStatus, FakeTime, LocalTasks};
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// async fn square(n: u32) -> Result<u32, String> { Ok(n * n) }
    /// let squares = from_fn("square", square);
    /// controller.set_response(&squares, &2, rdc_core::json!(4))?;
    /// controller.set_response(&squares, &3, rdc_core::json!(9))?;
    /// controller.invalidate_where(&squares, |n: &u32| n % 2 == 1);
    /// let status = |n| controller.read::<_, u32>(&squares, &n).map(|r| r.status);
    /// assert_eq!((status(2)?, status(3)?), (ExpiryStatus::Valid, ExpiryStatus::Invalid));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn invalidate_where<C: TypedEndpoint>(&self, endpoint: &C, predicate: impl Fn(&C::Args) -> bool)
    where
        C::Args: DeserializeOwned,
    {
        let matching = |args: &Value| rdc_core::json::from_value::<C::Args>(args).is_ok_and(|args| predicate(&args));
        self.invalidate_keys(self.keys_of(endpoint, matching));
    }

    /// Invalidates every stored result that can hold entities of type `E`
    /// (its schema has `E`, at any depth, even where the list is empty now):
    /// every read of `E` fetches again. A result whose schema is not known
    /// yet (taken up from a server page or a saved store, read by nobody
    /// since) is invalidated too: it may hold `E`.
    ///
    /// ```
    /// use rdc_core::{json, SchemaOf};
    /// use rdc_controller::{from_fn, Controller, ExpiryStatus, FakeTime, LocalTasks};
    /// #[derive(serde::Serialize, serde::Deserialize, rdc_core::Entity)]
    /// struct Todo { id: String }
    /// #[derive(serde::Serialize, serde::Deserialize, rdc_core::Entity)]
    /// struct Note { id: String }
    /// async fn todos(_: ()) -> Result<Vec<Todo>, String> { Ok(vec![]) }
    /// async fn notes(_: ()) -> Result<Vec<Note>, String> { Ok(vec![]) }
    /// let (todos, notes) = (from_fn("todos", todos).schema(SchemaOf::of()), from_fn("notes", notes).schema(SchemaOf::of()));
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// controller.set_response(&todos, &(), json!([]))?;
    /// controller.set_response(&notes, &(), json!([{ "id": "1" }]))?;
    /// controller.invalidate_entities::<Todo>();
    /// assert_eq!(controller.read::<_, Vec<Todo>>(&todos, &())?.status, ExpiryStatus::Invalid);
    /// assert_eq!(controller.read::<_, Vec<Note>>(&notes, &())?.status, ExpiryStatus::Valid);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn invalidate_entities<E: rdc_core::Entity>(&self) {
        let type_key = E::DEF.key;
        let keys = self.inner.keys.borrow();
        let holding = |key: &str| match keys.get(key).and_then(|k| k.schema.as_ref()) {
            Some(Some(schema)) => schema.holds(type_key),
            Some(None) => false,
            None => true,
        };
        let matching = self.result_keys_where(holding);
        drop(keys);
        self.invalidate_keys(matching);
    }

    /// The stored result keys `endpoint` makes from the args they were made
    /// with, those args satisfying `test`.
    fn keys_of<C: TypedEndpoint>(&self, endpoint: &C, test: impl Fn(&Value) -> bool) -> Vec<String> {
        let origins = self.inner.origins.0.borrow().clone();
        self.result_keys_where(|key| {
            origins.get(key).is_some_and(|args| super::activity::makes(endpoint, key, args) && test(args))
        })
    }

    /// Invalidates the results at `keys` in one write; their readers wake.
    fn invalidate_keys(&self, keys: Vec<String>) {
        if keys.is_empty() {
            return;
        }
        self.write_base(|base| {
            for key in &keys {
                base.invalidate_result(key);
            }
        });
        self.changed();
    }
}
