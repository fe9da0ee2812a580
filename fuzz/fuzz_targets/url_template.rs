//! Any template and any parameter values: expanding never panics, and the URL as
//! a browser resolves it (the WHATWG parser `fetch` uses; here the `url` crate)
//! is the URL rdc built: a value can never add or remove a path segment (no `/`,
//! no dot segment, which the parser would remove), a query or a fragment, and the
//! template's static segments stay in place; and no template or value moves the
//! request off the prefix's host.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rdc_core::json::{Map, Value};
use rdc_rest::{PathTemplate, RestEndpoint};
use url::Url;

const ORIGIN: &str = "https://api.example.com";

/// Templates with the params `a` and `b`, and their segments after the prefix's:
/// `Some` static text, `None` a segment holding a param.
const TEMPLATES: &[(&str, &[Option<&str>])] = &[
    ("/files/:a/download", &[Some("files"), None, Some("download")]),
    (":a/x", &[None, Some("x")]),
    ("//:a/x", &[None, Some("x")]),
    ("/projects/:a/members/:b", &[Some("projects"), None, Some("members"), None]),
    ("/x/.:a", &[Some("x"), None]),
    ("/x/:a.", &[Some("x"), None]),
    ("/x/:a.json", &[Some("x"), None]),
    ("/x/:a:b/y", &[Some("x"), None, Some("y")]),
    ("/x/%2e:a", &[Some("x"), None]),
    ("/x/:a%2E/y", &[Some("x"), None, Some("y")]),
];

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\u{0}');
    let template = parts.next().unwrap_or_default();
    let a = parts.next().unwrap_or("x");
    let b = parts.next().unwrap_or("y");

    // Any template: expanding never panics, and joined to a prefix (with or
    // without a leading `/`) the host stays the prefix's, whatever the values.
    let mut args = Map::new();
    for name in PathTemplate::parse(template).params() {
        args.insert(name, Value::from(a));
    }
    let _ = PathTemplate::parse(template).url(&args);
    if let Ok(url) = RestEndpoint::get(template).url_prefix(ORIGIN).url(&args) {
        let parsed = Url::parse(&url).unwrap_or_else(|e| panic!("{url}: {e}"));
        assert_eq!(parsed.origin().ascii_serialization(), ORIGIN, "{url}");
        assert!(parsed.username().is_empty() && parsed.password().is_none(), "{url}");
    }

    // Hostile values in known templates, behind a prefix with and without a path.
    for prefix in [ORIGIN, "https://api.example.com/base/"] {
        let prefix_segments: Vec<&str> =
            prefix.trim_start_matches(ORIGIN).split('/').filter(|s| !s.is_empty()).collect();
        for (template, shape) in TEMPLATES {
            // Only the template's params: any other arg would be a query.
            let mut args = Map::new();
            for name in PathTemplate::parse(template).params() {
                args.insert(name, Value::from(if name == "a" { a } else { b }));
            }
            let Ok(url) = RestEndpoint::get(template).url_prefix(prefix).url(&args) else { continue };
            let parsed = Url::parse(&url).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(parsed.origin().ascii_serialization(), ORIGIN, "{url}");
            assert!(parsed.query().is_none() && parsed.fragment().is_none(), "{url}");
            // What the browser requests is what rdc built: nothing removed or moved.
            assert_eq!(parsed.path(), url.trim_start_matches(ORIGIN), "{url}");
            let segments: Vec<&str> = parsed.path_segments().map(Iterator::collect).unwrap_or_default();
            assert_eq!(segments.len(), prefix_segments.len() + shape.len(), "{url}");
            for (i, want) in prefix_segments.iter().copied().map(Some).chain(shape.iter().copied()).enumerate() {
                let got = segments.get(i).copied().unwrap_or_default();
                match want {
                    Some(fixed) => assert_eq!(got, fixed, "{url}"),
                    None => assert!(!got.is_empty(), "{url}"),
                }
            }
        }
    }
});
