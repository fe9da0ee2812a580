//! `Collection`: lists keyed by the arguments that fetched them, which writes can
//! grow (`push`, `unshift`, a further page) or shrink (`remove`) without refetching.

use std::sync::{Arc, Mutex, OnceLock};

use crate::json::Value;

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
#[derive(Debug, Clone)]
pub struct Collection {
    pub(crate) def: &'static EntityDef,
    pub(crate) item: Schema,
    /// Args that key a list but do not filter what joins it (a sort, a limit).
    non_filter: Arc<[String]>,
    /// The arg that names a page (a cursor, a page number): left out of the
    /// list's key, so every page joins one list (see [`Collection::paginated`]).
    page_field: Option<Arc<str>>,
    /// For a collection of maps ([`Collection::of_values`]), `Values(item)`:
    /// how its stored items are read; `None` for lists.
    map: Option<Schema>,
    /// Whether a new item joins a list, in place of matching its args
    /// (see [`Collection::filtered_by`]).
    filter: Option<ListFilter>,
    /// The args of the list held by a parent's member (see
    /// [`Collection::nested_by`]).
    nest: Option<NestKey>,
}

/// A nested collection's key (see [`Collection::nested_by`]): from the
/// parent object and the member's name, the args of the list it holds.
#[derive(Clone)]
pub(crate) struct NestKey(Arc<dyn Fn(&Object, &str) -> Object + Send + Sync>);

impl std::fmt::Debug for NestKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NestKey(..)")
    }
}

/// A collection's filter (see [`Collection::filtered_by`]): given a list's
/// args and a new item's fields, whether the item joins the list.
#[derive(Clone)]
pub(crate) struct ListFilter(Arc<dyn Fn(&Object, &Object) -> bool + Send + Sync>);

impl std::fmt::Debug for ListFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ListFilter(..)")
    }
}

impl Collection {
    /// A collection named `name` of items with schema `item`; it reads as a list of them.
    pub fn of<T>(name: &'static str, item: SchemaOf<T>) -> SchemaOf<Vec<T>> {
        let def = table_def(name, false);
        SchemaOf::unchecked(Schema::Collection(Arc::new(Collection {
            def,
            item: item.into(),
            non_filter: Arc::new([]),
            page_field: None,
            map: None,
            filter: None,
            nest: None,
        })))
    }

