//! rdc-leptos in headless Chromium against the API server: Suspense, ErrorBoundary,
//! the normalized store across components, polling, fine-grained re-render, cleanup.
#![cfg(target_arch = "wasm32")]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::*;
use leptos::prelude::*;
use rdc::json;
use rdc::leptos::{new_controller, use_entity, use_live, use_mutation, use_suspense, DataProvider};
use rdc_e2e::{api_url, mount_point, sleep, wait_for_text};
use serde::Serialize;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[component]
fn UserList() -> impl IntoView {
    let users = use_suspense(list_users(), ());
    view! {
        <Suspense fallback=|| view! { <p>"loading users"</p> }>
            <ul>
                {move || Suspend::new(async move {
                    users.await.map(|users| users.iter().map(|u| view! { <li>{u.name.clone()}</li> }).collect_view())
                })}
            </ul>
        </Suspense>
    }
}

#[wasm_bindgen_test]
async fn a_created_user_appears_in_the_all_list_without_list_code() {
    let root = mount_point();
    let controller = new_controller();
    let c = controller.clone();
    let _handle = leptos::mount::mount_to(
        root.clone(),
        move || view! { <DataProvider controller=c.clone()><UserList/></DataProvider> },
    );
    let text = wait_for_text(&root, 5000, |t| t.contains("Ada Lovelace")).await;
    assert!(text.contains("Grace Hopper"), "{text}");
    let name = format!("Created {}", js_sys::Math::random());
    let created: User = controller.fetch(&create_user(), (), NewUser { name: name.clone() }).await.unwrap();
    assert_eq!(created.name, name, "the fetch resolves to the created user");
    let text = wait_for_text(&root, 2000, |t| t.contains(&name)).await;
    assert!(text.contains(&name), "the new user shows through All(User): {text}");
}

#[wasm_bindgen_test]
async fn the_polymorphic_feed_renders_links_posts_and_passes_unknown_through() {
    let root = mount_point();
    let _handle = leptos::mount::mount_to(root.clone(), || {
        view! {
            <DataProvider>
                {
                    let items = use_suspense(feed(), ());
                    view! {
                        <Suspense fallback=|| "loading">
                            {move || Suspend::new(async move {
                                items.await.map(|items| items.iter().map(|item| match item {
                                    FeedItem::Link(l) => format!("[link {}]", l.title),
                                    FeedItem::Post(p) => format!("[post {}]", p.content),
                                    FeedItem::Unknown(v) => format!("[unknown {}]", v["type"].as_str().unwrap_or("?")),
                                }).collect::<String>())
                            })}
                        </Suspense>
                    }
                }
            </DataProvider>
        }
    });
    let text = wait_for_text(&root, 5000, |t| t.contains("[link")).await;
    assert!(text.contains("[link Rust]") && text.contains("[link Leptos]"), "{text}");
    assert!(text.contains("[post Normalized caches keep every entity once.]"), "{text}");
    assert!(text.contains("[unknown video]"), "{text}");
}

#[wasm_bindgen_test]
async fn exchange_price_keeps_the_exact_decimal_and_stream_gets_its_username_from_the_path() {
    let root = mount_point();
    let _handle = leptos::mount::mount_to(root.clone(), || {
        view! {
            <DataProvider>
                {
                    let p = use_suspense(price(), Pair { exchange_pair: "BTC-USD".into() });
                    let s = use_suspense(stream(), Username { username: "ninja".into() });
                    view! {
                        <Suspense fallback=|| "loading">
                            {move || Suspend::new(async move {
                                p.await.map(|p| format!("price={} at={} ", p.price, p.updated_at.format("%Y-%m-%d %H:%M:%S%.3f")))
                            })}
                            {move || Suspend::new(async move {
                                s.await.map(|s| format!("stream={} viewers={} live={}", s.username, s.current_viewers, s.live))
                            })}
                        </Suspense>
                    }
                }
            </DataProvider>
        }
    });
    let text = wait_for_text(&root, 5000, |t| t.contains("stream=")).await;
    assert!(text.contains("price=43250.123456789012345678"), "{text}");
    assert!(text.contains("at=2026-11-25 12:34:56.789"), "{text}");
    assert!(text.contains("stream=ninja viewers=1234 live=true"), "{text}");
}

async fn ticker_count(product: &str) -> u64 {
    let response =
        gloo_net::http::Request::get(&api_url(&format!("/products/{product}/ticker/count"))).send().await.unwrap();
    response.json::<serde_json::Value>().await.unwrap()["count"].as_u64().unwrap()
}

