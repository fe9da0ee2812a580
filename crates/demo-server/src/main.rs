//! `rdc-demo-server`: the HTTP API behind the rdc demo and the browser tests.
//!
//! Serves every endpoint of the specification under `/api`, with CORS open to any
//! origin (the wasm test runner serves tests from its own port) and the `Link`,
//! `Content-Disposition` and `X-Request-Count` headers exposed. It binds 127.0.0.1 only.
//!
//! Usage: `rdc-demo-server [--port N]` (default: `RDC_API_PORT` or 3917).

mod api;
mod state;
mod tools;

use std::net::{Ipv4Addr, SocketAddr};

fn port_from_args() -> Result<u16, String> {
    let mut args = std::env::args().skip(1);
    let mut port = std::env::var("RDC_API_PORT").ok();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = args.next(),
            "-h" | "--help" => {
                return Err("usage: rdc-demo-server [--port N]".to_owned());
            }
            other => return Err(format!("unknown argument {other:?}; usage: rdc-demo-server [--port N]")),
        }
    }
    match port {
        None => Ok(3917),
        Some(p) => p.parse().map_err(|_| format!("port {p:?} is not a number from 1 to 65535")),
    }
}

#[tokio::main]
async fn main() {
    let port = match port_from_args() {
        Ok(port) => port,
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
    let app = api::router(state::AppState::default());
    if let Err(err) = axum::serve(listener, app).await {
        eprintln!("rdc-demo-server: {err}");
        std::process::exit(1);
    }
}
