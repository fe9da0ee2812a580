//! URL templates, percent-encoding and keys.

use rdc_core::json;
use rdc_rest::{Args, ParamError, PathTemplate, RestEndpoint, RestError};

fn args(v: rdc_core::json::Value) -> Args {
    v.as_object().cloned().unwrap()
}

#[test]
fn every_path_shape_of_the_spec_expands() {
    let cases = [
        ("/users", json!({}), "/users"),
        ("/price/:exchangePair", json!({ "exchangePair": "BTC-USD" }), "/price/BTC-USD"),
        ("/:username", json!({ "username": "ninja" }), "/ninja"),
        ("/products/:productId/ticker", json!({ "productId": "ETH-USD" }), "/products/ETH-USD/ticker"),
        ("/files/:id/download", json!({ "id": 7 }), "/files/7/download"),
        ("/users{/:id}", json!({ "id": "5" }), "/users/5"),
        ("/users{/:id}", json!({}), "/users"),
    ];
    for (template, a, want) in cases {
        assert_eq!(PathTemplate::parse(template).url(&args(a)).unwrap(), want, "{template}");
    }
}

#[test]
fn hostile_params_never_change_the_path() {
    let t = PathTemplate::parse("/files/:id/download");
    for (id, want) in [
        ("a/../b", "/files/a%2F..%2Fb/download"),
        ("x?y=1", "/files/x%3Fy%3D1/download"),
        ("#frag", "/files/%23frag/download"),
        ("%2F", "/files/%252F/download"),
        ("naïve", "/files/na%C3%AFve/download"),
    ] {
        assert_eq!(t.url(&args(json!({ "id": id }))).unwrap(), want);
    }
    // An empty param would address another resource: refused.
    assert_eq!(t.url(&args(json!({ "id": "" }))), Err(ParamError::Missing("id".to_owned())));
}

#[test]
fn other_args_become_a_sorted_query_string() {
    let e = RestEndpoint::get("/users");
    let a = args(json!({ "b": 2, "a": "x y", "tags": ["r", "s"], "skip": null }));
    assert_eq!(e.url(&a).unwrap(), "/users?a=x%20y&b=2&tags=r&tags=s");
}

