//! Field deserializers for typed entity fields (`#[serde(with = "...")]`).
//!
//! Instants need nothing extra: `chrono::DateTime<Utc>` deserializes from ISO 8601.
//!
//! ```
//! use chrono::{DateTime, Utc};
//! use rust_decimal::Decimal;
//! use serde::Deserialize;
//!
//! #[derive(Deserialize)]
//! struct Ticker {
//!     #[serde(with = "rdc_core::fields::number_from_string")]
//!     price: f64,
//!     #[serde(with = "rdc_core::fields::decimal")]
//!     exact: Decimal,
//!     time: DateTime<Utc>,
//! }
//! let t: Ticker = serde_json::from_str(r#"{"price": "37001.25", "exact": "0.100000000000000000000000001", "time": "2026-11-25T12:00:00Z"}"#).unwrap();
//! assert_eq!(t.price, 37001.25);
//! assert_eq!(t.exact.to_string(), "0.100000000000000000000000001");
//! ```

use std::fmt::Display;
use std::str::FromStr;

use serde::de::{self, Deserializer, Visitor};
use serde::Serializer;

/// A number sent as a string (or as a number): `"37001.25"` -> `37001.25`,
/// parsed with the type's `FromStr`. Serializes with `Display`, as a string.
pub mod number_from_string {
    use super::*;

    /// Deserializes a string or number into `T` through `FromStr`.
    pub fn deserialize<'de, D, T>(deserializer: D) -> Result<T, D::Error>
    where
        D: Deserializer<'de>,
        T: FromStr,
        T::Err: Display,
    {
        deserializer.deserialize_any(FromStrVisitor(std::marker::PhantomData))
    }

    /// Serializes `T` as a string.
    pub fn serialize<S: Serializer, T: Display>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(value)
    }
}

/// An arbitrary-precision decimal from a decimal string, with no loss of
/// precision; a JSON number is accepted through its text (the text
/// [`Value::parse`](crate::json::Value::parse) kept, when an `f64` would lose
/// digits). Serializes as a string.
///
/// ```
/// # use rdc_core::{Entity, MemoCache, State, WriteMeta};
/// use rust_decimal::Decimal;
/// #[derive(serde::Deserialize, rdc_core::Entity)]
/// struct Quote { id: String, #[serde(with = "rdc_core::fields::decimal")] price: Decimal }
/// let body = rdc_core::json::Value::parse(r#"{"id": "q", "price": 12345678901234567890.123456789}"#.to_owned())?;
/// let mut state = State::default();
/// state.write_entities(&Quote::schema(), body, &rdc_core::json::Value::Null, WriteMeta::at(0, 1000)).unwrap();
/// let quote = MemoCache::default().entity::<Quote>(&state, "q").unwrap().unwrap();
/// assert_eq!(quote.price.to_string(), "12345678901234567890.123456789");
/// # Ok::<(), serde_json::Error>(())
/// ```
pub mod decimal {
    use super::*;
    use rust_decimal::Decimal;

    /// Deserializes a decimal string (or number) exactly.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Decimal, D::Error> {
        deserializer.deserialize_any(FromStrVisitor::<Decimal>(std::marker::PhantomData))
    }

    /// Serializes as a decimal string.
    pub fn serialize<S: Serializer>(value: &Decimal, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(value)
    }
}

struct FromStrVisitor<T>(std::marker::PhantomData<T>);

impl<T: FromStr> FromStrVisitor<T>
where
    T::Err: Display,
{
    fn parse<E: de::Error>(text: &str) -> Result<T, E> {
        text.trim().parse::<T>().map_err(|err| E::custom(format!("cannot parse {text:?}: {err}")))
    }
}

impl<'de, T: FromStr> Visitor<'de> for FromStrVisitor<T>
where
    T::Err: Display,
{
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a number or a string holding one")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        Self::parse(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        Self::parse(&v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        Self::parse(&v.to_string())
    }

    /// A number rdc parsed with more digits than an `f64` holds: the text it
    /// kept (see [`Number::exact_text`](crate::json::Number::exact_text)).
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        match crate::json::take_exact_text(v) {
            Some(text) => Self::parse(&text),
            None => Self::parse(&v.to_string()),
        }
    }
}
