//! A WebSocket in the browser as a [`StreamSource`](rdc_controller::StreamSource)
//! for a [`LiveFeed`](rdc_controller::LiveFeed). The type builds on every
//! target (so its examples compile natively); it streams in the browser only.

#[cfg(target_arch = "wasm32")]
use std::rc::Rc;
use std::sync::Arc;

#[cfg(target_arch = "wasm32")]
use rdc_controller::{StreamEvent, StreamSource};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen::JsCast;

#[cfg(target_arch = "wasm32")]
use crate::listening::Listening;
#[cfg(target_arch = "wasm32")]
use crate::stream_url::web_socket_url;
#[cfg(target_arch = "wasm32")]
use crate::ws_frame::{stream_event, SocketEvent};

/// A WebSocket at a URL (the browser's `WebSocket`) whose text frames are
/// [`WebSocketFrame`](crate::WebSocketFrame)s, `{"id": 12, "data": <JSON>}`:
/// the same ids and data as an [`EventSourceStream`](crate::EventSourceStream)'s
/// events, ordered by id, reconnected with backoff and resumed as they are,
/// with two differences: every frame needs an id (one without is rejected,
/// where an event without one is dropped), and frames have a size cap
/// ([`max_frame_bytes`](WebSocketStream::max_frame_bytes), 1 MiB by default). A reopened socket asks to resume with `lastEventId=<id>`
/// in the query, as the Server-Sent Events stream does. The URL may be
/// relative to the page, and `http(s)` is taken as `ws(s)`.
///
/// A frame that is no JSON, has no whole-number `id` or no `data`, is binary
/// or longer than [`max_frame_bytes`](WebSocketStream::max_frame_bytes) is
/// rejected (counted in the feed's `rejected`) and the socket stays open; a
/// close ends the connection (its code, and whether it was clean, in the
/// feed's `Failed`; an error is always followed by a close, which alone is
/// reported) and the feed reopens it.
///
/// ```
/// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Price { id: String }
/// use rdc_core::Entity;
/// let socket = rdc_rest::WebSocketStream::new("/api/live/prices/ws");
/// // A source in the browser (a server has no WebSocket to give).
/// #[cfg(target_arch = "wasm32")]
/// let feed = rdc_controller::LiveFeed::new(socket, Price::schema().into(), |key| key.starts_with("GET /api/price/"));
/// # #[cfg(target_arch = "wasm32")] let _ = feed;
/// # #[cfg(not(target_arch = "wasm32"))] let _ = (socket, Price::schema());
/// ```
#[derive(Clone)]
// Read when it streams, in the browser.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub struct WebSocketStream {
    url: String,
    max_frame_bytes: usize,
    on_open: Option<Arc<dyn Fn(Option<u64>) -> Vec<String> + Send + Sync>>,
}

impl std::fmt::Debug for WebSocketStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebSocketStream")
            .field("url", &self.url)
            .field("max_frame_bytes", &self.max_frame_bytes)
            .field("on_open", &self.on_open.is_some())
            .finish()
    }
}

impl WebSocketStream {
    /// The longest frame read by default: 1 MiB.
    ///
    /// ```
    /// assert_eq!(rdc_rest::WebSocketStream::MAX_FRAME_BYTES, 1 << 20);
    /// ```
    pub const MAX_FRAME_BYTES: usize = 1 << 20;

    /// The socket at `url`.
    ///
    /// ```
    /// let stream = rdc_rest::WebSocketStream::new("wss://example.com/prices");
    /// # let _ = stream;
    /// ```
    pub fn new(url: &str) -> WebSocketStream {
        WebSocketStream { url: url.to_owned(), max_frame_bytes: Self::MAX_FRAME_BYTES, on_open: None }
    }

    /// Rejects frames longer than `bytes` bytes of UTF-8. The browser still
    /// receives every frame; one over `bytes` UTF-16 units is rejected
    /// without being copied into wasm, a shorter one is copied and measured.
    ///
    /// ```
    /// let stream = rdc_rest::WebSocketStream::new("/api/live/prices/ws").max_frame_bytes(64 * 1024);
    /// # let _ = stream;
    /// ```
    #[must_use]
    pub fn max_frame_bytes(mut self, bytes: usize) -> WebSocketStream {
        self.max_frame_bytes = bytes;
        self
    }

    /// Sends the text frames `messages` returns as soon as the socket opens,
    /// on every connection, reopened ones too: the subscription some APIs
    /// ask for on each connection. It is given the id the connection
    /// resumes after (`None` on the first), for APIs that take it there
    /// rather than in the URL's `lastEventId`.
    ///
    /// ```
    /// let stream = rdc_rest::WebSocketStream::new("wss://example.com/feed").on_open(|after| {
    ///     let after = after.map_or("null".to_owned(), |id| id.to_string());
    ///     vec![format!(r#"{{"type": "subscribe", "channels": ["ticker"], "after": {after}}}"#)]
    /// });
    /// # let _ = stream;
    /// ```
    #[must_use]
    pub fn on_open(mut self, messages: impl Fn(Option<u64>) -> Vec<String> + Send + Sync + 'static) -> WebSocketStream {
        self.on_open = Some(Arc::new(messages));
        self
    }
}

#[cfg(target_arch = "wasm32")]
impl StreamSource for WebSocketStream {
    fn open(&self, after: Option<u64>, events: Arc<dyn Fn(StreamEvent) + Send + Sync>) -> Box<dyn FnOnce() + Send> {
        let base = web_sys::window().and_then(|w| w.location().href().ok());
        let socket = web_socket_url(&self.url, base.as_deref(), after)
            .and_then(|url| web_sys::WebSocket::new(&url).map_err(|error| format!("{}: {error:?}", self.url)));
        let socket = match socket {
            Ok(socket) => socket,
            Err(error) => {
                events(StreamEvent::Failed(error));
                return Box::new(|| ());
            }
        };
        // Binary frames stay out of reach (rejected unread) rather than built as Blobs.
        socket.set_binary_type(web_sys::BinaryType::Arraybuffer);
        let (url, max) = (Rc::<str>::from(socket.url()), self.max_frame_bytes);
        let send = Rc::new(move |event: SocketEvent<'_>| events(stream_event(&url, max, event)));
        let (opened, received, closed) = (send.clone(), send.clone(), send);
        // Sent first on the connection, before any frame is read.
        let (greeting, sender) =
            (self.on_open.as_ref().map(|messages| messages(after)).unwrap_or_default(), socket.clone());
        Listening::new(socket)
            .on("onopen", move |_| {
                for message in &greeting {
                    let _ = sender.send_with_str(message);
                }
                opened(SocketEvent::Open);
            })
            .on("onmessage", move |message| {
                let Ok(message) = message.dyn_into::<web_sys::MessageEvent>() else { return };
                let data = message.data();
                match data.dyn_ref::<js_sys::JsString>() {
                    // Too long even as UTF-16 units: not copied out of the browser.
                    Some(text) if text.length() as usize > max => {
                        received(SocketEvent::TooLong(text.length() as usize))
                    }
                    Some(text) => received(SocketEvent::Text(&String::from(text))),
                    None => received(SocketEvent::Binary),
                }
            })
            .on("onclose", move |event| {
                let Ok(event) = event.dyn_into::<web_sys::CloseEvent>() else { return };
                let (code, reason, was_clean) = (event.code(), event.reason(), event.was_clean());
                closed(SocketEvent::Closed { code, reason, was_clean });
            })
            .closer()
    }
}
