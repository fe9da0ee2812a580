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
mod map;
mod number;
mod number_text;
mod parse;
mod ser;
mod text;

use std::fmt;

pub use de::from_value;
pub use map::{Iter, Map};
pub(crate) use number::take_exact_text;
pub use number::Number;
pub use ser::to_value;
#[doc(hidden)]
pub use ser::to_value_or_panic as __to_value_or_panic;
pub use text::literal_key as __literal_key;
pub use text::Text;
pub(crate) use text::{hand_over, take_handed, TEXT_MARKER};

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

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Number(n) => write!(f, "{n}"),
            Value::String(s) => fmt::Debug::fmt(s.as_str(), f),
            Value::Array(items) => f.debug_list().entries(items).finish(),
            Value::Object(map) => fmt::Debug::fmt(map, f),
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.into())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s.into())
    }
}

impl From<Text> for Value {
    fn from(s: Text) -> Value {
        Value::String(s)
    }
}

impl From<Map> for Value {
    fn from(map: Map) -> Value {
        Value::Object(map)
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Value {
        Value::Array(items)
    }
}

macro_rules! from_integer {
    ($($t:ty),*) => {
        $(
            impl From<$t> for Value {
                fn from(n: $t) -> Value {
                    Value::Number(n.into())
                }
            }
        )*
    };
}

from_integer!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl From<f64> for Value {
    /// A finite number; `null` for NaN and infinities (as JSON has no such numbers).
    fn from(n: f64) -> Value {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// Builds a [`Value`] with `serde_json::json!`'s syntax: `null`, booleans,
/// `[...]`, `{"key": value, ...}` (keys are string literals, `(expressions)` or
/// variables), and any other expression through its `Serialize` (panicking, as
/// `serde_json::json!` does, when that fails: a map with keys that are not strings).
///
/// ```
/// use rdc_core::json;
/// let id = 7;
/// let key = "role";
/// let user = json!({"id": id, "tags": ["a", "b", null], "boss": null, (key): {"admin": true}, "n": -1.5,});
/// assert_eq!(user["id"], 7);
/// assert_eq!(user["tags"][2], json!(null));
/// assert_eq!(user["role"]["admin"], true);
/// assert_eq!(user.to_string(), r#"{"id":7,"tags":["a","b",null],"boss":null,"role":{"admin":true},"n":-1.5}"#);
/// ```
#[macro_export]
macro_rules! json {
    (null) => { $crate::json::Value::Null };
    ([]) => { $crate::json::Value::Array(::std::vec::Vec::new()) };
    ([ $($items:tt)+ ]) => { $crate::json::Value::Array($crate::__json_items!([] $($items)+)) };
    ({}) => { $crate::json::Value::Object($crate::json::Map::new()) };
    ({ $($entries:tt)+ }) => {
        $crate::json::Value::Object({
            let mut map = $crate::json::Map::new();
            $crate::__json_entries!(map () $($entries)+);
            map
        })
    };
    ($other:expr) => { $crate::json::__to_value_or_panic(&$other) };
}

/// The items of `json!([...])`, one at a time (an item is `null`, a list, an
/// object or an expression up to the next top-level comma).
#[doc(hidden)]
#[macro_export]
macro_rules! __json_items {
    ([$($done:expr,)*]) => { ::std::vec![$($done,)*] };
    ([$($done:expr,)*] null $(, $($rest:tt)*)?) => {
        $crate::__json_items!([$($done,)* $crate::json::Value::Null,] $($($rest)*)?)
    };
    ([$($done:expr,)*] [$($list:tt)*] $(, $($rest:tt)*)?) => {
        $crate::__json_items!([$($done,)* $crate::json!([$($list)*]),] $($($rest)*)?)
    };
    ([$($done:expr,)*] {$($object:tt)*} $(, $($rest:tt)*)?) => {
        $crate::__json_items!([$($done,)* $crate::json!({$($object)*}),] $($($rest)*)?)
    };
    ([$($done:expr,)*] $next:expr, $($rest:tt)*) => {
        $crate::__json_items!([$($done,)* $crate::json!($next),] $($rest)*)
    };
    ([$($done:expr,)*] $last:expr) => { $crate::__json_items!([$($done,)* $crate::json!($last),]) };
}

/// The entries of `json!({...})`, inserted into `$map` one at a time: a key
/// (string literal, `(expression)` or variable) and `:`, then its value.
#[doc(hidden)]
#[macro_export]
macro_rules! __json_entries {
    ($map:ident ()) => {};
    ($map:ident () $key:literal : $($rest:tt)+) => {
        $crate::__json_entries!($map ($crate::json::__literal_key($key)) $($rest)+)
    };
    ($map:ident () ($key:expr) : $($rest:tt)+) => { $crate::__json_entries!($map ($key) $($rest)+) };
    ($map:ident () $key:ident : $($rest:tt)+) => { $crate::__json_entries!($map ($key) $($rest)+) };
    ($map:ident ($key:expr) null $(, $($rest:tt)*)?) => {
        $map.insert($key, $crate::json::Value::Null);
        $crate::__json_entries!($map () $($($rest)*)?);
    };
    ($map:ident ($key:expr) [$($list:tt)*] $(, $($rest:tt)*)?) => {
        $map.insert($key, $crate::json!([$($list)*]));
        $crate::__json_entries!($map () $($($rest)*)?);
    };
    ($map:ident ($key:expr) {$($object:tt)*} $(, $($rest:tt)*)?) => {
        $map.insert($key, $crate::json!({$($object)*}));
        $crate::__json_entries!($map () $($($rest)*)?);
    };
    ($map:ident ($key:expr) $value:expr, $($rest:tt)*) => {
        $map.insert($key, $crate::json!($value));
        $crate::__json_entries!($map () $($rest)*);
    };
    ($map:ident ($key:expr) $value:expr) => {
        $map.insert($key, $crate::json!($value));
    };
}

/// `null`, what indexing finds where nothing is.
static NULL: Value = Value::Null;

impl std::ops::Index<&str> for Value {
    type Output = Value;
    /// The value under `key`; `null` when there is none or this is no object.
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

impl std::ops::Index<usize> for Value {
    type Output = Value;
    /// Item `i` of an array; `null` when there is none or this is no array.
    fn index(&self, i: usize) -> &Value {
        self.as_array().and_then(|items| items.get(i)).unwrap_or(&NULL)
    }
}

impl std::ops::Index<&str> for Map {
    type Output = Value;
    /// The value under `key`; `null` when there is none.
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

impl std::ops::IndexMut<&str> for Value {
    /// The value under `key`, added as `null` when missing (`null` itself
    /// becomes an empty object first).
    ///
    /// # Panics
    /// When this is neither an object nor `null`, as `serde_json` does.
    fn index_mut(&mut self, key: &str) -> &mut Value {
        if self.is_null() {
            *self = Value::Object(Map::new());
        }
        match self {
            Value::Object(map) => {
                if !map.contains_key(key) {
                    map.insert(key, Value::Null);
                }
                #[allow(clippy::unreachable)]
                map.get_mut(key).unwrap_or_else(|| unreachable!("inserted above"))
            }
            #[allow(clippy::panic)]
            other => panic!("cannot index {} with a key", unexpected(other)),
        }
    }
}

impl std::ops::IndexMut<usize> for Value {
    /// Item `i` of an array.
    ///
    /// # Panics
    /// When this is no array or `i` is out of bounds, as `serde_json` does.
    fn index_mut(&mut self, i: usize) -> &mut Value {
        match self.as_array_mut().and_then(|items| items.get_mut(i)) {
            Some(item) => item,
            #[allow(clippy::panic)]
            None => panic!("cannot index with {i}: no such item"),
        }
    }
}

impl fmt::Display for Value {
    /// Compact JSON text (written by serde_json, without its pretty printer;
    /// writing cannot fail, as the keys are strings).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<String> for Value {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == Some(other.as_str())
    }
}

impl PartialEq<bool> for Value {
    fn eq(&self, other: &bool) -> bool {
        self.as_bool() == Some(*other)
    }
}

macro_rules! eq_number {
    ($($t:ty => $as:ident as $wide:ty),*) => {
        $(
            impl PartialEq<$t> for Value {
                fn eq(&self, other: &$t) -> bool {
                    self.$as().is_some_and(|n| <$wide>::try_from(*other).is_ok_and(|o| o == n))
                }
            }
        )*
    };
}

eq_number!(
    i8 => as_i64 as i64, i16 => as_i64 as i64, i32 => as_i64 as i64, i64 => as_i64 as i64, isize => as_i64 as i64,
    u8 => as_u64 as u64, u16 => as_u64 as u64, u32 => as_u64 as u64, u64 => as_u64 as u64, usize => as_u64 as u64
);

impl PartialEq<f64> for Value {
    fn eq(&self, other: &f64) -> bool {
        self.as_f64() == Some(*other)
    }
}
