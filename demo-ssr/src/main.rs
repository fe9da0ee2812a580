//! `rdc-demo-ssr`: serves the demo's pages rendered on the server, streams each
//! `<Suspense>` as its data arrives, runs the pages' server functions (`/fn/..`),
//! and forwards the browser's `/api` calls to the API server (`rdc-demo-server`).
//!
//! The standard Leptos set-up (`start-axum`): `leptos_routes` renders the
//! router's pages on tokio's multi-threaded runtime, one controller per request.
//!
//! Usage: `rdc-demo-ssr [--port N] [--api URL] [--site DIR]` (defaults: what
//! `cargo leptos` sets from `[package.metadata.leptos]`, and
//! `http://127.0.0.1:3917` for the API; the site folder holds `pkg/`, the
//! browser build, and `style.css`).

use std::net::{Ipv4Addr, SocketAddr};

use axum::body::Body;
use axum::extract::{FromRef, Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use rdc_demo_ssr::{shell, App};

/// What the handlers share: Leptos' options (the routes and the files read
/// them) and the API the pages and the browser's `/api` calls go to.
#[derive(Clone)]
struct Server {
    options: LeptosOptions,
    api: String,
    http: reqwest::Client,
}

impl FromRef<Server> for LeptosOptions {
    fn from_ref(server: &Server) -> LeptosOptions {
        server.options.clone()
    }
}

/// Forwards a browser's `/api/...` request to the API server.
async fn api(State(server): State<Server>, request: Request) -> Response {
    let path = request.uri().path_and_query().map_or("/", |p| p.as_str()).to_owned();
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, 16 << 20).await else {
        return (axum::http::StatusCode::PAYLOAD_TOO_LARGE, "body too large").into_response();
    };
    let mut headers = parts.headers.clone();
    headers.remove(axum::http::header::HOST);
    drop_hop_by_hop(&mut headers);
    // Marks what the browser asked for, apart from the server's own fetches.
    headers.append(axum::http::header::VIA, axum::http::HeaderValue::from_static("1.1 rdc-demo-ssr"));
    let sent =
        server.http.request(parts.method, format!("{}{path}", server.api)).headers(headers).body(body).send().await;
    match sent {
        Ok(answer) => {
            let mut response = Response::builder().status(answer.status());
            let mut answered = answer.headers().clone();
            drop_hop_by_hop(&mut answered);
            for (name, value) in &answered {
                response = response.header(name, value);
            }
            response
                .body(Body::from_stream(answer.bytes_stream()))
                .unwrap_or_else(|e| (axum::http::StatusCode::BAD_GATEWAY, e.to_string()).into_response())
        }
        Err(error) => (axum::http::StatusCode::BAD_GATEWAY, error.to_string()).into_response(),
    }
}

/// Removes the headers that describe one connection, not the message (RFC 9110
/// 7.6.1): a proxy does not pass them on.
fn drop_hop_by_hop(headers: &mut axum::http::HeaderMap) {
    use axum::http::header;
    let named: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(',').map(|n| n.trim().to_ascii_lowercase()))
        .collect();
    for name in named.iter().map(String::as_str).chain([
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    ]) {
        headers.remove(name);
    }
}

fn parse_args() -> Result<(Option<u16>, String, Option<String>), String> {
    let usage = "usage: rdc-demo-ssr [--port N] [--api URL] [--site DIR]";
    let (mut port, mut api, mut site) = (None, "http://127.0.0.1:3917".to_owned(), None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value; {usage}"));
        match arg.as_str() {
            "--port" => port = Some(value()?.parse().map_err(|_| format!("bad port; {usage}"))?),
            "--api" => api = value()?,
            "--site" => site = Some(value()?),
            _ => return Err(format!("unknown argument {arg:?}; {usage}")),
        }
    }
    Ok((port, api.trim_end_matches('/').to_owned(), site))
}

/// Leptos' options as `cargo leptos` sets them (`[package.metadata.leptos]`,
/// through `LEPTOS_*` variables), with the command line's port and site over them.
fn options(port: Option<u16>, site: Option<String>) -> LeptosOptions {
    let mut options = match get_configuration(None) {
        Ok(conf) => conf.leptos_options,
        Err(err) => {
            eprintln!("rdc-demo-ssr: no Leptos configuration ({err}); using the defaults");
            LeptosOptions::builder().output_name("rdc_demo_ssr").build()
        }
    };
    if let Some(port) = port {
        options.site_addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    }
    if let Some(site) = site {
        options.site_root = site.into();
    }
    options
}

#[tokio::main]
async fn main() {
    let (port, api_base, site) = parse_args().unwrap_or_else(|message| {
        eprintln!("{message}");
        std::process::exit(2);
    });
    rdc_demo_ssr::server::set_api_base(api_base.clone());
    let options = options(port, site);
    let addr = options.site_addr;
    let routes = generate_route_list(App);
    let server = Server { options: options.clone(), api: api_base, http: reqwest::Client::new() };
    // `leptos_routes` serves the router's pages and the server functions
    // (`/fn/..`). A server function's body is read whole (axum's default limit
    // does not apply to it): refused past 16 KiB, at once when its length says
    // so. The layer covers the routes added before it, so not the API's.
    let app = Router::new()
        .leptos_routes(&server, routes, {
            let options = options.clone();
            move || shell(options.clone())
        })
        .layer(tower_http::limit::RequestBodyLimitLayer::new(16 * 1024))
        .route("/api/{*rest}", any(api))
        .route("/favicon.ico", axum::routing::get(|| async { axum::http::StatusCode::NO_CONTENT }))
        .fallback(leptos_axum::file_and_error_handler::<Server, _>(shell))
        .with_state(server);
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap_or_else(|err| {
        eprintln!("rdc-demo-ssr: cannot bind {addr}: {err}");
        std::process::exit(1);
    });
    println!("rdc-demo-ssr listening on http://{addr}/");
    if let Err(err) = axum::serve(listener, app).await {
        eprintln!("rdc-demo-ssr: {err}");
        std::process::exit(1);
    }
}
