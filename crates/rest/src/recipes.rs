//! The five transform recipes of spec 2.4, each a function from an endpoint to the
//! endpoint with the transform, built on the same overrides an app would write.
//!
//! ```
//! use rdc_rest::{recipes, RestEndpoint};
//! let ticker = recipes::pk_from_param(&RestEndpoint::get("/products/:productId/ticker"), "productId", "product_id");
//! let users = recipes::key_case(&RestEndpoint::post("/users"));
//! let page = recipes::link_pagination(&RestEndpoint::get("/items"));
//! let file = recipes::file_download(&RestEndpoint::get("/files/:id/download"));
//! # let _ = (ticker, users, page, file);
//! ```

use std::time::Duration;

use rdc_core::json;
use rdc_core::json::Value;

use crate::endpoint::{Body, Content, FileDownload, RestEndpoint};
use crate::http::Blob;
use crate::transform::{
    camel_case, content_disposition_filename, deep_rename_keys, pk_from_params, rename_key, snake_case,
};

/// Recipe 1: outgoing bodies camelCase -> snake_case, responses snake_case ->
/// camelCase, recursively; nulls and non-objects as they are.
pub fn key_case<A, B, R>(endpoint: &RestEndpoint<A, B, R>) -> RestEndpoint<A, B, R> {
    endpoint
        .with_request_init(|body, sup| sup(body.map(|b| b.map_json(|b| deep_rename_keys(b, &snake_case)))))
        .process(|value, _| deep_rename_keys(value, &camel_case))
}

/// Recipe 2: renames body keys for the API (`(ours, theirs)` pairs) and back on the
/// response.
pub fn rename_keys<A, B, R>(
    endpoint: &RestEndpoint<A, B, R>,
    pairs: &'static [(&'static str, &'static str)],
) -> RestEndpoint<A, B, R> {
    endpoint
        .with_request_init(move |body, sup| {
            sup(body.map(|b| b.map_json(|b| pairs.iter().fold(b, |b, (ours, theirs)| rename_key(b, ours, theirs)))))
        })
        .process(move |value, _| rename_all(value, pairs))
}

/// Renames `(ours, theirs)` back to ours, in an object or in each object of a list.
fn rename_all(value: Value, pairs: &[(&str, &str)]) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.into_iter().map(|v| rename_all(v, pairs)).collect()),
        other => pairs.iter().fold(other, |v, (ours, theirs)| rename_key(v, theirs, ours)),
    }
}

/// Recipe 3: copies path parameter `param` into the response as the entity's
/// primary-key field `field` (Stream's `username`, Ticker's `product_id`).
pub fn pk_from_param<A, B, R>(
    endpoint: &RestEndpoint<A, B, R>,
    param: &'static str,
    field: &'static str,
) -> RestEndpoint<A, B, R> {
    endpoint.process(move |value, args| pk_from_params(value, args, param, field))
}

/// Recipe 4: reads the `Link` header; returns `{link, results}` when the header
/// exists or the results are a list, the results unchanged otherwise.
pub fn link_pagination<A, B, R>(endpoint: &RestEndpoint<A, B, R>) -> RestEndpoint<A, B, R> {
    endpoint.with_parse_response(|response, sup| {
        Box::pin(async move {
            let link = response.header("link").map(str::to_owned);
            let results = sup.call(response).await?;
            Ok(match results {
                Body::Json(results) if link.is_some() || results.is_array() => {
                    Body::Json(json!({ "link": link, "results": results }))
                }
                other => other,
            })
        })
    })
}

/// Recipe 5: a file download. Blob content, nothing kept in the cache, and the
/// result is the blob with its filename from `Content-Disposition` (else `download`).
pub fn file_download<A, B, R>(endpoint: &RestEndpoint<A, B, R>) -> RestEndpoint<A, B, FileDownload> {
    let download = endpoint.content(Content::Blob).data_expiry(Duration::ZERO).with_parse_response(|response, sup| {
        Box::pin(async move {
            let filename = response
                .header("content-disposition")
                .and_then(content_disposition_filename)
                .unwrap_or_else(|| "download".to_owned());
            match sup.call(response).await? {
                Body::Blob(blob) => Ok(Body::File(FileDownload { blob, filename })),
                other => Ok(other),
            }
        })
    });
    download.result_with(|body| match body {
        Body::File(file) => Ok(file),
        other => Err(format!("expected a file, got {}", other.kind())),
    })
}

/// A binary read (an image, say): blob content, nothing kept in the cache, and
/// the result is the [`Blob`] itself (what `rdc_leptos::use_object_url` shows).
///
/// ```
/// use rdc_rest::{recipes, Blob, RestEndpoint};
/// let avatar: RestEndpoint<_, _, Blob> = recipes::blob(&RestEndpoint::get("/users/:id/avatar"));
/// # let _ = avatar;
/// ```
pub fn blob<A, B, R>(endpoint: &RestEndpoint<A, B, R>) -> RestEndpoint<A, B, Blob> {
    endpoint.content(Content::Blob).data_expiry(Duration::ZERO).result_with(|body| match body {
        Body::Blob(blob) => Ok(blob),
        other => Err(format!("expected a blob, got {}", other.kind())),
    })
}
