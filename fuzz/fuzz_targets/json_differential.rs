//! The same bytes through rdc's JSON parser (`rdc_core::json::Value::parse`) and
//! `serde_json::from_slice::<serde_json::Value>`: the same verdict (both accept
//! or both reject), and the same value: the same structure, strings and keys
//! (the last of repeated keys wins in both), and numbers equal by value.
//!
//! Intended differences, checked as such:
//! - `Value::parse` takes a `String`: bytes that are not UTF-8 never reach it
//!   (the REST layer reads bodies as text first), so `serde_json` must refuse
//!   them too (in JSON they can only be inside a string, where it checks them).
//! - Depth: both tokenize with `serde_json`'s `Deserializer`, so both stop at
//!   its recursion limit (128): no difference.
//! - Floats: `serde_json`'s default reading is best effort (without its
//!   `float_roundtrip` feature a long float may come out a neighbour of the
//!   nearest `f64`); rdc may read the nearest `f64` instead. An rdc float must
//!   equal `serde_json`'s or the correctly rounded value of the number's text
//!   (Rust's `str::parse::<f64>`), read here through `RawValue`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rdc_core::json::Value;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

fuzz_target!(|data: &[u8]| {
    let theirs = serde_json::from_slice::<serde_json::Value>(data);
    let Ok(text) = std::str::from_utf8(data) else {
        assert!(theirs.is_err(), "serde_json accepted bytes that are not UTF-8: {data:?}");
        return;
    };
    let mine = Value::parse(text.to_owned());
    let (mine, theirs) = match (mine, theirs) {
        (Ok(mine), Ok(theirs)) => (mine, theirs),
        (Err(_), Err(_)) => return,
        (mine, theirs) => panic!("verdicts differ on {text:?}: rdc {mine:?}, serde_json {theirs:?}"),
    };
    let raw: &RawValue = serde_json::from_str(text).expect("serde_json accepted it");
    let reference = Reference::read(raw);
    if let Err(at) = same(&serde_json::Value::from(mine.clone()), &theirs, &reference, "$") {
        panic!("values differ at {at} on {text:?}: rdc {mine:?}, serde_json {theirs:?}");
    }
});

/// The value with each number's own text, to judge floats by.
enum Reference<'a> {
    /// A number's text.
    Number(&'a str),
    /// An array's items.
    Array(Vec<Reference<'a>>),
    /// An object's members, the last of repeated keys kept.
    Object(Vec<(String, Reference<'a>)>),
    /// Anything else (compared through `serde_json`'s value).
    Other,
}

impl<'a> Reference<'a> {
    fn read(raw: &'a RawValue) -> Reference<'a> {
        let text = raw.get();
        match text.as_bytes().first() {
            Some(b'-' | b'0'..=b'9') => Reference::Number(text),
            Some(b'[') => {
                let items: Vec<&RawValue> = serde_json::from_str(text).expect("an array");
                Reference::Array(items.into_iter().map(Reference::read).collect())
            }
            Some(b'{') => {
                let Members(members) = serde_json::from_str(text).expect("an object");
                let mut kept: Vec<(String, Reference<'a>)> = Vec::new();
                for (key, value) in members {
                    let value = Reference::read(value);
                    match kept.iter_mut().find(|(k, _)| *k == key) {
                        Some(slot) => slot.1 = value,
                        None => kept.push((key, value)),
                    }
                }
                Reference::Object(kept)
            }
            _ => Reference::Other,
        }
    }
}

/// An object's members in order, repeated keys included.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    members.push(entry);
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(V)
    }
}

/// Whether rdc's value (as a `serde_json::Value`) is `serde_json`'s; `Err` says where not.
fn same(
    mine: &serde_json::Value,
    theirs: &serde_json::Value,
    reference: &Reference<'_>,
    at: &str,
) -> Result<(), String> {
    use serde_json::Value as J;
    match (mine, theirs, reference) {
        (J::Number(m), J::Number(t), Reference::Number(text)) => {
            same_number(m, t, text).then_some(()).ok_or(at.to_owned())
        }
        (J::Array(m), J::Array(t), Reference::Array(r)) if m.len() == t.len() && t.len() == r.len() => {
            m.iter().zip(t).zip(r).enumerate().try_for_each(|(i, ((m, t), r))| same(m, t, r, &format!("{at}[{i}]")))
        }
        (J::Object(m), J::Object(t), Reference::Object(r)) if m.len() == t.len() && t.len() == r.len() => {
            r.iter().try_for_each(|(key, r)| match (m.get(key), t.get(key)) {
                (Some(m), Some(t)) => same(m, t, r, &format!("{at}.{key}")),
                _ => Err(format!("{at}.{key} (missing)")),
            })
        }
        (J::Null | J::Bool(_) | J::String(_), _, Reference::Other) if mine == theirs => Ok(()),
        _ => Err(at.to_owned()),
    }
}

/// Integers exactly; a float equal to `serde_json`'s or to the nearest `f64`
/// to its text.
fn same_number(mine: &serde_json::Number, theirs: &serde_json::Number, text: &str) -> bool {
    let integer = |n: &serde_json::Number| n.as_i64().map(i128::from).or(n.as_u64().map(i128::from));
    match (integer(mine), integer(theirs)) {
        (Some(m), Some(t)) => m == t,
        (None, None) => {
            let (m, t) = (mine.as_f64(), theirs.as_f64());
            m == t || m == text.parse::<f64>().ok()
        }
        // `-0` may be an integer to one and a float to the other.
        (Some(i), None) | (None, Some(i)) => mine.as_f64() == theirs.as_f64() && i == 0,
    }
}
