//! `Text`: an immutable string that clones without copying, either its own or a
//! range of a shared buffer (a response's text, so parsing allocates no string).

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// An immutable string, cheap to clone (a reference count), that may be a range
/// of a larger shared text: strings parsed by [`Value::parse`](super::Value::parse)
/// point into the response's text, which stays alive while any of them does.
///
/// ```
/// use rdc_core::json::Text;
/// let name = Text::from("Ada");
/// let again = name.clone(); // no copy
/// assert_eq!(&*again, "Ada");
/// assert_eq!(again, "Ada");
/// ```
pub struct Text {
    buf: Arc<str>,
    start: u32,
    len: u32,
}

impl Clone for Text {
    /// A reference count: inlined even where code is built for size (reads
    /// clone texts in their inner loops).
    #[inline(always)]
    fn clone(&self) -> Text {
        Text { buf: Arc::clone(&self.buf), start: self.start, len: self.len }
    }
}

impl Text {
    /// A text of its own (`s` copied into one shared allocation).
    ///
    /// ```
    /// assert_eq!(rdc_core::json::Text::new(String::from("x")).as_str(), "x");
    /// ```
    pub fn new(s: String) -> Text {
        Text::from(s.as_str())
    }

    /// `buf[start..start + len]`, sharing `buf`; a copy of its own when the range
    /// does not fit the compact form.
    #[doc(hidden)]
    pub fn slice(buf: &Arc<str>, start: usize, len: usize) -> Text {
        let end = start.checked_add(len);
        let in_buf = end.and_then(|end| buf.get(start..end));
        debug_assert!(in_buf.is_some(), "a range outside its buffer");
        match (u32::try_from(start), u32::try_from(len), in_buf) {
            (Ok(s), Ok(l), Some(_)) if l != u32::MAX => Text { buf: Arc::clone(buf), start: s, len: l },
            _ => Text::from(in_buf.unwrap_or_default()),
        }
    }

    /// `s` as a range of `buf` when it lies in `buf` (a string borrowed from
    /// it), else a copy. No check of character boundaries is needed: a non-empty
    /// `&str` lying inside a `str` starts and ends on them.
    pub(crate) fn within(buf: &Arc<str>, s: &str) -> Text {
        let start = (s.as_ptr() as usize).checked_sub(buf.as_ptr() as usize);
        let inside = start.filter(|start| start.checked_add(s.len()).is_some_and(|end| end <= buf.len()));
        match (inside.map(u32::try_from), u32::try_from(s.len())) {
            // (An empty `s` proves no boundary: it is copied, which allocates little.)
            (Some(Ok(at)), Ok(len)) if len != 0 && len != u32::MAX => Text { buf: Arc::clone(buf), start: at, len },
            _ => Text::from(s),
        }
    }

    /// The string.
    #[inline]
    ///
    /// ```
    /// assert_eq!(rdc_core::json::Text::from("a").as_str(), "a");
    /// ```
    pub fn as_str(&self) -> &str {
        if self.len == u32::MAX {
            return &self.buf;
        }
        let start = self.start as usize;
        let range = start..start + self.len as usize;
        debug_assert!(self.buf.get(range.clone()).is_some());
        // SAFETY: a range other than the whole buffer is made by `slice` (which
        // checks it lies in `buf` on character boundaries) or by `within` (which
        // checks it lies in `buf` and takes it from a non-empty `&str` found
        // there, so on character boundaries); neither the range nor `buf` ever
        // changes.
        #[allow(unsafe_code)]
        unsafe {
            self.buf.get_unchecked(range)
        }
    }

    /// Whether both are ranges of one buffer.
    #[cfg(test)]
    pub(crate) fn same_buffer(&self, other: &Text) -> bool {
        Arc::ptr_eq(&self.buf, &other.buf)
    }

