//! The store inspector: entities by type with their expiry, endpoint results,
//! requests in flight, listeners and poll timers. Updates as the store changes.

use leptos::prelude::*;
use rdc::core::{expiry_status, Controller, ExpiryStatus};
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
                let state = controller.snapshot();
                let now = controller.now();
                let mut tables: Vec<_> = state.tables().iter().collect();
                tables.sort_by(|a, b| a.0.cmp(b.0));
                let mut result_keys: Vec<String> = state.result_keys().cloned().collect();
                result_keys.sort();
                view! {
                    <h3>"Entities"</h3>
                    <ul class="entities">
                        {tables.into_iter().map(|(key, table)| {
                            let live = table.rows.values().filter(|r| r.value.is_some()).count();
                            let fresh = table.rows.values().filter(|r| r.value.is_some() && now < r.meta.expires_at).count();
                            view! { <li><strong>{key.clone()}</strong>{format!(" {live} ({fresh} fresh, {} stale)", live - fresh)}</li> }
                        }).collect_view()}
                    </ul>
                    <h3>"Results"</h3>
                    <ul class="results">
                        {result_keys.into_iter().map(|key| {
                            let status = status_name(expiry_status(&state, &key, now, false));
                            let error = state.error(&key).filter(|e| now < e.expires_at).map(|e| format!(" error: {}", e.message));
                            view! { <li class=status><code>{key.clone()}</code>" " {status} {error}</li> }
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
