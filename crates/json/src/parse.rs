//! Parsing JSON text into a [`Value`] whose strings are ranges of that text.
//!
//! `serde_json` tokenizes; strings without escapes come back borrowed from the
//! text, and become [`Text`] ranges of it (no allocation). Keys are checked
//! against the keys of an object met before at the same depth with the same
//! first key (the shape of the objects of a list, which usually repeat; a few
//! shapes are kept per depth, so sibling objects of different kinds each keep
//! theirs): a key found at its place there is that object's key again (shared),
//! and an object whose keys all match is known to hold each key once; other
//! objects are checked for repeated keys (the last value wins, as in
//! `serde_json`) and become a shape for their depth.
//!
//! A float's text is found too (the tokenizer gives only its `f64`): the
//! first number after the last key or float that is no integer (see
//! [`Parser::float_text`]); each stretch of text is looked at once, and a
//! text without floats not at all. Long ones are read again (`serde_json`
//! rounds some to a neighbour of the nearest `f64`), and the text is kept
//! when the `f64` does not give back its value (see [`Number`]).

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::number_text::{read_as_integer, scan_number, string_end, Float, Token};
use super::{Map, Text, Value};

impl Value {
    /// Parses JSON `text`. Its strings and keys are ranges of `text`, which stays
    /// alive (once) while any of them does.
    ///
    /// # Errors
    /// The text is not one JSON value (with what and where, as `serde_json` says).
    ///
    /// ```
    /// use rdc_core::json::Value;
    /// let list = Value::parse(r#"[{"id": 1, "name": "a\u0062"}, {"id": 2, "name": "b", "id": 3}]"#.to_owned())?;
    /// assert_eq!(list.as_array().map(Vec::len), Some(2));
    /// assert_eq!(list.as_array().unwrap()[0].get("name").and_then(Value::as_str), Some("ab"));
    /// assert_eq!(list.as_array().unwrap()[1].get("id"), Some(&Value::from(3)));
    /// assert!(Value::parse("[1,".to_owned()).is_err());
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn parse(text: String) -> Result<Value, serde_json::Error> {
        let buf: Arc<str> = Arc::from(text);
        let parser = Parser { buf: &buf, shapes: RefCell::new(Vec::new()), after: Cell::new(0) };
        let mut de = serde_json::Deserializer::from_str(&buf);
        let value = Seed { parser: &parser, depth: 0 }.deserialize(&mut de)?;
        de.end()?;
        Ok(value)
    }
}

impl std::str::FromStr for Value {
    type Err = serde_json::Error;

    /// [`Value::parse`] of a copy of `text`.
    ///
    /// ```
    /// let v: rdc_core::json::Value = r#"{"a": [1]}"#.parse()?;
    /// assert_eq!(v["a"][0], 1);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    fn from_str(text: &str) -> Result<Value, serde_json::Error> {
        Value::parse(text.to_owned())
    }
}

struct Parser<'b> {
    buf: &'b Arc<str>,
    /// Per depth, the keys of the last few objects of different first keys.
    shapes: RefCell<Vec<Vec<Vec<Text>>>>,
    /// Where the text of the next float is looked for: just after the last
    /// key (one without escapes) or float (`usize::MAX`: not known).
    after: Cell<usize>,
}

/// Shapes kept per depth.
const SHAPES: usize = 4;

