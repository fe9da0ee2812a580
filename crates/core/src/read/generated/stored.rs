//! One field read from its stored value: without serde for strings, numbers and
//! booleans, through serde for the rest.

use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

use serde_json::Error;

use super::EntityReader;
use crate::json::{Number, Text, Value};

/// A field type a generated reader takes from the stored value without serde.
/// `None` when the value does not fit (serde then says why).
///
/// ```
/// use rdc_core::__private::StoredField;
/// assert_eq!(u8::from_stored(&rdc_core::json!(7)), Some(7));
/// assert_eq!(u8::from_stored(&rdc_core::json!(300)), None);
/// assert_eq!(Option::<bool>::from_stored(&rdc_core::json!(null)), Some(None));
/// ```
pub trait StoredField: Sized {
    /// The field's value, when `value` is one.
    fn from_stored(value: &Value) -> Option<Self>;
}

impl StoredField for Text {
    #[inline]
    fn from_stored(value: &Value) -> Option<Self> {
        match value {
            Value::String(text) => Some(text.clone()),
            _ => None,
        }
    }
}

impl StoredField for String {
    #[inline]
    fn from_stored(value: &Value) -> Option<Self> {
        value.as_str().map(str::to_owned)
    }
}

impl StoredField for bool {
    #[inline]
    fn from_stored(value: &Value) -> Option<Self> {
        value.as_bool()
    }
}

impl<T: StoredField> StoredField for Option<T> {
    #[inline]
    fn from_stored(value: &Value) -> Option<Self> {
        match value {
            Value::Null => Some(None),
            other => T::from_stored(other).map(Some),
        }
    }
}

fn number(value: &Value) -> Option<&Number> {
    match value {
        Value::Number(n) => Some(n),
        _ => None,
    }
}

macro_rules! stored_integers {
    ($($ty:ty),*) => {$(
        impl StoredField for $ty {
            #[inline]
            fn from_stored(value: &Value) -> Option<Self> {
                let n = number(value)?;
                match n.as_u64() {
                    Some(u) => <$ty>::try_from(u).ok(),
                    None => <$ty>::try_from(n.as_i64()?).ok(),
                }
            }
        }
    )*};
}
stored_integers!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl StoredField for f64 {
    #[inline]
    fn from_stored(value: &Value) -> Option<Self> {
        number(value)?.as_f64()
    }
}

impl StoredField for f32 {
    #[inline]
    fn from_stored(value: &Value) -> Option<Self> {
        // What serde's `f32` does with a JSON number: integers cast directly
        // (not through `f64`, which would round twice).
        let n = number(value)?;
        match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Some(u as f32),
            (None, Some(i)) => Some(i as f32),
            _ => n.as_f64().map(|f| f as f32),
        }
    }
}

/// Picks, for a field type known where the reader is generated, the direct
/// path ([`ReadStored`], for [`StoredField`] types) or serde ([`ReadSerde`]):
/// `(&Probe::<T>::NEW).read_field(..)` resolves to the first when `T`
/// implements `StoredField`, to the second otherwise.
#[doc(hidden)]
pub struct Probe<T>(PhantomData<T>);

impl<T> std::fmt::Debug for Probe<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(std::any::type_name::<Self>())
    }
}

impl<T> Probe<T> {
    /// The probe for `T`.
    pub const NEW: Self = Probe(PhantomData);
}

/// See [`Probe`].
#[doc(hidden)]
pub trait ReadStored<T> {
    /// The field from its member's `value`; `None` when it does not fit.
    fn read_field<'a>(&self, reader: &EntityReader<'_, 'a>, value: &'a Value) -> Option<T>;
}

impl<T: StoredField> ReadStored<T> for Probe<T> {
    #[inline]
    fn read_field<'a>(&self, _reader: &EntityReader<'_, 'a>, value: &'a Value) -> Option<T> {
        T::from_stored(value)
    }
}

/// See [`Probe`].
#[doc(hidden)]
pub trait ReadSerde<T> {
    /// The field from its member's `value`; `None` when it does not fit.
    fn read_field<'a>(&self, reader: &EntityReader<'_, 'a>, value: &'a Value) -> Option<T>;
}

impl<T: DeserializeOwned> ReadSerde<T> for &Probe<T> {
    #[inline]
    fn read_field<'a>(&self, reader: &EntityReader<'_, 'a>, value: &'a Value) -> Option<T> {
        reader.plain(value)
    }
}

/// A member that is not there: what serde's derive gives a missing field.
pub(super) struct Missing(pub(super) &'static str);

impl<'de> Deserializer<'de> for Missing {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
        Err(de::Error::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}
