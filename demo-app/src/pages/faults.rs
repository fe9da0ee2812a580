//! Faults: make the server fail, and watch error boundaries, soft errors over
//! stale data, and recovery by retry.

use leptos::prelude::*;
use rdc::leptos::{use_controller, use_dle, use_loading, use_suspense_optional};

use crate::api::{flaky, probe, set_flaky, status, Failing, Status};

#[component]
pub fn Faults() -> impl IntoView {
    let controller = use_controller();
    let result = RwSignal::new(String::new());
    let c = controller.clone();
    let probe = use_loading(move |path: &'static str| {
        let fetch = c.fetch(&probe(path), (), ());
        async move {
            match fetch.await {
                Ok(body) => {
                    result.set(format!("ok: {body}"));
                    Ok(())
                }
                Err(e) => {
                    result.set(format!("error: {e}"));
                    Err(e.to_string())
                }
            }
        }
    });
    let data = use_dle(flaky(), Signal::derive(|| Some(())));
    let c = controller.clone();
    let set_failing = use_loading(move |fail: bool| {
        let set = c.fetch(&set_flaky(), (), Failing { fail });
        let refetch = c.clone();
        async move {
            set.await.map_err(|e| e.to_string())?;
            refetch.expire_all(|k| k.ends_with("/api/flaky"));
            refetch.fetch(&flaky(), (), ()).await.map(|_| ()).map_err(|e| e.to_string())
        }
    });
    let code = RwSignal::new(None::<u16>);
    let answer = use_suspense_optional(status(), Signal::derive(move || code.get().map(|code| Status { code })));
    view! {
        <section>
            <h2>"Faults"</h2>
            <h3>"Error boundary"</h3>
            <div class="buttons">
                <button id="boundary-404" on:click=move |_| code.set(Some(404))>"Load a 404"</button>
                <button id="boundary-503" on:click=move |_| code.set(Some(503))>"Load a 503"</button>
                <button id="boundary-ok" on:click=move |_| code.set(Some(200))>"Retry with a 200"</button>
            </div>
            <ErrorBoundary fallback=|errors| view! {
                <p class="error boundary">{move || errors.get().into_iter().map(|(_, e)| format!("caught: {e}")).collect::<String>()}</p>
            }>
                <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
                    <p class="boundary-data">
                        {move || Suspend::new(async move {
                            answer.await.map(|v| v.map(|v| format!("loaded: {v}")).unwrap_or_else(|| "nothing requested".into()))
                        })}
                    </p>
                </Suspense>
            </ErrorBoundary>
            <h3>"Probes"</h3>
            <div class="buttons">
                <button id="fault-500" on:click=move |_| probe.run.run("/status/500")>"HTTP 500"</button>
                <button id="fault-404" on:click=move |_| probe.run.run("/status/404")>"HTTP 404"</button>
                <button id="fault-malformed" on:click=move |_| probe.run.run("/malformed")>"Malformed JSON"</button>
                <button id="fault-slow" on:click=move |_| probe.run.run("/slow")>"Slow (2 s)"</button>
            </div>
            <p class="probe">{move || if probe.pending.get() { "waiting…".to_owned() } else { result.get() }}</p>
            <h3>"Soft errors keep stale data"</h3>
            <p class="flaky">
                {move || data.data.get().map(|v| format!("data: {}", v["value"])).unwrap_or_else(|| "no data yet".into())}
                {move || data.loading.get().then_some(" (loading)")}
            </p>
            <p class="error flaky-error">{move || data.error.get().map(|e| format!("error: {e}"))}</p>
            <button id="flaky-fail" on:click=move |_| set_failing.run.run(true)>"Make the server fail, refetch"</button>
            <button id="flaky-recover" on:click=move |_| set_failing.run.run(false)>"Recover, retry"</button>
        </section>
    }
}
