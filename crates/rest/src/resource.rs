//! `resource(path, list_name)`: the usual endpoints of a REST resource, wired so
//! that writes update every list and detail view through the store.

use rdc_core::json::Value;
use rdc_core::{Collection, Entity, Schema, SchemaOf};
use serde::Serialize;

use crate::endpoint::{Body, RestEndpoint};

/// The endpoints of entity `E`: one item is addressed by args `A` (its path
/// params), lists by args `L` (their search params: filters), and writes send a
/// body `B`. Lists are a [`Collection`] keyed by their args, so `create` adds
/// the new item to every matching list, and `delete` removes the entity (it
/// drops out of every list and detail view).
///
/// `resource::<E>(..)` takes JSON args and bodies; [`Resource::args`],
/// [`Resource::list_args`] and [`Resource::body`] give them types, and the
/// `resource!` macro does so with the path params checked at compile time.
///
/// ```
/// use rdc_controller::TypedEndpoint;
/// use rdc_rest::resource;
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// #[derive(serde::Serialize)] struct UserId { id: String }
/// #[derive(serde::Serialize)] struct NewUser { name: String }
/// let users = resource::<User>("/users/:id", "UserList").args::<UserId>().list_args::<()>().body::<NewUser>();
/// let args = users.get.encode_args(&UserId { id: "7".into() }).unwrap();
/// assert_eq!(users.get.key(args.as_object().unwrap()).unwrap(), "GET /users/7");
/// assert_eq!(users.get_list.key(&Default::default()).unwrap(), "GET /users");
/// assert_eq!(users.create.method_name(), "POST");
/// ```
#[derive(Debug)]
pub struct Resource<E, A = Value, L = Value, B = Option<Value>> {
    /// `GET path`: one entity.
    pub get: RestEndpoint<A, (), E>,
    /// `GET` the path without its last parameter: the list (search params filter it).
    pub get_list: RestEndpoint<L, (), Vec<E>>,
    /// `POST` to the list path; the new entity joins the matching lists.
    pub create: RestEndpoint<L, B, E>,
    /// `PUT path`; the entity moves to the lists its new fields match
    /// ([`Collection::moving`]).
    pub update: RestEndpoint<A, B, E>,
    /// `PATCH path`, moving the entity as `update` does: sends the whole body (give `Option` fields
    /// `#[serde(skip_serializing_if = "Option::is_none")]` to send only the set ones).
    pub partial_update: RestEndpoint<A, B, E>,
    /// `DELETE path`; the entity is removed from the store.
    pub delete: RestEndpoint<A, (), ()>,
}

impl<E, A, L, B> Clone for Resource<E, A, L, B> {
    fn clone(&self) -> Self {
        Resource {
            get: self.get.clone(),
            get_list: self.get_list.clone(),
            create: self.create.clone(),
            update: self.update.clone(),
            partial_update: self.partial_update.clone(),
            delete: self.delete.clone(),
        }
    }
}

/// Builds the endpoints of entity `E` at `path` (e.g. `/users/:id`); lists are
/// stored as the collection `list_name`.
pub fn resource<E: Entity>(path: &str, list_name: &'static str) -> Resource<E> {
    let list_path = match path.rfind("/:") {
        Some(i) if !path[i + 2..].contains('/') => &path[..i],
        _ => path,
    };
    let list: SchemaOf<Vec<E>> = Collection::of(list_name, E::schema());
    let item = |method: &str| RestEndpoint::new(method, path).body::<()>().schema(E::schema());
    Resource {
        get: item("GET"),
        get_list: RestEndpoint::get(list_path).body::<()>().schema(list.clone()),
        create: RestEndpoint::post(list_path).schema(Collection::push(&list)),
        update: RestEndpoint::new("PUT", path).schema(Collection::moving(&list)),
        partial_update: RestEndpoint::new("PATCH", path).schema(Collection::moving(&list)),
        // A 204 has no body: the args (the pk) say what was deleted.
        delete: RestEndpoint::new("DELETE", path)
            .body::<()>()
            .schema(SchemaOf::<Value>::from(Schema::invalidate::<E>()))
            .with_process(|body, args, sup| match sup(body, args)? {
                Body::Empty => Ok(Body::Json(Value::Object(args.clone()))),
                other => Ok(other),
            })
            .result_with(|_| Ok(())),
    }
}

