//! Conversions between [`Value`] and `serde_json::Value`, and serde for [`Value`].

use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};

use super::{Map, Number, Text, Value};

impl From<serde_json::Value> for Value {
    /// Each string copied into a [`Text`] of its own; objects become [`Map`]s in key order.
    fn from(value: serde_json::Value) -> Value {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Number(n.into()),
            serde_json::Value::String(s) => Value::String(Text::new(s)),
            serde_json::Value::Array(items) => Value::Array(items.into_iter().map(Value::from).collect()),
            serde_json::Value::Object(map) => {
                // Keys come out of `serde_json`'s map once each.
                Value::Object(Map::from_unique(map.into_iter().map(|(k, v)| (Text::new(k), Value::from(v))).collect()))
            }
        }
    }
}

impl From<Value> for serde_json::Value {
    /// Numbers as their nearest `serde_json::Number` (a kept text is dropped).
    fn from(value: Value) -> serde_json::Value {
        match value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(b),
            Value::Number(n) => serde_json::Value::Number(n.into()),
            Value::String(s) => serde_json::Value::String(s.into()),
            Value::Array(items) => serde_json::Value::Array(items.into_iter().map(Into::into).collect()),
            Value::Object(map) => {
                serde_json::Value::Object(map.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
            }
        }
    }
}

impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(n) => n.serialize(serializer),
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Object(map) => map.serialize(serializer),
        }
    }
}

/// Builds values from any serde source, each string its own (no shared buffer).
struct OwnedVisitor;

impl<'de> Visitor<'de> for OwnedVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(OwnedVisitor)
    }

    super::scalar_visits!();

    /// With its text when rdc's deserializers visit a number that kept one.
    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        match super::take_exact_text(n).and_then(|text| Number::with_text(n, text)) {
            Some(exact) => Ok(Value::Number(exact)),
            None => Ok(Value::from(n)),
        }
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::from(s))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::from(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, access: A) -> Result<Value, A::Error> {
        object(Vec::new(), access)
    }
}

/// An object of `entries` and the rest of `access`'s.
fn object<'de, A: MapAccess<'de>>(mut entries: Vec<(Text, Value)>, mut access: A) -> Result<Value, A::Error> {
    entries.reserve(access.size_hint().unwrap_or(0).min(4096));
    while let Some((k, v)) = access.next_entry::<String, Value>()? {
        entries.push((Text::new(k), v));
    }
    let mut map = Map::from_unique(entries);
    map.dedup_keys();
    Ok(Value::Object(map))
}

/// Asks for a value's JSON text (what `serde_json` hands a `RawValue`) and
/// parses it with [`Value::parse`], so a number keeps its text as when the
/// response was parsed; a deserializer that hands no text is visited as
/// [`OwnedVisitor`] is (`map`: asked for a map).
struct RawOrOwned {
    map: bool,
}

impl RawOrOwned {
    fn deserialize<'de, D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_newtype_struct(super::ser::RAW_VALUE, self)
    }
}

impl<'de> Visitor<'de> for RawOrOwned {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_newtype_struct<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        if self.map {
            d.deserialize_map(OwnedVisitor)
        } else {
            d.deserialize_any(OwnedVisitor)
        }
    }

    /// The raw text's one entry (its key the `RawValue` name), or an object.
    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let Some(key) = access.next_key::<String>()? else { return Ok(Value::Object(Map::new())) };
        if key == super::ser::RAW_VALUE {
            let text: String = access.next_value()?;
            return Value::parse(text).map_err(serde::de::Error::custom);
        }
        let value = access.next_value::<Value>()?;
        object(vec![(Text::new(key), value)], access)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        OwnedVisitor.visit_none()
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        OwnedVisitor.visit_some(d)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        OwnedVisitor.visit_unit()
    }
    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Value, E> {
        OwnedVisitor.visit_bool(b)
    }
    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Value, E> {
        OwnedVisitor.visit_i64(n)
    }
    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Value, E> {
        OwnedVisitor.visit_u64(n)
    }
    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Value, E> {
        OwnedVisitor.visit_f64(n)
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Value, E> {
        OwnedVisitor.visit_str(s)
    }
    fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Value, E> {
        OwnedVisitor.visit_string(s)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Value, A::Error> {
        OwnedVisitor.visit_seq(seq)
    }
}

impl serde::Serialize for Map {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            out.serialize_entry(k.as_str(), v)?;
        }
        out.end()
    }
}

impl<'de> serde::Deserialize<'de> for Map {
    /// As [`Value`]'s, for an object.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Map, D::Error> {
        match (RawOrOwned { map: true }).deserialize(deserializer)? {
            Value::Object(map) => Ok(map),
            other => Err(serde::de::Error::invalid_type(super::unexpected(&other), &"an object")),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Value {
    /// From `serde_json`, as [`Value::parse`] reads the value's text (so a
    /// number keeps its text: see [`Number`]'s `Serialize`); from any other
    /// deserializer, as it visits the value (from rdc's own, with numbers'
    /// kept texts).
    ///
    /// ```
    /// use rdc_core::json::{Number, Value};
    /// let v: Value = serde_json::from_str("[12345678901234567890.5]")?;
    /// let Value::Number(n) = &v[0] else { unreachable!() };
    /// assert_eq!(n.exact_text(), Some("12345678901234567890.5"));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        RawOrOwned { map: false }.deserialize(deserializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_serde_json() {
        let original =
            serde_json::json!({"a": [1, -2, 2.5, "x", null, true], "b": {"c": "d"}, "e": 18446744073709551615u64});
        let ours = Value::from(original.clone());
        assert_eq!(serde_json::to_value(&ours).unwrap(), original);
        assert_eq!(serde_json::Value::from(ours.clone()), original);
        let back: Value = serde_json::from_value(original).unwrap();
        assert_eq!(back, ours);
    }

    /// More digits than an `f64` holds (its `f64` reads `12345678901234567000`).
    const LONG: &str = "12345678901234567890.123456789";

    fn kept_text(value: &Value) -> Option<&str> {
        match value {
            Value::Number(n) => n.exact_text(),
            _ => None,
        }
    }

    #[test]
    fn a_kept_number_text_round_trips_through_serde_json_text() {
        let ours = Value::parse(format!(r#"{{"a": [{LONG}, 1.5, 123456789012345678901234567890]}}"#)).unwrap();
        let text = serde_json::to_string(&ours).unwrap();
        assert_eq!(text, format!(r#"{{"a":[{LONG},1.5,123456789012345678901234567890]}}"#));
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, ours);
        assert_eq!(kept_text(&back["a"][0]), Some(LONG));
        let back: Map = serde_json::from_slice(text.as_bytes()).unwrap();
        assert_eq!(kept_text(&back["a"][0]), Some(LONG), "from bytes, and as a map");
        let back: Value = serde_json::from_reader(text.as_bytes()).unwrap();
        assert_eq!(kept_text(&back["a"][0]), Some(LONG), "from a reader");
        // Inside another type, read through rdc's own deserializer.
        let wrapped: Vec<Value> = crate::from_value(&Value::Array(vec![ours.clone()])).unwrap();
        assert_eq!(kept_text(&wrapped[0]["a"][0]), Some(LONG), "through from_value");
        // serde_json's own value sees the nearest f64, as before.
        assert_eq!(serde_json::to_value(&ours).unwrap()["a"][1], serde_json::json!(1.5));
    }
}