    /// A collection named `name` of maps from a name to an item with schema
    /// `item` (the JSON objects an endpoint answers, data-client's
    /// `Collection(Values(..))`), one per set of args. [`Collection::assign`]
    /// adds members to them without a refetch.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use rdc_core::{json, Collection, Entity, MemoCache, State, WriteMeta};
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Stat { id: String, value: u32 }
    /// let stats = Collection::of_values("StatMap", Stat::schema());
    /// let mut state = State::default();
    /// let answer = json!({ "cpu": { "id": "cpu", "value": 7 } });
    /// state.write_result("GET /stats", &stats, answer, &json!({}), WriteMeta::at(0, 1000))?;
    /// let read: std::sync::Arc<BTreeMap<String, Stat>> = MemoCache::default().read_result(&state, "GET /stats", &stats)?.unwrap();
    /// assert_eq!(read["cpu"].value, 7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of_values<T>(name: &'static str, item: SchemaOf<T>) -> SchemaOf<std::collections::BTreeMap<String, T>> {
        let item: Schema = item.into();
        SchemaOf::unchecked(Schema::Collection(Arc::new(Collection {
            def: table_def(name, false),
            map: Some(Schema::values(item.clone())),
            item,
            non_filter: Arc::new([]),
            page_field: None,
            filter: None,
            nest: None,
        })))
    }

    /// The schema of an endpoint answering members to add to `collection`'s
    /// maps (a map of name to item): each map whose filtering args equal the
    /// endpoint's args of the same name gets them, a member of the same name
    /// replaced. It reads as the members sent.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use rdc_core::{json, Collection, Entity, MemoCache, State, WriteMeta};
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Stat { id: String, value: u32 }
    /// let stats = Collection::of_values("StatMap", Stat::schema());
    /// let mut state = State::default();
    /// let (host_a, host_b) = (json!({ "host": "a" }), json!({ "host": "b" }));
    /// state.write_result("GET /stats?host=a", &stats, json!({}), &host_a, WriteMeta::at(0, 1000))?;
    /// state.write_result("GET /stats?host=b", &stats, json!({}), &host_b, WriteMeta::at(0, 1000))?;
    /// let added = json!({ "mem": { "id": "mem", "value": 3 } });
    /// state.write_entities(&Collection::assign(&stats).into(), added, &host_a, WriteMeta::at(1, 1000))?;
    /// let read = |key| -> Result<Vec<String>, rdc_core::ReadError> {
    ///     let map: std::sync::Arc<BTreeMap<String, Stat>> = MemoCache::default().read_result(&state, key, &stats)?.unwrap();
    ///     Ok(map.keys().cloned().collect())
    /// };
    /// assert_eq!((read("GET /stats?host=a")?, read("GET /stats?host=b")?), (vec!["mem".to_owned()], vec![]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn assign<M>(collection: &SchemaOf<M>) -> SchemaOf<M> {
        SchemaOf::unchecked(Collection::edit(collection, ListEdit::Assign))
    }

    /// `collection` with args `names` that key its lists without filtering
    /// what joins them: a list fetched with `sort` or `limit` still receives
    /// the items [`push`](Collection::push) adds when its other args match.
    ///
    /// ```
    /// use rdc_core::{Collection, Entity, MemoCache, State, WriteMeta};
    /// use rdc_core::json;
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Todo { id: u32, #[serde(rename = "userId")] user_id: u32 }
    /// let todos = Collection::non_filtering(&Collection::of("TodoList", Todo::schema()), &["sort"]);
    /// let mut state = State::default();
    /// let args = json!({ "userId": 1, "sort": "title" });
    /// state.write_result("GET /todos?sort=title&userId=1", &todos, json!([{ "id": 1, "userId": 1 }]), &args, WriteMeta::at(0, 1000))?;
    /// state.collection_push(&todos, json!({ "id": 2, "userId": 1 }), WriteMeta::at(1, 1000))?;
    /// let list: std::sync::Arc<Vec<Todo>> = MemoCache::default().read_result(&state, "GET /todos?sort=title&userId=1", &todos)?.unwrap();
    /// assert_eq!(list.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn non_filtering<T>(collection: &SchemaOf<Vec<T>>, names: &[&str]) -> SchemaOf<Vec<T>> {
        SchemaOf::unchecked(Collection::changed(collection, &|c| Collection {
            non_filter: c.non_filter.iter().cloned().chain(names.iter().map(|n| (*n).to_owned())).collect(),
            ..c.clone()
        }))
    }

    /// `collection` with `filter` deciding which lists a new item joins (a
    /// push, unshift, move or assign), in place of the default rule that each
    /// filtering arg equals the item's field of the same name (data-client's
    /// `createCollectionFilter`). It is given the list's args (as fetched,
    /// without a page arg: a sort or limit among them) and the item's fields
    /// (for an assign, the write's args), and says whether the item belongs.
    /// Use it for ranges, sets or args named otherwise than the fields.
    ///
    /// ```
    /// use rdc_core::{json, Collection, Entity, MemoCache, State, WriteMeta};
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Todo { id: u32, priority: u32 }
    /// // Lists fetched with `maxPriority`: an item joins those it fits under.
    /// let todos = Collection::filtered_by(&Collection::of("TodoList", Todo::schema()), |args, item| {
    ///     let at_most = args.get("maxPriority").and_then(|v| v.as_u64());
    ///     let priority = item.get("priority").and_then(|v| v.as_u64());
    ///     matches!((at_most, priority), (Some(max), Some(p)) if p <= max)
    /// });
    /// let mut state = State::default();
    /// let (urgent, most) = (json!({ "maxPriority": 1 }), json!({ "maxPriority": 3 }));
    /// state.write_result("urgent", &todos, json!([]), &urgent, WriteMeta::at(0, 1000))?;
    /// state.write_result("most", &todos, json!([]), &most, WriteMeta::at(0, 1000))?;
    /// state.collection_push(&todos, json!({ "id": 1, "priority": 2 }), WriteMeta::at(1, 1000))?;
    /// let len = |key| -> Result<usize, rdc_core::ReadError> {
    ///     Ok(MemoCache::default().read_result::<Vec<Todo>>(&state, key, &todos)?.map_or(0, |l| l.len()))
    /// };
    /// assert_eq!((len("urgent")?, len("most")?), (0, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn filtered_by<L>(
        collection: &SchemaOf<L>,
        filter: impl Fn(&Object, &Object) -> bool + Send + Sync + 'static,
    ) -> SchemaOf<L> {
        let filter = ListFilter(Arc::new(filter));
        SchemaOf::unchecked(Collection::changed(collection, &|c| Collection {
            filter: Some(filter.clone()),
            ..c.clone()
        }))
    }

    /// `collection` held by a member of a parent entity (data-client's
    /// `nestKey`): where it is normalized as a member of an object, the list
    /// it holds is keyed by `nest(parent, member)` (the parent's other fields
    /// and the member's name) rather than by the endpoint's args; at the top
    /// of a response, or where `nest` names no args (the parent lacks the
    /// field it reads), by the endpoint's args as ever. So a user's `todos` and the
    /// answer of `GET /todos?userId=1` are one list, and a todo pushed for
    /// user 1 joins both.
    ///
    /// ```
    /// use rdc_core::{json, Collection, Entity, MemoCache, Object, SchemaOf, State, WriteMeta};
    /// #[derive(Debug, serde::Deserialize, Entity)]
    /// struct Todo { id: u32, #[serde(rename = "userId")] user_id: u32 }
    /// fn user_todos() -> SchemaOf<Vec<Todo>> {
    ///     Collection::nested_by(&Collection::of("TodoList", Todo::schema()), |user, _| {
    ///         let mut args = Object::new();
    ///         args.insert("userId".to_owned(), user.get("id").cloned().unwrap_or_default());
    ///         args
    ///     })
    /// }
    /// #[derive(Debug, serde::Deserialize, Entity)]
    /// struct User { id: u32, #[entity(schema = "user_todos()")] todos: Vec<Todo> }
    ///
    /// let mut state = State::default();
    /// let meta = |at| WriteMeta::at(at, 1000);
    /// state.write_result("GET /users/1", &User::schema(), json!({ "id": 1, "todos": [{ "id": 1, "userId": 1 }] }), &json!({ "id": 1 }), meta(0))?;
    /// state.collection_push(&user_todos(), json!({ "id": 2, "userId": 1 }), meta(1))?;
    /// let user = MemoCache::default().read_result::<User>(&state, "GET /users/1", &User::schema())?.unwrap();
    /// assert_eq!(user.todos.iter().map(|t| t.id).collect::<Vec<_>>(), [1, 2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn nested_by<L>(
        collection: &SchemaOf<L>,
        nest: impl Fn(&Object, &str) -> Object + Send + Sync + 'static,
    ) -> SchemaOf<L> {
        let nest = NestKey(Arc::new(nest));
        SchemaOf::unchecked(Collection::changed(collection, &|c| Collection { nest: Some(nest.clone()), ..c.clone() }))
    }

    /// The args of the list this collection holds where it is found under
    /// `key` of `parent`: [`Collection::nested_by`]'s, as a member of an
    /// object; else `None` (the endpoint's args). A nest that names no args
    /// gives `None` too, so the list is not taken for the list of everything.
    pub(crate) fn nested_args(&self, parent: &Value, key: &str) -> Option<Value> {
        let NestKey(nest) = self.nest.as_ref()?;
        let args = nest(parent.as_object()?, key);
        (!args.is_empty()).then_some(Value::Object(args))
    }

    /// The schema of an endpoint that fetches a further page of
    /// `collection`'s lists: arg `field` (a cursor, a page number) is left out
    /// of the list's key and filters nothing, and the page's items are
    /// appended to the list fetched without it, each item once (an item that
    /// shifted into the next page since is not listed twice). Fetch the first
    /// page without `field`; fetching it again replaces the list. A page
    /// asked for before the list was last written (fetched again, or joined
    /// by a page asked for later) is dropped: ask for one page at a time. A
    /// page that answers before the list's own fetch waits in the list for it:
    /// the list's items then go in front.
    ///
    /// ```
    /// use rdc_core::{Collection, Entity, MemoCache, State, WriteMeta};
    /// use rdc_core::json;
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Todo { id: u32 }
    /// let todos = Collection::of("TodoList", Todo::schema());
    /// let next_page = Collection::paginated(&todos, "cursor");
    /// let mut state = State::default();
    /// let meta = |at| WriteMeta::at(at, 1000);
    /// state.write_result("GET /todos", &todos, json!([{ "id": 1 }, { "id": 2 }]), &json!({}), meta(0))?;
    /// // Item 2 shifted into the second page meanwhile.
    /// state.write_result("GET /todos?cursor=2", &next_page, json!([{ "id": 2 }, { "id": 3 }]), &json!({ "cursor": 2 }), meta(1))?;
    /// let list: std::sync::Arc<Vec<Todo>> = MemoCache::default().read_result(&state, "GET /todos", &todos)?.unwrap();
    /// assert_eq!(list.iter().map(|t| t.id).collect::<Vec<_>>(), [1, 2, 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn paginated<T>(collection: &SchemaOf<Vec<T>>, field: &str) -> SchemaOf<Vec<T>> {
        SchemaOf::unchecked(Collection::paginated_schema(collection, field))
    }

    /// [`Collection::paginated`] for every collection `schema` holds at its
    /// top or as a member of its object (a page `{ link, results }`).
    ///
    /// ```
    /// use rdc_core::{json, Collection, Entity, Schema, State, WriteMeta};
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Todo { id: u32 }
    /// let page = Schema::object([("results", Collection::of("TodoList", Todo::schema()).into())]);
    /// let next = Collection::paginated_schema(&page, "cursor");
    /// let mut state = State::default();
    /// state.write_result("GET /todos", &page, json!({ "results": [{ "id": 1 }] }), &json!({}), WriteMeta::at(0, 1000))?;
    /// let args = json!({ "cursor": 1 });
    /// state.write_result("GET /todos?cursor=1", &next, json!({ "results": [{ "id": 2 }] }), &args, WriteMeta::at(1, 1000))?;
    /// // One list, with both pages' items.
    /// let lists = &state.tables()["TodoList"];
    /// assert_eq!(lists.rows.len(), 1);
    /// assert_eq!(lists.rows[0].value.as_ref().unwrap()["items"].as_array().unwrap().len(), 2);
    /// # Ok::<(), rdc_core::NormalizeError>(())
    /// ```
    pub fn paginated_schema(schema: &Schema, field: &str) -> Schema {
        let field: Arc<str> = field.into();
        Collection::changed(schema, &|c| Collection {
            def: table_def(c.def.key, true),
            page_field: Some(Arc::clone(&field)),
            ..c.clone()
        })
    }

    /// `schema` with each collection at its top or among its object's
    /// members (lazy or not) changed by `change`; other schemas unchanged.
    fn changed(schema: &Schema, change: &impl Fn(&Collection) -> Collection) -> Schema {
        match schema {
            Schema::Collection(c) => Schema::Collection(Arc::new(change(c))),
            Schema::Object(object) => {
                let mut object = (**object).clone();
                for (_, member) in object.fields.iter_mut() {
                    *member = Collection::changed(member, change);
                }
                Schema::Object(Arc::new(object))
            }
            // Stored as its inner schema: a lazy list is a list all the same.
            Schema::Lazy(inner) => Schema::lazy(Collection::changed(inner, change)),
            other => other.clone(),
        }
    }

    /// The key of the list fetched with `args`: their canonical text, without
    /// the page field.
    pub(crate) fn list_key(&self, args: &Value) -> String {
        match (&self.page_field, args) {
            (Some(field), Value::Object(map)) if map.contains_key(field) => {
                let mut rest = map.clone();
                rest.remove(field);
                args_key(&Value::Object(rest))
            }
            _ => args_key(args),
        }
    }

    /// Whether a new item (its fields) belongs in the list fetched with
    /// `args`: every arg that filters must equal the item's field of the same
    /// name (numbers and strings compare by text, so `"1"` matches `1`). A list
    /// fetched without filtering args takes everything. A collection's own
    /// filter ([`Collection::filtered_by`]) decides in place of this rule.
    pub(crate) fn accepts(&self, args: &Object, item: &Object) -> bool {
        if let Some(ListFilter(filter)) = &self.filter {
            return filter(args, item);
        }
        let filters =
            |name: &str| !self.non_filter.iter().any(|n| n == name) && self.page_field.as_deref() != Some(name);
        args.iter().filter(|(k, _)| filters(k)).all(|(k, v)| item.get(k).is_some_and(|field| same_arg(field, v)))
    }

    /// The schema of a create endpoint whose new item joins the end of every
    /// matching list of `collection` (no refetch); it reads as the item. Other
    /// schemas come back unchanged.
    pub fn push<T>(collection: &SchemaOf<Vec<T>>) -> SchemaOf<T> {
        SchemaOf::unchecked(Collection::edit(collection, ListEdit::Push))
    }

    /// Like [`Collection::push`], at the front of the lists.
    pub fn unshift<T>(collection: &SchemaOf<Vec<T>>) -> SchemaOf<T> {
        SchemaOf::unchecked(Collection::edit(collection, ListEdit::Unshift))
    }

    /// The schema of an endpoint whose item (as it answers) leaves every list
    /// of `collection`; the entity itself stays (an `Invalidate` deletes it).
    ///
    /// ```
    /// use rdc_core::{json, Collection, Entity, MemoCache, State, WriteMeta};
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Todo { id: u32 }
    /// let todos = Collection::of("TodoList", Todo::schema());
    /// let mut state = State::default();
    /// state.write_result("GET /todos", &todos, json!([{ "id": 1 }, { "id": 2 }]), &json!({}), WriteMeta::at(0, 1000))?;
    /// state.write_entities(&Collection::remove(&todos).into(), json!({ "id": 1 }), &json!({}), WriteMeta::at(1, 1000))?;
    /// let list: std::sync::Arc<Vec<Todo>> = MemoCache::default().read_result(&state, "GET /todos", &todos)?.unwrap();
    /// assert_eq!(list.iter().map(|t| t.id).collect::<Vec<_>>(), [2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn remove<T>(collection: &SchemaOf<Vec<T>>) -> SchemaOf<T> {
        SchemaOf::unchecked(Collection::edit(collection, ListEdit::Remove))
    }

    /// The schema of an update endpoint whose item may move between lists of
    /// `collection`: it leaves each list it matched before and matches no
    /// longer, and joins the end of each list it matches now and did not
    /// before (a list it matched all along is left as it is: the item may sit
    /// on a page not fetched).
    ///
    /// ```
    /// use rdc_core::{json, Collection, Entity, MemoCache, State, WriteMeta};
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Todo { id: u32, done: bool }
    /// let todos = Collection::of("TodoList", Todo::schema());
    /// let mut state = State::default();
    /// let meta = |at| WriteMeta::at(at, 1000);
    /// state.write_result("open", &todos, json!([{ "id": 1, "done": false }]), &json!({ "done": false }), meta(0))?;
    /// state.write_result("done", &todos, json!([]), &json!({ "done": true }), meta(0))?;
    /// state.write_entities(&Collection::moving(&todos).into(), json!({ "id": 1, "done": true }), &json!({}), meta(1))?;
    /// let ids = |key| -> Result<Vec<u32>, rdc_core::ReadError> {
    ///     Ok(MemoCache::default().read_result::<Vec<Todo>>(&state, key, &todos)?.unwrap().iter().map(|t| t.id).collect())
    /// };
    /// assert_eq!((ids("open")?, ids("done")?), (vec![], vec![1]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn moving<T>(collection: &SchemaOf<Vec<T>>) -> SchemaOf<T> {
        SchemaOf::unchecked(Collection::edit(collection, ListEdit::Move))
    }

    /// The schema that edits `collection`'s lists by `edit`; other schemas
    /// come back unchanged.
    pub(crate) fn edit(collection: &Schema, edit: ListEdit) -> Schema {
        match collection {
            Schema::Collection(c) => Schema::CollectionEdit(Arc::clone(c), edit),
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

    /// How the stored items read: `Array(item)` for a list, `Values(item)` for maps.
    pub(crate) fn items_schema(&self) -> Schema {
        self.map.clone().unwrap_or_else(|| Schema::array(self.item.clone()))
    }

    /// How what an edit endpoint answers reads: the members of an assign,
    /// else one item.
    pub(crate) fn edited(&self, edit: ListEdit) -> &Schema {
        match (edit, &self.map) {
            (ListEdit::Assign, Some(map)) => map,
            _ => &self.item,
        }
    }

    /// For maps: how they read (`Values(item)`).
    pub(crate) fn map(&self) -> Option<&Schema> {
        self.map.as_ref()
    }
}

/// How an item edits the lists of a collection (see [`Schema::CollectionEdit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListEdit {
    /// Joins the end of each list it matches.
    Push,
    /// Joins the front of each list it matches.
    Unshift,
    /// Leaves every list.
    Remove,
    /// Leaves the lists it no longer matches, joins those it newly matches.
    Move,
    /// Its members join each map (of a [`Collection::of_values`]) whose
    /// filtering args equal the write's.
    Assign,
}