impl<E: 'static, A: 'static, L: 'static, B: 'static> Resource<E, A, L, B> {
    /// The same endpoints with `f` applied to each (a URL prefix, a client, a recipe...).
    pub fn map(&self, f: impl Fn(&RestEndpoint) -> RestEndpoint) -> Self {
        Resource {
            get: self.get.map(&f),
            get_list: self.get_list.map(&f),
            create: self.create.map(&f),
            update: self.update.map(&f),
            partial_update: self.partial_update.map(&f),
            delete: self.delete.map(&f),
        }
    }

    /// One item is addressed by args of type `T` (a struct of its path params).
    pub fn args<T: Serialize + 'static>(&self) -> Resource<E, T, L, B> {
        Resource {
            get: self.get.args(),
            get_list: self.get_list.clone(),
            create: self.create.clone(),
            update: self.update.args(),
            partial_update: self.partial_update.args(),
            delete: self.delete.args(),
        }
    }

    /// Lists (and creates) take args of type `T` (their search params; `()`: none).
    pub fn list_args<T: Serialize + 'static>(&self) -> Resource<E, A, T, B> {
        Resource {
            get: self.get.clone(),
            get_list: self.get_list.args(),
            create: self.create.args(),
            update: self.update.clone(),
            partial_update: self.partial_update.clone(),
            delete: self.delete.clone(),
        }
    }

    /// Writes (create, update, partial update) send a body of type `T`.
    pub fn body<T: Serialize + 'static>(&self) -> Resource<E, A, L, T> {
        Resource {
            get: self.get.clone(),
            get_list: self.get_list.clone(),
            create: self.create.body(),
            update: self.update.body(),
            partial_update: self.partial_update.body(),
            delete: self.delete.clone(),
        }
    }
}

impl<E: Entity, A: 'static, L: 'static, B: 'static> Resource<E, A, L, B> {
    /// The same endpoints with optimistic writes, shown at once and replaced
    /// by the answers: `create` shows its body as the new entity, joining the
    /// lists, when the body carries the key (an id the client made; a key the
    /// server gives is waited for); `update` shows its args and body as the
    /// entity, `partial_update` them over the stored entity (nothing when none
    /// is stored), and `delete` removes the entity.
    ///
    /// ```
    /// use rdc_controller::{Endpoint, TypedEndpoint};
    /// use rdc_core::{json, Entity, State, WriteMeta};
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String, email: String }
    /// let users = rdc_rest::resource::<User>("/users/:id", "UserList").optimistic();
    /// let mut store = State::default();
    /// let ada = json!({ "id": "1", "name": "Ada", "email": "ada@example.com" });
    /// store.write_entities(&User::schema().into(), ada, &json!(null), WriteMeta::at(0, 1000))?;
    /// let shown = users.partial_update.endpoint().optimistic(&store, &json!({ "id": "1" }), Some(&json!({ "name": "Ada L." }).into()));
    /// assert_eq!(shown, Some(json!({ "id": "1", "name": "Ada L.", "email": "ada@example.com" })));
    /// # Ok::<(), rdc_core::NormalizeError>(())
    /// ```
    pub fn optimistic(&self) -> Self {
        let key = E::DEF.key;
        let pk = E::DEF.pk;
        Resource {
            get: self.get.clone(),
            get_list: self.get_list.clone(),
            create: self.create.optimistic_with(move |_, args, body| {
                let made = overlaid(None, args, body);
                pk(made.as_object()?)?;
                Some(made)
            }),
            update: self.update.optimistic_with(|_, args, body| Some(overlaid(None, args, body))),
            partial_update: self.partial_update.optimistic_with(move |store, args, body| {
                let mut stored = (*store.entity(key, &pk(args)?)?.value.clone()?).clone();
                // A scalar member holds where the entity's cells are, not a
                // value: left out, the write leaves the cells as they are.
                for field in (E::DEF.nested)() {
                    if matches!(field.schema, rdc_core::Schema::Scalar(_)) {
                        stored.remove(field.name);
                    }
                }
                Some(overlaid(Some(&stored), args, body))
            }),
            delete: self.delete.optimistic_with(|_, args, _| Some(Value::Object(args.clone()))),
        }
    }
}

/// `base` (or nothing) with the args' and then the body's members over it.
fn overlaid(base: Option<&rdc_core::json::Map>, args: &rdc_core::json::Map, body: Option<&Value>) -> Value {
    let mut out = base.cloned().unwrap_or_default();
    let body = body.and_then(Value::as_object).into_iter().flat_map(|body| body.iter());
    for (name, value) in args.iter().chain(body) {
        out.insert(name.clone(), value.clone());
    }
    Value::Object(out)
}