    /// Whether both are the same characters in memory (clones of one another,
    /// or the same range of one response's text): equal without comparing.
    ///
    /// ```
    /// use rdc_core::json::Text;
    /// let a = Text::from("x");
    /// assert!(a.ptr_eq(&a.clone()));
    /// assert!(!a.ptr_eq(&Text::from("x")));
    /// ```
    pub fn ptr_eq(&self, other: &Text) -> bool {
        Arc::ptr_eq(&self.buf, &other.buf) && self.start == other.start && self.len == other.len
    }
}

impl Default for Text {
    fn default() -> Self {
        Text::new(String::new())
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.ptr_eq(other) || self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::new(s)
    }
}

impl From<&str> for Text {
    /// A text of its own (one allocation, the string copied into it).
    fn from(s: &str) -> Text {
        match u32::try_from(s.len()) {
            Ok(len) => Text { buf: Arc::from(s), start: 0, len },
            // Longer than 4 GiB: kept whole, read through `as_str`'s fallback.
            Err(_) => Text { buf: Arc::from(s), start: 0, len: u32::MAX },
        }
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Text {
        Text::from(s.as_str())
    }
}

impl From<Text> for String {
    fn from(t: Text) -> String {
        t.as_str().to_owned()
    }
}

impl serde::Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

thread_local! {
    /// The texts of string literals `json!` used as keys lately, by the
    /// literal's address (a small table: a literal whose slot another took is
    /// copied again, so this never grows).
    static LITERALS: std::cell::RefCell<[Option<(usize, Text)>; 64]> =
        const { std::cell::RefCell::new([const { None }; 64]) };
}

/// The text of the string literal `key` (a key in `json!`): shared with the
/// last objects built with the same literal instead of copied for each.
///
/// ```
/// let (a, b) = (rdc_core::json::__literal_key("id"), rdc_core::json::__literal_key("id"));
/// assert!(a.ptr_eq(&b));
/// ```
#[doc(hidden)]
pub fn literal_key(key: &'static str) -> Text {
    let address = key.as_ptr() as usize;
    let slot = (address >> 2) % 64;
    LITERALS.with(|literals| {
        let mut literals = literals.borrow_mut();
        match literals.get_mut(slot) {
            Some(Some((known, text))) if *known == address && text.len() == key.len() => text.clone(),
            Some(entry) => {
                let text = Text::from(key);
                *entry = Some((address, text.clone()));
                text
            }
            None => Text::from(key),
        }
    })
}

/// The name `Text` asks for: rdc's deserializers answer it by handing over the
/// stored string itself (a clone of its `Text`, no copy of the characters).
#[doc(hidden)]
pub const TEXT_MARKER: &str = "$rdc::Text";

thread_local! {
    /// The stored string a deserializer is handing to `Text`'s visitor.
    static HANDED: std::cell::Cell<Option<Text>> = const { std::cell::Cell::new(None) };
}

/// Runs `visit` (which calls `visit_newtype_struct` on a visitor that asked for
/// [`TEXT_MARKER`], of a deserializer over stored values) with `text` handed
/// over; whatever `visit` did not take is dropped.
#[doc(hidden)]
pub fn hand_over<R>(text: &Text, visit: impl FnOnce() -> R) -> R {
    /// Clears the slot however `visit` ends (even by unwinding).
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            HANDED.with(|h| h.take());
        }
    }
    HANDED.with(|h| h.set(Some(text.clone())));
    let _clear = Clear;
    visit()
}

/// The text handed over (see [`hand_over`]) when it is `s`: a visitor given a
/// stored string this way takes it instead of copying `s`.
#[doc(hidden)]
pub fn take_handed(s: &str) -> Option<Text> {
    HANDED.with(|h| h.take()).filter(|text| text.as_str() == s)
}