#[test]
fn the_key_is_method_and_url_and_ignores_arg_order() {
    let e = RestEndpoint::get("/price/:exchangePair").url_prefix("https://api.example.com/");
    let one = args(json!({ "exchangePair": "BTC-USD", "depth": 2 }));
    let two = serde_json::from_str::<Args>(r#"{"depth": 2, "exchangePair": "BTC-USD"}"#).unwrap();
    assert_eq!(e.key(&one).unwrap(), "GET https://api.example.com/price/BTC-USD?depth=2");
    assert_eq!(e.key(&one).unwrap(), e.key(&two).unwrap());
    assert_ne!(e.key(&one).unwrap(), e.method("DELETE").key(&one).unwrap());
}

#[test]
fn a_missing_param_is_an_error_naming_the_endpoint() {
    let e = RestEndpoint::get("/products/:productId/ticker");
    let err = e.key(&Args::new()).unwrap_err();
    assert_eq!(
        err,
        RestError::MissingParam { endpoint: "GET /products/:productId/ticker".into(), name: "productId".into() }
    );
    assert_eq!(err.to_string(), "GET /products/:productId/ticker: missing path parameter `productId`");
}

/// Equal args make one URL however their objects were built (nested keys sorted).
#[test]
fn nested_objects_in_the_query_are_written_in_one_order() {
    let t = PathTemplate::parse("/items");
    let built = args(json!({ "filter": { "a": 2, "b": 1 } }));
    let parsed = args(rdc_core::json::Value::parse(r#"{"filter": {"b": 1, "a": 2}}"#.to_owned()).unwrap());
    assert_eq!(t.url(&built).unwrap(), t.url(&parsed).unwrap());
}

/// The URL as a browser's `fetch` resolves it (WHATWG parser).
fn resolved(url: &str) -> url::Url {
    url::Url::parse(url).unwrap()
}

/// Issue 27, item 2: "." and ".." are dot segments to a WHATWG parser however they
/// are encoded (`%2E` included), so `DELETE /projects/p/members/..` would delete
/// the project: refused, as empty values are. The whole segment decides: the
/// template's text around a param can make a dot segment of it too.
#[test]
fn dot_only_path_params_are_refused() {
    let e = RestEndpoint::new("DELETE", "/projects/:project/members/:member").url_prefix("https://api.example.com");
    for member in [".", ".."] {
        let err = e.url(&args(json!({ "project": "p", "member": member }))).unwrap_err();
        assert!(
            matches!(&err, RestError::InvalidParam { endpoint, name, .. }
                if endpoint == "DELETE /projects/:project/members/:member" && name == "member"),
            "{member:?} gave {err:?}"
        );
    }
    for (template, a) in [
        ("/x/.:a", json!({ "a": "." })),
        ("/x/:a.", json!({ "a": "." })),
        ("/x/:a:b/y", json!({ "a": ".", "b": "." })),
        ("/x/%2e:a", json!({ "a": "." })),
        ("/x{/:a}", json!({ "a": ".." })),
    ] {
        let result = PathTemplate::parse(template).url(&args(a));
        assert!(matches!(result, Err(ParamError::DotSegment(_))), "{template} gave {result:?}");
    }
    // Not dot segments: kept, and a browser keeps them in place.
    for (template, a, want) in [
        ("/x/:a/y", json!({ "a": "..." }), "/x/.../y"),
        ("/x/:a/y", json!({ "a": ".a" }), "/x/.a/y"),
        ("/x/:a/y", json!({ "a": "%2e" }), "/x/%252e/y"),
        ("/x/:a/y", json!({ "a": "%2E%2e" }), "/x/%252E%252e/y"),
        ("/files/:name.json", json!({ "name": "." }), "/files/..json"),
        ("/x/:a/y", json!({ "a": ". ." }), "/x/.%20./y"),
    ] {
        let path = PathTemplate::parse(template).url(&args(a)).unwrap();
        assert_eq!(path, want, "{template}");
        assert_eq!(resolved(&format!("https://h.example{path}")).path(), want, "{template}");
    }
}

/// Issue 27, item 3: a template without a leading `/` was glued to the prefix's
/// host (`:id/x` with id `.evil.com` went to `api.example.com.evil.com`, auth
/// headers included). Prefix and path are joined with exactly one `/`.
#[test]
fn a_template_without_a_leading_slash_never_changes_the_host() {
    for prefix in ["https://api.example.com", "https://api.example.com/", "https://api.example.com/v1"] {
        for template in [":id/x", ":id", "//:id/x", "/:id/x"] {
            let e = RestEndpoint::get(template).url_prefix(prefix);
            for id in [".evil.com", "@evil.com", ":8080", "evil.com", "\\evil.com", "%2F%2Fevil.com", "x.evil.com:1"] {
                let url = e.url(&args(json!({ "id": id }))).unwrap();
                let parsed = resolved(&url);
                assert_eq!(parsed.host_str(), Some("api.example.com"), "{prefix} + {template} with {id:?}: {url}");
                assert_eq!((parsed.port(), parsed.username()), (None, ""), "{url}");
                assert!(
                    parsed.path().starts_with(&format!(
                        "{}/",
                        prefix.trim_start_matches("https://api.example.com").trim_end_matches('/')
                    )),
                    "{url}"
                );
            }
        }
    }
    let e = RestEndpoint::get("users/:id").url_prefix("https://api.example.com/v1/");
    assert_eq!(e.url(&args(json!({ "id": 5 }))).unwrap(), "https://api.example.com/v1/users/5");
    // Without a prefix, leading slashes never make a host (`//evil.com/x`).
    for template in ["//:id/x", "\\\\:id/x", "/\\:id/x"] {
        let url = RestEndpoint::get(template).url(&args(json!({ "id": "evil.com" }))).unwrap();
        assert_eq!(url, "/evil.com/x", "{template}");
    }
    // A query-only template and an empty one stay on the prefix itself.
    let e = RestEndpoint::get("").url_prefix("https://api.example.com/v1");
    assert_eq!(e.url(&args(json!({ "q": 1 }))).unwrap(), "https://api.example.com/v1?q=1");
}

/// Optional parts nested 10,000 deep parse, fill and drop on a 256 KiB stack:
/// nesting past 16 levels is plain text.
#[test]
fn a_template_of_ten_thousand_braces_stays_within_a_small_stack() {
    let run = std::thread::Builder::new().stack_size(256 * 1024).spawn(|| {
        let template = format!("/a{}:id{}", "{".repeat(10_000), "}".repeat(10_000));
        let parsed = PathTemplate::parse(&template);
        assert_eq!(parsed.params(), ["id"]);
        let url = parsed.url(&args(json!({ "id": "7" }))).unwrap();
        assert!(url.starts_with("/a") && url.contains('7'), "{url}");
        drop(parsed);
        let nested = PathTemplate::parse("/x{/:a{/:b}}");
        assert_eq!(nested.url(&args(json!({ "a": "1", "b": "2" }))).unwrap(), "/x/1/2");
    });
    assert!(run.unwrap().join().is_ok(), "no stack overflow");
}

/// An absolute template's scheme and authority are literal: a port is not a
/// param, and only the path's `:name`s are.
#[test]
fn a_port_in_a_template_is_not_a_param() {
    let t = PathTemplate::parse("http://localhost:8080/x/:id");
    assert_eq!(t.params(), ["id"]);
    assert_eq!(t.url(&args(json!({ "id": 1 }))).unwrap(), "http://localhost:8080/x/1");
    let users = RestEndpoint::get("https://api.example.com:443/users");
    assert_eq!(users.url(&args(json!({}))).unwrap(), "https://api.example.com:443/users");
    let odd = PathTemplate::parse("http://user:secret@host:81{/:id}");
    assert_eq!(odd.params(), ["id"]);
}
