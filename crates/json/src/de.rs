//! Reading a [`Value`] into any `Deserialize` type (`T::deserialize(&value)`).

use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer, MapDeserializer, SeqDeserializer};
use serde::de::{Deserializer, IntoDeserializer, Visitor};
use serde_json::Error;

use super::{Map, Value};

/// Reads `T` out of `value`.
///
/// # Errors
/// `value` does not have `T`'s shape (the message says what was expected).
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct User { id: u32, tags: Vec<String> }
/// let user: User = rdc_core::json::from_value(&rdc_core::json!({"id": 1, "tags": ["a"]}))?;
/// assert_eq!((user.id, user.tags), (1, vec!["a".to_string()]));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn from_value<'a, T: serde::Deserialize<'a>>(value: &'a Value) -> Result<T, Error> {
    T::deserialize(value)
}

fn entries(map: &Map) -> impl Iterator<Item = (BorrowedStrDeserializer<'_, Error>, &Value)> {
    map.iter().map(|(k, v)| (BorrowedStrDeserializer::new(k.as_str()), v))
}

impl<'a> Deserializer<'a> for &'a Value {
    type Error = Error;

    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => n.deserialize_any(visitor),
            Value::String(s) => visitor.visit_borrowed_str(s.as_str()),
            Value::Array(items) => {
                let mut seq = SeqDeserializer::new(items.iter());
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(value)
            }
            Value::Object(map) => {
                let mut access = MapDeserializer::new(entries(map));
                let value = visitor.visit_map(&mut access)?;
                access.end()?;
                Ok(value)
            }
        }
    }

    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(self, name: &'static str, visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::String(text) if name == super::TEXT_MARKER => {
                super::hand_over(text, || visitor.visit_newtype_struct(self))
            }
            _ => visitor.visit_newtype_struct(self),
        }
    }

    /// A number with a kept text ([`Number::exact_text`](super::Number::exact_text))
    /// to a type that asks for a string (as `rust_decimal::Decimal` does):
    /// that text. Anything else as it is.
    fn deserialize_str<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::Number(n) => n.deserialize_str(visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    /// A unit variant as a string, any other as an object of one key.
    fn deserialize_enum<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self {
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            Value::Object(map) if map.len() == 1 => {
                visitor.visit_enum(MapAccessDeserializer::new(MapDeserializer::new(entries(map))))
            }
            _ => Err(serde::de::Error::invalid_type(super::unexpected(self), &"a string or an object of one key")),
        }
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'a>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char string bytes byte_buf unit unit_struct
        seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'a> IntoDeserializer<'a, Error> for &'a Value {
    type Deserializer = &'a Value;
    fn into_deserializer(self) -> &'a Value {
        self
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    enum Shape {
        Dot,
        Circle { r: f64 },
        Pair(u8, u8),
    }

    #[test]
    fn reads_structs_enums_options_and_maps() {
        let shapes: Vec<Shape> = from_value(&crate::json!(["Dot", {"Circle": {"r": 1.5}}, {"Pair": [1, 2]}])).unwrap();
        assert_eq!(shapes, [Shape::Dot, Shape::Circle { r: 1.5 }, Shape::Pair(1, 2)]);
        let map: BTreeMap<String, Option<u32>> = from_value(&crate::json!({"a": 1, "b": null})).unwrap();
        assert_eq!(map, BTreeMap::from([("a".into(), Some(1)), ("b".into(), None)]));
    }

    #[test]
    fn wrong_shapes_are_errors() {
        assert!(from_value::<u8>(&crate::json!(300)).is_err());
        assert!(from_value::<Vec<u8>>(&crate::json!({"a": 1})).is_err());
        assert!(from_value::<(u8, u8)>(&crate::json!([1, 2, 3])).is_err(), "trailing items");
        assert!(from_value::<Shape>(&crate::json!({"Dot": null, "Pair": [1, 2]})).is_err());
    }
}
