//! The store inspector: entities by type with their expiry, endpoint results,
//! requests in flight, listeners and poll timers. Updates as the store changes.

use leptos::prelude::*;
use rdc::controller::{expiry_status, Controller, ExpiryStatus};
use send_wrapper::SendWrapper;

#[component]
pub fn Inspector(controller: SendWrapper<Controller>) -> impl IntoView {
    let tick = RwSignal::new(0u64);
    let id = controller.listen(move || tick.update(|t| *t += 1));
    let c = controller.clone();
    on_cleanup(move || c.unlisten(id));
    let status_name = |s: ExpiryStatus| match s {
        ExpiryStatus::Valid => "valid",
        ExpiryStatus::Stale => "stale",
        ExpiryStatus::Invalid => "invalid",
    };
    view! {
        <aside class="inspector">
            <h2>"Store"</h2>
            {move || {
                tick.track();
                let now = controller.now();
                // Summarized in place: the store is read, never copied.
                let (tables, results) = controller.with_state(|state| {
                    let mut tables: Vec<(String, usize, usize)> = state
                        .tables()
                        .iter()
                        .map(|(key, table)| {
                            let live = table.rows.values().filter(|r| r.value.is_some()).count();
                            let fresh = table.rows.values().filter(|r| r.value.is_some() && now < r.meta.expires_at).count();
                            (key.clone(), live, fresh)
                        })
                        .collect();
                    tables.sort();
                    let mut results: Vec<(String, &'static str, Option<String>)> = state
                        .result_keys()
                        .map(|key| {
                            let status = status_name(expiry_status(state, key, now, false));
                            let error = state.error(key).filter(|e| now < e.expires_at).map(|e| format!(" error: {}", e.message));
                            (key.clone(), status, error)
                        })
                        .collect();
                    results.sort();
                    (tables, results)
                });
                view! {
                    <h3>"Entities"</h3>
                    <ul class="entities">
                        {tables.into_iter().map(|(key, live, fresh)| {
                            view! { <li><strong>{key}</strong>{format!(" {live} ({fresh} fresh, {} stale)", live - fresh)}</li> }
                        }).collect_view()}
                    </ul>
                    <h3>"Results"</h3>
                    <ul class="results">
                        {results.into_iter().map(|(key, status, error)| {
                            view! { <li class=status><code>{key}</code>" " {status} {error}</li> }
                        }).collect_view()}
                    </ul>
                    <h3>"In flight"</h3>
                    <ul class="inflight">{controller.inflight_keys().into_iter().map(|k| view! { <li><code>{k}</code></li> }).collect_view()}</ul>
                    <p class="counts">{format!(
                        "listeners: {}, poll timers: {}, subscriptions: {}",
                        controller.listener_count(),
                        controller.poll_timer_count(),
                        controller.subscription_count()
                    )}</p>
                }
            }}
        </aside>
    }
}
