//! Server-Sent Events in the browser as a [`StreamSource`] for a [`LiveFeed`](rdc_controller::LiveFeed).

use std::rc::Rc;

use rdc_controller::{StreamEvent, StreamSource};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// A Server-Sent Events stream at a URL (the browser's `EventSource`). Each
/// message's `id:` is its id: give every message one, as a message without
/// one carries the stream's last id (the browser's `lastEventId`) and is
/// dropped as a duplicate. A reopened stream asks to resume with
/// `lastEventId=<id>` in the query (an `EventSource` cannot set headers). The
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
    fn open(&self, after: Option<u64>, events: Rc<dyn Fn(StreamEvent)>) -> Box<dyn FnOnce()> {
        let url = match after {
            Some(id) => format!("{}{}lastEventId={id}", self.url, if self.url.contains('?') { '&' } else { '?' }),
            None => self.url.clone(),
        };
        let source = match web_sys::EventSource::new(&url) {
            Ok(source) => source,
            Err(error) => {
                events(StreamEvent::Failed(format!("{error:?}")));
                return Box::new(|| ());
            }
        };
        let opened = events.clone();
        let on_open = Closure::<dyn Fn()>::new(move || opened(StreamEvent::Opened));
        let received = events.clone();
        let on_message = Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |message: web_sys::MessageEvent| {
            let id = message.last_event_id().parse().ok();
            let data = message.data().as_string().unwrap_or_default();
            received(StreamEvent::Message { id, data });
        });
        let on_error =
            Closure::<dyn Fn()>::new(move || events(StreamEvent::Failed("the stream failed or ended".into())));
        source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Box::new(move || {
            source.close();
            source.set_onopen(None);
            source.set_onmessage(None);
            source.set_onerror(None);
            drop((on_open, on_message, on_error));
        })
    }
}
