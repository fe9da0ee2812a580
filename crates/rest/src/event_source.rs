//! Server-Sent Events in the browser as a [`StreamSource`] for a [`LiveFeed`](rdc_controller::LiveFeed).

use std::sync::Arc;

use rdc_controller::{StreamEvent, StreamSource};
use wasm_bindgen::JsCast;

use crate::listening::Listening;
use crate::stream_url::resume_url;

/// A Server-Sent Events stream at a URL (the browser's `EventSource`). Each
/// message's `id:` is its id: give every message one, as a message without
/// one carries the stream's last id (the browser's `lastEventId`) and is
/// dropped as a duplicate. A reopened stream asks to resume with
/// `lastEventId=<id>` in the query (an `EventSource` cannot set headers),
/// replacing any there. A relative URL resolves against the page. The
/// browser's own reconnecting is stopped: the feed reopens with its backoff.
///
/// ```no_run
/// use rdc_controller::LiveFeed;
/// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Price { id: String }
/// use rdc_core::Entity;
/// let feed = LiveFeed::new(rdc_rest::EventSourceStream::new("/api/live/prices"), Price::schema().into(), |key| {
///     key.starts_with("GET /api/price/")
/// });
/// # let _ = feed;
/// ```
#[derive(Debug, Clone)]
pub struct EventSourceStream {
    url: String,
}

impl EventSourceStream {
    /// The stream at `url`.
    pub fn new(url: &str) -> EventSourceStream {
        EventSourceStream { url: url.to_owned() }
    }
}

impl StreamSource for EventSourceStream {
    fn open(&self, after: Option<u64>, events: Arc<dyn Fn(StreamEvent) + Send + Sync>) -> Box<dyn FnOnce() + Send> {
        let base = web_sys::window().and_then(|w| w.location().href().ok());
        let source = resume_url(&self.url, base.as_deref(), after)
            .and_then(|url| web_sys::EventSource::new(&url).map_err(|error| format!("{}: {error:?}", self.url)));
        let source = match source {
            Ok(source) => source,
            Err(error) => {
                events(StreamEvent::Failed(error));
                return Box::new(|| ());
            }
        };
        let (opened, received) = (events.clone(), events.clone());
        Listening::new(source)
            .on("onopen", move |_| opened(StreamEvent::Opened))
            .on("onmessage", move |message| {
                let Ok(message) = message.dyn_into::<web_sys::MessageEvent>() else { return };
                let id = message.last_event_id().parse().ok();
                let data = message.data().as_string().unwrap_or_default();
                received(StreamEvent::Message { id, data });
            })
            .on("onerror", move |_| events(StreamEvent::Failed("the stream failed or ended".into())))
            .closer()
    }
}
