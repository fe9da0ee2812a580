//! Where a live stream connects: its URL resolved (against the page when
//! relative), resuming after a message with `lastEventId=<id>`. The parsing is
//! WHATWG's: the browser's own `URL` in wasm (so no parser ships in the
//! bundle), the `url` crate natively; the rest is string work on the
//! serialization they give, the same on both. The tests run on both.

/// `url` resolved (absolute as it is, else against `base`, the page), its
/// fragment left out and, after message `after`, with `lastEventId=<after>`
/// as the query's last pair (replacing any there; the other pairs kept as
/// written).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn resume_url(url: &str, base: Option<&str>, after: Option<u64>) -> Result<String, String> {
    let resolved = resolve(url, base).map_err(|reason| format!("{url}: not a URL ({reason})"))?;
    let Some(id) = after else { return Ok(resolved) };
    // A serialized URL's first `?` starts its query: path, userinfo and host
    // cannot hold one unescaped, and the fragment is gone.
    let (before_query, query) = resolved.split_once('?').unwrap_or((&resolved, ""));
    let resume = format!("lastEventId={id}");
    let pairs = query.split('&');
    let kept = pairs.filter(|pair| !pair.is_empty() && pair.split('=').next() != Some("lastEventId"));
    Ok(format!("{before_query}?{}", kept.chain([resume.as_str()]).collect::<Vec<_>>().join("&")))
}

/// [`resume_url`] for a WebSocket: `http(s)` taken as `ws(s)`, other schemes refused.
/// (`ws` and `http` share port 80, `wss` and `https` 443, so only the scheme changes.)
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn web_socket_url(url: &str, base: Option<&str>, after: Option<u64>) -> Result<String, String> {
    let resolved = resume_url(url, base, after)?;
    let (scheme, rest) = resolved.split_once(':').unwrap_or_default();
    let scheme = match scheme {
        "ws" | "http" => "ws",
        "wss" | "https" => "wss",
        other => return Err(format!("{url}: a WebSocket cannot use {other}:")),
    };
    Ok(format!("{scheme}:{rest}"))
}

/// `url` parsed (against `base` only when it has no scheme, as the `url`
/// crate's `Url::parse` then `join` does), serialized without its fragment.
#[cfg(target_arch = "wasm32")]
fn resolve(url: &str, base: Option<&str>) -> Result<String, String> {
    use wasm_bindgen::JsCast;
    let parsed = match (web_sys::Url::new(url), base) {
        (Ok(absolute), _) => Ok(absolute),
        (Err(_), Some(base)) if !has_scheme(url) => web_sys::Url::new_with_base(url, base),
        (Err(error), _) => Err(error),
    };
    let parsed = parsed.map_err(|error| match error.dyn_into::<js_sys::Error>() {
        Ok(error) => String::from(error.message()),
        Err(error) => format!("{error:?}"),
    })?;
    parsed.set_hash("");
    Ok(parsed.href())
}

/// [`resolve`] natively, with the `url` crate.
#[cfg(not(target_arch = "wasm32"))]
fn resolve(url: &str, base: Option<&str>) -> Result<String, String> {
    use url::{ParseError, Url};
    let mut resolved = match (Url::parse(url), base) {
        (Ok(absolute), _) => absolute,
        (Err(ParseError::RelativeUrlWithoutBase), Some(base)) => {
            Url::parse(base).and_then(|base| base.join(url)).map_err(|error| error.to_string())?
        }
        (Err(error), _) => return Err(error.to_string()),
    };
    resolved.set_fragment(None);
    Ok(resolved.into())
}

/// Whether `url` starts with a scheme (`letter (letter | digit | + | - | .)* :`)
/// as the WHATWG parser reads it: leading C0 controls and spaces skipped,
/// tabs and newlines ignored.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn has_scheme(url: &str) -> bool {
    let mut chars = url.trim_start_matches(|c| c <= ' ').chars().filter(|c| !matches!(c, '\t' | '\n' | '\r'));
    let scheme_char = |c: &char| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.');
    chars.next().is_some_and(|c| c.is_ascii_alphabetic()) && chars.find(|c| !scheme_char(c)) == Some(':')
}

