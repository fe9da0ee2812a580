//! Any template and any parameter value: expanding never panics, and the value
//! can never add a path segment, a query or a fragment.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rdc_rest::PathTemplate;
use rdc_core::json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (template, param) = text.split_once('\u{0}').unwrap_or((&text, "x"));
    let _ = PathTemplate::parse(template).url(&Map::new());
    let fixed = PathTemplate::parse("/files/:id/download");
    let mut args = Map::new();
    args.insert("id", Value::from(param));
    if let Ok(url) = fixed.url(&args) {
        let path = url.split('?').next().unwrap_or_default();
        assert!(path.starts_with("/files/") && path.ends_with("/download"), "{url}");
        assert_eq!(path.matches('/').count(), 3, "the param added a segment: {url}");
        assert!(!path.contains('#') && !path.contains('?'), "{url}");
    }
});
