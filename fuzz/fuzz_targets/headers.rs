//! Any `Content-Disposition` or `Link` header: parsing never panics, filenames
//! come out safe to save on every platform (and a safe name is kept as it is),
//! and a `Link` header written from fuzzed links (hostile quoted titles
//! included) parses back to exactly those links: nothing inside a quoted string
//! makes a link.
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

/// Every byte as `%XX`.
fn percent_encode(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// What every filename given out must be: a single name, saved as shown, on
/// every platform.
fn check_filename(name: &str) {
    assert!(!name.is_empty() && name.len() <= 255, "{name:?}");
    assert!(!name.contains(['/', '\\', '<', '>', ':', '"', '|', '?', '*']), "{name:?}");
    assert!(!name.chars().any(char::is_control), "{name:?}");
    let invisible = ['\u{202E}', '\u{202D}', '\u{2066}', '\u{200B}', '\u{200E}', '\u{200F}', '\u{FEFF}', '\u{061C}'];
    assert!(!name.contains(invisible), "{name:?}");
    let edge = |c: char| c == '.' || c.is_whitespace();
    assert!(!name.starts_with(edge) && !name.ends_with(edge), "{name:?}");
    let stem = name.split('.').next().unwrap_or_default().trim_end_matches(' ').to_ascii_lowercase();
    assert!(!["con", "prn", "aux", "nul", "com1", "lpt1"].contains(&stem.as_str()), "{name:?}");
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(name) = content_disposition_filename(&text) {
        check_filename(&name);
    }
    // Any name, sent as an RFC 8187 `filename*`: a safe name comes out, and a safe
    // name is kept as it is.
    let sent = format!("attachment; filename*=UTF-8''{}", percent_encode(&text));
    if let Some(name) = content_disposition_filename(&sent) {
        check_filename(&name);
        let again = format!("attachment; filename*=UTF-8''{}", percent_encode(&name));
        assert_eq!(content_disposition_filename(&again).as_deref(), Some(name.as_str()));
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