impl Parser<'_> {
    /// A string borrowed from the text as a range of it.
    fn text(&self, s: &str) -> Text {
        Text::within(self.buf, s)
    }

    /// Dedups the keys of `map`, an object at `depth` whose keys were not
    /// all those of a known shape (`shape`, the one its first key chose), and
    /// keeps them as a shape of that depth. Out of line: most objects of a
    /// list have a known shape.
    #[inline(never)]
    fn new_shape(&self, map: &mut Map, depth: usize, shape: Option<usize>) {
        map.dedup_keys();
        let keys: Vec<Text> = map.keys().cloned().collect();
        let mut shapes = self.shapes.borrow_mut();
        if shapes.len() <= depth {
            shapes.resize_with(depth + 1, Vec::new);
        }
        if let Some(list) = shapes.get_mut(depth) {
            match shape.and_then(|at| list.get_mut(at)) {
                Some(old) => *old = keys,
                None => {
                    if list.len() == SHAPES {
                        list.remove(0);
                    }
                    list.push(keys);
                }
            }
        }
    }

    /// The float `serde_json` read as `f`, with its text (see [`Number`]);
    /// out of line, as the visits of other scalars are the hot ones.
    #[inline(never)]
    fn float(&self, f: f64) -> Value {
        let mut number = Value::from(f);
        if let (Value::Number(n), Some((text, float))) = (&mut number, self.float_text()) {
            n.read_text(text, float, self.buf);
        }
        number
    }

    /// The text of the float just visited, and whether it is short (see
    /// [`Float`]): the first number after `after` that `serde_json` reads as
    /// a float (not as an integer), passing over strings (with their
    /// escapes) and `true`, `false`, `null`. Each stretch of the text is
    /// looked at once, and a text without floats not at all.
    fn float_text(&self) -> Option<(&str, Float)> {
        let bytes = self.buf.as_bytes();
        // Not known, should this find nothing.
        let mut at = self.after.replace(usize::MAX);
        loop {
            match bytes.get(at)? {
                b'"' => at = string_end(bytes, at + 1)?,
                b'-' | b'0'..=b'9' => {
                    let (end, kind) = scan_number(bytes, at);
                    let text = self.buf.get(at..end)?;
                    let float = match kind {
                        Token::Float(float) => float,
                        Token::Integer if read_as_integer(text) => {
                            at = end;
                            continue;
                        }
                        // An integer too large for `u64` (or `i64`), or `-0`.
                        Token::Integer => Float::Long,
                    };
                    self.after.set(end);
                    return Some((text, float));
                }
                _ => at += 1,
            }
        }
    }
}

#[derive(Clone, Copy)]
struct Seed<'p, 'b> {
    parser: &'p Parser<'b>,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Seed<'_, '_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    super::scalar_visits!();

    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(self.parser.float(f))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Value, E> {
        Ok(Value::String(self.parser.text(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        // Unescaped into a scratch buffer: a string of its own.
        Ok(Value::from(s))
    }

    // Lists and objects out of line (as `Parser::float`): the visits of
    // scalars stay small enough to be inlined where the tokenizer calls them
    // (measured: 3 to 4% fewer instructions parsing strings and integers).
    #[inline(never)]
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = Seed { parser: self.parser, depth: self.depth + 1 };
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    #[inline(never)]
    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let parser = self.parser;
        let inner = Seed { parser, depth: self.depth + 1 };
        let mut entries: Vec<(Text, Value)> = Vec::new();
        // Which of this depth's shapes the first key chose; whether every key
        // so far was at its place in it.
        let mut shape: Option<usize> = None;
        let mut known = true;
        while let Some(key) = access.next_key_seed(KeySeed(parser))? {
            let shared = {
                let shapes = parser.shapes.borrow();
                let here = shapes.get(self.depth);
                if entries.is_empty() {
                    shape =
                        here.and_then(|list| list.iter().position(|s| s.first().is_some_and(|k| *k == key.as_str())));
                    let expected = shape.and_then(|at| here?.get(at)).map_or(1, Vec::len);
                    entries.reserve(expected.min(64));
                }
                let expected = shape.and_then(|at| here?.get(at)?.get(entries.len()));
                expected.filter(|k| **k == key.as_str()).cloned()
            };
            let key = match shared {
                Some(key) => key,
                None => {
                    known = false;
                    match key {
                        Key::Borrowed(s) => parser.text(s),
                        Key::Owned(s) => Text::new(s),
                    }
                }
            };
            let value = access.next_value_seed(inner)?;
            entries.push((key, value));
        }
        if entries.capacity() > 2 * entries.len() + 4 {
            entries.shrink_to_fit();
        }
        let mut map = Map::from_unique(entries);
        if !known {
            parser.new_shape(&mut map, self.depth, shape);
        }
        Ok(Value::Object(map))
    }
}

/// A key as the tokenizer gives it.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }
}

/// Reads a key (noting where it ends: a float after it is looked for from there).
struct KeySeed<'p, 'b>(&'p Parser<'b>);

impl<'de> DeserializeSeed<'de> for KeySeed<'_, '_> {
    type Value = Key<'de>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Key<'de>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_, '_> {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
        // (Past its closing quote; an offset into the text, as `s` is a part of it.)
        self.0.after.set((s.as_ptr() as usize + s.len() + 1).wrapping_sub(self.0.buf.as_ptr() as usize));
        Ok(Key::Borrowed(s))
    }

    fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
        Ok(Key::Owned(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn parse(text: &str) -> Value {
        Value::parse(text.to_owned()).unwrap()
    }

    #[test]
    fn strings_and_repeated_keys_share_the_text() {
        let list = parse(r#"[{"id": "a", "n": 1}, {"id": "b", "n": 2}]"#);
        let items = list.as_array().unwrap();
        let (first, second) = (items[0].as_object().unwrap(), items[1].as_object().unwrap());
        let (k1, k2) = (first.keys().next().unwrap(), second.keys().next().unwrap());
        assert!(k1.ptr_eq(k2), "the second object reuses the first one's key");
        assert_eq!(second.get("id").and_then(Value::as_str), Some("b"));
    }

    #[test]
    fn value_strings_are_ranges_of_the_text_and_numbers_are_numbers() {
        let parsed = parse(r#"{"a": "x", "b": ["y", 1, -2, 0.5]}"#);
        let (a, b) = (parsed.get("a").unwrap(), &parsed.get("b").unwrap().as_array().unwrap()[0]);
        let (Value::String(a), Value::String(b)) = (a, b) else { panic!("strings") };
        assert!(a.same_buffer(b));
        let numbers = &parsed.get("b").unwrap().as_array().unwrap()[1..];
        assert!(numbers.iter().all(|n| matches!(n, Value::Number(_))), "{numbers:?}");
    }

    #[test]
    fn sibling_objects_of_two_kinds_keep_their_shapes() {
        let parsed = parse(
            r#"[{"user": {"id": 1, "name": "a"}, "meta": {"page": 1}}, {"user": {"id": 2, "name": "b"}, "meta": {"page": 2}}]"#,
        );
        let items = parsed.as_array().unwrap();
        let key =
            |i: usize, field: &str| items[i].get(field).unwrap().as_object().unwrap().keys().next().unwrap().clone();
        assert!(key(0, "user").ptr_eq(&key(1, "user")));
        assert!(key(0, "meta").ptr_eq(&key(1, "meta")));
    }

    #[test]
    fn a_wide_object_then_small_ones_reserve_only_what_they_hold() {
        let wide: Vec<String> = (0..1000).map(|i| format!("\"k{i}\": 0")).collect();
        let text = format!("[{{{}}}, {{\"k0\": 1}}, {{\"k0\": 2}}]", wide.join(","));
        let parsed = parse(&text);
        let small = parsed.as_array().unwrap()[2].as_object().unwrap();
        assert_eq!(small.len(), 1);
        assert!(small.capacity() <= 64, "{}", small.capacity());
    }

    #[test]
    fn shapes_that_change_are_still_right() {
        let text = r#"[{"a": 1, "b": 2}, {"b": 3, "a": 4}, {"a": 5}, {"a": 6, "b": 7, "c": 8}, {"a": 9, "a": 10}]"#;
        assert_eq!(serde_json::Value::from(parse(text)), serde_json::from_str::<serde_json::Value>(text).unwrap());
        let parsed = parse(text);
        let last = &parsed.as_array().unwrap()[4];
        assert_eq!(last.as_object().unwrap().len(), 1);
        assert_eq!(last.get("a"), Some(&Value::from(10)));
    }

    #[test]
    fn escapes_unicode_and_numbers() {
        let text = r#"{"k\"ey": "line\nnext \u00e9 \ud83d\ude00", "é": -0.5, "big": 18446744073709551615, "neg": -9223372036854775808}"#;
        assert_eq!(serde_json::Value::from(parse(text)), serde_json::from_str::<serde_json::Value>(text).unwrap());
    }

    #[test]
    fn bad_text_is_an_error_with_a_place() {
        let err = Value::parse(r#"{"a": [1, 2}"#.to_owned()).unwrap_err();
        assert_eq!(err.column(), 12, "{err}");
        assert!(Value::parse("1 2".to_owned()).is_err(), "trailing text");
        let deep = "[".repeat(10_000);
        assert!(Value::parse(deep).is_err(), "too deep is an error, not a stack overflow");
    }

    fn any_json() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<u64>().prop_map(serde_json::Value::from),
            (-1e9f64..1e9).prop_map(serde_json::Value::from),
            "[a-c\"\\\\é\n]{0,4}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
                prop::collection::vec(("[a-c\"é]{0,2}", inner), 0..6)
                    .prop_map(|entries| serde_json::Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    /// JSON text for `entries` as written (keys may repeat), and what parsing
    /// it must give: each key once, at its first place, with its last value.
    fn object_text(entries: &[(String, i64)]) -> (String, Map) {
        let body: Vec<String> =
            entries.iter().map(|(k, v)| format!("{}:{v}", serde_json::to_string(k).unwrap())).collect();
        // Worked out here without `Map`'s own dedup, which the parser uses.
        let mut order: Vec<(Text, Value)> = Vec::new();
        for (k, v) in entries {
            match order.iter_mut().find(|(seen, _)| seen == k) {
                Some(slot) => slot.1 = Value::from(*v),
                None => order.push((Text::from(k.as_str()), Value::from(*v))),
            }
        }
        (format!("{{{}}}", body.join(",")), Map::from_unique(order))
    }

    proptest! {
        /// Lists of objects whose keys repeat, reorder and come back parse to
        /// each key once, in first-seen order, with the last value.
        #[test]
        fn repeated_and_reordered_keys(objects in prop::collection::vec(prop::collection::vec(("[abc]{1,2}", -3i64..3), 0..7), 0..8)) {
            let (texts, expected): (Vec<String>, Vec<Map>) = objects.iter().map(|o| object_text(o)).unzip();
            let parsed = parse(&format!("[{}]", texts.join(",")));
            let items = parsed.as_array().unwrap();
            for (item, expected) in items.iter().zip(&expected) {
                let got: Vec<(&str, &Value)> = item.as_object().unwrap().iter().map(|(k, v)| (k.as_str(), v)).collect();
                let want: Vec<(&str, &Value)> = expected.iter().map(|(k, v)| (k.as_str(), v)).collect();
                prop_assert_eq!(got, want);
            }
        }

        /// Whatever `serde_json` writes, `Value::parse` reads back as it was,
        /// including lists of objects whose keys repeat, change and come back,
        /// and floats `serde_json`'s own reading rounds to a neighbour.
        #[test]
        fn parses_what_serde_json_writes(items in prop::collection::vec(any_json(), 0..5)) {
            let original = serde_json::Value::Array(items);
            let text = serde_json::to_string(&original).unwrap();
            prop_assert_eq!(serde_json::Value::from(parse(&text)), original.clone());
            prop_assert_eq!(parse(&text), Value::from(original));
        }

        /// Numbers of any length, among strings with and without escapes,
        /// keys and literals: each long one keeps its own text, and every
        /// number reads as its text's nearest `f64`.
        #[test]
        fn long_numbers_keep_their_own_text(
            items in prop::collection::vec((
                "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{1,24})?([eE][-+]?[0-9]{1,2})?",
                prop_oneof![Just(""), Just("a"), Just("\\\"b"), Just("\\u00e9")],
                0u8..4,
            ), 0..12),
        ) {
            let mut text = String::from("[");
            for (i, (number, string, how)) in items.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                text.push_str(&match how {
                    0 => number.clone(),
                    1 => format!("{{\"{string}\": {number}, \"n\": null}}"),
                    2 => format!("[\"{string}\", true, 7, {number}]"),
                    _ => format!("{{\"k\": \"{string}\", \"{string}x\": [{number}, -1, 2.5]}}"),
                });
            }
            text.push(']');
            fn numbers(v: &Value, out: &mut Vec<super::super::Number>) {
                match v {
                    Value::Number(n) => out.push(n.clone()),
                    Value::Array(items) => items.iter().for_each(|item| numbers(item, out)),
                    Value::Object(map) => map.values().for_each(|item| numbers(item, out)),
                    _ => {}
                }
            }
            let mut found = Vec::new();
            numbers(&parse(&text), &mut found);
            let expected: Vec<&str> = items
                .iter()
                .flat_map(|(number, _, how)| match how {
                    2 => vec!["7", number.as_str()],
                    3 => vec![number.as_str(), "-1", "2.5"],
                    _ => vec![number.as_str()],
                })
                .collect();
            prop_assert_eq!(found.len(), expected.len());
            for (n, text) in found.iter().zip(&expected) {
                let nearest: f64 = text.parse().unwrap();
                prop_assert_eq!(n.as_f64(), Some(nearest), "{}", text);
                if let Some(kept) = n.exact_text() {
                    prop_assert_eq!(kept, *text);
                }
            }
        }
    }
}
