//! Conversions between [`Value`] and `serde_json::Value`, and serde for [`Value`].

use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};

use super::{Map, Text, Value};

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

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Value::from(n))
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

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut entries = Vec::with_capacity(access.size_hint().unwrap_or(0).min(4096));
        while let Some((k, v)) = access.next_entry::<String, Value>()? {
            entries.push((Text::new(k), v));
        }
        let mut map = Map::from_unique(entries);
        map.dedup_keys();
        Ok(Value::Object(map))
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
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Map, D::Error> {
        match deserializer.deserialize_map(OwnedVisitor)? {
            Value::Object(map) => Ok(map),
            other => Err(serde::de::Error::invalid_type(super::unexpected(&other), &"an object")),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(OwnedVisitor)
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
}
