//! Where a live stream connects: its URL resolved (against the page when
//! relative), resuming after a message with `lastEventId=<id>`. Plain Rust
//! (the `url` crate, the WHATWG rules a browser follows), tested natively.

use url::Url;

/// `url` resolved (absolute as it is, else against `base`, the page), its
/// fragment left out and, after message `after`, with `lastEventId=<after>`
/// as the query's last pair (replacing any there; the other pairs kept as
/// written).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn resume_url(url: &str, base: Option<&str>, after: Option<u64>) -> Result<Url, String> {
    let not_a_url = |error: url::ParseError| format!("{url}: not a URL ({error})");
    let mut resolved = match (Url::parse(url), base) {
        (Ok(absolute), _) => absolute,
        (Err(url::ParseError::RelativeUrlWithoutBase), Some(base)) => {
            Url::parse(base).and_then(|base| base.join(url)).map_err(not_a_url)?
        }
        (Err(error), _) => return Err(not_a_url(error)),
    };
    resolved.set_fragment(None);
    if let Some(id) = after {
        let resume = format!("lastEventId={id}");
        let pairs = resolved.query().unwrap_or_default().split('&');
        let kept = pairs.filter(|pair| !pair.is_empty() && pair.split('=').next() != Some("lastEventId"));
        let query = kept.chain([resume.as_str()]).collect::<Vec<_>>().join("&");
        resolved.set_query(Some(&query));
    }
    Ok(resolved)
}

/// [`resume_url`] for a WebSocket: `http(s)` taken as `ws(s)`, other schemes refused.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn web_socket_url(url: &str, base: Option<&str>, after: Option<u64>) -> Result<String, String> {
    let mut resolved = resume_url(url, base, after)?;
    let scheme = match resolved.scheme() {
        "ws" | "http" => "ws",
        "wss" | "https" => "wss",
        other => return Err(format!("{url}: a WebSocket cannot use {other}:")),
    };
    resolved.set_scheme(scheme).map_err(|()| format!("{url}: a WebSocket cannot use {}:", resolved.scheme()))?;
    Ok(resolved.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: Option<&str> = Some("http://127.0.0.1:8080/live/page?tab=1#top");

    fn resumed(url: &str, base: Option<&str>, after: Option<u64>) -> String {
        resume_url(url, base, after).map(String::from).unwrap_or_else(|e| e)
    }

    #[test]
    fn a_relative_url_resolves_against_the_page_and_an_absolute_one_needs_none() {
        assert_eq!(resumed("/api/live", PAGE, Some(7)), "http://127.0.0.1:8080/api/live?lastEventId=7");
        assert_eq!(resumed("prices", PAGE, None), "http://127.0.0.1:8080/live/prices");
        assert_eq!(resumed("https://x.test/live", None, Some(0)), "https://x.test/live?lastEventId=0");
        assert_eq!(resumed("https://x.test/live", PAGE, None), "https://x.test/live");
        let unresolved = resumed("/api/live", None, Some(1));
        assert!(unresolved.starts_with("/api/live: not a URL"), "{unresolved}");
        assert!(resumed("http://[::1", PAGE, None).starts_with("http://[::1: not a URL"));
    }

    #[test]
    fn resuming_replaces_any_last_event_id_and_keeps_the_other_pairs_byte_for_byte() {
        assert_eq!(
            resumed("/live?lastEventId=3&a=%20b~&lastEventId&c=d%2Fe&=x", PAGE, Some(9)),
            "http://127.0.0.1:8080/live?a=%20b~&c=d%2Fe&=x&lastEventId=9"
        );
        assert_eq!(
            resumed("/live?a=%20b~&lastEventId=3", PAGE, None),
            "http://127.0.0.1:8080/live?a=%20b~&lastEventId=3"
        );
        assert_eq!(resumed("/live?", PAGE, Some(2)), "http://127.0.0.1:8080/live?lastEventId=2");
        assert_eq!(
            resumed("/live?lastEventIdx=1", PAGE, Some(2)),
            "http://127.0.0.1:8080/live?lastEventIdx=1&lastEventId=2"
        );
    }

    #[test]
    fn the_fragment_is_left_out() {
        assert_eq!(resumed("/live?a=1#frag", PAGE, Some(4)), "http://127.0.0.1:8080/live?a=1&lastEventId=4");
        assert_eq!(resumed("wss://x.test/ws#f", None, None), "wss://x.test/ws");
    }

    #[test]
    fn a_web_socket_takes_http_as_ws_and_refuses_other_schemes() {
        assert_eq!(web_socket_url("/ws", PAGE, Some(5)), Ok("ws://127.0.0.1:8080/ws?lastEventId=5".into()));
        assert_eq!(web_socket_url("https://x.test:8443/ws", None, None), Ok("wss://x.test:8443/ws".into()));
        assert_eq!(web_socket_url("wss://x.test/ws", None, None), Ok("wss://x.test/ws".into()));
        assert_eq!(web_socket_url("ws://x.test/ws", PAGE, None), Ok("ws://x.test/ws".into()));
        assert_eq!(
            web_socket_url("ftp://x.test/ws", None, None),
            Err("ftp://x.test/ws: a WebSocket cannot use ftp:".into())
        );
        assert_eq!(
            web_socket_url("data:text/plain,x", None, None),
            Err("data:text/plain,x: a WebSocket cannot use data:".into())
        );
    }
}
