//! # rdc-json
//!
//! rdc's JSON value: like `serde_json::Value`, but its strings are [`Text`]
//! (cloned without copying, and when parsed by [`Value::parse`], ranges of the
//! response's text: parsing allocates no string) and its objects are [`Map`]s
//! (entries in a vector, in their order).
//!
//! The store holds it, endpoints parse responses into it, and reads share its
//! strings (a field typed [`Text`] takes the stored one). Parsing a response
//! takes about a third less time than into `serde_json::Value` (see
//! `docs/benchmarks.md`). Converts to and from `serde_json::Value`.
//!
//! ```
//! use rdc_core::json::Value;
//! let user = Value::parse(r#"{"id": 1, "name": "Ada", "tags": ["x"]}"#.to_owned())?;
//! assert_eq!(user.get("name").and_then(Value::as_str), Some("Ada"));
//! assert_eq!(serde_json::Value::from(user), serde_json::json!({"id": 1, "name": "Ada", "tags": ["x"]}));
//! # Ok::<(), serde_json::Error>(())
//! ```

#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable, clippy::indexing_slicing)
)]

pub mod sort;

/// The hash maps rdc uses: foldhash, much faster than SipHash in wasm.
pub type FastMap<K, V> = hashbrown::HashMap<K, V, foldhash::fast::RandomState>;

/// The visits of JSON's scalars (`null`, booleans, integers) every `Value`
/// visitor shares; each reads floats its own way (the parser keeps their text).
macro_rules! scalar_visits {
    () => {
        fn visit_unit<E>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }

        fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
            Ok(Value::Bool(b))
        }

        fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
            Ok(Value::from(n))
        }

        fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
            Ok(Value::from(n))
        }
    };
}
use scalar_visits;

mod convert;
mod de;
mod macros;
mod map;
mod number;
mod number_text;
mod parse;
mod ser;
mod text;
mod traits;

pub use de::from_value;
pub use map::{Iter, Map};
#[doc(hidden)]
pub use number::take_exact_text;
pub use number::Number;
#[doc(hidden)]
pub use ser::to_value_or_panic as __to_value_or_panic;
pub use ser::{to_finite_value, to_value};
pub use text::literal_key as __literal_key;
pub use text::Text;
#[doc(hidden)]
pub use text::{hand_over, take_handed, TEXT_MARKER};

/// A JSON value. See the [module documentation](self).
///
/// ```
/// use rdc_core::json::Value;
/// let v: Value = r#"{"tags": ["a"], "n": null}"#.parse().unwrap();
/// assert!(matches!(&v["tags"], Value::Array(items) if items.len() == 1));
/// assert!(v["n"].is_null());
/// ```
#[derive(Clone, PartialEq, Eq, Default)]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number: integers exactly, others as the nearest `f64` (and their
    /// text, when that `f64` does not give back its value; see [`Number`]).
    Number(Number),
    /// A string.
    String(Text),
    /// An array.
    Array(Vec<Value>),
    /// An object.
    Object(Map),
}

impl Value {
    /// The value under `key` of an object (`None` for anything else).
    ///
    /// ```
    /// use rdc_core::json::Value;
    /// let v = Value::parse(r#"{"a": true}"#.to_owned()).unwrap();
    /// assert_eq!(v.get("a"), Some(&Value::Bool(true)));
    /// assert_eq!(v.get("b"), None);
    /// ```
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(map) => map.get(key),
            _ => None,
        }
    }

    /// The value under `key` of an object, to change.
    ///
    /// ```
    /// let mut v = rdc_core::json!({"n": 1});
    /// *v.get_mut("n").unwrap() = rdc_core::json!(2);
    /// assert_eq!(v["n"], 2);
    /// ```
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        match self {
            Value::Object(map) => map.get_mut(key),
            _ => None,
        }
    }

    /// The string, if this is one.
    ///
    /// ```
    /// assert_eq!(rdc_core::json!("a").as_str(), Some("a"));
    /// assert_eq!(rdc_core::json!(1).as_str(), None);
    /// ```
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        }
    }

    /// The object, if this is one.
    ///
    /// ```
    /// assert_eq!(rdc_core::json!({"a": 1}).as_object().map(|m| m.len()), Some(1));
    /// ```
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// The object, if this is one, to change.
    ///
    /// ```
    /// let mut v = rdc_core::json!({});
    /// v.as_object_mut().unwrap().insert("a", rdc_core::json!(1));
    /// assert_eq!(v["a"], 1);
    /// ```
    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// The array, if this is one.
    ///
    /// ```
    /// assert_eq!(rdc_core::json!([1, 2]).as_array().map(Vec::len), Some(2));
    /// ```
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The array, if this is one, to change.
    ///
    /// ```
    /// let mut v = rdc_core::json!([1]);
    /// v.as_array_mut().unwrap().push(rdc_core::json!(2));
    /// assert_eq!(v, rdc_core::json!([1, 2]));
    /// ```
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    ///
    /// ```
    /// assert_eq!(rdc_core::json!(true).as_bool(), Some(true));
    /// ```
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number as a `u64`, if it is one that fits.
    ///
    /// ```
    /// assert_eq!(rdc_core::json!(7).as_u64(), Some(7));
    /// assert_eq!(rdc_core::json!(-7).as_u64(), None);
    /// ```
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    /// The number as an `i64`, if it is one that fits.
    ///
    /// ```
    /// assert_eq!(rdc_core::json!(-7).as_i64(), Some(-7));
    /// ```
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    /// The number as an `f64`, if it is one.
    ///
    /// ```
    /// assert_eq!(rdc_core::json!(1.5).as_f64(), Some(1.5));
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    /// Whether this is `null`.
    ///
    /// ```
    /// assert!(rdc_core::json!(null).is_null());
    /// ```
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// What kind of value this is, for messages: `null`, `a boolean`, `a number`,
    /// `a string`, `an array`, `an object`.
    ///
    /// ```
    /// assert_eq!(rdc_core::json!([1]).kind(), "an array");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }

    /// Whether this is an object.
    ///
    /// ```
    /// assert!(rdc_core::json!({}).is_object());
    /// ```
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// Whether this is an array.
    ///
    /// ```
    /// assert!(rdc_core::json!([]).is_array());
    /// ```
    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    /// Whether this is a string.
    ///
    /// ```
    /// assert!(rdc_core::json!("").is_string());
    /// ```
    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    /// Takes the value out, leaving `null`.
    ///
    /// ```
    /// let mut v = rdc_core::json!([1]);
    /// let taken = v.take();
    /// assert!(v.is_null());
    /// assert_eq!(taken, rdc_core::json!([1]));
    /// ```
    pub fn take(&mut self) -> Value {
        std::mem::take(self)
    }
}

/// What serde's errors call a value of this kind.
pub(crate) fn unexpected(value: &Value) -> serde::de::Unexpected<'_> {
    use serde::de::Unexpected;
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => n.as_f64().map_or(Unexpected::Other("number"), Unexpected::Float),
        Value::String(s) => Unexpected::Str(s.as_str()),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}
