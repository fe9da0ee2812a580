//! Test fixtures: every entity of spec 2.2, plus small graphs for nesting and cycles.
#![allow(unused_imports)]

pub use rdc_spec_fixtures::graph::*;
pub use rdc_spec_fixtures::{ExchangePrice, FeedItem, Link, Post, Stream, Ticker, User};
