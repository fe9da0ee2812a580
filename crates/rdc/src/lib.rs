//! A signal-backed, normalized entity cache with REST endpoints for Leptos apps.
//! `use rdc::prelude::*;` brings in what an app needs. The crate's docs are the
//! README, so its examples are compiled with the tests.
#![doc = include_str!("../../../README.md")]
#![deny(missing_docs)]

pub use rdc_controller as controller;
pub use rdc_core as core;
pub use rdc_leptos as leptos;
pub use rdc_rest as rest;

pub mod testing;

/// `#[derive(Entity)]` (an entity type), `#[derive(Schema)]` (a plain struct
/// holding entities: its `Object` schema), and `rest!` / `resource!` (typed
/// endpoints whose path params are checked against their args at compile time).
pub use rdc_macros::{resource, rest, Entity, Schema};

/// rdc's JSON value (`rdc::json::Value`, `Map`, `Text`) and the `rdc::json!`
/// macro that builds one with `serde_json::json!`'s syntax.
///
/// ```
/// let user = rdc::json!({"id": 1, "name": "Ada"});
/// assert_eq!(user["name"], "Ada");
/// ```
pub use rdc_core::json;

/// Everything an app usually needs, in one import. (`HasSchema`, which the
/// derives implement, stays out: its `schema()` would make `User::schema()`
/// ambiguous beside `Entity::schema()`.)
pub mod prelude {
    pub use rdc_controller::{from_fn, Controller, ExpiryStatus, FetchError, TypedEndpoint};
    pub use rdc_core::Lazy;
    pub use rdc_core::{entry, All, Collection, Entity, Pk, Query, Scalar, Schema, SchemaOf, Union};
    pub use rdc_leptos::use_lazy;
    #[cfg(feature = "offline")]
    pub use rdc_leptos::use_queued_mutations;
    pub use rdc_leptos::{
        use_cache, use_cancelling, use_controller, use_dle, use_entity, use_entity_by, use_keys, use_list, use_live,
        use_loading, use_mutation, use_pages, use_query, use_subscription, use_suspense, use_suspense_keys,
        use_suspense_optional, DataProvider, EntityKey, Row,
    };
    pub use rdc_leptos::{
        use_dle_each, use_error, use_fetch, use_keep_previous, use_placeholder, use_prefetch, use_query_select,
        use_select,
    };
    pub use rdc_leptos::{use_is_fetching, use_is_fetching_of, use_pending_mutations};
    pub use rdc_leptos::{use_object_url, Img};
    pub use rdc_leptos::{use_server_action, use_server_action_with};
    pub use rdc_rest::{recipes, resource, Body, Content, NetworkError, RestEndpoint, RestError};
}
