//! The JSON framing of a live feed over a WebSocket, and how what a socket
//! reports maps to a [`StreamEvent`]: plain Rust, so it is tested natively.

use rdc_controller::StreamEvent;
use serde::Deserialize;
use serde_json::value::RawValue;

/// One message of a [`WebSocketStream`](crate::WebSocketStream): a text frame
/// `{"id": 12, "data": <JSON>}`, the id and data a Server-Sent Event carries
/// in its `id:` and `data:` lines. Other fields are ignored.
///
/// ```
/// use rdc_rest::{FrameError, WebSocketFrame};
/// let frame = WebSocketFrame::parse(r#"{"id": 12, "data": {"price": "1.5"}}"#, 1024).unwrap();
/// assert_eq!((frame.id, frame.data.as_str()), (12, r#"{"price": "1.5"}"#));
/// assert!(matches!(WebSocketFrame::parse(r#"{"data": 1}"#, 1024), Err(FrameError::Malformed(_))));
/// assert!(matches!(WebSocketFrame::parse(&" ".repeat(2048), 1024), Err(FrameError::TooLarge { .. })));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebSocketFrame {
    /// The message's id: ids increase along the stream, and a reopened
    /// stream resumes after the last one taken.
    pub id: u64,
    /// The message's data, as the JSON text it was sent as.
    pub data: String,
}

/// Why a frame was rejected (the feed counts it and keeps the stream open).
///
/// ```
/// use rdc_rest::{FrameError, WebSocketFrame};
/// let error = WebSocketFrame::parse("not json", 1024).unwrap_err();
/// assert!(error.to_string().starts_with("a frame that is no"), "{error}");
/// assert_eq!(FrameError::Binary.to_string(), "a binary frame (messages are JSON text)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// Longer than the stream allows; not read at all.
    #[error("a frame of {size} bytes or more, over the {max} allowed")]
    TooLarge {
        /// The frame's size, at least (in bytes).
        size: usize,
        /// The most allowed.
        max: usize,
    },
    /// A binary frame: messages are text.
    #[error("a binary frame (messages are JSON text)")]
    Binary,
    /// Not a JSON object with a whole-number `id` and a `data`.
    #[error("a frame that is no {{\"id\": <integer>, \"data\": <JSON>}}: {0}")]
    Malformed(String),
}

#[derive(Deserialize)]
struct Wire<'a> {
    id: u64,
    #[serde(borrow)]
    data: &'a RawValue,
}

impl WebSocketFrame {
    /// Reads a text frame of at most `max_bytes` bytes.
    ///
    /// ```
    /// use rdc_rest::WebSocketFrame;
    /// assert!(WebSocketFrame::parse(r#"{"id": -1, "data": 1}"#, 64).is_err(), "ids are whole numbers from 0");
    /// assert!(WebSocketFrame::parse(r#"{"id": "7", "data": 1}"#, 64).is_err(), "and numbers, not text");
    /// ```
    pub fn parse(text: &str, max_bytes: usize) -> Result<WebSocketFrame, FrameError> {
        if text.len() > max_bytes {
            return Err(FrameError::TooLarge { size: text.len(), max: max_bytes });
        }
        // serde reads a struct from a list too: a frame is an object.
        if !text.trim_start_matches([' ', '\t', '\n', '\r']).starts_with('{') {
            return Err(FrameError::Malformed("not a JSON object".into()));
        }
        let wire: Wire<'_> = serde_json::from_str(text).map_err(|e| FrameError::Malformed(e.to_string()))?;
        Ok(WebSocketFrame { id: wire.id, data: wire.data.get().to_owned() })
    }
}

/// What a browser `WebSocket` reports, as plain data.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) enum SocketEvent<'a> {
    Open,
    /// A text frame.
    Text(&'a str),
    /// A text frame too long to copy out of the browser: its length in UTF-16
    /// units (each at least one byte of UTF-8).
    TooLong(usize),
    Binary,
    /// The socket closed: by the server, or after an error (not cleanly,
    /// code 1006). The browser's `error` event always comes before a
    /// `close`, so only the close is reported.
    Closed {
        code: u16,
        reason: String,
        was_clean: bool,
    },
}