/// The same cases natively (the `url` crate) and in headless Chromium (its `URL`).
#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "wasm32")]
    wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

    const PAGE: Option<&str> = Some("http://127.0.0.1:8080/live/page?tab=1#top");

    fn resumed(url: &str, base: Option<&str>, after: Option<u64>) -> String {
        resume_url(url, base, after).unwrap_or_else(|e| e)
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_relative_url_resolves_against_the_page_and_an_absolute_one_needs_none() {
        assert_eq!(resumed("/api/live", PAGE, Some(7)), "http://127.0.0.1:8080/api/live?lastEventId=7");
        assert_eq!(resumed("prices", PAGE, None), "http://127.0.0.1:8080/live/prices");
        assert_eq!(resumed("https://x.test/live", None, Some(0)), "https://x.test/live?lastEventId=0");
        assert_eq!(resumed("https://x.test/live", PAGE, None), "https://x.test/live");
        let unresolved = resumed("/api/live", None, Some(1));
        assert!(unresolved.starts_with("/api/live: not a URL"), "{unresolved}");
        assert!(resumed("http://[::1", PAGE, None).starts_with("http://[::1: not a URL"));
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
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

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn the_fragment_is_left_out() {
        assert_eq!(resumed("/live?a=1#frag", PAGE, Some(4)), "http://127.0.0.1:8080/live?a=1&lastEventId=4");
        assert_eq!(resumed("wss://x.test/ws#f", None, None), "wss://x.test/ws");
        assert_eq!(resumed("/live#", PAGE, None), "http://127.0.0.1:8080/live");
        assert_eq!(resumed("/live?a#b?c=1", PAGE, Some(1)), "http://127.0.0.1:8080/live?a&lastEventId=1");
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn hostile_urls_resolve_as_the_whatwg_parser_says() {
        // Whitespace, tabs and newlines; backslashes; dot segments; a scheme-relative URL.
        assert_eq!(resumed(" \n/a\tpi/live\t ", PAGE, Some(1)), "http://127.0.0.1:8080/api/live?lastEventId=1");
        assert_eq!(resumed("\\api\\..\\live", PAGE, None), "http://127.0.0.1:8080/live");
        assert_eq!(resumed("//other.test/live", PAGE, Some(3)), "http://other.test/live?lastEventId=3");
        // A scheme is absolute even when the page's is the same; uppercase is lowered.
        assert_eq!(resumed("http:feed", PAGE, None), "http://feed/");
        assert_eq!(resumed("HTTP://X.Test:80/a", None, Some(5)), "http://x.test/a?lastEventId=5");
        // Query only; a query starting with `?`; characters the query must escape.
        assert_eq!(resumed("?lastEventId=1&b", PAGE, Some(2)), "http://127.0.0.1:8080/live/page?b&lastEventId=2");
        assert_eq!(resumed("/live??a=1", PAGE, Some(2)), "http://127.0.0.1:8080/live??a=1&lastEventId=2");
        assert_eq!(
            resumed("/li ve?q=ü 'x'<>\"", PAGE, Some(1)),
            "http://127.0.0.1:8080/li%20ve?q=%C3%BC%20%27x%27%3C%3E%22&lastEventId=1"
        );
        // A non-special scheme keeps its opaque path.
        assert_eq!(resumed("data:text/plain,x?y#z", None, Some(1)), "data:text/plain,x?y&lastEventId=1");
        // Refused: an empty host, a bad port, a bad base.
        for bad in ["http:", "http://x.test:99999/", "http://[::1]x/"] {
            assert!(resumed(bad, PAGE, None).starts_with(&format!("{bad}: not a URL")), "{bad}");
        }
        // A space in the host: WHATWG refuses it, the `url` crate too; Chromium's
        // `URL` escapes it (as its `EventSource` and `WebSocket` would).
        #[cfg(not(target_arch = "wasm32"))]
        assert!(resumed("http://exa mple.test/", PAGE, None).starts_with("http://exa mple.test/: not a URL"));
        assert!(resumed("/live", Some("not a base"), None).starts_with("/live: not a URL"));
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_web_socket_takes_http_as_ws_and_refuses_other_schemes() {
        assert_eq!(web_socket_url("/ws", PAGE, Some(5)), Ok("ws://127.0.0.1:8080/ws?lastEventId=5".into()));
        assert_eq!(web_socket_url("https://x.test:8443/ws", None, None), Ok("wss://x.test:8443/ws".into()));
        assert_eq!(web_socket_url("wss://x.test/ws", None, None), Ok("wss://x.test/ws".into()));
        assert_eq!(web_socket_url("ws://x.test/ws", PAGE, None), Ok("ws://x.test/ws".into()));
        assert_eq!(web_socket_url("https://x.test:443/ws", None, None), Ok("wss://x.test/ws".into()));
        assert_eq!(web_socket_url("http://x.test:443/ws", None, None), Ok("ws://x.test:443/ws".into()));
        assert_eq!(web_socket_url("http://[::1]:9/ws", None, Some(1)), Ok("ws://[::1]:9/ws?lastEventId=1".into()));
        assert_eq!(
            web_socket_url("ftp://x.test/ws", None, None),
            Err("ftp://x.test/ws: a WebSocket cannot use ftp:".into())
        );
        assert_eq!(
            web_socket_url("data:text/plain,x", None, None),
            Err("data:text/plain,x: a WebSocket cannot use data:".into())
        );
        assert_eq!(
            web_socket_url("javascript:alert(1)//http://x", None, None),
            Err("javascript:alert(1)//http://x: a WebSocket cannot use javascript:".into())
        );
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_scheme_is_read_as_the_whatwg_parser_reads_it() {
        for url in ["http:x", " \tws:", "a+b-c.d:", "h\nttp://x", "x:"] {
            assert!(has_scheme(url), "{url}");
        }
        for url in ["/a:b", "1http:", "ht tp:", "http", "", "?a:b", "é:"] {
            assert!(!has_scheme(url), "{url}");
        }
    }
}