#[wasm_bindgen_test]
async fn ticker_polls_every_2000_ms_while_mounted_and_stops_when_unmounted() {
    let product = format!("POLL-{}", (js_sys::Math::random() * 1e9) as u64);
    let root = mount_point();
    let controller = new_controller();
    let c = controller.clone();
    let p = product.clone();
    let handle = leptos::mount::mount_to(root.clone(), move || {
        let p = p.clone();
        view! {
            <DataProvider controller=c.clone()>
                {
                    let t = use_live(ticker(), Product { product_id: p });
                    view! {
                        <Suspense fallback=|| "loading">
                            {move || Suspend::new(async move { t.await.map(|t| format!("trade={} price={}", t.trade_id, t.price)) })}
                        </Suspense>
                    }
                }
            </DataProvider>
        }
    });
    let text = wait_for_text(&root, 5000, |t| t.contains("trade=")).await;
    assert!(text.contains("trade=1001"), "{text}");
    // One fetch, then a poll every 2 s: wait (up to a deadline) for two polls,
    // then bound when they came, instead of an exact count after a fixed sleep.
    let shown = js_sys::Date::now();
    let polled = wait_for_count(&product, 7000, |n| n >= 3).await;
    let took = js_sys::Date::now() - shown;
    assert!(polled >= 3, "one fetch then two polls within 7 s of the first render: {polled} requests");
    // Timers do not fire early; the first render comes a little after the fetch
    // the polls count from, so two polls take a little under 4 s from it.
    assert!(took >= 3000.0, "two polls came {took} ms after the first render: faster than every 2 s");
    assert!(polled <= 4, "{polled} requests {took} ms after the first render: more than one poll per 2 s");
    let text = wait_for_text(&root, 1000, |t| t.contains(&format!("trade={}", 1000 + polled))).await;
    assert!(text.contains(&format!("trade={}", 1000 + polled)), "polls update the view: {text}");
    drop(handle);
    assert_eq!(controller.poll_timer_count(), 0);
    assert_eq!(rdc::leptos::pending_timeouts(), 0, "the cancelled poll timer's callback was dropped");
    // A poll already on the wire at unmount may still land; none may start after.
    sleep(300).await;
    let at_unmount = ticker_count(&product).await;
    sleep(2500).await;
    assert_eq!(ticker_count(&product).await, at_unmount, "no polls after unmount");
}

/// Polls the server's request count for `product` every 50 ms until `done`
/// accepts it or `timeout_ms` passes; returns the last count either way.
async fn wait_for_count(product: &str, timeout_ms: u32, done: impl Fn(u64) -> bool) -> u64 {
    let start = js_sys::Date::now();
    loop {
        let count = ticker_count(product).await;
        if done(count) || js_sys::Date::now() - start >= f64::from(timeout_ms) {
            return count;
        }
        sleep(50).await;
    }
}

#[wasm_bindgen_test]
async fn suspense_shows_its_fallback_on_first_load_only_and_error_boundary_gets_the_status() {
    let root = mount_point();
    let controller = new_controller();
    let c = controller.clone();
    let fallbacks = Arc::new(AtomicUsize::new(0));
    let f = Arc::clone(&fallbacks);
    let show = RwSignal::new(true);
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        let f = Arc::clone(&f);
        view! {
            <DataProvider controller=c.clone()>
                <Show when=move || show.get()>
                    {
                        let f = Arc::clone(&f);
                        let users = use_suspense(list_users(), ());
                        view! {
                            <Suspense fallback=move || { f.fetch_add(1, Ordering::SeqCst); "loading" }>
                                {move || Suspend::new(async move { users.await.map(|u| format!("{} users", u.len())) })}
                            </Suspense>
                        }
                    }
                </Show>
                <ErrorBoundary fallback=|errors| view! {
                    <p class="error">{move || errors.get().into_iter().map(|(_, e)| format!("error: {e}")).collect::<String>()}</p>
                }>
                    {
                        let missing = use_suspense(get_user(), UserId { id: "nobody".into() });
                        view! {
                            <Suspense fallback=|| "loading user">
                                {move || Suspend::new(async move { missing.await.map(|u| u.name.clone()) })}
                            </Suspense>
                        }
                    }
                </ErrorBoundary>
            </DataProvider>
        }
    });
    let text = wait_for_text(&root, 5000, |t| t.contains("users") && t.contains("error:")).await;
    assert!(text.contains("HTTP 404"), "the NetworkError's status reaches the ErrorBoundary: {text}");
    assert_eq!(fallbacks.load(Ordering::SeqCst), 1);
    // Remount: the data is cached and valid, so no fallback this time.
    show.set(false);
    sleep(50).await;
    show.set(true);
    let text = wait_for_text(&root, 2000, |t| t.contains("users")).await;
    assert!(text.contains("users"), "{text}");
    assert_eq!(fallbacks.load(Ordering::SeqCst), 1, "cached data renders without a fallback");
}

