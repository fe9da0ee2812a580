//! Entities and endpoints of the spec, against the running API server.
#![allow(dead_code)]

use rdc::core::{entry, All, Entity, Schema, Union};
use rdc::rest::{recipes, RestEndpoint};

// Each test file uses some of them.
#[allow(unused_imports)]
pub use rdc_spec_fixtures::{ExchangePrice, FeedItem, Link, Post, Stream, Ticker, User};

pub fn api(method: &str, path: &str) -> RestEndpoint {
    RestEndpoint::new(method, path).url_prefix(&format!("{}/api", rdc_e2e::API_URL))
}

pub fn list_users() -> RestEndpoint {
    api("GET", "/users").schema(All::of::<User>().into())
}

pub fn create_user() -> RestEndpoint {
    api("POST", "/users").schema(User::schema())
}

pub fn get_user() -> RestEndpoint {
    api("GET", "/users/:id").schema(User::schema())
}

pub fn feed() -> RestEndpoint {
    api("GET", "/feed")
        .schema(Schema::array(Union::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")])))
}

pub fn price() -> RestEndpoint {
    api("GET", "/price/:exchangePair").schema(ExchangePrice::schema())
}

pub fn stream() -> RestEndpoint {
    recipes::pk_from_param(&api("GET", "/streams/:username"), "username", "username").schema(Stream::schema())
}

pub fn ticker() -> RestEndpoint {
    recipes::pk_from_param(&api("GET", "/products/:productId/ticker"), "productId", "product_id")
        .schema(Ticker::schema())
        .poll_frequency(std::time::Duration::from_millis(2000))
}
