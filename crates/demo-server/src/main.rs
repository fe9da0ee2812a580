//! `rdc-demo-server`: the HTTP API behind the rdc demo and the browser tests.
//!
//! Serves every endpoint of the specification under `/api`, with CORS open to any
//! origin (the wasm test runner serves tests from its own port) and the `Link`,
//! `Content-Disposition`, `X-Request-Count` and `X-RateLimit-*` headers exposed. It binds
//! 127.0.0.1 only.
//!
//! Usage: `rdc-demo-server [--port N] [--static DIR]` (port default: `RDC_API_PORT`
//! or 3917). With `--static`, the built demo (Trunk's `dist/`) is served at `/` too,
//! which is how the end-to-end test runs it (cross-origin isolated, for precise timers);
//! its pages' paths (`/users`, ...) get its index.html.

mod api;
mod examples;
mod live;
mod state;
mod tools;
mod uploads;

use std::net::{Ipv4Addr, SocketAddr};

use axum::http::{HeaderName, HeaderValue, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};
use tower_http::set_header::SetResponseHeaderLayer;

const USAGE: &str = "usage: rdc-demo-server [--port N] [--static DIR]";

/// The port, and the folder of static files to serve, from the command line.
fn parse_args() -> Result<(u16, Option<std::path::PathBuf>), String> {
    let mut args = std::env::args().skip(1);
    let mut port = std::env::var("RDC_API_PORT").ok();
    let mut static_dir = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = args.next(),
            "--static" => static_dir = args.next().map(std::path::PathBuf::from),
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument {other:?}; {USAGE}")),
        }
    }
    let port = match port {
        None => 3917,
        Some(p) => p.parse().map_err(|_| format!("port {p:?} is not a number from 1 to 65535"))?,
    };
    Ok((port, static_dir))
}

/// The demo's `index` for the path of one of its pages; 404 for an API path
/// or a file's (a last segment with a dot) that is not there.
async fn page(index: std::path::PathBuf, uri: Uri) -> Response {
    let last = uri.path().rsplit('/').next().unwrap_or_default();
    if uri.path().starts_with("/api/") || last.contains('.') {
        return StatusCode::NOT_FOUND.into_response();
    }
    match tokio::fs::read_to_string(&index).await {
        Ok(html) => Html(html).into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

#[tokio::main]
async fn main() {
    let (port, static_dir) = match parse_args() {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(err) => {
            eprintln!("rdc-demo-server: cannot bind {addr}: {err}");
            std::process::exit(1);
        }
    };
    println!("rdc-demo-server listening on http://{addr}/api");
    let mut app = api::router(state::AppState::default());
    if let Some(dir) = static_dir {
        // A path that names no file is a page of the demo (it routes in the
        // browser: `/users`, `/streams/ninja`): index.html, as `trunk serve` does.
        let index = dir.join("index.html");
        let pages = axum::handler::HandlerWithoutStateExt::into_service(move |uri: Uri| page(index.clone(), uri));
        app = app.fallback_service(tower_http::services::ServeDir::new(dir).fallback(pages));
        // Cross-origin isolation: the page's `performance.now()` gets 5 us
        // resolution instead of 100 us (the browser benchmark times sub-ms updates).
        for (name, value) in
            [("cross-origin-opener-policy", "same-origin"), ("cross-origin-embedder-policy", "require-corp")]
        {
            app = app.layer(SetResponseHeaderLayer::overriding(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            ));
        }
    }
    if let Err(err) = axum::serve(listener, app).await {
        eprintln!("rdc-demo-server: {err}");
        std::process::exit(1);
    }
}