#[component]
fn CountedUser(id: &'static str, renders: Arc<AtomicUsize>) -> impl IntoView {
    let user = use_suspense(get_user(), UserId { id: id.into() });
    view! {
        <Suspense fallback=|| "loading">
            {move || {
                let renders = Arc::clone(&renders);
                Suspend::new(async move {
                    let user = user.await;
                    renders.fetch_add(1, Ordering::SeqCst);
                    user.map(|u| format!("[{}]", u.name))
                })
            }}
        </Suspense>
    }
}

#[wasm_bindgen_test]
async fn updating_one_entity_re_renders_only_its_readers() {
    let root = mount_point();
    let controller = new_controller();
    let c = controller.clone();
    let a = Arc::new(AtomicUsize::new(0));
    let b = Arc::new(AtomicUsize::new(0));
    let (ra, rb) = (Arc::clone(&a), Arc::clone(&b));
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! {
            <DataProvider controller=c.clone()>
                <CountedUser id="u1" renders=Arc::clone(&ra)/>
                <CountedUser id="u3" renders=Arc::clone(&rb)/>
            </DataProvider>
        }
    });
    let text = wait_for_text(&root, 5000, |t| t.contains("[Ada") && t.contains("[Alan")).await;
    sleep(100).await;
    let (a0, b0) = (a.load(Ordering::SeqCst), b.load(Ordering::SeqCst));
    assert!(a0 >= 1 && b0 >= 1, "both readers rendered first ({a0}, {b0}): {text}");
    controller.set(&<User as rdc::core::Entity>::schema(), json!({ "id": "u1", "name": "Ada Byron" })).unwrap();
    let text = wait_for_text(&root, 2000, |t| t.contains("[Ada Byron]")).await;
    assert!(text.contains("[Ada Byron]"), "{text}");
    sleep(100).await;
    assert_eq!(a.load(Ordering::SeqCst), a0 + 1, "u1's reader re-rendered once");
    assert_eq!(b.load(Ordering::SeqCst), b0, "u3's reader did not re-render");
}

#[wasm_bindgen_test]
async fn mounting_and_unmounting_a_thousand_times_leaves_nothing_behind() {
    let root = mount_point();
    let controller = new_controller();
    let c = controller.clone();
    let show = RwSignal::new(false);
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! {
            <DataProvider controller=c.clone()>
                <Show when=move || show.get()>
                    {
                        let t = use_live(ticker(), Product { product_id: "CYCLE".into() });
                        let u = use_suspense(list_users(), ());
                        view! {
                            <Suspense fallback=|| "loading">
                                {move || Suspend::new(async move { t.await.map(|t| format!("trade={} ", t.trade_id)) })}
                                {move || Suspend::new(async move { u.await.map(|u| format!("users={}", u.len())) })}
                            </Suspense>
                        }
                    }
                </Show>
            </DataProvider>
        }
    });
    // Both reads rendered: the ticker's trade and the users' count.
    let rendered = |t: &str| t.contains("trade=") && t.contains("users=") && !t.contains("loading");
    show.set(true);
    let text = wait_for_text(&root, 5000, rendered).await;
    assert!(rendered(&text), "the first mount rendered its data: {text:?}");
    show.set(false);
    sleep(20).await;
    assert_eq!(root.text_content().unwrap_or_default(), "", "unmounted");
    let counts = || {
        (
            controller.listener_count(),
            controller.poll_timer_count(),
            controller.retained_count(),
            controller.snapshot().entity_count(),
            rdc::leptos::pending_timeouts(),
        )
    };
    let start = counts();
    assert_eq!((start.1, start.2), (0, 0));
    // Each cycle mounts and renders the cached data (no fallback: it is valid),
    // then unmounts, leaving the mount point empty.
    for cycle in 0..1000 {
        show.set(true);
        leptos::task::tick().await;
        let text = root.text_content().unwrap_or_default();
        assert!(rendered(&text), "cycle {cycle} mounted and rendered its data: {text:?}");
        show.set(false);
        leptos::task::tick().await;
        let text = root.text_content().unwrap_or_default();
        assert!(text.is_empty(), "cycle {cycle} unmounted: {text:?}");
    }
    sleep(50).await;
    assert_eq!(
        counts(),
        start,
        "(listeners, poll timers, retained keys, entities, browser timeouts) after 1,000 mount/unmount cycles"
    );
}

