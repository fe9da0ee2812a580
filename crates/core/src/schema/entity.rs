//! The `Entity` trait: a type whose instances are stored once, by type key and
//! primary key, and shared by every response that mentions them.

use crate::json::{Map, Value};
use serde::de::DeserializeOwned;

use super::EntityMeta;
use super::{Schema, SchemaOf};

/// A JSON object, as entities are stored.
pub type Object = Map;

/// A field of an entity that holds another schema (an entity, a list of them,
/// an `All`, a union...). Normalization replaces its content by references.
#[derive(Debug, Clone)]
pub struct NestedField {
    /// The field's name on the wire (after serde renames).
    pub name: &'static str,
    /// The schema of the field's value.
    pub schema: Schema,
    /// `false` for `Option<...>` fields: a missing nested entity reads as `None`
    /// instead of making this entity invalid.
    pub required: bool,
}

/// Where an entity was found as a response is normalized: what
/// [`Entity::pk_found`] and [`Entity::process_found`] are given beside the
/// value (data-client's `parent`, `key` and `args`).
///
/// ```
/// use rdc_core::{json, Found};
/// let found = Found { parent: &json!(null), key: "ada", args: &json!({ "team": 1 }) };
/// assert_eq!(found.key, "ada");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Found<'a> {
    /// The object the entity is a member of (without that member), or the
    /// list's parent for a list's items; `null` at the top of a response and
    /// for the members of a map (`Schema::values`). Members normalized
    /// before this one (in field order) already hold what normalizing left:
    /// a nested entity there is its pk, not its object.
    pub parent: &'a Value,
    /// The member's name (a map's key, for an entity in a map; the list's
    /// member name for a list's items; `""` at the top).
    pub key: &'a str,
    /// The endpoint's args.
    pub args: &'a Value,
}

impl Found<'static> {
    /// Found nowhere in particular: at the top, without args (what
    /// [`Entity::pk_of`] stands for).
    ///
    /// ```
    /// use rdc_core::Found;
    /// assert_eq!((Found::NOWHERE.key, Found::NOWHERE.parent.is_null()), ("", true));
    /// ```
    pub const NOWHERE: Found<'static> = Found { parent: &Value::Null, key: "", args: &Value::Null };
}

/// Where a field failed to deserialize, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Path inside the entity, e.g. `price` or `tags[2]`.
    pub path: String,
    /// What serde said.
    pub message: String,
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.path.as_str() {
            "" => f.write_str(&self.message),
            path => write!(f, "{} at {path}", self.message),
        }
    }
}

