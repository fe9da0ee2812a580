//! The reqwest client against a real socket: relative URLs resolved against the
//! API's base, forwarded headers only for that origin, bodies as the browser
//! reads them, requests cancelled by their abort handle.
#![cfg(not(target_arch = "wasm32"))]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{mpsc, Arc};

use rdc_controller::Abort;
use rdc_rest::{HttpClient, HttpRequest, ReqwestClient};

/// A server on a free port answering each connection with `reply` (`None`:
/// never answering) and sending each request's head down the channel.
fn server(reply: Option<&'static str>) -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (heads, received) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut head = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                head.push_str(&line);
            }
            let _ = heads.send(head);
            match reply {
                Some(reply) => {
                    let _ = stream.write_all(reply.as_bytes());
                }
                // Hold the connection open, unanswered.
                None => std::thread::sleep(std::time::Duration::from_secs(30)),
            }
        }
    });
    (base, received)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn get(url: &str) -> HttpRequest {
    HttpRequest { method: "GET".into(), url: url.into(), ..HttpRequest::default() }
}

const JSON_WITH_BOM: &str = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 13\r\nconnection: close\r\n\r\n\u{FEFF}{\"id\":\"1\"}";

#[test]
fn a_path_resolves_against_the_base_and_carries_the_forwarded_cookie() {
    let (base, heads) = server(Some(JSON_WITH_BOM));
    let client = ReqwestClient::new(&base).unwrap().forward("cookie", "session=ann");
    let mut request = get("/api/users/1?full=1");
    request.headers.push(("accept".into(), "application/json".into()));
    let runtime = runtime();
    let response = runtime.block_on(client.send(request)).unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("application/json"));
    let text = runtime.block_on(response.body.text()).unwrap();
    assert_eq!(text, "{\"id\":\"1\"}", "one BOM removed, as the browser's text() does");
    let head = heads.recv().unwrap().to_ascii_lowercase();
    assert!(head.starts_with("get /api/users/1?full=1 http/1.1\r\n"), "{head}");
    assert!(head.contains("cookie: session=ann\r\n") && head.contains("accept: application/json\r\n"), "{head}");
}

#[test]
fn forwarded_headers_never_go_to_another_origin() {
    let (api, _) = server(Some(JSON_WITH_BOM));
    let (elsewhere, heads) = server(Some(JSON_WITH_BOM));
    let client = ReqwestClient::new(&api).unwrap().forward("authorization", "Bearer ann");
    runtime().block_on(client.send(get(&format!("{elsewhere}/steal")))).unwrap();
    let head = heads.recv().unwrap().to_ascii_lowercase();
    assert!(head.starts_with("get /steal "), "{head}");
    assert!(!head.contains("authorization"), "the user's credentials stayed home: {head}");
}

#[test]
fn an_abort_cancels_a_request_the_server_never_answers() {
    let (base, heads) = server(None);
    let client = ReqwestClient::new(&base).unwrap();
    let abort = Abort::default();
    let mut request = get("/slow");
    request.abort = Some(abort.clone());
    let runtime = runtime();
    let outcome = runtime.block_on(async {
        let sent = client.send(request);
        let aborter = async {
            let _ = tokio::task::spawn_blocking(move || heads.recv()).await;
            abort.abort();
        };
        let (outcome, ()) = tokio::join!(sent, aborter);
        outcome
    });
    assert_eq!(outcome.unwrap_err(), "aborted");
}

#[test]
fn a_header_value_with_a_line_break_is_refused_before_anything_is_sent() {
    let (base, heads) = server(Some(JSON_WITH_BOM));
    let client: Arc<dyn HttpClient> = Arc::new(ReqwestClient::new(&base).unwrap().forward("cookie", "a\r\nx-evil: 1"));
    assert!(runtime().block_on(client.send(get("/"))).is_err());
    assert!(heads.recv_timeout(std::time::Duration::from_millis(300)).is_err(), "the server saw no request");
}

#[test]
fn a_redirect_to_another_origin_is_not_followed_so_forwarded_headers_stay_home() {
    let (elsewhere, stolen) = server(Some(JSON_WITH_BOM));
    let redirect: &'static str = Box::leak(
        format!(
            "HTTP/1.1 302 Found\r\nlocation: {elsewhere}/collect\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        )
        .into_boxed_str(),
    );
    let (api, _) = server(Some(redirect));
    let client = ReqwestClient::new(&api).unwrap().forward("x-api-key", "secret");
    let response = runtime().block_on(client.send(get("/api/thing"))).unwrap();
    assert_eq!(response.status, 302, "the redirect comes back to the endpoint, not followed");
    assert!(stolen.recv_timeout(std::time::Duration::from_millis(300)).is_err(), "the other origin saw nothing");
}

/// A keep-alive server answering every request with a small JSON body;
/// counts the connections it accepted.
fn keep_alive_server() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut stream = stream.unwrap();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                loop {
                    let mut line = String::new();
                    match reader.read_line(&mut line) {
                        Ok(0) | Err(_) => return,
                        Ok(_) if line == "\r\n" => {
                            let reply =
                                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}";
                            if stream.write_all(reply.as_bytes()).is_err() {
                                return;
                            }
                        }
                        Ok(_) => {}
                    }
                }
            });
        }
    });
    (base, accepted)
}

/// A server renders each request with a client of its own (its user's cookie):
/// they share one pool, so the API sees one kept-alive connection, not one per page.
#[test]
fn clients_made_per_request_share_one_connection_pool() {
    let (base, accepted) = keep_alive_server();
    let runtime = runtime();
    for user in ["a", "b", "c"] {
        let client = ReqwestClient::new(&base).unwrap().forward("cookie", &format!("user={user}"));
        let response = runtime.block_on(client.send(get("/api/me"))).unwrap();
        assert_eq!(runtime.block_on(response.body.text()).unwrap(), "{}");
    }
    assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 1);
}
