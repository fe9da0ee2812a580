//! # rdc-devtools
//!
//! `<Devtools/>`: a panel, collapsed by default, over the app of the nearest
//! `DataProvider`: entity tables with search, one entity with what refers to
//! it, results with their status and time to expiry, requests in flight and
//! mutations held offline, the log of the controller's actions, and the
//! mounted readers. It is compiled out of release builds (the component
//! renders nothing) unless the `always` feature asks for it. The log starts
//! when the panel first mounts: put it first inside the `DataProvider`.
//!
//! ```no_run
//! use leptos::prelude::*;
//! use rdc_leptos::DataProvider;
//! use rdc_devtools::Devtools;
//! # #[component] fn App() -> impl IntoView { view! { <p>"app"</p> } }
//! let _ = view! { <DataProvider><Devtools/><App/></DataProvider> };
//! ```
#![deny(missing_docs)]

#[cfg(any(debug_assertions, feature = "always"))]
mod log;
#[cfg(any(debug_assertions, feature = "always"))]
mod panel;
#[cfg(any(debug_assertions, feature = "always"))]
mod views;

use leptos::prelude::*;

/// The devtools panel for the nearest `DataProvider`'s controller (nothing in
/// release builds without the `always` feature).
#[component]
pub fn Devtools() -> impl IntoView {
    #[cfg(any(debug_assertions, feature = "always"))]
    return panel::Panel().into_any();
    #[cfg(not(any(debug_assertions, feature = "always")))]
    return ().into_any();
}