/// Type-erased description of an [`Entity`] type: what normalization and reads use.
/// Get it with [`Entity::DEF`]; it lives for the whole program.
#[derive(Debug)]
pub struct EntityDef {
    /// The type key entities are stored under.
    pub key: &'static str,
    /// Primary key of a wire object found nowhere in particular (optimistic
    /// writes and REST resources use it); normalizing uses
    /// [`EntityDef::pk_found`], whose default is this.
    pub pk: fn(&Object) -> Option<String>,
    /// The wire field that is the primary key, when one field is.
    ///
    /// ```
    /// # use rdc_core::Entity;
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// struct User { id: String }
    /// assert_eq!(User::DEF.pk_field, Some("id"));
    /// ```
    pub pk_field: Option<&'static str>,
    /// The wire fields declared unique indexes ([`Entity::INDEXES`]).
    ///
    /// ```
    /// # use rdc_core::Entity;
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// #[entity(index = "email")]
    /// struct User { id: String, email: String }
    /// assert_eq!(User::DEF.indexes, ["email"]);
    /// ```
    pub indexes: &'static [&'static str],
    /// Nested schema fields.
    pub nested: fn() -> &'static [NestedField],
    /// Checks every non-nested field against its Rust type.
    pub check_fields: fn(&Value) -> Result<(), FieldError>,
    /// The `process` hook without where the value was found: normalizing
    /// calls [`EntityDef::process_found`] only, whose default calls this.
    pub process: fn(Value, &Value) -> Result<Value, String>,
    /// The primary key of a wire object where it was found ([`Entity::pk_found`]).
    ///
    /// ```
    /// use rdc_core::{json, Entity, Found};
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// struct User { id: String }
    /// let object = json!({ "id": "ada" });
    /// let pk = (User::DEF.pk_found)(object.as_object().unwrap(), &Found::NOWHERE);
    /// assert_eq!(pk.as_deref(), Some("ada"));
    /// ```
    pub pk_found: fn(&Object, &Found<'_>) -> Option<String>,
    /// The `process` hook given where the value was found ([`Entity::process_found`]).
    ///
    /// ```
    /// use rdc_core::{json, Entity, Found};
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// struct User { id: String }
    /// let kept = (User::DEF.process_found)(json!({ "id": "ada" }), &Found::NOWHERE);
    /// assert_eq!(kept, Ok(json!({ "id": "ada" })));
    /// ```
    pub process_found: fn(Value, &Found<'_>) -> Result<Value, String>,
    /// The `validate` hook.
    pub validate: fn(&Object) -> Result<(), String>,
    /// The `merge` hook.
    pub merge: fn(&Object, &Object) -> Object,
    /// Whether `merge` is the default (incoming fields laid over stored ones),
    /// which lets a write see that nothing changes without merging.
    pub default_merge: bool,
    /// Whether newer data replaces the stored object whole (`merge` returns the
    /// incoming object): a write then moves it in rather than copying it.
    pub replaces: bool,
    /// Whether data older than the stored object is dropped rather than
    /// merged under it: a further page asked for before its list was last
    /// fetched (again, or joined by a later page; an edit does not count,
    /// see [`StoredEntity::listed`](crate::StoredEntity::listed)) belongs to
    /// the list as it was.
    pub drops_older: bool,
    /// The `should_update` hook.
    pub should_update: fn(&EntityMeta, &EntityMeta) -> bool,
    /// The type's generated reader, a `__private::Reader` of the entity
    /// type (see [`Entity::READER`]).
    pub reader: Option<&'static (dyn std::any::Any + Send + Sync)>,
    /// The reader of lists of the type, a [`ReadListFn`](crate::ReadListFn) of
    /// a `Vec` of it (see [`Entity::LIST_READER`]).
    pub list_reader: Option<&'static (dyn std::any::Any + Send + Sync)>,
}

impl EntityDef {
    /// The definition of a table of rdc's own (a collection's lists, a
    /// scalar's cells), written with `merge`: no pk of its own, no fields
    /// checked or nested, newer-or-equal writes win.
    pub(crate) fn internal_table(key: &'static str, merge: fn(&Object, &Object) -> Object) -> EntityDef {
        EntityDef {
            key,
            pk: |_| None,
            pk_field: None,
            indexes: &[],
            nested: || &[],
            check_fields: |_| Ok(()),
            process: |value, _| Ok(value),
            pk_found: |_, _| None,
            process_found: |value, _| Ok(value),
            validate: |_| Ok(()),
            merge,
            default_merge: false,
            replaces: false,
            drops_older: false,
            should_update: |existing: &EntityMeta, incoming: &EntityMeta| incoming.not_older_than(existing),
            reader: None,
            list_reader: None,
        }
    }

    /// The nested field named `name` (wire name), if any.
    pub fn nested_field(&self, name: &str) -> Option<&'static NestedField> {
        (self.nested)().iter().find(|f| f.name == name)
    }
}

