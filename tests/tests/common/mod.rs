//! Entities and endpoints of the spec, against the running API server: typed
//! (args, body, result), their path params checked at compile time by `rest!`.
#![allow(dead_code)]

use rdc::core::{entry, All, Schema, SchemaOf, Union};
use rdc::json::Value;
use rdc::rest;
use rdc::rest::{recipes, RestEndpoint};
use serde::Serialize;

// Each test file uses some of them.
#[allow(unused_imports)]
pub use rdc_spec_fixtures::{ExchangePrice, FeedItem, Link, Post, Stream, Ticker, User};

/// `endpoint` at the API server.
pub fn at_server<A, B, R>(endpoint: RestEndpoint<A, B, R>) -> RestEndpoint<A, B, R> {
    endpoint.url_prefix(&format!("{}/api", rdc_e2e::API_URL))
}

/// A user's path params.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UserId {
    pub id: String,
}

/// What creating a user sends.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NewUser {
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pair {
    pub exchange_pair: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Username {
    pub username: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    pub product_id: String,
}

pub fn list_users() -> RestEndpoint<(), (), Vec<User>> {
    at_server(rest!(GET "/users", schema = All::of::<User>()))
}

pub fn create_user() -> RestEndpoint<(), NewUser, User> {
    at_server(rest!(POST "/users" -> User, body = NewUser))
}

pub fn get_user() -> RestEndpoint<UserId, (), User> {
    at_server(rest!(GET "/users/:id" -> User, args = UserId))
}

pub fn feed() -> RestEndpoint<(), (), Vec<FeedItem>> {
    let union = Union::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")]);
    at_server(rest!(GET "/feed", schema = SchemaOf::unchecked(Schema::array(union))))
}

pub fn price() -> RestEndpoint<Pair, (), ExchangePrice> {
    at_server(rest!(GET "/price/:exchangePair" -> ExchangePrice, args = Pair))
}

pub fn stream() -> RestEndpoint<Username, (), Stream> {
    recipes::pk_from_param(
        &at_server(rest!(GET "/streams/:username" -> Stream, args = Username)),
        "username",
        "username",
    )
}

pub fn ticker() -> RestEndpoint<Product, (), Ticker> {
    let ticker = at_server(rest!(GET "/products/:productId/ticker" -> Ticker, args = Product));
    recipes::pk_from_param(&ticker, "productId", "product_id").poll_frequency(std::time::Duration::from_millis(2000))
}

/// A JSON endpoint at the API server with dynamic args (for the fault probes).
pub fn api(method: &str, path: &str) -> RestEndpoint<Value, Option<Value>, Value> {
    at_server(RestEndpoint::new(method, path))
}

/// A component showing the users' names from `list_users()`, joined by ", ".
mod names {
    use leptos::prelude::*;
    use rdc::leptos::use_suspense;

    #[component]
    pub fn UserNames() -> impl IntoView {
        let users = use_suspense(super::list_users(), ());
        view! {
            <Suspense fallback=|| "loading">
                {move || Suspend::new(async move {
                    users.await.map(|all| all.iter().map(|u| u.name.clone()).collect::<Vec<_>>().join(", "))
                })}
            </Suspense>
        }
    }
}

/// Mounts [`UserNames`] inside a `DataProvider` of `controller` at a fresh
/// mount point; it stays mounted while the returned handle lives.
pub fn mount_user_names(controller: &rdc::controller::Controller) -> (web_sys::HtmlElement, impl Sized) {
    use leptos::prelude::*;
    let (root, c) = (rdc_e2e::mount_point(), controller.clone());
    let handle = leptos::mount::mount_to(
        root.clone(),
        move || view! { <rdc::leptos::DataProvider controller=c.clone()><UserNames/></rdc::leptos::DataProvider> },
    );
    (root, handle)
}

/// Counts, from now on, the actions of `controller` that `which` picks.
pub fn count_actions(
    controller: &rdc::controller::Controller,
    which: fn(&rdc::controller::Action<'_>) -> bool,
) -> std::sync::Arc<SyncCell<u32>> {
    let count = std::sync::Arc::<SyncCell<u32>>::default();
    controller.add_manager(Counting { count: count.clone(), which });
    count
}

/// The manager [`count_actions`] adds.
struct Counting {
    count: std::sync::Arc<SyncCell<u32>>,
    which: fn(&rdc::controller::Action<'_>) -> bool,
}

impl rdc::controller::Manager for Counting {
    fn on_action(&self, _: &rdc::controller::Controller, action: rdc::controller::Action<'_>) {
        if (self.which)(&action) {
            self.count.set(self.count.get() + 1);
        }
    }
}

#[allow(unused_imports)]
pub use names::UserNames;

/// A `Cell` threads can share: what the controller's listeners, managers and
/// sources capture is `Send + Sync` (the browser is one thread all the same).
#[derive(Debug, Default)]
pub struct SyncCell<T>(std::sync::Mutex<T>);

impl<T: Copy> SyncCell<T> {
    /// Holding `value`.
    pub fn new(value: T) -> SyncCell<T> {
        SyncCell(std::sync::Mutex::new(value))
    }
    /// The value.
    pub fn get(&self) -> T {
        *self.0.lock().unwrap()
    }
    /// Sets the value.
    pub fn set(&self, value: T) {
        *self.0.lock().unwrap() = value;
    }
    /// Sets the value, returning the one before.
    pub fn replace(&self, value: T) -> T {
        std::mem::replace(&mut *self.0.lock().unwrap(), value)
    }
}
