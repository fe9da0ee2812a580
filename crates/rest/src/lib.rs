//! # rdc-rest
//!
//! `RestEndpoint`: path templates, the overridable fetch pipeline, binary bodies and
//! the transform recipes of the specification (see [`recipes`]).
//!
//! An endpoint carries its types: `RestEndpoint<A, B, R>` takes args `A` (a
//! `Serialize` struct: path params by field, the rest the query string), sends a
//! body `B` and yields `R`, what its schema reads as. `rdc::rest!` builds one with
//! the path params checked against `A` at compile time; `RestEndpoint::get(path)`
//! alone is the dynamic form (JSON args and result).
//!
//! The pipeline is a chain of replaceable steps: `request_init(body)` ->
//! `fetch_response(request)` -> `parse_response(response)` -> `process(body, args)`.
//! Each `with_*` override receives the step it replaces (`sup`) and may call it, as a
//! JavaScript subclass calls `super`.
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable, clippy::indexing_slicing)
)]

#[cfg(target_arch = "wasm32")]
mod browser;
mod disposition;
mod endpoint;
mod error;
#[cfg(all(feature = "live", target_arch = "wasm32"))]
mod event_source;
mod fake;
mod form;
mod http;
mod http_date;
mod link;
#[cfg(all(feature = "live", target_arch = "wasm32"))]
mod listening;
mod logout;
mod media;
#[cfg(feature = "multipart")]
mod multipart;
#[cfg(all(feature = "reqwest", not(target_arch = "wasm32")))]
mod native;
mod params;
mod path;
pub mod recipes;
mod request_body;
mod resource;
mod retry;
#[cfg(feature = "live")]
mod stream_url;
pub mod transform;
#[cfg(feature = "live")]
mod web_socket;
#[cfg(feature = "live")]
mod ws_frame;

#[cfg(target_arch = "wasm32")]
pub use browser::BrowserClient;
pub use endpoint::{
    provide_client, provide_retry, Args, Body, Content, ErrorPolicy, FetchSuper, FileDownload, ParseSuper, RequestInit,
    RestCall, RestEndpoint,
};
pub use error::{NetworkError, RestError};
#[cfg(all(feature = "live", target_arch = "wasm32"))]
pub use event_source::EventSourceStream;
pub use fake::{block_on, FakeClient, FakeResponse};
pub use form::form_fields;
pub use http::{Blob, BoxFuture, BytesBody, HttpClient, HttpRequest, HttpResponse, ResponseBody};
pub use logout::logout_on_401;
#[cfg(feature = "multipart")]
pub use multipart::{Multipart, Part};
#[cfg(all(feature = "reqwest", not(target_arch = "wasm32")))]
pub use native::{same_origin_redirects, ReqwestClient};
pub use path::{encode, ParamError, PathTemplate};
pub use request_body::{IntoRequestBody, RequestBody};
pub use resource::{resource, Resource};
pub use retry::Retry;
#[cfg(feature = "live")]
pub use web_socket::WebSocketStream;
#[cfg(feature = "live")]
pub use ws_frame::{FrameError, WebSocketFrame};
