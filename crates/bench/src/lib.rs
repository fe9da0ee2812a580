//! Benchmark workloads for rdc-core, named as in Reactive Data Client's normalizr
//! benchmark so figures line up with `../shared/bench/js-anchor`.
//!
//! The same workloads run natively (`cargo bench -p rdc-bench`) and as wasm
//! in Node (`scripts/bench-core`, beside the JavaScript anchor, ratios in one run).
#![deny(missing_docs)]

mod fixtures;
mod listed;
mod timing;
mod workloads;

pub use fixtures::{BuildType, ListAuthor, ListItem, Project, Projects, User};
pub use workloads::{BenchError, Fixtures, WORKLOADS};

#[cfg(target_arch = "wasm32")]
mod wasm;