#[component]
fn Row(id: String, renders: Arc<std::sync::Mutex<std::collections::HashMap<String, usize>>>) -> impl IntoView {
    let user = use_entity::<User>(id.clone());
    move || {
        *renders.lock().unwrap().entry(id.clone()).or_insert(0) += 1;
        user.get().map(|u| format!("<{}>", u.name))
    }
}

#[wasm_bindgen_test]
async fn a_list_re_renders_only_the_row_whose_entity_changed() {
    let root = mount_point();
    let controller = new_controller();
    let c = controller.clone();
    let renders = Arc::new(std::sync::Mutex::new(std::collections::HashMap::<String, usize>::new()));
    let r = Arc::clone(&renders);
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        let r = Arc::clone(&r);
        view! {
            <DataProvider controller=c.clone()>
                {
                    let users = use_suspense(list_users(), ());
                    // The rows' keys come from the list; each row reads its own entity.
                    let ids = move || {
                        users.get().and_then(Result::ok).map(|u| u.iter().map(|u| u.id.clone()).collect::<Vec<_>>()).unwrap_or_default()
                    };
                    view! {
                        <Suspense fallback=|| "loading">
                            <For each=ids key=|id| id.clone() let:id>
                                <Row id=id renders=Arc::clone(&r)/>
                            </For>
                        </Suspense>
                    }
                }
            </DataProvider>
        }
    });
    let text = wait_for_text(&root, 5000, |t| {
        ["<Ada Lovelace>", "<Grace Hopper>", "<Alan Turing>"].iter().all(|n| t.contains(n))
    })
    .await;
    sleep(100).await;
    let before = renders.lock().unwrap().clone();
    // Every row compared below rendered first (else "did not re-render" would
    // compare two missing counts).
    for id in ["u1", "u2", "u3"] {
        assert!(before.get(id).is_some_and(|&n| n >= 1), "row {id} rendered: {before:?}, {text}");
    }
    controller.set(&<User as rdc::core::Entity>::schema(), json!({ "id": "u3", "name": "Alan M. Turing" })).unwrap();
    let text = wait_for_text(&root, 2000, |t| t.contains("<Alan M. Turing>")).await;
    assert!(text.contains("<Alan M. Turing>"), "{text}");
    sleep(100).await;
    let after = renders.lock().unwrap().clone();
    assert_eq!(
        after.get("u3"),
        before.get("u3").map(|n| n + 1).as_ref(),
        "the changed row rendered once more: {before:?} -> {after:?}"
    );
    for id in ["u1", "u2"] {
        assert_eq!(after.get(id), before.get(id), "row {id} did not re-render: {before:?} -> {after:?}");
    }
}

/// How the server saw the `/slow` requests tagged `tag`: (started, answered, cancelled).
async fn slow_seen(tag: &str) -> (u64, u64, u64) {
    let response = gloo_net::http::Request::get(&api_url(&format!("/slow/seen/{tag}"))).send().await.unwrap();
    let seen = response.json::<serde_json::Value>().await.unwrap();
    let count = |field: &str| seen[field].as_u64().unwrap();
    (count("started"), count("answered"), count("cancelled"))
}

/// `slow_seen` asked again every 20 ms, for up to 2 s, until `done` holds.
async fn slow_seen_when(tag: &str, done: impl Fn((u64, u64, u64)) -> bool) -> (u64, u64, u64) {
    let mut seen = slow_seen(tag).await;
    for _ in 0..100 {
        if done(seen) {
            break;
        }
        sleep(20).await;
        seen = slow_seen(tag).await;
    }
    seen
}

/// The args of `/slow`: how long it sleeps, and a tag the server counts by.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct Slow {
    ms: u64,
    tag: String,
}

fn slow() -> rdc::rest::RestEndpoint<Slow, (), serde_json::Value> {
    at_server(rdc::rest!(GET "/slow", args = Slow, returns = serde_json::Value))
}