impl<'de> serde::Deserialize<'de> for Text {
    /// From rdc's reads, the stored string itself (shared, not copied); from any
    /// other deserializer, a string copied into a `Text` of its own.
    ///
    /// ```
    /// # use rdc_core::{Entity, MemoCache, State, WriteMeta};
    /// use rdc_core::json::Text;
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// struct User { id: String, name: Text }
    /// let mut state = State::default();
    /// state.write_entities(&User::schema(), rdc_core::json!({"id": "1", "name": "Ada"}), &rdc_core::json::Value::Null, WriteMeta::at(0, 1000)).unwrap();
    /// let user = MemoCache::default().entity::<User>(&state, "1").unwrap().unwrap();
    /// assert_eq!(user.name, "Ada");
    /// let copied: Text = serde_json::from_str(r#""Bob""#).unwrap();
    /// assert_eq!(copied, "Bob");
    /// ```
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Text, D::Error> {
        deserializer.deserialize_newtype_struct(TEXT_MARKER, TextVisitor)
    }
}

struct TextVisitor;

impl<'de> serde::de::Visitor<'de> for TextVisitor {
    type Value = Text;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_newtype_struct<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Text, D::Error> {
        match HANDED.with(|h| h.take()) {
            Some(text) => Ok(text),
            None => deserializer.deserialize_str(TextVisitor),
        }
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Text, E> {
        Ok(Text::from(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sharing is a best effort (literals whose addresses take one slot of the
    /// table copy their text in turn, and where the linker puts literals
    /// changes from build to build): a literal used alone is always shared.
    #[test]
    fn json_objects_built_with_the_same_literal_keys_share_them() {
        let keys = |v: &crate::Value| -> Vec<Text> { v.as_object().unwrap().keys().cloned().collect() };
        let build = || crate::json!({"id": 1});
        let (a, b) = (build(), build());
        assert!(keys(&a)[0].ptr_eq(&keys(&b)[0]));
        let build = || crate::json!({"id": 1, "name": "a", "nested": {"id": 2}});
        assert_eq!(build(), build());
    }

    #[test]
    fn slices_share_their_buffer_and_compare_by_content() {
        let buf: Arc<str> = Arc::from("hello world");
        let a = Text::slice(&buf, 6, 5);
        assert_eq!(a, "world");
        assert_eq!(Arc::strong_count(&buf), 2);
        let b = Text::from("world");
        assert_eq!(a, b);
        assert!(!a.ptr_eq(&b));
        assert!(a.ptr_eq(&a.clone()));
        assert_eq!(a.cmp(&Text::from("abc")), std::cmp::Ordering::Greater);
    }

    #[test]
    fn the_visitor_takes_what_was_handed_over_and_nothing_stays_behind() {
        let value = super::super::Value::String(Text::from("stored"));
        let super::super::Value::String(stored) = &value else { unreachable!() };
        let read: Text = super::super::from_value(&value).unwrap();
        assert!(read.ptr_eq(stored), "the stored text itself, not a copy");
        let list: Vec<Text> = super::super::from_value(&crate::json!(["a", "b"])).unwrap();
        assert_eq!(list, ["a", "b"]);
        let after: Text = serde_json::from_str(r#""other""#).unwrap();
        assert_eq!(after, "other", "nothing handed over stays behind");
    }

    #[test]
    fn a_slice_on_character_boundaries_shares() {
        let buf: Arc<str> = Arc::from("héllo");
        let (head, tail) = (Text::slice(&buf, 0, 3), Text::slice(&buf, 3, 3));
        assert_eq!((head.as_str(), tail.as_str()), ("hé", "llo"));
        assert_eq!(Arc::strong_count(&buf), 3, "both share the buffer");
        assert_eq!(Text::within(&buf, &buf[1..3]), "é");
        assert_eq!(Arc::strong_count(&buf), 3, "a temporary range, dropped");
        assert!(!Text::within(&buf, "elsewhere").same_buffer(&head), "a string from elsewhere is copied");
        drop((head, tail));
        assert_eq!(Arc::strong_count(&buf), 1, "temporaries dropped");
    }
}
