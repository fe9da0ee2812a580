//! # rdc
//!
//! A signal-backed, normalized entity cache with REST endpoints for Leptos apps.
//! `use rdc::prelude::*;` brings in what an app needs.
#![deny(missing_docs)]

pub use rdc_core as core;
pub use rdc_leptos as leptos;
pub use rdc_rest as rest;

/// Everything an app usually needs, in one import.
pub mod prelude {}