#[wasm_bindgen_test]
async fn use_cancelling_aborts_the_request_for_old_args() {
    use rdc::leptos::use_cancelling;
    // The server counts the requests of this tag: started, answered, and
    // cancelled (the browser closed the request before the answer).
    let tag = format!("cancel-{}", (js_sys::Math::random() * 1e9) as u64);
    let root = mount_point();
    let controller = new_controller();
    let c = controller.clone();
    let ms = RwSignal::new(4000u64);
    let t = tag.clone();
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        let t = t.clone();
        view! {
            <DataProvider controller=c.clone()>
                {
                    let args = Signal::derive(move || Slow { ms: ms.get(), tag: t.clone() });
                    let slow = use_cancelling(slow(), args);
                    view! {
                        <Suspense fallback=|| "waiting">
                            {move || Suspend::new(async move { slow.await.map(|v| format!("slept {}", v["slept_ms"])) })}
                        </Suspense>
                    }
                }
            </DataProvider>
        }
    });
    wait_for_text(&root, 1000, |t| t.contains("waiting")).await;
    // The slow request reached the server before the args change.
    let seen = slow_seen_when(&tag, |(started, _, _)| started >= 1).await;
    assert_eq!(seen, (1, 0, 0), "the 4 s request is on the server: (started, answered, cancelled)");
    ms.set(10);
    let text = wait_for_text(&root, 3000, |t| t.contains("slept 10")).await;
    assert!(text.contains("slept 10"), "the new args answered without waiting for the old request: {text}");
    // The server saw the old request cancelled, long before it would have answered.
    let seen = slow_seen_when(&tag, |(_, _, cancelled)| cancelled >= 1).await;
    assert_eq!(seen, (2, 1, 1), "the server saw the old request cancelled: (started, answered, cancelled)");
    // Past the time the first answer would have come.
    sleep(4500).await;
    assert_eq!(slow_seen(&tag).await, (2, 1, 1), "the old request never answered");
    let slow_key = controller.key_of(&slow(), &Slow { ms: 4000, tag }).unwrap();
    assert!(controller.snapshot().result(&slow_key).is_none(), "the aborted request stored nothing");
    assert!(root.text_content().unwrap_or_default().contains("slept 10"));
}

#[wasm_bindgen_test]
async fn a_blob_download_through_the_controller_yields_the_filename() {
    let controller = new_controller();
    let download = rdc::rest::recipes::file_download(&at_server(rdc::rest!(GET "/files/:id/download", args = UserId)));
    let file = controller.fetch(&download, UserId { id: "7".into() }, ()).await.unwrap();
    assert_eq!(file.filename, "report-7-✓.txt");
    assert_eq!(file.blob.size(), "rdc demo file 7\n".len() as u64);
    let key = controller.key_of(&download, &UserId { id: "7".into() }).unwrap();
    assert!(controller.snapshot().result(&key).is_none(), "data expiry 0: the blob is not kept");
}

#[component]
fn CreateForm() -> impl IntoView {
    let create = use_mutation(create_user());
    let users = use_suspense(list_users(), ());
    view! {
        <button id="create" on:click=move |_| create.run(NewUser { name: "Barbara Liskov".into() })>"create"</button>
        <button id="create-bad" on:click=move |_| create.run(NewUser { name: String::new() })>"create bad"</button>
        <p class="pending">{move || if create.pending.get() { "pending" } else { "idle" }}</p>
        <p class="value">{move || create.value.get().map(|u| format!("created {}", u.name))}</p>
        <p class="error">{move || create.error.get().map(|e| format!("failed: {e}"))}</p>
        <Suspense fallback=|| "loading">
            <ul>{move || Suspend::new(async move { users.await.map(|u| u.iter().map(|u| view! { <li>{u.name.clone()}</li> }).collect_view()) })}</ul>
        </Suspense>
    }
}

fn click(root: &web_sys::HtmlElement, selector: &str) {
    use wasm_bindgen::JsCast;
    let button = root.query_selector(selector).unwrap().unwrap();
    button.dyn_into::<web_sys::HtmlElement>().unwrap().click();
}

#[wasm_bindgen_test]
async fn use_mutation_runs_a_create_with_pending_value_and_typed_error_signals() {
    let root = mount_point();
    let _handle = leptos::mount::mount_to(root.clone(), || view! { <DataProvider><CreateForm/></DataProvider> });
    wait_for_text(&root, 5000, |t| t.contains("Ada Lovelace")).await;
    assert!(root.text_content().unwrap_or_default().contains("idle"));
    click(&root, "#create");
    // The view updates on the next tick; the request takes a round trip.
    leptos::task::tick().await;
    assert!(root.text_content().unwrap_or_default().contains("pending"), "pending while the request is out");
    let text = wait_for_text(&root, 3000, |t| t.contains("created Barbara Liskov")).await;
    assert!(text.contains("idle"), "{text}");
    assert_eq!(text.matches("Barbara Liskov").count(), 2, "the result signal and the list (no refetch code): {text}");
    // The server refuses an empty name with a 422: a typed error, the list unchanged.
    click(&root, "#create-bad");
    let text = wait_for_text(&root, 3000, |t| t.contains("failed:")).await;
    assert!(text.contains("HTTP 422"), "{text}");
    assert!(text.contains("created Barbara Liskov"), "the last good result stays: {text}");
}

