//! A `multipart/form-data` body (feature `multipart`).

use crate::Blob;
use rdc_core::json::{Map, Value};

/// A `multipart/form-data` body, as an HTML form with a file input sends:
/// named text fields and files, in order. In the browser it is sent as a
/// `FormData`; natively [`Multipart::encode`] writes it (RFC 7578).
///
/// ```
/// use rdc_rest::{Blob, Multipart};
/// let form = Multipart::new()
///     .text("title", "A cat")
///     .file("photo", Blob::from_bytes(b"GIF89a".to_vec(), "image/gif"), "cat.gif");
/// assert_eq!(form.fields()["photo"]["filename"], "cat.gif");
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Multipart {
    parts: Vec<(String, Part)>,
}

/// One field of a [`Multipart`] form.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// A text field.
    Text(String),
    /// A file: its content and the filename sent with it.
    File {
        /// The content (its MIME type becomes the part's content type).
        blob: Blob,
        /// The filename.
        filename: String,
    },
}

impl Multipart {
    /// An empty form.
    pub fn new() -> Multipart {
        Multipart::default()
    }

    /// Adds a text field.
    #[must_use]
    pub fn text(mut self, name: &str, value: &str) -> Multipart {
        self.parts.push((name.to_owned(), Part::Text(value.to_owned())));
        self
    }

    /// Adds a file.
    #[must_use]
    pub fn file(mut self, name: &str, blob: Blob, filename: &str) -> Multipart {
        self.parts.push((name.to_owned(), Part::File { blob, filename: filename.to_owned() }));
        self
    }

    /// Adds a file the user picked (from an `<input type=file>`), under its own name.
    #[cfg(target_arch = "wasm32")]
    #[must_use]
    pub fn web_file(self, name: &str, file: &web_sys::File) -> Multipart {
        let filename = file.name();
        self.file(name, Blob::from_web(file.clone().into()), &filename)
    }

    /// The fields, in order.
    pub fn parts(&self) -> &[(String, Part)] {
        &self.parts
    }

    /// The first name or filename holding a NUL, which the HTML standard's
    /// encoding has no escape for (it escapes only `"`, CR and LF).
    pub(crate) fn name_with_nul(&self) -> Option<&str> {
        self.parts.iter().find_map(|(name, part)| {
            let filename = match part {
                Part::File { filename, .. } => Some(filename.as_str()),
                Part::Text(_) => None,
            };
            [Some(name.as_str()), filename].into_iter().flatten().find(|text| text.contains('\0'))
        })
    }

    /// The form as JSON, for optimistic updates: each name with its text, or
    /// with `{ filename, size, type }` for a file; a name given more than once
    /// holds a list.
    pub fn fields(&self) -> Value {
        let mut fields = Map::new();
        for (name, part) in &self.parts {
            let value = match part {
                Part::Text(text) => Value::from(text.as_str()),
                Part::File { blob, filename } => rdc_core::json!({
                    "filename": filename.as_str(), "size": blob.size(), "type": blob.mime_type(),
                }),
            };
            match fields.get_mut(name) {
                Some(Value::Array(items)) => items.push(value),
                Some(first) => *first = Value::Array(vec![std::mem::take(first), value]),
                None => {
                    fields.insert(name.as_str(), value);
                }
            }
        }
        Value::Object(fields)
    }

    /// The browser's `FormData` for this form.
    ///
    /// # Errors
    /// What the browser threw.
    #[cfg(target_arch = "wasm32")]
    pub fn to_form_data(&self) -> Result<web_sys::FormData, wasm_bindgen::JsValue> {
        let data = web_sys::FormData::new()?;
        for (name, part) in &self.parts {
            match part {
                Part::Text(text) => data.append_with_str(name, text)?,
                Part::File { blob, filename } => data.append_with_blob_and_filename(name, blob.as_web(), filename)?,
            }
        }
        Ok(data)
    }

    /// The content type (with its boundary) and the body, as RFC 7578 and the
    /// HTML standard write them: names and filenames with `"`, CR and LF
    /// escaped as `%22`, `%0D` and `%0A`; a file's content type its blob's,
    /// else `application/octet-stream`. The boundary is random and occurs in
    /// no part. (A NUL in a name or filename, which the HTML standard leaves
    /// unescaped, is refused before a request gets here.)
    ///
    /// ```
    /// let (content_type, body) = rdc_rest::Multipart::new().text("a\"b", "1").encode();
    /// let boundary = content_type.strip_prefix("multipart/form-data; boundary=").unwrap();
    /// let body = String::from_utf8(body).unwrap();
    /// assert!(body.starts_with(&format!("--{boundary}\r\nContent-Disposition: form-data; name=\"a%22b\"\r\n\r\n1\r\n")));
    /// assert!(body.ends_with(&format!("--{boundary}--\r\n")));
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn encode(&self) -> (String, Vec<u8>) {
        let boundary = self.boundary();
        let mut body = Vec::new();
        for (name, part) in &self.parts {
            body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"").as_bytes());
            body.extend_from_slice(escaped(name).as_bytes());
            match part {
                Part::Text(text) => {
                    body.extend_from_slice(b"\"\r\n\r\n");
                    body.extend_from_slice(text.as_bytes());
                }
                Part::File { blob, filename } => {
                    let mime = blob.mime_type();
                    let unsafe_mime = mime.is_empty() || mime.contains(['\r', '\n', '\0']);
                    let mime = if unsafe_mime { "application/octet-stream" } else { &mime };
                    body.extend_from_slice(
                        format!("\"; filename=\"{}\"\r\nContent-Type: {mime}\r\n\r\n", escaped(filename)).as_bytes(),
                    );
                    body.extend_from_slice(blob.bytes());
                }
            }
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        (format!("multipart/form-data; boundary={boundary}"), body)
    }

    /// A random boundary found in no part (a file could hold any fixed one).
    #[cfg(not(target_arch = "wasm32"))]
    fn boundary(&self) -> String {
        use std::hash::{BuildHasher, Hasher};
        loop {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_usize(self.parts.len());
            let boundary = format!("----rdc-form-{:016x}", hasher.finish());
            let inside = |bytes: &[u8]| bytes.windows(boundary.len()).any(|w| w == boundary.as_bytes());
            // Names and filenames as written (escaped), contents as they are.
            let clash = self.parts.iter().any(|(name, part)| {
                inside(escaped(name).as_bytes())
                    || match part {
                        Part::Text(text) => inside(text.as_bytes()),
                        Part::File { blob, filename } => inside(blob.bytes()) || inside(escaped(filename).as_bytes()),
                    }
            });
            if !clash {
                return boundary;
            }
        }
    }
}

/// A name or filename with `"`, CR and LF escaped, so none ends its header.
#[cfg(not(target_arch = "wasm32"))]
fn escaped(text: &str) -> String {
    text.replace('"', "%22").replace('\r', "%0D").replace('\n', "%0A")
}
