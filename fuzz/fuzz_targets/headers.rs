//! Any `Content-Disposition` or `Link` header: parsing never panics, and filenames
//! come out without path separators or control characters.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rdc_rest::transform::{content_disposition_filename, parse_link_header};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(name) = content_disposition_filename(&text) {
        assert!(!name.is_empty() && name != "." && name != "..", "{name:?}");
        assert!(!name.contains('/') && !name.contains('\\'), "{name:?}");
        assert!(!name.chars().any(char::is_control), "{name:?}");
    }
    for link in parse_link_header(&text) {
        assert!(!link.url.is_empty());
    }
});