/// The (one per name and kind) type description of a collection table: lists
/// replace each other whole, or (`pages`) a page's items join the list's; the
/// items are checked as the entities they are. Both kinds of one name share
/// one key, so they are one table.
fn table_def(name: &'static str, pages: bool) -> &'static EntityDef {
    type Defs = crate::json::FastMap<(&'static str, bool), &'static EntityDef>;
    static DEFS: OnceLock<Mutex<Defs>> = OnceLock::new();
    let defs = DEFS.get_or_init(Mutex::default);
    let mut defs = defs.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    // The first kind made for a name gives the key both use.
    let key = defs.iter().find(|((n, _), _)| *n == name).map_or(name, |(_, def)| def.key);
    defs.entry((name, pages)).or_insert_with(|| {
        // One small allocation per collection name, for the life of the program.
        Box::leak(Box::new(EntityDef {
            replaces: !pages,
            drops_older: pages,
            ..EntityDef::internal_table(key, if pages { join_pages } else { |_, incoming| incoming.clone() })
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

/// A list with a page joined: `first`'s items, then `then`'s not among them.
pub(crate) fn join_pages(first: &Object, then: &Object) -> Object {
    let items = |list: &Object| list.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut joined = items(first);
    for item in items(then) {
        if !joined.contains(&item) {
            joined.push(item);
        }
    }
    let mut list = first.clone();
    list.insert("items".to_owned(), Value::Array(joined));
    list
}

/// A scalar as text: a string as it is, anything else in JSON form.
fn scalar_text(value: &Value) -> std::borrow::Cow<'_, str> {
    match value {
        Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
        other => std::borrow::Cow::Owned(crate::json_text(other)),
    }
}

/// Whether an item's field equals an arg: lists and objects as JSON values
/// (keys in any order), scalars by text.
pub(crate) fn same_arg(field: &Value, arg: &Value) -> bool {
    match (field, arg) {
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => field == arg,
        _ => scalar_text(field) == scalar_text(arg),
    }
}
