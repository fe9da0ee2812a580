//! When a failed request is worth another try, and how long to wait first.

use std::time::Duration;

use crate::{HttpResponse, RestError};

/// How a read (or an idempotent mutation) is tried again after a failure
/// another try can mend: no answer (a transport error), a 5xx, a 408 or a
/// 429. A 429 or 503 waits what its `Retry-After` asks, when that is at most
/// [`Retry::max`] (longer: no retry; the error stands). Others wait
/// [`Retry::base`] doubled each time, at most `max`, less up to half of it
/// at random (so clients that failed together do not come back together). Other errors (a 404, a parse error) are not tried
/// again.
///
/// ```
/// use std::time::Duration;
/// use rdc_rest::{NetworkError, RestError, Retry};
/// let busy = |status| RestError::Network {
///     endpoint: "GET /users".into(),
///     source: NetworkError { status, url: "/users".into(), body: String::new(), retry_after: None },
/// };
/// let retry = Retry::default();
/// let first = retry.wait(&busy(503), 0, 700).unwrap();
/// assert!(first >= Duration::from_millis(500) && first <= Duration::from_secs(1));
/// assert!(retry.wait(&busy(404), 0, 700).is_none());
/// assert!(retry.wait(&busy(503), 3, 700).is_none(), "three retries at most");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// How many times to try again after the first try.
    pub attempts: u32,
    /// The first wait.
    pub base: Duration,
    /// The longest wait.
    pub max: Duration,
}

impl Default for Retry {
    /// Three retries, after about 1, 2 and 4 s (TanStack Query's default count).
    fn default() -> Self {
        Retry { attempts: 3, base: Duration::from_secs(1), max: Duration::from_secs(30) }
    }
}

impl Retry {
    /// Never tried again.
    pub const NEVER: Retry = Retry { attempts: 0, base: Duration::ZERO, max: Duration::ZERO };

    /// What an endpoint uses when neither it nor the app chose: in the
    /// browser [`Retry::default`]; on a server [`Retry::NEVER`], as TanStack
    /// Query does (a page being rendered should not wait seconds for a retry;
    /// the browser retries once it hydrates).
    ///
    /// ```
    /// # #[cfg(not(target_arch = "wasm32"))]
    /// assert_eq!(rdc_rest::Retry::platform(), rdc_rest::Retry::NEVER);
    /// ```
    pub fn platform() -> Retry {
        if cfg!(target_arch = "wasm32") {
            Retry::default()
        } else {
            Retry::NEVER
        }
    }

    /// How long to wait before retry `attempt` (0: the first) after `error`,
    /// or `None` not to retry; `random` picks the share taken off (the
    /// controller gives its clock's, [`FetchContext::random`](rdc_controller::FetchContext::random)).
    pub fn wait(&self, error: &RestError, attempt: u32, random: u64) -> Option<Duration> {
        if attempt >= self.attempts {
            return None;
        }
        match error {
            RestError::Network { source, .. } => {
                let status = source.status;
                if !(status >= 500 || status == 408 || status == 429) {
                    return None;
                }
                if let (429 | 503, Some(asked)) = (status, source.retry_after) {
                    return (asked <= self.max).then_some(asked);
                }
            }
            RestError::Transport { .. } => {}
            _ => return None,
        }
        let doubled = self.base.saturating_mul(1u32.checked_shl(attempt).unwrap_or(u32::MAX)).min(self.max);
        // Less up to half, at random, so clients that failed together do not
        // come back together.
        let share = u32::try_from(random % 1024).unwrap_or(0);
        Some(doubled - doubled / 2 / 1024 * share)
    }
}

/// The wait a response's `Retry-After` asks for: delay-seconds (more than a
/// `u64` holds: the longest wait, so no retry), or an HTTP-date in any of its
/// three forms against the response's own `Date` (its server's clock, not
/// ours); `None` when absent, malformed or dated without a `Date`.
pub(crate) fn retry_after(response: &HttpResponse) -> Option<Duration> {
    let value = response.header("retry-after")?.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return Some(value.parse().map_or(Duration::MAX, Duration::from_secs));
    }
    let at = crate::http_date::parse(value)?;
    let now = crate::http_date::parse(response.header("date")?)?;
    u64::try_from(crate::http_date::between(now, at)?).ok().map(Duration::from_secs)
}
