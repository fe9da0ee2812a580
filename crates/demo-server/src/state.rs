//! Shared, in-memory state of the demo API.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

/// A user as the API sends it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct User {
    pub id: String,
    pub name: String,
}

/// A note as the API names its fields (the demo app calls `body` `text`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Note {
    pub id: u64,
    pub body: String,
}

/// Everything the server remembers between requests.
#[derive(Debug, Default)]
pub struct Inner {
    pub users: Vec<User>,
    pub next_user: u64,
    /// Requests served per ticker product id, so tests can check polling.
    pub ticker_requests: BTreeMap<String, u64>,
    /// When the latest ticker requests came, per product id: milliseconds
    /// since the Unix epoch by the server's clock, oldest first (the last 20).
    pub ticker_times: BTreeMap<String, Vec<u64>>,
    /// Whether `/flaky` answers 503, and how many times it answered.
    pub flaky_failing: bool,
    pub flaky_served: u64,
    /// Calls per name of `/faults/sequence/{name}`.
    pub sequence_calls: BTreeMap<String, u64>,
    /// How the tagged `/slow` requests went, by tag.
    pub slow_requests: BTreeMap<String, SlowRequests>,
    /// Every API request since the last reset, as `METHOD /path?query`
    /// (the server-rendering test counts what a page asked for).
    pub request_log: Vec<String>,
    /// Files uploaded to `/uploads`, oldest first.
    pub uploads: Vec<crate::uploads::Stored>,
    /// Notes kept by `/notes`, oldest first.
    pub notes: Vec<Note>,
    /// How many times `/limited` answered.
    pub limited_served: u64,
}

/// Tagged `/slow` requests: started, answered, and cancelled (the client went
/// away before the answer, so the server dropped the request).
#[derive(Debug, Default, Clone, Copy)]
pub struct SlowRequests {
    pub started: u64,
    pub answered: u64,
    pub cancelled: u64,
}

/// Cloneable handle on the server state.
#[derive(Debug, Clone)]
pub struct AppState(Arc<Mutex<Inner>>);

impl Default for AppState {
    fn default() -> Self {
        let users = ["Ada Lovelace", "Grace Hopper", "Alan Turing"]
            .iter()
            .enumerate()
            .map(|(i, name)| User { id: format!("u{}", i + 1), name: (*name).to_owned() })
            .collect::<Vec<_>>();
        let next_user = users.len() as u64 + 1;
        let notes = vec![Note { id: 1, body: "The API calls this field body.".to_owned() }];
        AppState(Arc::new(Mutex::new(Inner { users, next_user, notes, ..Inner::default() })))
    }
}

impl AppState {
    /// Locks the state; a poisoned lock still yields the data (a handler panicked
    /// mid-request, the data itself is plain values and stays usable).
    pub fn lock(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
