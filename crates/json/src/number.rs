//! `Number`: a JSON number as `serde_json` reads it (integers exactly, others
//! as the nearest `f64`) and, when that `f64` does not give back the value its
//! text said (more significant digits than an `f64` holds), that text too, so
//! a decimal field reads the number exactly.

use std::cell::Cell;
use std::fmt;
use std::sync::Arc;

use serde::de::Visitor;
use serde_json::Error;

use super::number_text::{read_long, same_value, Float, Reading};
use super::Text;

/// A JSON number: integers exactly, others as the nearest `f64`; a number
/// [`Value::parse`](super::Value::parse) read whose `f64` does not give back
/// the value its text says keeps that text ([`Number::exact_text`]).
/// Decimal fields (`rust_decimal::Decimal`, `rdc_core::fields::decimal`)
/// read that text, so no digit is lost; every other reader sees the `f64`.
///
/// Numbers compare by value as `serde_json`'s do (an integer never equals a
/// float: `1 != 1.0`), and two numbers with texts by the values their texts
/// say. It derefs to the nearest `serde_json::Number`.
///
/// ```
/// use rdc_core::json::{Number, Value};
/// assert_eq!(Value::Number(Number::from(7u8)), 7);
/// let list = Value::parse("[0.5, 12345678901234567890.5]".to_owned())?;
/// let Value::Number(long) = &list[1] else { unreachable!() };
/// assert_eq!(long.exact_text(), Some("12345678901234567890.5"));
/// assert_eq!(long.as_f64(), Some(12345678901234567890.5));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone)]
pub struct Number {
    n: serde_json::Number,
    /// The number's text, kept only when `n` does not say its value (boxed:
    /// a [`Value`](super::Value) stays four words).
    text: Option<Box<Text>>,
}

impl Number {
    /// A finite `f64` (`None` for NaN and infinities, which JSON has not).
    ///
    /// ```
    /// assert!(rdc_core::json::Number::from_f64(1.5).is_some());
    /// assert!(rdc_core::json::Number::from_f64(f64::NAN).is_none());
    /// ```
    pub fn from_f64(f: f64) -> Option<Number> {
        serde_json::Number::from_f64(f).map(Number::from)
    }

    /// This number, a float `serde_json` parsed from `text` (a range of
    /// `buf`), as `text` says: the nearest `f64` to `text` (`serde_json`
    /// rounds some long numbers to a neighbour), with `text` kept (shared
    /// with `buf`) when that `f64` does not give back its value.
    pub(super) fn read_text(&mut self, text: &str, float: Float, buf: &Arc<str>) {
        let (Float::Long, Some(f)) = (float, self.n.as_f64()) else { return };
        let (nearest, kept) = match read_long(text, f) {
            Some(Reading::Says(nearest)) => (nearest, None),
            Some(Reading::Loses(nearest)) => (nearest, Some(Box::new(Text::within(buf, text)))),
            // Not this number's text: `serde_json`'s reading stands.
            None => return,
        };
        if let Some(n) = serde_json::Number::from_f64(nearest) {
            *self = Number { n, text: kept };
        }
    }

    /// The number's text as the JSON said it, when its `f64` does not give
    /// back that value (`None` for every number an `f64` or integer holds).
    ///
    /// ```
    /// let v = rdc_core::json::Value::parse("[0.1, 0.10000000000000000000001]".to_owned())?;
    /// let text = |i: usize| match &v[i] { rdc_core::json::Value::Number(n) => n.exact_text().map(str::to_owned), _ => None };
    /// assert_eq!(text(0), None);
    /// assert_eq!(text(1).as_deref(), Some("0.10000000000000000000001"));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn exact_text(&self) -> Option<&str> {
        self.text.as_deref().map(Text::as_str)
    }

    /// The number as a `u64`, if it is an integer that fits.
    ///
    /// ```
    /// assert_eq!(rdc_core::json::Number::from(7u8).as_u64(), Some(7));
    /// ```
    pub fn as_u64(&self) -> Option<u64> {
        self.n.as_u64()
    }

    /// The number as an `i64`, if it is an integer that fits.
    ///
    /// ```
    /// assert_eq!(rdc_core::json::Number::from(-7i8).as_i64(), Some(-7));
    /// ```
    pub fn as_i64(&self) -> Option<i64> {
        self.n.as_i64()
    }

    /// The number as an `f64` (the nearest one).
    ///
    /// ```
    /// assert_eq!(rdc_core::json::Number::from(2u8).as_f64(), Some(2.0));
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        self.n.as_f64()
    }
}

impl Number {
    /// The number `f` whose text is `text` (a [`take_exact_text`]'s), `None`
    /// for a non-finite `f`.
    pub(super) fn with_text(f: f64, text: Text) -> Option<Number> {
        serde_json::Number::from_f64(f).map(|n| Number { n, text: Some(Box::new(text)) })
    }
}

impl std::ops::Deref for Number {
    type Target = serde_json::Number;

    /// The nearest `serde_json::Number` (no text).
    fn deref(&self) -> &serde_json::Number {
        &self.n
    }
}

impl From<serde_json::Number> for Number {
    fn from(n: serde_json::Number) -> Number {
        Number { n, text: None }
    }
}

