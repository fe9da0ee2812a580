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
    value.serialize(ValueSerializer { finite: false })
}

/// [`to_value`], but a NaN or infinite number is an error naming the field
/// that held it, not `null`: for values where `null` means "none" (a URL's
/// params), so such a number cannot pass for a missing one.
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Page { cursor: f64 }
/// let err = rdc_core::json::to_finite_value(&Page { cursor: f64::NAN }).unwrap_err();
/// assert_eq!(err.to_string(), "at cursor: NaN or an infinite number, which JSON has not");
/// assert_eq!(rdc_core::json::to_finite_value(&Page { cursor: 2.5 })?, rdc_core::json!({ "cursor": 2.5 }));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn to_finite_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, Error> {
    value.serialize(ValueSerializer { finite: true })
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

#[derive(Clone, Copy)]
struct ValueSerializer {
    /// NaN and infinities are errors (else `null`).
    finite: bool,
}

impl ValueSerializer {
    fn float(self, v: f64) -> Result<Value, Error> {
        if self.finite && !v.is_finite() {
            return Err(ser::Error::custom("NaN or an infinite number, which JSON has not"));
        }
        Ok(Value::from(v))
    }

    /// `error` said where it happened (in finite mode: a URL's param).
    fn at(self, key: &str, error: Error) -> Error {
        match self.finite {
            true => ser::Error::custom(format!("at {key}: {error}")),
            false => error,
        }
    }
}

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
    fn serialize_i128(self, v: i128) -> Result<Value, Error> {
        match (i64::try_from(v), u64::try_from(v)) {
            (Ok(n), _) => Ok(Value::from(n)),
            (_, Ok(n)) => Ok(Value::from(n)),
            _ => Err(ser::Error::custom("number out of range")),
        }
    }
    fn serialize_u128(self, v: u128) -> Result<Value, Error> {
        u64::try_from(v).map(Value::from).map_err(|_| ser::Error::custom("number out of range"))
    }
    fn serialize_f32(self, v: f32) -> Result<Value, Error> {
        self.float(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Value, Error> {
        self.float(v)
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
        Ok(Items { serializer: self, items: Vec::with_capacity(len.unwrap_or(0).min(4096)), variant: None })
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
        Ok(Items { serializer: self, items: Vec::with_capacity(len.min(4096)), variant: Some(variant) })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Entries, Error> {
        Ok(Entries {
            serializer: self,
            entries: Vec::with_capacity(len.unwrap_or(0).min(4096)),
            key: None,
            variant: None,
            raw: false,
        })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Entries, Error> {
        let mut entries = self.serialize_map(Some(len))?;
        // serde_json's `RawValue` (JSON text kept as it is) is a struct of this
        // name with the text as its one field.
        entries.raw = name == RAW_VALUE;
        Ok(entries)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Entries, Error> {
        Ok(Entries {
            serializer: self,
            entries: Vec::with_capacity(len.min(4096)),
            key: None,
            variant: Some(variant),
            raw: false,
        })
    }
}

/// The items of a list (or of a tuple variant's content).
struct Items {
    serializer: ValueSerializer,
    items: Vec<Value>,
    variant: Option<&'static str>,
}

impl Items {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(self.serializer)?);
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

/// The four list-like serializer traits, each pushing an item.
macro_rules! items_impl {
    ($($trait:ident :: $method:ident),*) => {
        $(
            impl ser::$trait for Items {
                type Ok = Value;
                type Error = Error;
                fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                    self.push(value)
                }
                fn end(self) -> Result<Value, Error> {
                    Ok(self.done())
                }
            }
        )*
    };
}

items_impl!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// The entries of an object (or of a struct variant's content).
struct Entries {
    serializer: ValueSerializer,
    entries: Vec<(Text, Value)>,
    key: Option<Text>,
    variant: Option<&'static str>,
    /// A serde_json `RawValue`: its one field is JSON text, parsed at the end.
    raw: bool,
}

/// The struct name serde_json's `RawValue` serializes as (and the newtype
/// name its deserializer hands a value's text for).
pub(super) const RAW_VALUE: &str = "$serde_json::private::RawValue";

impl Entries {
    fn done(self) -> Result<Value, Error> {
        if self.raw {
            return match self.entries.into_iter().next() {
                Some((_, Value::String(text))) => Value::parse(text.as_str().to_owned()),
                _ => Err(ser::Error::custom("a raw JSON value without its text")),
            };
        }
        Ok(self.done_object())
    }

    fn done_object(self) -> Value {
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
        self.key = Some(key.serialize(KeySerializer)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.key.take().ok_or_else(|| ser::Error::custom("a map value without its key"))?;
        let value = value.serialize(self.serializer).map_err(|e| self.serializer.at(key.as_str(), e))?;
        self.entries.push((key, value));
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        self.done()
    }
}

/// Struct fields, of a struct or a struct variant.
macro_rules! fields_impl {
    ($($trait:ident),*) => {
        $(
            impl ser::$trait for Entries {
                type Ok = Value;
                type Error = Error;
                fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
                    let value = value.serialize(self.serializer).map_err(|e| self.serializer.at(key, e))?;
                    self.entries.push((Text::from(key), value));
                    Ok(())
                }
                fn end(self) -> Result<Value, Error> {
                    self.done()
                }
            }
        )*
    };
}

fields_impl!(SerializeStruct, SerializeStructVariant);

/// Map keys as JSON writes them: strings as they are; numbers, booleans and
/// chars as their text; anything else is an error (as in `serde_json`).
struct KeySerializer;

fn no_key<T>(kind: &str) -> Result<T, Error> {
    Err(ser::Error::custom(format!("a map key must be a string, not {kind}")))
}

macro_rules! key_as_text {
    ($($method:ident: $t:ty),*) => {
        $(
            fn $method(self, v: $t) -> Result<Text, Error> {
                Ok(Text::from(v.to_string()))
            }
        )*
    };
}

impl ser::Serializer for KeySerializer {
    type Ok = Text;
    type Error = Error;
    type SerializeSeq = ser::Impossible<Text, Error>;
    type SerializeTuple = ser::Impossible<Text, Error>;
    type SerializeTupleStruct = ser::Impossible<Text, Error>;
    type SerializeTupleVariant = ser::Impossible<Text, Error>;
    type SerializeMap = ser::Impossible<Text, Error>;
    type SerializeStruct = ser::Impossible<Text, Error>;
    type SerializeStructVariant = ser::Impossible<Text, Error>;

    key_as_text!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64,
        serialize_u128: u128, serialize_char: char
    );

    fn serialize_f32(self, v: f32) -> Result<Text, Error> {
        // Written as serde_json writes numbers (`1.0`, `1e+20`).
        if v.is_finite() {
            serde_json::to_string(&v).map(Text::from)
        } else {
            no_key("a non-finite number")
        }
    }
    fn serialize_f64(self, v: f64) -> Result<Text, Error> {
        if v.is_finite() {
            serde_json::to_string(&v).map(Text::from)
        } else {
            no_key("a non-finite number")
        }
    }
    fn serialize_str(self, v: &str) -> Result<Text, Error> {
        Ok(Text::from(v))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Text, Error> {
        no_key("bytes")
    }
    fn serialize_none(self) -> Result<Text, Error> {
        no_key("an option")
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Text, Error> {
        no_key("an option")
    }
    fn serialize_unit(self) -> Result<Text, Error> {
        no_key("null")
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Text, Error> {
        no_key("null")
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<Text, Error> {
        Ok(Text::from(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<Text, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Text, Error> {
        no_key("an enum with content")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        no_key("a list")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        no_key("a list")
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        no_key("a list")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        no_key("an enum with content")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        no_key("an object")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        no_key("an object")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        no_key("an enum with content")
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
        let optional: BTreeMap<Option<u8>, u8> = BTreeMap::from([(Some(1), 1)]);
        assert!(to_value(&optional).is_err(), "serde_json refuses option keys too");
        assert!(serde_json::to_value(&optional).is_err());
    }

    #[test]
    fn wide_integers_and_scalar_keys_as_serde_json_writes_them() {
        #[derive(serde::Serialize, PartialEq, Eq, PartialOrd, Ord)]
        enum Kind {
            Small,
        }
        assert_eq!(to_value(&5i128).unwrap(), Value::from(5));
        assert_eq!(to_value(&u128::from(u64::MAX)).unwrap(), Value::from(u64::MAX));
        assert_eq!(to_value(&-5i128).unwrap(), Value::from(-5));
        assert!(to_value(&u128::MAX).is_err());
        let keys = (BTreeMap::from([(Kind::Small, 1)]), BTreeMap::from([(true, 1)]), BTreeMap::from([('c', 1)]));
        assert_eq!(serde_json::Value::from(to_value(&keys).unwrap()), serde_json::to_value(&keys).unwrap());
        for (key, text) in [(0.1f32, "0.1"), (1.0, "1.0"), (1e20, "1e+20")] {
            assert_eq!(ser::Serialize::serialize(&key, KeySerializer).unwrap(), text);
            let theirs = serde_json::to_value(std::collections::HashMap::from([(FloatKey(key), 1)])).unwrap();
            assert!(theirs.get(text).is_some(), "{theirs}");
        }
    }

    /// A float usable as a map key, serialized as its number.
    #[derive(PartialEq)]
    struct FloatKey(f32);
    impl Eq for FloatKey {}
    impl std::hash::Hash for FloatKey {
        fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
            self.0.to_bits().hash(state);
        }
    }
    impl serde::Serialize for FloatKey {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_f32(self.0)
        }
    }

    #[test]
    fn a_raw_json_value_is_its_parsed_text() {
        let raw = serde_json::value::RawValue::from_string(r#"{"b": [1, "x"]}"#.to_owned()).unwrap();
        let value = to_value(&raw).unwrap();
        assert_eq!(value, crate::json!({"b": [1, "x"]}));
        assert_eq!(crate::json!({"a": raw}), crate::json!({"a": {"b": [1, "x"]}}));
    }
}
