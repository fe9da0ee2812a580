//! Any `Serialize` type into a [`Value`] (`to_value`), without going through
//! `serde_json::Value`.

use serde::ser::{self, Serialize};
use serde_json::Error;

use super::{Map, Text, Value};

/// `value` as a [`Value`].
///
/// # Errors
/// A map key that is not a string, a number, a boolean or a char (JSON keys
/// are strings), or an error of `value`'s own `Serialize`.
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Body { name: &'static str, tags: Vec<u8>, boss: Option<u32> }
/// let v = rdc_core::json::to_value(&Body { name: "Ada", tags: vec![1], boss: None })?;
/// assert_eq!(v, rdc_core::json!({"name": "Ada", "tags": [1], "boss": null}));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, Error> {
    value.serialize(ValueSerializer)
}

/// What `json!` does with an expression: its value, or a panic saying why it
/// has none (as `serde_json::json!` does).
#[doc(hidden)]
pub fn to_value_or_panic<T: Serialize + ?Sized>(value: &T) -> Value {
    match to_value(value) {
        Ok(value) => value,
        #[allow(clippy::panic)]
        Err(err) => panic!("json!: {err}"),
    }
}

struct ValueSerializer;

/// A variant with content: `{variant: content}`.
fn tagged(variant: &'static str, content: Value) -> Value {
    let mut map = Map::with_capacity(1);
    map.insert(variant, content);
    Value::Object(map)
}

impl ser::Serializer for ValueSerializer {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = Items;
    type SerializeTuple = Items;
    type SerializeTupleStruct = Items;
    type SerializeTupleVariant = Items;
    type SerializeMap = Entries;
    type SerializeStruct = Entries;
    type SerializeStructVariant = Entries;

    fn serialize_bool(self, v: bool) -> Result<Value, Error> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value, Error> {
        Ok(Value::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<Value, Error> {
        Ok(Value::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<Value, Error> {
        Ok(Value::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<Value, Error> {
        Ok(Value::from(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Value, Error> {
        Ok(Value::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<Value, Error> {
        Ok(Value::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<Value, Error> {
        Ok(Value::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<Value, Error> {
        Ok(Value::from(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Value, Error> {
        Ok(Value::from(f64::from(v)))
    }
    fn serialize_f64(self, v: f64) -> Result<Value, Error> {
        Ok(Value::from(v))
    }
    fn serialize_char(self, v: char) -> Result<Value, Error> {
        Ok(Value::from(v.encode_utf8(&mut [0; 4]) as &str))
    }
    fn serialize_str(self, v: &str) -> Result<Value, Error> {
        Ok(Value::from(v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, Error> {
        Ok(Value::Array(v.iter().map(|b| Value::from(*b)).collect()))
    }
    fn serialize_none(self) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<Value, Error> {
        Ok(Value::from(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<Value, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value, Error> {
        Ok(tagged(variant, value.serialize(self)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Items, Error> {
        Ok(Items { items: Vec::with_capacity(len.unwrap_or(0).min(4096)), variant: None })
    }
    fn serialize_tuple(self, len: usize) -> Result<Items, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Items, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Items, Error> {
        Ok(Items { items: Vec::with_capacity(len.min(4096)), variant: Some(variant) })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Entries, Error> {
        Ok(Entries { entries: Vec::with_capacity(len.unwrap_or(0).min(4096)), key: None, variant: None })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Entries, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Entries, Error> {
        Ok(Entries { entries: Vec::with_capacity(len.min(4096)), key: None, variant: Some(variant) })
    }
}

/// The items of a list (or of a tuple variant's content).
struct Items {
    items: Vec<Value>,
    variant: Option<&'static str>,
}

impl Items {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(ValueSerializer)?);
        Ok(())
    }

    fn done(self) -> Value {
        let list = Value::Array(self.items);
        match self.variant {
            Some(variant) => tagged(variant, list),
            None => list,
        }
    }
}

impl ser::SerializeSeq for Items {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.done())
    }
}

impl ser::SerializeTuple for Items {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.done())
    }
}

impl ser::SerializeTupleStruct for Items {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.done())
    }
}

impl ser::SerializeTupleVariant for Items {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.done())
    }
}

/// The entries of an object (or of a struct variant's content).
struct Entries {
    entries: Vec<(Text, Value)>,
    key: Option<Text>,
    variant: Option<&'static str>,
}

impl Entries {
    fn done(self) -> Value {
        let mut map = Map::from_unique(self.entries);
        map.dedup_keys();
        let object = Value::Object(map);
        match self.variant {
            Some(variant) => tagged(variant, object),
            None => object,
        }
    }
}

impl ser::SerializeMap for Entries {
    type Ok = Value;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key_text(key.serialize(ValueSerializer)?)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.key.take().ok_or_else(|| ser::Error::custom("a map value without its key"))?;
        self.entries.push((key, value.serialize(ValueSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.done())
    }
}

impl ser::SerializeStruct for Entries {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.entries.push((Text::from(key), value.serialize(ValueSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.done())
    }
}

impl ser::SerializeStructVariant for Entries {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.entries.push((Text::from(key), value.serialize(ValueSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.done())
    }
}

/// A map key as JSON writes it: strings as they are, numbers and booleans as text.
fn key_text(key: Value) -> Result<Text, Error> {
    match key {
        Value::String(text) => Ok(text),
        Value::Number(n) => Ok(Text::from(n.to_string())),
        Value::Bool(b) => Ok(Text::from(if b { "true" } else { "false" })),
        other => Err(ser::Error::custom(format!("a map key must be a string, not {}", super::unexpected(&other)))),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[derive(serde::Serialize)]
    enum Shape {
        Dot,
        Circle { r: f64 },
        Pair(u8, u8),
        Named(&'static str),
    }

    #[test]
    fn serializes_what_serde_json_does() {
        let keyed: BTreeMap<u32, Option<char>> = BTreeMap::from([(1, Some('x')), (2, None)]);
        let shapes = [Shape::Dot, Shape::Circle { r: 1.5 }, Shape::Pair(1, 2), Shape::Named("n")];
        for ours_theirs in [
            (to_value(&keyed).unwrap(), serde_json::to_value(&keyed).unwrap()),
            (to_value(&shapes).unwrap(), serde_json::to_value(&shapes).unwrap()),
            (
                to_value(&(1, -2i64, "s", 2.5f32, ())).unwrap(),
                serde_json::to_value((1, -2i64, "s", 2.5f32, ())).unwrap(),
            ),
        ] {
            assert_eq!(serde_json::Value::from(ours_theirs.0), ours_theirs.1);
        }
    }

    #[test]
    fn a_key_that_is_no_scalar_is_an_error() {
        let bad: BTreeMap<Vec<u8>, u8> = BTreeMap::from([(vec![1], 1)]);
        assert!(to_value(&bad).is_err());
    }
}