impl From<Number> for serde_json::Number {
    /// The nearest `serde_json::Number` (a kept text is dropped).
    fn from(n: Number) -> serde_json::Number {
        n.n
    }
}

macro_rules! from_integer {
    ($($t:ty),*) => {
        $(
            impl From<$t> for Number {
                fn from(n: $t) -> Number {
                    Number { n: n.into(), text: None }
                }
            }
        )*
    };
}

from_integer!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        match (&self.text, &other.text) {
            (None, None) => self.n == other.n,
            (Some(a), Some(b)) => same_value(a, b),
            // A kept text says a value its `f64` does not; the other number
            // says the value of its `f64` (or integer): never the same.
            _ => false,
        }
    }
}

impl Eq for Number {}

impl fmt::Display for Number {
    /// The kept text, else as `serde_json` writes the number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.exact_text() {
            Some(text) => f.write_str(text),
            None => fmt::Display::fmt(&self.n, f),
        }
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl serde::Serialize for Number {
    /// As `serde_json` writes the number; a kept text as `serde_json`'s
    /// `RawValue` (JSON text written as it is), so `serde_json` writes that
    /// text and reading it back as a [`Value`](super::Value) keeps it, and
    /// [`to_value`](super::to_value) keeps it too. (A serializer that knows
    /// no `RawValue` sees its struct.)
    ///
    /// ```
    /// let v = rdc_core::json::Value::parse("[0.5, 12345678901234567890.5]".to_owned())?;
    /// assert_eq!(serde_json::to_string(&v)?, "[0.5,12345678901234567890.5]");
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        match self.exact_text() {
            Some(text) => {
                let mut raw = serializer.serialize_struct(super::ser::RAW_VALUE, 1)?;
                raw.serialize_field(super::ser::RAW_VALUE, text)?;
                raw.end()
            }
            None => self.n.serialize(serializer),
        }
    }
}

thread_local! {
    /// The text of the number a deserializer is visiting as an `f64`, with
    /// that `f64`'s bits (see [`take_exact_text`]).
    static HANDED: Cell<Option<(u64, Text)>> = const { Cell::new(None) };
}

/// The text of the number being visited as `f`, when rdc's deserializers are
/// visiting one with a kept text ([`Number::exact_text`]): a visitor that
/// parses numbers from text (as `fields::decimal` does) parses that instead of
/// `f`'s digits.
#[doc(hidden)]
pub fn take_exact_text(f: f64) -> Option<Text> {
    HANDED.with(Cell::take).filter(|(bits, _)| *bits == f.to_bits()).map(|(_, text)| text)
}

impl<'a> serde::Deserializer<'a> for &'a Number {
    type Error = Error;

    /// As `serde_json` visits the number, with a kept text handed to the
    /// visitor (see [`take_exact_text`]) while it visits the `f64`.
    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        let (Some(text), Some(f)) = (self.text.as_deref(), self.n.as_f64()) else {
            return (&self.n).deserialize_any(visitor);
        };
        /// Clears the slot however the visit ends (even by unwinding).
        struct Clear;
        impl Drop for Clear {
            fn drop(&mut self) {
                HANDED.with(Cell::take);
            }
        }
        HANDED.with(|h| h.set(Some((f.to_bits(), text.clone()))));
        let _clear = Clear;
        (&self.n).deserialize_any(visitor)
    }

    /// A number with a kept text, to a type that asks for a string (as
    /// `rust_decimal::Decimal` does): that text. Any other as a number.
    fn deserialize_str<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.text.as_deref() {
            Some(text) => visitor.visit_borrowed_str(text.as_str()),
            None => self.deserialize_any(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'a>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(text: &str) -> Number {
        match super::super::Value::parse(text.to_owned()).unwrap() {
            super::super::Value::Number(n) => n,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_value_stays_four_words() {
        assert_eq!(std::mem::size_of::<super::super::Value>(), 32);
    }

    #[test]
    fn the_handed_text_is_taken_once_and_only_for_its_f64() {
        let long = number("1.00000000000000000001");
        let f: f64 = serde::Deserialize::deserialize(&long).unwrap();
        assert_eq!(f, 1.0, "an f64 reader sees the f64");
        assert!(take_exact_text(1.0).is_none(), "nothing stays behind");
        struct Peek;
        impl Visitor<'_> for Peek {
            type Value = (Option<Text>, Option<Text>);
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_f64<E>(self, f: f64) -> Result<Self::Value, E> {
                Ok((take_exact_text(f + 1.0), take_exact_text(f)))
            }
        }
        let (other, taken) = serde::Deserializer::deserialize_any(&long, Peek).unwrap();
        assert!(other.is_none(), "not for another f64");
        assert!(taken.is_none(), "asked once already: gone");
        let (_, taken) = serde::Deserializer::deserialize_any(&number("2.00000000000000000001"), Peek).unwrap();
        assert!(taken.is_none(), "the first ask, for another f64, cleared it");
        struct Take;
        impl Visitor<'_> for Take {
            type Value = Option<Text>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_f64<E>(self, f: f64) -> Result<Self::Value, E> {
                Ok(take_exact_text(f))
            }
        }
        let taken = serde::Deserializer::deserialize_any(&long, Take).unwrap();
        assert_eq!(taken.as_deref(), Some("1.00000000000000000001"));
    }
}
