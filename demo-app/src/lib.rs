//! The rdc demo's endpoints and pages, shared by its two builds: the
//! client-rendered app `trunk serve` runs (`main.rs`) and the server-rendered
//! one in `demo-ssr/`.

pub mod api;
pub mod pages;
