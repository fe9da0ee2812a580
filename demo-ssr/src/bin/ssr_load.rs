//! `ssr-load`: a bounded load test of the server-rendered demo, on 127.0.0.1 only.
//!
//! `--clients` clients run at once, each as its own user (cookie `user=load-NN`,
//! client `i` is user `i % --users`), each looping over the shared page (`/users`)
//! and its user's page (`/me`), until `--seconds` have passed or, with
//! `--requests N`, N requests were made. Every answer is checked: HTTP 200 and
//! the data it should hold (the shared page's list; on the user's page, that
//! user's name), else an error; any other user's name in it is a leak (the
//! markup `<b>name</b>` or the carried JSON `"name":"name"`, raw or escaped).
//! Prints one line (requests, requests/s, p50 and p99 of all, of the shared
//! page, of the user's page, errors, leaks; times in ms) and the same as one
//! JSON line; exits 1 when there was an error or a leak.
//!
//! It stops by itself: no request starts after the deadline, and the whole
//! run is cut `DRAIN` later whatever the server does.
//!
//! Usage: `ssr-load --url http://127.0.0.1:PORT [--clients 64] [--seconds 20]
//! [--requests N] [--users 16] [--label NAME] [--shared-page /users]
//! [--user-page /me]` (`{user}` in `--user-page` is replaced by the user's name).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long requests under way may finish after the deadline before the run is cut.
const DRAIN: Duration = Duration::from_secs(5);
/// The most of one answer read (a page is a few KiB).
const MAX_BODY: usize = 4 << 20;
/// The most failures printed as examples.
const EXAMPLES: usize = 5;
/// What the shared page must hold: the API's first user, in the list.
const SHARED_MARKER: &str = r#"data-id="u1""#;

struct Options {
    url: String,
    clients: usize,
    seconds: u64,
    requests: Option<u64>,
    users: usize,
    label: String,
    shared_page: String,
    user_page: String,
}

const USAGE: &str = "usage: ssr-load --url http://127.0.0.1:PORT [--clients 64] [--seconds 20] [--requests N] \
                     [--users 16] [--label NAME] [--shared-page /users] [--user-page /me]";

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        url: String::new(),
        clients: 64,
        seconds: 20,
        requests: None,
        users: 16,
        label: String::new(),
        shared_page: "/users".into(),
        user_page: "/me".into(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().ok_or_else(|| format!("{arg} needs a value; {USAGE}"))?;
        let number = |v: &str| {
            v.parse::<u64>().ok().filter(|n| *n > 0).ok_or_else(|| format!("{arg}: not a positive number: {v:?}"))
        };
        match arg.as_str() {
            "--url" => options.url = value,
            "--clients" => options.clients = number(&value)?.min(4096) as usize,
            "--seconds" => options.seconds = number(&value)?.min(3600),
            "--requests" => options.requests = Some(number(&value)?),
            "--users" => options.users = number(&value)?.min(100) as usize,
            "--label" => options.label = value,
            "--shared-page" => options.shared_page = value,
            "--user-page" => options.user_page = value,
            _ => return Err(format!("unknown argument {arg:?}; {USAGE}")),
        }
    }
    options.url = local_base(&options.url)?;
    for page in [&options.shared_page, &options.user_page] {
        if !page.starts_with('/') || page.starts_with("//") {
            return Err(format!("a page is a path starting with one /: {page:?}"));
        }
    }
    if options.label.is_empty() {
        options.label = options.url.clone();
    }
    Ok(options)
}

/// The base URL, refused unless it is plain HTTP to 127.0.0.1 (a load test
/// aimed at another machine is a mistake, whatever the argument says).
fn local_base(given: &str) -> Result<String, String> {
    let url = url::Url::parse(given).map_err(|e| format!("--url {given:?}: {e}; {USAGE}"))?;
    let local = url.host() == Some(url::Host::Ipv4(std::net::Ipv4Addr::LOCALHOST));
    if url.scheme() != "http" || !local || !url.username().is_empty() || url.password().is_some() {
        return Err(format!("--url {given:?}: only http://127.0.0.1[:port] is allowed"));
    }
    Ok(format!("http://127.0.0.1:{}", url.port_or_known_default().unwrap_or(80)))
}

/// User `i`'s name: two digits, so no name holds another.
fn user_name(i: usize) -> String {
    format!("load-{i:02}")
}

