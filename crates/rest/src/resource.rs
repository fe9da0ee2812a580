//! `resource(path, schema)`: the usual endpoints of a REST resource, wired so that
//! writes update every list and detail view through the store.

use rdc_core::{Collection, Entity, Schema};

use rdc_core::json::Value;

use crate::endpoint::{Body, RestEndpoint};

/// The endpoints of one resource. Lists are a [`Collection`] keyed by their args,
/// so `create` adds the new item to every matching list, and `delete` removes the
/// entity (it drops out of every list and detail view).
///
/// ```
/// use rdc_rest::resource;
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// let users = resource::<User>("/users/:id", "UserList");
/// let args = rdc_core::json!({ "id": "7" });
/// assert_eq!(users.get.key(args.as_object().unwrap()).unwrap(), "GET /users/7");
/// assert_eq!(users.get_list.key(&Default::default()).unwrap(), "GET /users");
/// assert_eq!(users.create.method_name(), "POST");
/// ```
#[derive(Debug, Clone)]
pub struct Resource {
    /// `GET path`: one entity.
    pub get: RestEndpoint,
    /// `GET` the path without its last parameter: the list (search params filter it).
    pub get_list: RestEndpoint,
    /// `POST` to the list path; the new entity joins the matching lists.
    pub create: RestEndpoint,
    /// `PUT path`.
    pub update: RestEndpoint,
    /// `PATCH path`.
    pub partial_update: RestEndpoint,
    /// `DELETE path`; the entity is removed from the store.
    pub delete: RestEndpoint,
}

/// Builds the endpoints of entity `E` at `path` (e.g. `/users/:id`); lists are
/// stored as the collection `list_name`.
pub fn resource<E: Entity>(path: &str, list_name: &'static str) -> Resource {
    let list_path = match path.rfind("/:") {
        Some(i) if !path[i + 2..].contains('/') => &path[..i],
        _ => path,
    };
    let list = Collection::of(list_name, E::schema());
    Resource {
        get: RestEndpoint::get(path).schema(E::schema()),
        get_list: RestEndpoint::get(list_path).schema(list.clone()),
        create: RestEndpoint::post(list_path).schema(Collection::push(&list)),
        update: RestEndpoint::new("PUT", path).schema(E::schema()),
        partial_update: RestEndpoint::new("PATCH", path).schema(E::schema()),
        // A 204 has no body: the args (the pk) say what was deleted.
        delete: RestEndpoint::new("DELETE", path).schema(Schema::invalidate::<E>()).with_process(|body, args, sup| {
            match sup(body, args)? {
                Body::Empty => Ok(Body::Json(Value::Object(args.clone()))),
                other => Ok(other),
            }
        }),
    }
}

impl Resource {
    /// The same endpoints with `f` applied to each (a URL prefix, a client, a recipe...).
    pub fn map(&self, f: impl Fn(&RestEndpoint) -> RestEndpoint) -> Resource {
        Resource {
            get: f(&self.get),
            get_list: f(&self.get_list),
            create: f(&self.create),
            update: f(&self.update),
            partial_update: f(&self.partial_update),
            delete: f(&self.delete),
        }
    }
}
