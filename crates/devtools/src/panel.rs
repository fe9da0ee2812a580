//! The panel: a toggle, tabs, and the tab shown, re-rendered as the store
//! changes and as actions are logged.

use leptos::prelude::*;
use rdc_leptos::use_controller;

use crate::log::ActionLog;
use crate::views;

/// The tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tab {
    Entities,
    Results,
    Requests,
    Log,
    Readers,
}

const TABS: [(Tab, &str); 5] = [
    (Tab::Entities, "Entities"),
    (Tab::Results, "Results"),
    (Tab::Requests, "Requests"),
    (Tab::Log, "Log"),
    (Tab::Readers, "Readers"),
];

const ROOT: &str =
    "position:fixed;right:12px;bottom:12px;z-index:2147483647;font:12px/1.4 ui-monospace,monospace;color:#e8e8e8;";
const TOGGLE: &str = "background:#1f2933;color:#e8e8e8;border:1px solid #52606d;border-radius:4px;padding:4px 8px;cursor:pointer;float:right;";
const BODY: &str = "clear:both;margin-top:6px;width:min(560px,90vw);max-height:60vh;overflow:auto;background:#1f2933;border:1px solid #52606d;border-radius:6px;padding:8px;";

#[component]
pub(crate) fn Panel() -> impl IntoView {
    let controller = use_controller();
    let log = ActionLog::of(&controller);
    // Store changes and new log entries re-render the open tab.
    let tick = RwSignal::new(0u64);
    let listener = controller.listen(move || tick.update(|t| *t += 1));
    log.on_entry(Some(std::sync::Arc::new(move || {
        tick.try_update(|t| *t += 1);
    })));
    let (cleanup_controller, cleanup_log) = (controller.clone(), log.clone());
    on_cleanup(move || {
        cleanup_controller.unlisten(listener);
        cleanup_log.on_entry(None);
    });
    let open = RwSignal::new(false);
    let tab = RwSignal::new(Tab::Entities);
    let search = RwSignal::new(String::new());
    let picked = RwSignal::new(None::<(String, String)>);
    let shown = move || {
        tick.track();
        match tab.get() {
            Tab::Entities => views::entities(&controller, &search.get(), picked).into_any(),
            Tab::Results => views::results(&controller).into_any(),
            Tab::Requests => views::requests(&controller).into_any(),
            Tab::Log => views::log(&controller, &log).into_any(),
            Tab::Readers => views::readers(&controller).into_any(),
        }
    };
    view! {
        <div class="rdc-devtools" style=ROOT>
            <button class="rdc-devtools-toggle" style=TOGGLE on:click=move |_| open.update(|o| *o = !*o)>
                {move || if open.get() { "Close rdc devtools" } else { "rdc devtools" }}
            </button>
            <Show when=move || open.get()>
                <div class="rdc-devtools-body" style=BODY>
                    <nav>
                        {TABS.into_iter().map(|(which, label)| {
                            let style = move || if tab.get() == which { "font-weight:bold;text-decoration:underline;" } else { "" };
                            view! {
                                <button class="rdc-devtools-tab" data-tab=label style=style on:click=move |_| tab.set(which)>{label}</button>
                            }
                        }).collect_view()}
                    </nav>
                    <Show when=move || tab.get() == Tab::Entities>
                        <input class="rdc-devtools-search" placeholder="Search type, key or content"
                            prop:value=search on:input=move |ev| search.set(event_target_value(&ev))/>
                    </Show>
                    <div class="rdc-devtools-tab-body">{shown.clone()}</div>
                </div>
            </Show>
        </div>
    }
}
