//! # rdc-macros
//!
//! `#[derive(Entity)]` and `#[derive(Schema)]` for rdc (see `rdc_core::Entity`
//! and `rdc_core::HasSchema` for the traits they implement), and `rest!` /
//! `resource!`, typed endpoints whose path params are checked at compile time.
//!
//! ```ignore
//! #[derive(serde::Deserialize, rdc::Entity)]
//! #[entity(key = "Post", pk = "id")]          // key defaults to the type name, pk to `id`
//! struct Post {
//!     id: u64,
//!     #[entity(nested)] author: User,          // another entity: stored once, referenced here
//!     #[entity(nested)] comments: Vec<Comment>,
//!     #[entity(schema = "rdc::core::All::of::<Tag>()")] tags: Vec<Tag>,
//!     #[entity(lazy = "Vec<User>")] likers: Vec<rdc::core::Pk>, // stored, read as keys
//! }
//! ```
//!
//! Container options: `key`, `pk` (a field, or several separated by commas for a
//! composite key, joined by `rdc_core::composite_pk`), `pk_with` (a function `fn(&Object) -> Option<String>`), the
//! lifecycle hooks `process`, `validate`, `merge`, `should_update`, and `pk_found`
//! and `process_found` (the pk and `process` given the parent and key the
//! value was found under) (function paths with the signatures of the `Entity`
//! methods of the same names), `index`
//! (unique fields other than the pk, separated by commas, that
//! `State::pk_where` and `Controller::entity_by` look up in constant time:
//! `rdc_core::Entity::INDEXES`), and `serde_read` (reads go through serde's visitor, not the generated reader:
//! required with a hand-written `Deserialize`, which the derive cannot see).
//!
//! Field options: `nested`, `schema = "expr"` (the field's schema), and
//! `lazy = "T"` (`rdc_core::Lazy`: normalized through `T`'s schema, read as
//! the keys it stored; the field's type, or the `T` of its `Option`, must be
//! `rdc_core::LazyKeys<T>`, e.g. `Vec<Pk>` for a `Vec` of entities).
//!
//! Both derives generate a reader that builds the struct from its stored object
//! without serde's visitor. It is used once the first read has checked that the
//! type's `Deserialize` is serde's derive over the same wire names; serde options
//! other than `rename`, `rename_all` and `default` (and those of serializing
//! only) leave reads to serde.
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable, clippy::indexing_slicing)
)]

mod attrs;
mod case;
mod endpoint;
mod expand;

use proc_macro::TokenStream;

/// Derives `rdc_core::HasSchema` for a plain struct (not an entity) whose
/// `#[entity(nested)]` fields hold entities, lists of them or other schemas: its
/// schema is an `Object` of those fields, and reads build the struct with a
/// generated reader (as entities are read). `#[entity(schema = "...")]` gives a
/// field's schema explicitly, `#[entity(lazy = "T")]` a lazy one (read as keys); `#[entity(serde_read)]` leaves reads to serde
/// (required with a hand-written `Deserialize`).
/// The struct gets an inherent `schema()` too (so a type of that name must not
/// have one already), and must not also derive `Entity`.
///
/// ```ignore
/// #[derive(serde::Deserialize, rdc::Schema)]
/// struct Page {
///     #[entity(nested)] results: Vec<User>,
///     next: Option<String>,
/// }
/// let schema = Page::schema();   // {"results": [User]}; also `HasSchema::schema`
/// ```
#[proc_macro_derive(Schema, attributes(entity))]
pub fn derive_schema(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::expand_object(input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Derives `rdc_core::Entity` (and `rdc_core::HasSchema`) for a struct with named fields.
#[proc_macro_derive(Entity, attributes(entity))]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::expand(input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// A typed `RestEndpoint`: `rest!(METHOD "path" -> Result, args = Args, body = Body)`.
///
/// - `-> T` reads results as `T` through `T`'s schema (an entity, `Vec<E>` of
///   one, a `#[derive(Schema)]` struct); or `schema = expr` with a typed schema
///   (`All::of::<User>()` reads as `Vec<User>`); or `returns = T` for any
///   `Deserialize` type kept as sent (no schema); none of them: JSON.
/// - `args = A` (a `Serialize` struct, default `()`): each path param must be
///   one of its fields, or the call does not compile (a camelCase param such as
///   `:exchangePair` is the field `exchange_pair`, which the struct serializes
///   under the param's name, e.g. with `#[serde(rename_all = "camelCase")]`);
///   the other fields form the query string.
/// - `body = B` (a `Serialize` type, default `()`: no body).
///
/// (Compiled in the `rdc` crate's README quick start.)
///
/// ```text
/// #[derive(Clone, PartialEq, serde::Serialize)]
/// struct UserId { id: String }
/// let user = rdc::rest!(GET "/api/users/:id" -> User, args = UserId);   // RestEndpoint<UserId, (), User>
/// let create = rdc::rest!(POST "/api/users" -> User, body = NewUser);  // RestEndpoint<(), NewUser, User>
/// ```
#[proc_macro]
pub fn rest(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as endpoint::Rest);
    endpoint::expand_rest(input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// A typed `Resource`: `resource!("/users/:id" -> User, args = UserId,
/// list_args = Filter, body = NewUser, list = "UserList")`. Every path param of
/// the item path must be a field of `args` (default `()`), every one of the
/// list path (the item path without its last param) a field of `list_args`
/// (default `()`); `body` (default: a JSON value, `Option<rdc::json::Value>`) is
/// what writes send; `list`
/// (default the entity's name and `List`) names the lists' collection.
///
/// ```text
/// let users = rdc::resource!("/api/users/:id" -> User, args = UserId, body = NewUser);
/// ```
///
/// (A compiled example: the demo's `users()` in `demo-app/src/api.rs`.)
#[proc_macro]
pub fn resource(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as endpoint::ResourceInput);
    endpoint::expand_resource(input).unwrap_or_else(syn::Error::into_compile_error).into()
}