/// Answers `n` after `n` ms: a mutation whose runs answer out of order. A
/// browser timer's future, made to look `Send` as the controller takes futures
/// (the browser is one thread).
fn answer_after(n: u32) -> impl std::future::Future<Output = Result<u32, String>> + Send {
    send_wrapper::SendWrapper::new(async move {
        sleep(i32::try_from(n).unwrap_or(i32::MAX)).await;
        Ok(n)
    })
}

#[component]
fn TwoRuns() -> impl IntoView {
    let run = use_mutation(rdc::controller::from_fn("answer_after", answer_after).mutation());
    view! {
        <button id="slow-then-fast" on:click=move |_| { run.run_with(400, ()); run.run_with(20, ()); }>"go"</button>
        <p>{move || format!("value={:?} pending={}", run.value.get().map(|v| *v), run.pending.get())}</p>
    }
}

#[wasm_bindgen_test]
async fn use_mutation_shows_the_latest_run_when_an_earlier_one_answers_later() {
    let root = mount_point();
    let _handle = leptos::mount::mount_to(root.clone(), || view! { <DataProvider><TwoRuns/></DataProvider> });
    wait_for_text(&root, 2000, |t| t.contains("value=None")).await;
    click(&root, "#slow-then-fast");
    let text = wait_for_text(&root, 2000, |t| t.contains("value=Some(20)")).await;
    assert!(text.contains("value=Some(20) pending=false"), "the latest run answered: {text}");
    // The first run answers after the second: the signals keep the latest.
    sleep(600).await;
    let text = root.text_content().unwrap_or_default();
    assert!(text.contains("value=Some(20) pending=false"), "a late answer to an earlier run left the signals: {text}");
}

#[component]
fn KeyedUsers(rows: Arc<AtomicUsize>) -> impl IntoView {
    use rdc::core::{Entity, Pk, SchemaOf};
    let page = at_server(rdc::rest!(GET "/users", schema = SchemaOf::list(User::schema())));
    let keys = rdc::leptos::use_keys(page, Signal::derive(|| Some(())));
    let pks = move || keys.get().map(|k| k.to_vec()).unwrap_or_default();
    view! {
        <ul>
            <For each=pks key=|pk: &Pk| pk.clone() let:pk>
                {
                    rows.fetch_add(1, Ordering::SeqCst);
                    let user = use_entity::<User>(pk);
                    view! { <li>{move || user.get().map(|u| format!("<{}>", u.name))}</li> }
                }
            </For>
        </ul>
    }
}

#[wasm_bindgen_test]
async fn use_keys_lists_a_fetched_lists_keys_and_rows_read_their_entities() {
    let root = mount_point();
    let controller = new_controller();
    let c = controller.clone();
    let rows = Arc::new(AtomicUsize::new(0));
    let r = Arc::clone(&rows);
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! { <DataProvider controller=c.clone()><KeyedUsers rows=Arc::clone(&r)/></DataProvider> }
    });
    // `use_keys` never fetches: the list arrives through a fetch of the same endpoint.
    let page =
        at_server(rdc::rest!(GET "/users", schema = rdc::core::SchemaOf::list(<User as rdc::core::Entity>::schema())));
    let users: Vec<User> = controller.fetch(&page, (), ()).await.unwrap();
    let text = wait_for_text(&root, 2000, |t| t.contains(&format!("<{}>", users[0].name))).await;
    for user in &users {
        assert!(text.contains(&format!("<{}>", user.name)), "row of {}: {text}", user.id);
    }
    let created = rows.load(Ordering::SeqCst);
    assert_eq!(created, users.len(), "one row per key");
    // A renamed user re-renders its row; the list's keys are unchanged, so no row is made again.
    controller.set(&<User as rdc::core::Entity>::schema(), json!({ "id": users[0].id, "name": "Renamed" })).unwrap();
    wait_for_text(&root, 2000, |t| t.contains("<Renamed>")).await;
    assert_eq!(rows.load(Ordering::SeqCst), created, "no row was made again");
}

