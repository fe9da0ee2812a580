//! Any `Content-Disposition` or `Link` header: parsing never panics, filenames
//! come out without path separators or control characters, and a `Link` header
//! written from fuzzed links (hostile quoted titles included) parses back to
//! exactly those links: nothing inside a quoted string makes a link.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rdc_rest::transform::{content_disposition_filename, parse_link_header, Link};

/// `text` as an RFC 9110 quoted string.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(name) = content_disposition_filename(&text) {
        assert!(!name.is_empty() && name != "." && name != "..", "{name:?}");
        assert!(!name.contains('/') && !name.contains('\\'), "{name:?}");
        assert!(!name.chars().any(char::is_control), "{name:?}");
    }
    for link in parse_link_header(&text) {
        assert!(!link.url.is_empty());
        assert!(!link.rel.is_empty() && !link.rel.contains(char::is_whitespace), "{link:?}");
        assert_eq!(link.rel, link.rel.to_ascii_lowercase());
    }

    // Links written from the input's `\0`-separated fields: a target (no `>`,
    // no whitespace), a title (any text, quoted), a relation type (a token).
    let fields: Vec<&str> = text.split('\u{0}').collect();
    let mut header = Vec::new();
    let mut want = Vec::new();
    for chunk in fields.chunks(3) {
        let [target, title, rel] = chunk else { break };
        let target: String = target.chars().filter(|c| *c != '>' && *c != '<' && !c.is_whitespace()).collect();
        let rel: String = rel.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
        header.push(format!("<{target}>; title={}; rel={}", quoted(title), quoted(&rel)));
        if !target.is_empty() && !rel.is_empty() {
            want.push(Link { url: target, rel });
        }
    }
    assert_eq!(parse_link_header(&header.join(", ")), want, "{header:?}");
});