/// A normalized type. Usually derived:
///
/// ```
/// use rdc_core::{Entity, Schema, State, WriteMeta, MemoCache};
/// use serde::Deserialize;
/// use rdc_core::json;
///
/// #[derive(Debug, Deserialize, Entity)]
/// #[entity(key = "User")]
/// struct User { id: String, name: String }
///
/// let mut state = State::default();
/// let users = Schema::array(User::schema());
/// state.write_result("GET /users", &users, json!([{ "id": "1", "name": "Ada" }]), &json!(null), WriteMeta::at(0, 60_000)).unwrap();
/// let mut memo = MemoCache::default();
/// let read: std::sync::Arc<Vec<User>> = memo.read_result(&state, "GET /users", &users).unwrap().unwrap();
/// assert_eq!(read[0].name, "Ada");
/// ```
///
/// Hooks have defaults: `process` passes the value through, `validate` accepts,
/// `merge` lays incoming fields over stored ones, and `should_update` lets data
/// fetched later win over data fetched earlier.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an entity",
    label = "not an entity",
    note = "derive `Entity` for it (`#[derive(Deserialize, Entity)]`): `All` and the entity readers read entities by their primary key"
)]
pub trait Entity: DeserializeOwned + Send + Sync + 'static {
    /// Name under which this type is stored (`static key` in the spec).
    const KEY: &'static str;

    /// The primary key of a wire object, or `None` when it has none.
    fn pk_of(value: &Object) -> Option<String>;

    /// The wire field that is the primary key, when one field is (the derive
    /// sets it; references to the entity then share that field's text).
    ///
    /// ```
    /// use rdc_core::Entity;
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// #[entity(pk = "user_id")]
    /// struct Member { #[serde(rename = "userId")] user_id: String }
    /// assert_eq!(Member::PK_FIELD, Some("userId"));
    /// ```
    const PK_FIELD: Option<&'static str> = None;

    /// Wire fields that are unique among the entities of the type (an email,
    /// a slug): the store keeps an index of each, so
    /// [`State::pk_where`](crate::State::pk_where) (and the controller's
    /// `entity_by`) finds an entity by one in constant time instead of
    /// scanning its table. The derive sets it from `#[entity(index = "..")]`
    /// (field names, separated by commas). The index follows every write:
    /// a field that changes, a deletion, an optimistic layer taken back, a
    /// sweep, a reset. Should two live entities share a value, the one stored
    /// first is found (as the scan finds it); an entity without the field, or
    /// with a list or object in it, is not in the index.
    ///
    /// ```
    /// use rdc_core::{json, Entity, State, WriteMeta};
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// #[entity(index = "email")]
    /// struct User { id: u32, email: String }
    /// assert_eq!(User::INDEXES, ["email"]);
    /// let mut state = State::default();
    /// state.write_entities(&User::schema(), json!({ "id": 1, "email": "ada@example.com" }), &json!(null), WriteMeta::at(0, 1000))?;
    /// assert!(state.is_indexed("User", "email"));
    /// assert_eq!(state.pk_where("User", "email", &json!("ada@example.com")).map(|pk| pk.as_str()), Some("1"));
    /// # Ok::<(), rdc_core::NormalizeError>(())
    /// ```
    const INDEXES: &'static [&'static str] = &[];

    /// Fields holding nested schemas. The derive fills this from `#[entity(nested)]`.
    fn nested_fields() -> &'static [NestedField] {
        &[]
    }

    /// Checks the non-nested fields against their Rust types so a bad field is
    /// refused at normalize time with its path. The derive implements it.
    fn check_fields(_value: &Value) -> Result<(), FieldError> {
        Ok(())
    }

    /// Transforms the incoming value before it is normalized; `args` are the
    /// endpoint's arguments. An `Err` rejects the whole response.
    fn process(value: Value, _args: &Value) -> Result<Value, String> {
        Ok(value)
    }

    /// The primary key of a wire object given where it was found: the
    /// object it is a member of, the key it is found under (a map's key, a
    /// member's name) and the args (data-client's `pk(value, parent, key,
    /// args)`). By default [`Entity::pk_of`]. Override it (the derive's
    /// `#[entity(pk_found = "path")]`) for entities keyed by where they sit,
    /// such as the members of a map keyed by id; leave [`Entity::PK_FIELD`]
    /// `None` then.
    ///
    /// ```
    /// use rdc_core::{json, Entity, Found, Object, Schema, State, WriteMeta};
    /// #[derive(Debug, serde::Deserialize, rdc_core::Entity)]
    /// #[entity(pk_found = "map_key")]
    /// struct Person { name: String }
    /// fn map_key(_: &Object, found: &Found<'_>) -> Option<String> {
    ///     Some(found.key.to_owned()).filter(|key| !key.is_empty())
    /// }
    /// let mut state = State::default();
    /// let people = json!({ "ada": { "name": "Ada" }, "bo": { "name": "Bo" } });
    /// state.write_entities(&Schema::values(Person::schema()), people, &json!(null), WriteMeta::at(0, 1000))?;
    /// assert!(state.entity("Person", "ada").is_some() && state.entity("Person", "bo").is_some());
    /// # Ok::<(), rdc_core::NormalizeError>(())
    /// ```
    fn pk_found(value: &Object, _found: &Found<'_>) -> Option<String> {
        Self::pk_of(value)
    }

    /// [`Entity::process`] given where the value was found (data-client's
    /// `process(input, parent, key, args)`): to copy the parent's id into a
    /// child, say. By default [`Entity::process`] with the args. The derive's
    /// `#[entity(process_found = "path")]` sets it.
    ///
    /// ```
    /// use rdc_core::{json, Entity, Found, MemoCache, Schema, State, WriteMeta};
    /// use rdc_core::json::Value;
    /// #[derive(Debug, serde::Deserialize, rdc_core::Entity)]
    /// #[entity(process_found = "with_post")]
    /// struct Comment { id: u32, #[serde(rename = "postId")] post_id: u32 }
    /// fn with_post(mut value: Value, found: &Found<'_>) -> Result<Value, String> {
    ///     let post = found.parent.get("id").cloned().ok_or("a comment outside a post")?;
    ///     if let Value::Object(comment) = &mut value { comment.insert("postId".to_owned(), post); }
    ///     Ok(value)
    /// }
    /// #[derive(Debug, serde::Deserialize, rdc_core::Entity)]
    /// struct Post { id: u32, #[entity(nested)] comments: Vec<Comment> }
    ///
    /// let mut state = State::default();
    /// let post = json!({ "id": 7, "comments": [{ "id": 1 }] });
    /// state.write_result("GET /posts/7", &Post::schema(), post, &json!(null), WriteMeta::at(0, 1000))?;
    /// let read = MemoCache::default().entity::<Comment>(&state, "1")?.unwrap();
    /// assert_eq!(read.post_id, 7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn process_found(value: Value, found: &Found<'_>) -> Result<Value, String> {
        Self::process(value, found.args)
    }

    /// Validates the processed value; an `Err` rejects the whole response.
    fn validate(_value: &Object) -> Result<(), String> {
        Ok(())
    }

    /// Merges an incoming object into the stored one. `existing` is what wins
    /// less; by default incoming fields replace stored ones, other stored fields stay.
    fn merge(existing: &Object, incoming: &Object) -> Object {
        existing.overlaid(incoming)
    }

    /// Whether [`Entity::merge`] is the default one. Set `true` only when it is
    /// not overridden: writes then find an incoming object whose fields all
    /// equal stored ones unchanged without merging. The derive sets it when no
    /// `merge` hook is given.
    ///
    /// ```
    /// # use rdc_core::Entity;
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// struct User { id: String, name: String }
    /// assert!(User::DEFAULT_MERGE);
    /// ```
    const DEFAULT_MERGE: bool = false;

    /// Whether `incoming` should win over `existing`. By default data fetched
    /// later wins, so a slow response never overwrites newer data.
    fn should_update(existing: &EntityMeta, incoming: &EntityMeta) -> bool {
        incoming.not_older_than(existing)
    }

    /// The generated reader (a hidden `Reader<Self>` around a
    /// [`ReadFn`](crate::ReadFn)`<Self>`): builds `Self` from its stored object
    /// directly, in place of serde's visitor, reading what serde's derive would.
    /// The derive sets it unless a serde attribute it does not mirror is present
    /// or `#[entity(serde_read)]` asks for serde, which a hand-written
    /// `Deserialize` needs (the derive cannot see it; a debug build's first read
    /// stops when that `Deserialize` asks for another struct). Whenever it is
    /// set, reads use it.
    ///
    /// ```
    /// # use rdc_core::Entity;
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// #[serde(deny_unknown_fields)]
    /// struct User { id: String }
    /// assert!(User::READER.is_none());
    /// ```
    const READER: Option<&'static (dyn std::any::Any + Send + Sync)> = None;

    /// A [`ReadListFn`](crate::ReadListFn)`<Vec<Self>>`: lists of the type
    /// (arrays, collections, `All`) read into a `Vec`, each item by
    /// [`Entity::READER`]. The derive sets it with `READER`.
    ///
    /// ```
    /// # use rdc_core::Entity;
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// #[entity(serde_read)]
    /// struct User { id: String }
    /// assert!(User::LIST_READER.is_none());
    /// ```
    const LIST_READER: Option<&'static (dyn std::any::Any + Send + Sync)> = None;

    /// The type-erased description normalization uses.
    const DEF: &'static EntityDef = &EntityDef {
        key: Self::KEY,
        pk: Self::pk_of,
        pk_field: Self::PK_FIELD,
        indexes: Self::INDEXES,
        nested: Self::nested_fields,
        check_fields: Self::check_fields,
        process: Self::process,
        pk_found: Self::pk_found,
        process_found: Self::process_found,
        validate: Self::validate,
        merge: Self::merge,
        default_merge: Self::DEFAULT_MERGE,
        replaces: false,
        drops_older: false,
        should_update: Self::should_update,
        reader: Self::READER,
        list_reader: Self::LIST_READER,
    };

    /// This entity as a schema (it reads as the entity).
    fn schema() -> SchemaOf<Self> {
        SchemaOf::unchecked(Schema::Entity(Self::DEF))
    }
}

