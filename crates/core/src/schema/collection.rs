//! `Collection`: lists keyed by the arguments that fetched them, which writes can
//! grow (`push`, `unshift`) or shrink (`remove`) without refetching.

use std::sync::{Arc, Mutex, OnceLock};

use crate::json::Value;

use super::EntityMeta;
use super::{EntityDef, Object, Schema, SchemaOf};

/// A list stored once per distinct set of arguments, e.g. `todos?userId=1`.
///
/// Each list is stored as a row of the table named `name`, keyed by its canonical
/// arguments, holding references to its items. Choose a name no entity uses.
///
/// ```
/// use rdc_core::{Collection, Entity, MemoCache, State, WriteMeta};
/// use rdc_core::json;
/// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Todo { id: u32, #[serde(rename = "userId")] user_id: u32 }
/// let todos = Collection::of("TodoList", Todo::schema());
/// let mut state = State::default();
/// let args = json!({ "userId": 1 });
/// state.write_result("GET /todos?userId=1", &todos, json!([{ "id": 1, "userId": 1 }]), &args, WriteMeta::at(0, 1000))?;
/// state.collection_push(&todos, json!({ "id": 2, "userId": 1 }), WriteMeta::at(1, 1000))?;
/// let list: std::sync::Arc<Vec<Todo>> = MemoCache::default().read_result(&state, "GET /todos?userId=1", &todos)?.unwrap();
/// assert_eq!(list.len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Collection {
    pub(crate) def: &'static EntityDef,
    pub(crate) item: Schema,
}

impl Collection {
    /// A collection named `name` of items with schema `item`; it reads as a list of them.
    pub fn of<T>(name: &'static str, item: SchemaOf<T>) -> SchemaOf<Vec<T>> {
        SchemaOf::unchecked(Schema::Collection(Arc::new(Collection { def: table_def(name), item: item.into() })))
    }

    /// The schema of a create endpoint whose new item joins the end of every
    /// matching list of `collection` (no refetch); it reads as the item. Other
    /// schemas come back unchanged.
    pub fn push<T>(collection: &SchemaOf<Vec<T>>) -> SchemaOf<T> {
        SchemaOf::unchecked(Collection::add(collection, false))
    }

    /// Like [`Collection::push`], at the front of the lists.
    pub fn unshift<T>(collection: &SchemaOf<Vec<T>>) -> SchemaOf<T> {
        SchemaOf::unchecked(Collection::add(collection, true))
    }

    /// The untyped `push` (`front`: `unshift`).
    pub(crate) fn add(collection: &Schema, front: bool) -> Schema {
        match collection {
            Schema::Collection(c) => Schema::CollectionAdd(Arc::clone(c), front),
            other => other.clone(),
        }
    }

    /// The table the lists are stored in.
    pub fn name(&self) -> &'static str {
        self.def.key
    }

    /// The schema of the items.
    pub fn item(&self) -> &Schema {
        &self.item
    }
}

/// The (one per name) type description of a collection table: lists replace
/// each other whole; their items are checked as the entities they are.
fn table_def(name: &'static str) -> &'static EntityDef {
    static DEFS: OnceLock<Mutex<crate::json::FastMap<&'static str, &'static EntityDef>>> = OnceLock::new();
    let defs = DEFS.get_or_init(Mutex::default);
    let mut defs = defs.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    defs.entry(name).or_insert_with(|| {
        // One small allocation per collection name, for the life of the program.
        Box::leak(Box::new(EntityDef {
            key: name,
            pk: |_| None,
            pk_field: None,
            nested: || &[],
            check_fields: |_| Ok(()),
            process: |value, _| Ok(value),
            validate: |_| Ok(()),
            merge: |_, incoming| incoming.clone(),
            default_merge: false,
            replaces: true,
            should_update: |existing: &EntityMeta, incoming: &EntityMeta| incoming.not_older_than(existing),
            reader: None,
            list_reader: None,
        }))
    })
}

/// The canonical text of a list's arguments (sorted keys at every level), its pk.
pub(crate) fn args_key(args: &Value) -> String {
    match args {
        Value::Null => "{}".to_owned(),
        other => crate::canonical_text(other),
    }
}

/// A scalar as text: a string as it is, anything else in JSON form.
fn scalar_text(value: &Value) -> std::borrow::Cow<'_, str> {
    match value {
        Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
        other => std::borrow::Cow::Owned(crate::json_text(other)),
    }
}

/// Whether a new item belongs in the list fetched with `args`: every argument
/// must equal the item's field of the same name (numbers and strings compare by
/// text, so `"1"` matches `1`). A list fetched without arguments takes everything.
pub(crate) fn item_matches(args: &Object, item: &Object) -> bool {
    let same = |field: &Value, arg: &Value| match (field, arg) {
        // Lists and objects compare as JSON values (keys in any order).
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => field == arg,
        _ => scalar_text(field) == scalar_text(arg),
    };
    args.iter().all(|(k, v)| item.get(k).is_some_and(|field| same(field, v)))
}
