//! What each tab shows, read from the store in place as it stands.

use leptos::prelude::*;
use rdc_controller::{expiry_status, Controller, ExpiryStatus};
use rdc_core::json::{Map, Value};

use crate::log::ActionLog;

/// How many rows of one table a search lists.
const LISTED: usize = 50;

fn text(object: &Map) -> String {
    rdc_core::json_text(&Value::Object(object.clone()))
}

/// Seconds from `now` to `at`, for people: "in 12.0 s" or "3.5 s ago".
fn when(now: u64, at: u64) -> String {
    let seconds = |ms: u64| ms as f64 / 1000.0;
    if at >= now {
        format!("in {:.1} s", seconds(at - now))
    } else {
        format!("{:.1} s ago", seconds(now - at))
    }
}

/// Entity tables (live rows, those matching `search`) and the picked entity.
pub(crate) fn entities(
    controller: &Controller,
    search: &str,
    picked: RwSignal<Option<(String, String)>>,
) -> impl IntoView {
    let needle = search.to_lowercase();
    let matches = |key: &str, pk: &str, body: &str| {
        needle.is_empty() || [key, pk, body].iter().any(|t| t.to_lowercase().contains(&needle))
    };
    let tables = controller.with_state(|state| {
        let mut tables: Vec<(String, usize, Vec<(String, String)>)> = state
            .tables()
            .iter()
            .map(|(key, table)| {
                let live = table.rows.iter().filter_map(|(pk, row)| Some((pk, row.value.as_ref()?)));
                let count = live.clone().count();
                let rows = live
                    .map(|(pk, value)| (pk.to_string(), text(value)))
                    .filter(|(pk, body)| matches(key, pk, body))
                    .take(LISTED)
                    .collect();
                (key.clone(), count, rows)
            })
            .collect();
        tables.sort();
        tables
    });
    let detail = picked.get().map(|(table, pk)| entity(controller, &table, &pk));
    view! {
        {detail}
        <ul class="rdc-devtools-tables">
            {tables.into_iter().map(|(key, count, rows)| {
                let listed = rows.len();
                view! {
                    <li data-table=key.clone()>
                        <strong>{key.clone()}</strong>{format!(" {count} live, {listed} listed")}
                        <ul>
                            {rows.into_iter().map(|(pk, body)| {
                                let pick = (key.clone(), pk.clone());
                                view! {
                                    <li>
                                        <button class="rdc-devtools-entity" on:click=move |_| picked.set(Some(pick.clone()))>{pk}</button>
                                        " "<code>{body}</code>
                                    </li>
                                }
                            }).collect_view()}
                        </ul>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}

/// One entity: its stored object, its expiry, and what refers to it (results
/// and entities holding its key as a reference).
fn entity(controller: &Controller, table: &str, pk: &str) -> impl IntoView {
    let now = controller.now();
    let reference = rdc_core::json_text(&Value::from(pk));
    let (body, expiry, referrers) = controller.with_state(|state| {
        let row = state.tables().get(table).and_then(|t| t.rows.get(pk));
        let body = row.and_then(|r| r.value.as_ref()).map(|v| text(v));
        let expiry = row.map(|r| when(now, r.meta.expires_at));
        let mut referrers: Vec<String> = state
            .result_keys()
            .filter(|key| state.result(key).is_some_and(|r| rdc_core::json_text(&r.value).contains(&reference)))
            .map(|key| format!("result {key}"))
            .collect();
        for (other, rows) in state.tables() {
            for (other_pk, row) in &rows.rows {
                let refers = row.value.as_ref().is_some_and(|v| text(v).contains(&reference));
                if refers && (other != table || other_pk.as_str() != pk) {
                    referrers.push(format!("{other} {other_pk}"));
                }
            }
        }
        (body, expiry, referrers)
    });
    view! {
        <section class="rdc-devtools-detail">
            <h4>{format!("{table} {pk}")}</h4>
            <p>{expiry.map(|e| format!("expires {e}")).unwrap_or_else(|| "not stored".to_owned())}</p>
            <pre style="white-space:pre-wrap">{body}</pre>
            <p>"Referred to by:"</p>
            <ul class="rdc-devtools-referrers">{referrers.into_iter().map(|r| view! { <li>{r}</li> }).collect_view()}</ul>
        </section>
    }
}

/// Each endpoint result: its status, when it expires, its error.
pub(crate) fn results(controller: &Controller) -> impl IntoView {
    let now = controller.now();
    let rows = controller.with_state(|state| {
        let mut rows: Vec<(String, &'static str, String, Option<String>)> = state
            .result_keys()
            .map(|key| {
                let status = match expiry_status(state, key, now, false) {
                    ExpiryStatus::Valid => "valid",
                    ExpiryStatus::Stale => "stale",
                    ExpiryStatus::Invalid => "invalid",
                };
                let expires = state.result(key).map(|r| when(now, r.meta.expires_at)).unwrap_or_default();
                let error = state.error(key).filter(|e| now < e.expires_at).map(|e| e.message.clone());
                (key.clone(), status, expires, error)
            })
            .collect();
        rows.sort();
        rows
    });
    view! {
        <ul class="rdc-devtools-results">
            {rows.into_iter().map(|(key, status, expires, error)| view! {
                <li data-status=status>
                    <code>{key}</code>{format!(" {status}, expires {expires}")}
                    {error.map(|e| view! { <span style="color:#ff8a80">{format!(" error: {e}")}</span> })}
                </li>
            }).collect_view()}
        </ul>
    }
}

/// Requests in flight and mutations held offline.
pub(crate) fn requests(controller: &Controller) -> impl IntoView {
    let inflight = controller.inflight_keys();
    let held = controller.queued_mutations();
    view! {
        <p>{format!("{} in flight; {held} mutations held ({})", inflight.len(), if controller.is_online() { "online" } else { "offline" })}</p>
        <ul class="rdc-devtools-inflight">{inflight.into_iter().map(|k| view! { <li><code>{k}</code></li> }).collect_view()}</ul>
    }
}

/// The controller's last actions, newest first.
pub(crate) fn log(controller: &Controller, log: &ActionLog) -> impl IntoView {
    let now = controller.now();
    view! {
        <ol class="rdc-devtools-log">
            {log.newest_first().into_iter().map(|entry| view! {
                <li><span style="color:#9aa5b1">{when(now, entry.at)}</span>" "{entry.what}</li>
            }).collect_view()}
        </ol>
    }
}

/// Mounted readers and what keeps them woken.
pub(crate) fn readers(controller: &Controller) -> impl IntoView {
    view! {
        <ul class="rdc-devtools-readers">
            <li>{format!("listeners: {}", controller.listener_count())}</li>
            <li>{format!("keys read by mounted readers: {}", controller.retained_count())}</li>
            <li>{format!("subscriptions: {}, poll timers: {}", controller.subscription_count(), controller.poll_timer_count())}</li>
        </ul>
    }
}
