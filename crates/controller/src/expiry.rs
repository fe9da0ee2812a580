//! Whether stored data can be shown as it is, shown while refetching, or not at all.

use rdc_core::State;

/// The state of an endpoint key's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpiryStatus {
    /// Fresh: show it, do not fetch.
    Valid,
    /// Expired: show it and refetch (stale-while-revalidate).
    Stale,
    /// Missing, invalidated, or stale with `invalid_if_stale`: fetch before showing.
    Invalid,
}

/// The status of `key` at `now`.
///
/// ```
/// use rdc_core::State;
/// use rdc_controller::{expiry_status, ExpiryStatus};
/// assert_eq!(expiry_status(&State::default(), "GET /users", 0, false), ExpiryStatus::Invalid);
/// ```
pub fn expiry_status(state: &State, key: &str, now: u64, invalid_if_stale: bool) -> ExpiryStatus {
    match state.result(key) {
        None => ExpiryStatus::Invalid,
        Some(result) if result.meta.invalidated => ExpiryStatus::Invalid,
        Some(result) if now < result.meta.expires_at => ExpiryStatus::Valid,
        Some(_) if invalid_if_stale => ExpiryStatus::Invalid,
        Some(_) => ExpiryStatus::Stale,
    }
}
