//! `Value`'s standard traits: `Debug` and `Display`, conversions from Rust
//! values, indexing by key and place, and comparison with Rust values.

use std::fmt;

use super::{unexpected, Map, Number, Text, Value};

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