/// The marks of `name`'s data in a page: its markup, and the store the page
/// carries (JSON, raw or escaped inside a script's string).
fn marks(name: &str) -> [String; 3] {
    [format!("<b>{name}</b>"), format!(r#""name":"{name}""#), format!(r#"\"name\":\"{name}\""#)]
}

/// What all clients found, and each request's time.
#[derive(Default)]
struct Tally {
    errors: AtomicU64,
    leaks: AtomicU64,
    examples: Mutex<Vec<String>>,
}

impl Tally {
    fn note(&self, counter: &AtomicU64, example: String) {
        counter.fetch_add(1, Ordering::Relaxed);
        let mut examples = self.examples.lock().unwrap_or_else(|e| e.into_inner());
        if examples.len() < EXAMPLES {
            examples.push(example);
        }
    }
}

/// Checks one answer: `Ok` when it is fine, else what is wrong (an error) and
/// whether another user's data was in it (a leak).
fn check(status: u16, body: &str, own: Option<&str>, others: &[[String; 3]]) -> (Option<String>, Option<String>) {
    // Leptos marks where dynamic text ends (`<!>`) for hydration: left out first.
    let body = &body.replace("<!>", "");
    let error = if status != 200 {
        Some(format!("HTTP {status}"))
    } else if let Some(own) = own {
        (!body.contains(&format!("<b>{own}</b>"))).then(|| format!("no <b>{own}</b> in the page: {}", main_of(body)))
    } else {
        (!body.contains(SHARED_MARKER)).then(|| format!("no {SHARED_MARKER} in the page: {}", main_of(body)))
    };
    let leak = others.iter().flatten().find(|mark| body.contains(mark.as_str())).map(|mark| format!("holds {mark}"));
    (error, leak)
}

/// The start of the page's `<main>` (or of the page), for an error message.
fn main_of(body: &str) -> String {
    let from = body.find("<main>").unwrap_or(0);
    body[from..].chars().take(300).collect()
}

/// Reads the whole body, up to `MAX_BODY`.
async fn read_body(mut response: reqwest::Response) -> Result<String, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(format!("the answer is over {MAX_BODY} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    String::from_utf8(body).map_err(|e| e.to_string())
}

/// One client: its own connection and user, until the deadline or the last ticket.
async fn client(
    index: usize,
    options: Arc<Options>,
    deadline: Instant,
    tickets: Arc<AtomicUsize>,
    tally: Arc<Tally>,
    mut latencies: Latencies,
) -> Latencies {
    let user = user_name(index % options.users);
    let others: Vec<[String; 3]> =
        (0..options.users).map(user_name).filter(|u| *u != user).map(|u| marks(&u)).collect();
    let Ok(http) = reqwest::Client::builder().no_proxy().redirect(reqwest::redirect::Policy::none()).build() else {
        tally.note(&tally.errors, "could not build an HTTP client".into());
        return latencies;
    };
    let user_page = options.user_page.replace("{user}", &user);
    let pages = [(options.shared_page.as_str(), None), (user_page.as_str(), Some(user.as_str()))];
    for turn in 0usize.. {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        if let Some(total) = options.requests {
            if tickets.fetch_add(1, Ordering::Relaxed) as u64 >= total {
                break;
            }
        }
        // Clients start on different pages so both are asked for all the time.
        let which = (turn + index) % 2;
        let (page, own) = pages[which];
        let sent = http
            .get(format!("{}{page}", options.url))
            .header(reqwest::header::COOKIE, format!("user={user}"))
            .timeout(deadline + DRAIN - now)
            .send()
            .await;
        let answer = match sent {
            Ok(response) => {
                let status = response.status().as_u16();
                read_body(response).await.map(|body| (status, body))
            }
            Err(error) => Err(error.to_string()),
        };
        latencies[which].push(u32::try_from(now.elapsed().as_micros()).unwrap_or(u32::MAX));
        match answer {
            Ok((status, body)) => {
                let (error, leak) = check(status, &body, own, &others);
                if let Some(error) = error {
                    tally.note(&tally.errors, format!("{user} GET {page}: {error}"));
                }
                if let Some(leak) = leak {
                    tally.note(&tally.leaks, format!("{user} GET {page}: LEAK: {leak}"));
                }
            }
            Err(error) => tally.note(&tally.errors, format!("{user} GET {page}: {error}")),
        }
    }
    latencies
}

/// Each request's time in microseconds: the shared page's, then the user's page's.
type Latencies = [Vec<u32>; 2];

/// The `q` quantile of sorted `values`, in milliseconds.
fn quantile_ms(sorted: &[u32], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    f64::from(sorted[at]) / 1000.0
}

#[tokio::main]
async fn main() {
    let options = Arc::new(parse_args().unwrap_or_else(|message| {
        eprintln!("ssr-load: {message}");
        std::process::exit(2);
    }));
    let started = Instant::now();
    let deadline = started + Duration::from_secs(options.seconds);
    let tickets = Arc::new(AtomicUsize::new(0));
    let tally = Arc::new(Tally::default());
    // Room for every latency up front, per client and page (a few thousand at most).
    let per_client = match options.requests {
        Some(total) => (total as usize).div_ceil(options.clients),
        None => (options.seconds as usize * 1000).min(1 << 20),
    };
    let tasks: Vec<_> = (0..options.clients)
        .map(|i| {
            let latencies = [Vec::with_capacity(per_client), Vec::with_capacity(per_client)];
            tokio::spawn(client(i, options.clone(), deadline, tickets.clone(), tally.clone(), latencies))
        })
        .collect();
    let mut by_page: Latencies = [0, 1].map(|_| Vec::with_capacity(per_client * options.clients));
    let joined = tokio::time::timeout_at((deadline + DRAIN).into(), async {
        for task in tasks {
            if let Ok(mine) = task.await {
                for (all, mine) in by_page.iter_mut().zip(mine) {
                    all.extend(mine);
                }
            }
        }
    })
    .await;
    let elapsed = started.elapsed().as_secs_f64();
    if joined.is_err() {
        tally.note(&tally.errors, format!("clients still busy {} s after the deadline: cut", DRAIN.as_secs()));
    }
    let mut latencies: Vec<u32> = by_page.concat();
    let done = latencies.len() as u64;
    if let Some(total) = options.requests.filter(|total| done < *total) {
        tally.note(&tally.errors, format!("only {done} of {total} requests made in {} s", options.seconds));
    }
    latencies.sort_unstable();
    by_page.iter_mut().for_each(|page| page.sort_unstable());
    let (errors, leaks) = (tally.errors.load(Ordering::Relaxed), tally.leaks.load(Ordering::Relaxed));
    let (rps, p50, p99) = (done as f64 / elapsed, quantile_ms(&latencies, 0.5), quantile_ms(&latencies, 0.99));
    for example in tally.examples.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        eprintln!("ssr-load: {example}");
    }
    let [shared, user] = [&by_page[0], &by_page[1]].map(|t| (quantile_ms(t, 0.5), quantile_ms(t, 0.99)));
    println!(
        "{:<28} {:>8} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>6} {:>5}",
        options.label, done, rps, p50, p99, shared.0, shared.1, user.0, user.1, errors, leaks
    );
    let pages: Vec<serde_json::Value> = [&options.shared_page, &options.user_page]
        .into_iter()
        .zip(&by_page)
        .map(|(page, times)| {
            let (p50, p99) = (quantile_ms(times, 0.5), quantile_ms(times, 0.99));
            serde_json::json!({ "page": page, "requests": times.len(), "p50_ms": p50, "p99_ms": p99 })
        })
        .collect();
    let json = serde_json::json!({
        "label": options.label, "url": options.url, "clients": options.clients, "users": options.users,
        "seconds": elapsed, "requests": done, "requests_per_second": rps, "p50_ms": p50, "p99_ms": p99,
        "errors": errors, "leaks": leaks,
        "pages": pages,
    });
    println!("{json}");
    // Requests cut at the drain may still be under way: leave without waiting for them.
    std::process::exit(i32::from(errors > 0 || leaks > 0));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_http_is_allowed() {
        assert_eq!(local_base("http://127.0.0.1:4123/").as_deref(), Ok("http://127.0.0.1:4123"));
        for refused in ["https://127.0.0.1:1/", "http://localhost:1/", "http://10.0.0.1/", "http://u:p@127.0.0.1/", "x"]
        {
            assert!(local_base(refused).is_err(), "{refused} was allowed");
        }
    }

    #[test]
    fn a_page_with_another_users_name_is_a_leak() {
        let others = [marks("load-02")];
        let own = "<p>Signed in as <b>load-01</b></p>";
        let marked = "<p>Signed in as <b>load-01<!></b></p><p><b>load-02<!></b></p>";
        assert_eq!(check(200, marked, Some("load-01"), &others).0, None, "the hydration mark hides nothing");
        assert!(check(200, marked, Some("load-01"), &others).1.is_some(), "a marked name is still a leak");
        assert_eq!(check(200, own, Some("load-01"), &others), (None, None));
        let (_, leak) =
            check(200, &format!(r#"{own}<script>"{{\"name\":\"load-02\"}}"</script>"#), Some("load-01"), &others);
        assert!(leak.is_some());
        assert!(check(200, "<p>Signed in as <b>load-02</b></p>", Some("load-01"), &others).1.is_some());
        assert!(check(500, own, Some("load-01"), &others).0.is_some());
        assert!(check(200, "<ul></ul>", None, &others).0.is_some());
    }
}