/// What `/slow` answers, read with the wrong type for `slept_ms`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
struct WrongSlept {
    slept_ms: String,
}

#[wasm_bindgen_test]
async fn data_that_does_not_read_as_the_type_is_a_typed_error_fetched_again_once() {
    let tag = format!("wrong-{}", (js_sys::Math::random() * 1e9) as u64);
    let wrong = at_server(rdc::rest!(GET "/slow", args = Slow, returns = WrongSlept));
    let root = mount_point();
    let t = tag.clone();
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        let (wrong, t) = (wrong.clone(), t.clone());
        view! {
            <DataProvider>
                {
                    let read = use_suspense(wrong, Slow { ms: 0, tag: t });
                    view! {
                        <ErrorBoundary fallback=|errors| view! {
                            <p>{move || errors.get().into_iter().map(|(_, e)| format!("error: {e}")).collect::<String>()}</p>
                        }>
                            <Suspense fallback=|| "loading">
                                {move || Suspend::new(async move { read.await.map(|w| w.slept_ms.clone()) })}
                            </Suspense>
                        </ErrorBoundary>
                    }
                }
            </DataProvider>
        }
    });
    let text = wait_for_text(&root, 3000, |t| t.contains("error:")).await;
    assert!(text.contains("does not read as the result type"), "{text}");
    assert!(text.contains("cannot read slept_ms"), "the error names where: {text}");
    // A result that does not read is fetched again once (it may have come
    // from elsewhere); the second answer reads no better, and no loop follows.
    let seen = slow_seen_when(&tag, |(_, answered, _)| answered >= 2).await;
    assert_eq!(seen, (2, 2, 0), "fetched again once: (started, answered, cancelled)");
    sleep(500).await;
    assert_eq!(slow_seen(&tag).await, (2, 2, 0), "no refetch loop: (started, answered, cancelled)");
}

/// How long a quote stays fresh: far longer than any test runs, so data is
/// stale only when a test ages it on purpose ([`Aging`]).
const QUOTE_FRESH_MS: u64 = 60_000;

/// The ticker without polling, fresh for [`QUOTE_FRESH_MS`] after each fetch.
fn quote() -> rdc::rest::RestEndpoint<Product, (), Ticker> {
    let quote = common::at_server(rdc::rest!(GET "/products/:productId/ticker" -> Ticker, args = Product));
    rdc::rest::recipes::pk_from_param(&quote, "productId", "product_id")
        .data_expiry(std::time::Duration::from_millis(QUOTE_FRESH_MS))
}

/// The browser's clock, moved forward on demand: data goes stale when a test
/// says so, not when a loaded machine is slow; timers stay the browser's.
#[derive(Clone, Default)]
struct Aging(std::sync::Arc<common::SyncCell<u64>>);

impl Aging {
    /// Makes everything stored so far stale (time passes; no one is told).
    fn make_stale(&self) {
        self.0.set(self.0.get() + QUOTE_FRESH_MS + 1);
    }
}

impl rdc::controller::Clock for Aging {
    fn now(&self) -> u64 {
        rdc::leptos::Browser.now() + self.0.get()
    }
}

/// A ticker read's trade id, once it resolves.
fn trades(read: AsyncDerived<rdc::leptos::DataResult<rdc::rest::RestEndpoint<Product, (), Ticker>>>) -> impl IntoView {
    view! {
        <Suspense fallback=|| "loading">
            {move || Suspend::new(async move { read.await.map(|t| format!("trade={}", t.trade_id)) })}
        </Suspense>
    }
}

/// Dispatches `event` on `target` ("window" or "document").
fn dispatch(target: &str, event: &str) {
    let event = web_sys::Event::new(event).unwrap();
    let _ = match target {
        "window" => web_sys::window().unwrap().dispatch_event(&event),
        _ => web_sys::window().unwrap().document().unwrap().dispatch_event(&event),
    };
}