/// Turns a JSON scalar into a primary key string: strings as they are, numbers
/// in their JSON form; anything else is no key. Used by the derive.
///
/// ```
/// use rdc_core::json;
/// assert_eq!(rdc_core::pk_string(&json!(7)), Some("7".to_string()));
/// assert_eq!(rdc_core::pk_string(&json!(-12)), Some("-12".to_string()));
/// assert_eq!(rdc_core::pk_string(&json!(u64::MAX)), Some(u64::MAX.to_string()));
/// assert_eq!(rdc_core::pk_string(&json!(i64::MIN)), Some(i64::MIN.to_string()));
/// assert_eq!(rdc_core::pk_string(&json!(1.5)), Some("1.5".to_string()));
/// assert_eq!(rdc_core::pk_string(&json!(null)), None);
/// ```
pub fn pk_string(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.to_string()),
        Value::Number(n) => Some(number_text(n)),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The primary key of an entity keyed by several fields: the parts joined with
/// ",", each with `%` and `,` percent-encoded, so no two lists of parts give
/// the same key (`("a,b", "c")` and `("a", "b,c")` stay apart) and parts without
/// those characters read as they are. The derive's `pk = "a, b"` uses it.
///
/// ```
/// assert_eq!(rdc_core::composite_pk(["rust", "ada"]), "rust,ada");
/// assert_eq!(rdc_core::composite_pk(["acme,inc", "bob"]), "acme%2Cinc,bob");
/// assert_eq!(rdc_core::composite_pk(["acme", "inc,bob"]), "acme,inc%2Cbob");
/// assert_eq!(rdc_core::composite_pk(["100%", ""]), "100%25,");
/// ```
pub fn composite_pk<S: AsRef<str>>(parts: impl IntoIterator<Item = S>) -> String {
    let mut key = String::new();
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            key.push(',');
        }
        for c in part.as_ref().chars() {
            match c {
                '%' => key.push_str("%25"),
                ',' => key.push_str("%2C"),
                c => key.push(c),
            }
        }
    }
    key
}

