//! # rdc-leptos
//!
//! Leptos bindings for rdc: `DataProvider`, `use_suspense`, `use_controller` and the
//! rest of the hook family.
#![deny(missing_docs)]
