//! `/uploads`: files sent as `multipart/form-data`, kept in memory, listed,
//! and served back (images inline, anything else as a download, never sniffed).

use axum::body::Bytes;
use axum::extract::multipart::{Multipart, MultipartError};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use serde_json::json;

use crate::state::AppState;

/// The largest file kept.
const MAX_FILE_BYTES: usize = 1 << 20;
/// How many uploads are kept (the oldest go first).
const MAX_UPLOADS: usize = 50;
/// Types served as they are; any other is served as bytes to download.
const SHOWN_TYPES: [&str; 5] = ["image/png", "image/jpeg", "image/gif", "image/webp", "text/plain"];

/// An upload as the API lists it.
#[derive(Debug, Clone, Serialize)]
pub struct Upload {
    pub id: u64,
    pub title: String,
    pub filename: String,
    pub content_type: String,
    pub size: u64,
}

/// An upload with its content.
#[derive(Debug, Clone)]
pub struct Stored {
    pub upload: Upload,
    pub bytes: Bytes,
}

/// The body limit of `/uploads`: one file at most, with room for the form around it.
pub fn size_limit() -> DefaultBodyLimit {
    DefaultBodyLimit::max(MAX_FILE_BYTES + 64 * 1024)
}

fn refuse(status: StatusCode, error: String) -> Response {
    (status, Json(json!({ "error": error, "status": status.as_u16() }))).into_response()
}

/// `GET /uploads`: every upload kept, oldest first.
pub async fn list(State(state): State<AppState>) -> Json<Vec<Upload>> {
    Json(state.lock().uploads.iter().map(|s| s.upload.clone()).collect())
}

/// `POST /uploads`: a form with a `file` and an optional `title`; answers the
/// upload (201), or 400/413 naming what was wrong.
pub async fn create(State(state): State<AppState>, form: Multipart) -> Response {
    match read_form(form).await {
        Ok((title, filename, content_type, bytes)) => {
            let mut inner = state.lock();
            let id = inner.uploads.last().map_or(1, |s| s.upload.id + 1);
            let title = title.unwrap_or_else(|| filename.clone());
            let upload = Upload { id, title, filename, content_type, size: bytes.len() as u64 };
            inner.uploads.push(Stored { upload: upload.clone(), bytes });
            let excess = inner.uploads.len().saturating_sub(MAX_UPLOADS);
            inner.uploads.drain(..excess);
            (StatusCode::CREATED, Json(upload)).into_response()
        }
        Err((status, error)) => refuse(status, error),
    }
}

type Form = (Option<String>, String, String, Bytes);

async fn read_form(mut form: Multipart) -> Result<Form, (StatusCode, String)> {
    let bad = |e: MultipartError| (e.status(), e.body_text());
    let (mut title, mut file) = (None, None);
    while let Some(field) = form.next_field().await.map_err(bad)? {
        match field.name() {
            Some("title") => title = Some(field.text().await.map_err(bad)?.chars().take(200).collect()),
            Some("file") => {
                let filename = field.file_name().unwrap_or("upload").chars().take(200).collect::<String>();
                let declared = field.content_type().unwrap_or_default().to_ascii_lowercase();
                let bytes = field.bytes().await.map_err(bad)?;
                if bytes.len() > MAX_FILE_BYTES {
                    return Err((
                        StatusCode::PAYLOAD_TOO_LARGE,
                        format!("a file holds at most {MAX_FILE_BYTES} bytes"),
                    ));
                }
                let shown = SHOWN_TYPES.contains(&declared.as_str());
                let content_type = if shown { declared } else { "application/octet-stream".to_owned() };
                file = Some((filename, content_type, bytes));
            }
            other => return Err((StatusCode::BAD_REQUEST, format!("unexpected field {other:?}"))),
        }
    }
    let (filename, content_type, bytes) = file.ok_or((StatusCode::BAD_REQUEST, "no `file` field".to_owned()))?;
    Ok((title.filter(|t: &String| !t.trim().is_empty()), filename, content_type, bytes))
}

/// `GET /uploads/{id}/content`: the file, typed as stored and never sniffed.
pub async fn content(State(state): State<AppState>, Path(id): Path<u64>) -> Response {
    let Some(stored) = state.lock().uploads.iter().find(|s| s.upload.id == id).cloned() else {
        return refuse(StatusCode::NOT_FOUND, format!("no upload {id}"));
    };
    let disposition = if stored.upload.content_type.starts_with("image/") { "inline" } else { "attachment" };
    let headers = [
        (header::CONTENT_TYPE, stored.upload.content_type),
        (header::CONTENT_DISPOSITION, disposition.to_owned()),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
    ];
    (headers, stored.bytes).into_response()
}

/// rdc's native client against this server: its multipart encoding as a
/// real parser reads it, and the refusals as typed errors.
#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rdc_rest::{Blob, Body, HttpClient, Multipart, RequestBody, ReqwestClient, RestError};

    use super::AppState;

    async fn serve() -> Arc<dyn HttpClient> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let app = crate::api::router(AppState::default());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Arc::new(ReqwestClient::new(&base).unwrap())
    }

    async fn send(client: &Arc<dyn HttpClient>, form: Multipart) -> Result<Body, RestError> {
        let upload = rdc_rest::RestEndpoint::post("/api/uploads");
        upload.fetch(Arc::clone(client), &Default::default(), Some(RequestBody::Multipart(form))).await
    }

    #[tokio::test]
    async fn a_form_encoded_natively_is_stored_byte_for_byte_and_served_back_typed() {
        let client = serve().await;
        let bytes: Vec<u8> = (0..=255u8).chain(b"\r\n--".iter().copied()).collect();
        let form = Multipart::new().text("title", "Line\r\nbreak").file(
            "file",
            Blob::from_bytes(bytes.clone(), "image/png"),
            "a\"b.png",
        );
        let created = send(&client, form).await.unwrap();
        let created = created.json().unwrap();
        assert_eq!(created["title"], "Line\r\nbreak");
        assert_eq!(created["filename"], "a%22b.png", "the quote arrives escaped, as a browser sends it");
        assert_eq!((created["content_type"].as_str(), created["size"].as_u64()), (Some("image/png"), Some(260)));
        let content = rdc_rest::RestEndpoint::get("/api/uploads/:id/content").content(rdc_rest::Content::ArrayBuffer);
        let args = rdc_core::json!({ "id": created["id"].clone() });
        let served = content.fetch(Arc::clone(&client), args.as_object().unwrap(), None).await.unwrap();
        assert_eq!(served, Body::Bytes(bytes));
    }

    #[tokio::test]
    async fn a_form_without_a_file_or_with_a_stray_field_is_refused() {
        let client = serve().await;
        for (form, why) in [
            (Multipart::new().text("title", "no file"), "no `file` field"),
            (Multipart::new().text("other", "x"), "unexpected field Some(\"other\")"),
        ] {
            let Err(RestError::Network { source, .. }) = send(&client, form).await else { panic!("accepted") };
            assert_eq!((source.status, source.json().unwrap()["error"].as_str()), (400, Some(why)));
        }
        let listed = rdc_rest::RestEndpoint::get("/api/uploads").fetch(Arc::clone(&client), &Default::default(), None);
        assert_eq!(listed.await.unwrap().json().unwrap().as_array().map(Vec::len), Some(0));
    }
}