/// A value as compact JSON text (`"a"` for a string), as in keys and messages.
///
/// ```
/// use rdc_core::json;
/// assert_eq!(rdc_core::json_text(&json!({"b": [1, "x"]})), r#"{"b":[1,"x"]}"#);
/// ```
pub fn json_text(value: &Value) -> String {
    value.to_string()
}

/// A value as compact JSON text with the keys of every object sorted: the same
/// text for the same value however its objects were built (cache keys).
///
/// ```
/// use rdc_core::json;
/// let a = json!({"b": 1, "a": {"d": [1], "c": null}});
/// let b = rdc_core::json::Value::parse(r#"{"a": {"c": null, "d": [1]}, "b": 1}"#.to_owned()).unwrap();
/// assert_eq!(rdc_core::canonical_text(&a), rdc_core::canonical_text(&b));
/// assert_eq!(rdc_core::canonical_text(&a), r#"{"a":{"c":null,"d":[1]},"b":1}"#);
/// ```
pub fn canonical_text(value: &Value) -> String {
    fn canonical(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                // Keys unique already: no dedup.
                let entries = map.sorted().into_iter().map(|(k, v)| (k.clone(), canonical(v))).collect();
                Value::Object(crate::json::Map::from_unique(entries))
            }
            Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
            other => other.clone(),
        }
    }
    json_text(&canonical(value))
}

/// Like [`pk_string`], for references stored in normalized objects.
pub(crate) fn pk_string_ref(value: &Value) -> Option<std::borrow::Cow<'_, str>> {
    match value {
        Value::String(s) => Some(std::borrow::Cow::Borrowed(s.as_str())),
        Value::Number(n) => Some(std::borrow::Cow::Owned(number_text(n))),
        _ => None,
    }
}

/// A number as its key text: integers (most keys) written digit by digit,
/// without the formatting machinery (a write of one entity by a numeric key
/// spent more time there than in storing it); others as JSON writes them.
fn number_text(n: &crate::json::Number) -> String {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => integer_text(u),
        (None, Some(i)) => integer_text(i),
        (None, None) => n.to_string(),
    }
}

/// An integer's decimal text.
pub(crate) fn integer_text(n: impl itoa::Integer) -> String {
    itoa::Buffer::new().format(n).to_owned()
}
