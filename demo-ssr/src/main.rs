//! `rdc-demo-ssr`: serves the demo's pages rendered on the server, streams each
//! `<Suspense>` as its data arrives, runs the pages' server functions (`/fn/..`),
//! and forwards the browser's `/api` calls to the API server (`rdc-demo-server`).
//!
//! Usage: `rdc-demo-ssr [--port N] [--api URL] [--site DIR]` (defaults: 3920,
//! `http://127.0.0.1:3917`, `target/site`; the site folder holds `pkg/`, the
//! browser build, and `style.css`).

use std::net::{Ipv4Addr, SocketAddr};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::Router;
use futures_util::StreamExt;
use leptos::prelude::*;
use rdc_demo_ssr::server::ApiBase;
use tokio_util::task::LocalPoolHandle;

#[derive(Clone)]
struct Server {
    options: LeptosOptions,
    api: String,
    http: reqwest::Client,
    /// Threads that render pages: a page's controller (and its store) stays on
    /// the thread its request started on, so no user's data crosses into
    /// another's render.
    renderers: LocalPoolHandle,
}

/// Renders one page on a renderer thread, streaming its body from there.
async fn page(State(server): State<Server>, request: Request) -> Response {
    let (head_tx, head_rx) = tokio::sync::oneshot::channel();
    let (chunk_tx, chunk_rx) = tokio::sync::mpsc::channel::<Result<axum::body::Bytes, axum::Error>>(16);
    let Server { options, api, .. } = server.clone();
    server.renderers.spawn_pinned(move || async move {
        let shell_options = options.clone();
        let render = leptos_axum::render_app_to_stream_with_context(
            move || provide_context(ApiBase(api.clone())),
            move || rdc_demo_ssr::shell(shell_options.clone()),
        );
        let (parts, body) = render(request).await.into_parts();
        if head_tx.send(parts).is_err() {
            return;
        }
        let mut chunks = body.into_data_stream();
        while let Some(chunk) = chunks.next().await {
            if chunk_tx.send(chunk).await.is_err() {
                break; // the browser went away
            }
        }
    });
    let Ok(parts) = head_rx.await else {
        return (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "render failed").into_response();
    };
    let body = futures_util::stream::unfold(chunk_rx, |mut rx| async move { rx.recv().await.map(|c| (c, rx)) });
    Response::from_parts(parts, Body::from_stream(body))
}

/// Runs a server function (`/fn/...`): posted by a form before the page
/// hydrates (answered with a redirect back to the page), or by its server
/// action after (answered with the result).
async fn server_fn(State(server): State<Server>, request: Request) -> Response {
    let api = server.api.clone();
    leptos_axum::handle_server_fns_with_context(move || provide_context(ApiBase(api.clone())), request)
        .await
        .into_response()
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

fn parse_args() -> Result<(u16, String, String), String> {
    let usage = "usage: rdc-demo-ssr [--port N] [--api URL] [--site DIR]";
    let (mut port, mut api, mut site) = (3920u16, "http://127.0.0.1:3917".to_owned(), "target/site".to_owned());
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value; {usage}"));
        match arg.as_str() {
            "--port" => port = value()?.parse().map_err(|_| format!("bad port; {usage}"))?,
            "--api" => api = value()?,
            "--site" => site = value()?,
            _ => return Err(format!("unknown argument {arg:?}; {usage}")),
        }
    }
    Ok((port, api.trim_end_matches('/').to_owned(), site))
}

#[tokio::main]
async fn main() {
    let (port, api_base, site) = parse_args().unwrap_or_else(|message| {
        eprintln!("{message}");
        std::process::exit(2);
    });
    let _ = any_spawner::Executor::init_tokio();
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let options = LeptosOptions::builder().output_name("rdc_demo_ssr").site_root(site.clone()).site_addr(addr).build();
    let server = Server {
        options,
        api: api_base,
        http: reqwest::Client::new(),
        renderers: LocalPoolHandle::new(std::thread::available_parallelism().map_or(2, |n| n.get())),
    };
    let app = Router::new()
        .route("/api/{*rest}", any(api))
        // A server function's body is read whole (axum's default limit does not
        // apply to it): refused past 16 KiB, at once when its length says so.
        .route("/fn/{*name}", post(server_fn).layer(tower_http::limit::RequestBodyLimitLayer::new(16 * 1024)))
        .nest_service("/pkg", tower_http::services::ServeDir::new(format!("{site}/pkg")))
        .route_service("/style.css", tower_http::services::ServeFile::new(format!("{site}/style.css")))
        .route("/", get(page))
        .route("/users", get(page))
        .route("/items", get(page))
        .route("/me", get(page))
        .route("/form", get(page))
        .route("/favicon.ico", get(|| async { axum::http::StatusCode::NO_CONTENT }))
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