/// Mounts a ticker reader of a fresh product named after `prefix` (polling
/// when `live`) under a `DataProvider` whose focus and network switches are
/// all `aware`, and waits for its first trade. Returns the product, the
/// handle that unmounts it, the provider's clock, the element it shows in,
/// and how many requests its controller has sent (counted as each is sent,
/// so "nothing sent" does not race a slow server).
async fn mount_trades(
    prefix: &str,
    live: bool,
    aware: bool,
) -> (String, impl Sized, Aging, web_sys::HtmlElement, Sent) {
    use rdc::leptos::Browser;
    let product = format!("{prefix}-{}", (js_sys::Math::random() * 1e9) as u64);
    let root = mount_point();
    let p = product.clone();
    let aging = Aging::default();
    let controller = rdc::controller::Controller::new(aging.clone(), Browser, Browser);
    let sent = count_actions(&controller, |action| matches!(action, rdc::controller::Action::Sent { .. }));
    let handle = leptos::mount::mount_to(root.clone(), move || {
        let args = Product { product_id: p.clone() };
        view! {
            <DataProvider controller=controller.clone() refetch_on_focus=aware refetch_on_reconnect=aware pause_polls_when_away=aware>
                // Read inside the provider.
                {if live { trades(use_live(ticker(), args)).into_any() } else { trades(use_suspense(quote(), args)).into_any() }}
            </DataProvider>
        }
    });
    wait_for_text(&root, 5000, |t| t.contains("trade=")).await;
    (product, handle, aging, root, sent)
}

/// Requests a controller has sent, counted by [`count_actions`].
type Sent = std::sync::Arc<common::SyncCell<u32>>;

/// Stale data a mounted reader shows is fetched again when the window regains
/// focus, the page becomes visible or the network comes back; time alone, or
/// fresh data, fetches nothing; an unmounted reader fetches nothing.
#[wasm_bindgen_test]
async fn stale_data_is_fetched_again_on_focus_visibility_and_network_return() {
    let (product, handle, aging, root, sent) = mount_trades("FOCUS", false, true).await;
    assert_eq!(ticker_count(&product).await, 1);
    assert_eq!(sent.get(), 1, "the first fetch");
    // Fresh data: focus fetches nothing (a fetch it started would be sent by now).
    dispatch("window", "focus");
    sleep(100).await;
    assert_eq!(sent.get(), 1, "fresh data is not fetched again");
    // Stale now, but time alone wakes no one.
    aging.make_stale();
    sleep(300).await;
    assert_eq!(sent.get(), 1, "staleness alone fetches nothing");
    for (target, event, want) in [("window", "focus", 2), ("window", "online", 3), ("document", "visibilitychange", 4)]
    {
        dispatch(target, event);
        let count = wait_for_count(&product, 2000, |n| n >= want).await;
        assert_eq!(count, want, "{event} fetched the stale data again");
        // Once the answer shows (it is stored), make it stale for the next event.
        wait_for_text(&root, 2000, |t| t.contains(&format!("trade={}", 1000 + want))).await;
        aging.make_stale();
    }
    drop(handle);
    let before = sent.get();
    dispatch("window", "focus");
    sleep(300).await;
    assert_eq!(sent.get(), before, "an unmounted reader fetches nothing");
    assert_eq!(ticker_count(&product).await, 4);
}

/// With the switches off, focus, visibility and network return fetch nothing,
/// and polls go on while offline.
#[wasm_bindgen_test]
async fn a_provider_can_turn_focus_and_network_awareness_off() {
    let (product, handle, aging, _, sent) = mount_trades("NOFOCUS", false, false).await;
    assert_eq!(sent.get(), 1, "the first fetch");
    aging.make_stale();
    for (target, event) in [("window", "focus"), ("window", "online"), ("document", "visibilitychange")] {
        dispatch(target, event);
    }
    // A fetch the events started would be sent by now, whatever the server's pace.
    sleep(300).await;
    assert_eq!(sent.get(), 1, "stale data is fetched again only when the app asks");
    assert_eq!(ticker_count(&product).await, 1);
    drop(handle);

    let (polled, handle, ..) = mount_trades("AWAYPOLL", true, false).await;
    dispatch("window", "offline");
    let count = wait_for_count(&polled, 3000, |n| n >= 2).await;
    assert_eq!(count, 2, "the poll went on while offline");
    dispatch("window", "online");
    drop(handle);
}

/// Offline, polls wait; back online, a poll already due goes at once.
#[wasm_bindgen_test]
async fn polling_waits_while_offline_and_resumes_when_back_online() {
    let (product, handle, ..) = mount_trades("OFFLINE", true, true).await;
    dispatch("window", "offline");
    // A poll on the wire as it went offline may still land; none may start after.
    sleep(300).await;
    let offline = ticker_count(&product).await;
    sleep(4500).await;
    assert_eq!(ticker_count(&product).await, offline, "no polls while offline (two were due)");
    dispatch("window", "online");
    let back = wait_for_count(&product, 1000, |n| n > offline).await;
    assert_eq!(back, offline + 1, "the due poll goes at once, and one only");
    drop(handle);
}
