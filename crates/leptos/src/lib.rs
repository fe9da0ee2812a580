//! # rdc-leptos
//!
//! Leptos bindings for rdc: [`DataProvider`], [`use_suspense`], [`use_controller`]
//! and the rest of the hook family. The policy (expiry, dedup, polling, GC) lives
//! in `rdc_controller::Controller`; these hooks only map it onto signals, `<Suspense>`,
//! `<ErrorBoundary>` and cleanup.
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable, clippy::indexing_slicing)
)]

mod hooks;
mod page_data;
#[cfg(feature = "persist")]
mod persist;
mod platform;
mod provider;
#[cfg(feature = "sync-tabs")]
mod tabs;
mod watch;

/// Locks `mutex`, recovering it from a panic elsewhere (what it guards stays usable).
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub use hooks::use_lazy;
#[cfg(feature = "offline")]
pub use hooks::use_queued_mutations;
pub use hooks::{
    use_cache, use_cancelling, use_dle, use_entity, use_entity_by, use_keys, use_list, use_live, use_loading,
    use_mutation, use_pages, use_query, use_subscription, use_suspense, use_suspense_keys, use_suspense_optional,
    DataResult, Dle, EntityKey, Loading, Mutation, Pages, Readable, Row, RowId,
};
pub use hooks::{
    use_dle_each, use_error, use_fetch, use_keep_previous, use_placeholder, use_prefetch, use_query_select, use_select,
    Shown,
};
pub use hooks::{use_is_fetching, use_is_fetching_of, use_pending_mutations};
pub use hooks::{use_object_url, BlobResult, Img, ObjectUrl};
pub use hooks::{use_server_action, use_server_action_with, ServerForm, ServerFormError};
#[cfg(feature = "persist")]
pub use persist::{indexed_db, mount_when_restored, persist};
pub use platform::{pending_timeouts, Browser};
pub use provider::{new_controller, provide_controller, use_controller, DataProvider};
#[cfg(feature = "sync-tabs")]
pub use tabs::sync_tabs;
pub use watch::Snapshot;