/// The event a socket's report is to the feed: a close (after an error too)
/// ends the connection (the feed reopens it with its backoff), a bad frame is rejected.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn stream_event(url: &str, max_bytes: usize, event: SocketEvent<'_>) -> StreamEvent {
    let rejected = |error: FrameError| StreamEvent::Rejected(format!("{url}: {error}"));
    match event {
        SocketEvent::Open => StreamEvent::Opened,
        SocketEvent::Text(text) => match WebSocketFrame::parse(text, max_bytes) {
            Ok(frame) => StreamEvent::Message { id: Some(frame.id), data: frame.data },
            Err(error) => rejected(error),
        },
        SocketEvent::TooLong(units) => rejected(FrameError::TooLarge { size: units, max: max_bytes }),
        SocketEvent::Binary => rejected(FrameError::Binary),
        SocketEvent::Closed { code, reason, was_clean } => {
            let how = if was_clean { "" } else { ", not cleanly" };
            StreamEvent::Failed(format!("{url}: the socket closed (code {code}{how}) {reason}").trim_end().to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "ws://127.0.0.1:1/api/live/prices/ws";

    fn event(event: SocketEvent<'_>) -> StreamEvent {
        stream_event(URL, 256, event)
    }

    fn rejected(text: &str) -> String {
        match event(SocketEvent::Text(text)) {
            StreamEvent::Rejected(why) => why,
            other => panic!("{text:?} was taken: {other:?}"),
        }
    }

    #[test]
    fn a_frame_carries_its_id_and_its_data_as_sent() {
        let data = r#"{"exchangePair":"BTC-USD","price":"43001.01","big":123456789012345678901234567890}"#;
        let text = format!(r#"{{"id": 12, "data": {data}, "extra": true}}"#);
        assert_eq!(event(SocketEvent::Text(&text)), StreamEvent::Message { id: Some(12), data: data.into() });
        let text = r#"{"data":[1,2],"id":18446744073709551615}"#;
        assert_eq!(
            event(SocketEvent::Text(text)),
            StreamEvent::Message { id: Some(u64::MAX), data: "[1,2]".into() },
            "the feed, not the frame, refuses the last id"
        );
    }

    #[test]
    fn frames_that_are_no_json_or_lack_an_id_or_data_are_rejected_naming_the_stream() {
        for text in [
            "",
            "not json",
            "{\"id\": 1, \"data\": ",
            "[1, {}]",
            "null",
            r#"{"data": {"price": 1}}"#,
            r#"{"id": null, "data": 1}"#,
            r#"{"id": "3", "data": 1}"#,
            r#"{"id": -3, "data": 1}"#,
            r#"{"id": 3.5, "data": 1}"#,
            r#"{"id": 1e3, "data": 1}"#,
            r#"{"id": 18446744073709551616, "data": 1}"#,
            r#"{"id": 3}"#,
            r#"{"id": 3, "id": 4, "data": 1}"#,
        ] {
            let why = rejected(text);
            assert!(why.starts_with(&format!("{URL}: a frame that is no")), "{text:?}: {why}");
        }
    }

    #[test]
    fn long_and_binary_frames_are_rejected_and_deeply_nested_data_is_read_without_panicking() {
        let long = format!(r#"{{"id": 1, "data": "{}"}}"#, "x".repeat(300));
        assert!(rejected(&long).contains("over the 256 allowed"), "{}", rejected(&long));
        assert_eq!(
            event(SocketEvent::TooLong(1 << 30)),
            StreamEvent::Rejected(format!("{URL}: a frame of 1073741824 bytes or more, over the 256 allowed"))
        );
        // Nested as deep as the size limit allows: the frame is read without
        // recursing; its data goes to the feed, which refuses it as it refuses
        // such an event's data (past serde_json's recursion limit).
        let depth = 400_000;
        let deep = format!(r#"{{"id": 1, "data": {}{}}}"#, "[".repeat(depth), "]".repeat(depth));
        match stream_event(URL, 1 << 20, SocketEvent::Text(&deep)) {
            StreamEvent::Message { id: Some(1), data } => assert_eq!(data.len(), 2 * depth),
            other => panic!("{other:?}"),
        }
        let unclosed = format!(r#"{{"id": 1, "data": {}}}"#, "[".repeat(depth));
        assert!(matches!(stream_event(URL, 1 << 20, SocketEvent::Text(&unclosed)), StreamEvent::Rejected(_)));
        assert_eq!(event(SocketEvent::Binary), StreamEvent::Rejected(format!("{URL}: {}", FrameError::Binary)));
    }

    #[test]
    fn opens_and_closes_map_to_what_the_feed_reconnects_on() {
        assert_eq!(event(SocketEvent::Open), StreamEvent::Opened);
        assert_eq!(
            event(SocketEvent::Closed { code: 1000, reason: String::new(), was_clean: true }),
            StreamEvent::Failed(format!("{URL}: the socket closed (code 1000)"))
        );
        assert_eq!(
            event(SocketEvent::Closed { code: 4401, reason: "unauthorized".into(), was_clean: true }),
            StreamEvent::Failed(format!("{URL}: the socket closed (code 4401) unauthorized"))
        );
        // An error (a refused or broken connection) is followed by a close
        // saying so: the feed hears of it once.
        assert_eq!(
            event(SocketEvent::Closed { code: 1006, reason: String::new(), was_clean: false }),
            StreamEvent::Failed(format!("{URL}: the socket closed (code 1006, not cleanly)"))
        );
    }
}
