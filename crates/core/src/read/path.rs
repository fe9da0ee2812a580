//! Where a deserialization failed, at no cost when it succeeds: each map or list
//! level adds its segment only while an error passes through it on the way out.
//! Also `PlainDe`, a `&Value` deserializer that records such paths (field checks
//! at normalize time, plain results).

use std::cell::RefCell;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Error;

use crate::json::Value;

use crate::schema::FieldError;

/// One step of a path.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Segment<'a> {
    Field(&'a str),
    Index(usize),
}

/// The path of the error being returned, innermost segment first.
#[derive(Debug, Default)]
pub(crate) struct ErrorPath<'a> {
    segments: RefCell<Vec<Segment<'a>>>,
    /// Whether `segments` may hold something (checked on every success).
    dirty: std::cell::Cell<bool>,
}

impl<'a> ErrorPath<'a> {
    /// Passes `result` through, adding `segment` when it is an error (see
    /// [`ErrorPath::succeeded`] for what a success does).
    #[inline(always)]
    pub fn at<T>(&self, segment: Segment<'a>, result: Result<T, Error>) -> Result<T, Error> {
        match result {
            Ok(value) => {
                self.succeeded();
                Ok(value)
            }
            Err(err) => Err(self.failed(segment, err)),
        }
    }

    /// Adds `segment` to the path of `err`, on its way out.
    #[cold]
    pub fn failed(&self, segment: Segment<'a>, err: Error) -> Error {
        self.segments.borrow_mut().push(segment);
        self.dirty.set(true);
        err
    }

    /// A level read fine: segments an inner error left (a visitor recovered from
    /// it) are not the path of a later error.
    #[inline]
    pub fn succeeded(&self) {
        if self.dirty.get() {
            self.forget();
        }
    }

    #[cold]
    fn forget(&self) {
        self.segments.borrow_mut().clear();
        self.dirty.set(false);
    }

    /// `a.b[2].c`, or `.` for the root (as serde_path_to_error writes it).
    pub fn render(&self) -> String {
        let path = self.segments.borrow();
        let mut out = String::new();
        for segment in path.iter().rev() {
            match segment {
                Segment::Field(name) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                }
                Segment::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        if out.is_empty() {
            out.push('.');
        }
        out
    }
}

/// Deserializes `T` from `value`, saying where it failed.
///
/// ```
/// #[derive(Debug, serde::Deserialize)]
/// struct Price { amounts: Vec<u32> }
/// let err = rdc_core::deserialize_at::<Price>(&rdc_core::json!({"amounts": [1, "x"]})).unwrap_err();
/// assert_eq!(err.path, "amounts[1]");
/// ```
pub fn deserialize_at<'a, T: serde::Deserialize<'a>>(value: &'a Value) -> Result<T, FieldError> {
    let path = ErrorPath::default();
    T::deserialize(PlainDe { value, path: &path, ignored: None })
        .map_err(|err| FieldError { path: path.render(), message: err.to_string() })
}

/// Visits plain JSON: maps and lists through this module's accessors (which
/// record paths), scalars straight.
pub(crate) fn visit_plain<'a, V: Visitor<'a>>(
    value: &'a Value,
    path: &ErrorPath<'a>,
    visitor: V,
) -> Result<V::Value, Error> {
    match value {
        Value::Null => visitor.visit_unit(),
        Value::Bool(b) => visitor.visit_bool(*b),
        Value::Number(n) => n.deserialize_any(visitor),
        Value::String(s) => visitor.visit_borrowed_str(s),
        Value::Array(items) => visitor.visit_seq(PlainSeq { iter: items.iter().enumerate(), path }),
        Value::Object(map) => visitor.visit_map(PlainMap { iter: map.iter(), pending: None, path }),
    }
}

/// A plain JSON value (no schema), recording error paths.
pub(crate) struct PlainDe<'a, 'p> {
    pub value: &'a Value,
    pub path: &'p ErrorPath<'a>,
    /// Where to say that a visitor ignored this value (an entity field's token).
    pub ignored: Option<(&'p std::cell::Cell<u32>, u32)>,
}

impl<'a> Deserializer<'a> for PlainDe<'a, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        visit_plain(self.value, self.path, visitor)
    }

    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(self, name: &'static str, visitor: V) -> Result<V::Value, Error> {
        if name == crate::json::TEXT_MARKER {
            // A `Text`: the stored string itself, as plain `&Value` hands it over.
            return self.value.deserialize_newtype_struct(name, visitor);
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'a>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.value.deserialize_enum(name, variants, visitor)
    }

    /// A number asked for as a string (a `Decimal`) hands over its exact text.
    fn deserialize_str<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Number(n) => n.deserialize_str(visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        if let Some((cell, token)) = self.ignored {
            cell.set(token);
        }
        visitor.visit_unit()
    }

    // Scalars too: a JSON value's kind decides what the visitor hears.
    serde::forward_to_deserialize_any! {
        <W: Visitor<'a>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char string bytes byte_buf unit
        identifier seq tuple tuple_struct map struct unit_struct
    }
}

struct PlainMap<'a, 'p> {
    iter: crate::json::Iter<'a>,
    pending: Option<(&'a str, &'a Value)>,
    path: &'p ErrorPath<'a>,
}

impl<'a> MapAccess<'a> for PlainMap<'a, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'a>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        match self.iter.next() {
            Some((name, value)) => {
                self.pending = Some((name, value));
                seed.deserialize(BorrowedStrDeserializer::<Error>::new(name)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'a>>(&mut self, seed: S) -> Result<S::Value, Error> {
        match self.pending.take() {
            Some((name, value)) => {
                self.path.at(Segment::Field(name), seed.deserialize(PlainDe { value, path: self.path, ignored: None }))
            }
            None => Err(de::Error::custom("value requested before key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct PlainSeq<'a, 'p> {
    iter: std::iter::Enumerate<std::slice::Iter<'a, Value>>,
    path: &'p ErrorPath<'a>,
}

impl<'a> SeqAccess<'a> for PlainSeq<'a, '_> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'a>>(&mut self, seed: S) -> Result<Option<S::Value>, Error> {
        match self.iter.next() {
            Some((i, value)) => self
                .path
                .at(Segment::Index(i), seed.deserialize(PlainDe { value, path: self.path, ignored: None }).map(Some)),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}
