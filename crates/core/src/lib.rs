//! # rdc-core
//!
//! The framework-free heart of rdc: schemas, the normalized store and memoized
//! typed reads (the controller over them is `rdc-controller`). No web or Leptos
//! dependency; every rule here is tested natively with `cargo test`. Core never reads a clock: times
//! are passed in as milliseconds.
//!
//! ```
//! use rdc_core::{All, Entity, MemoCache, Schema, State, WriteMeta};
//! use serde::Deserialize;
//! use rdc_core::json;
//!
//! #[derive(Debug, Deserialize, Entity)]
//! struct User { id: String, name: String }
//!
//! let mut state = State::default();
//! state.write_result("GET /users", &All::of::<User>().into(), json!([{"id": "1", "name": "Ada"}]), &json!(null), WriteMeta::at(0, 60_000))?;
//! let mut memo = MemoCache::default();
//! let users = memo.read::<Vec<User>>(&state, "all users", &All::of::<User>().into(), &json!(null))?.unwrap();
//! assert_eq!(users[0].name, "Ada");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable, clippy::indexing_slicing)
)]

extern crate self as rdc_core;

mod error;
pub mod fields;
mod identity;
/// rdc's JSON value (the `rdc-json` crate).
pub use rdc_json as json;
/// `json!`: a JSON value written as JSON.
pub use rdc_json::json;
mod normalize;
mod read;
mod schema;
use rdc_json::sort;
mod store;

pub use error::{NormalizeError, ReadError};
pub use identity::ByAddress;
pub use normalize::lazy_as_keys;
pub use rdc_macros::{Entity, Schema};
pub use read::path::deserialize_at;
pub use read::{denormalize, MemoCache, Pk, Query, ReadFn, ReadListFn};
pub use schema::Millis;
pub use schema::{
    canonical_text, composite_pk, entry, json_text, pk_string, All, ChooseFn, Chooser, Collection, Entity, EntityDef,
    FieldError, Found, HasSchema, ListEdit, NestedField, Object, ObjectSchema, Polymorphic, Scalar, ScalarSchema,
    Schema, SchemaOf, Union,
};
pub use schema::{Lazy, LazyKeys, LazyQuery};
pub use store::{
    field_bit, fields_changed, sort_rows, ChangeMark, Changes, EntityMeta, EntityTable, ErrorEntry, FastMap, FieldMask,
    ResultEntry, ResultMeta, Row, RowChange, State, StoredEntity, Swept, TakenBack, Topic, TopicFields, TopicKind,
    WriteMeta, LAYOUT,
};

/// Re-exports the derive's generated code relies on. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use serde;
    pub use serde_json;

    pub use crate::read::generated::{
        fill, object_schema, read_list, uses_reader, EntityReader, Filled, ListReader, Member, Probe, ReadSerde,
        ReadStored, Reader, Slot, StoredField,
    };
    pub use crate::read::path::deserialize_at;
    pub use crate::schema::assert_lazy_keys;

    /// Checks that a field is a string without allocating it (field checks at
    /// normalize time use it in place of `String`).
    #[derive(Debug, Default, Clone, Copy)]
    pub struct AnyStr;

    impl<'de> serde::Deserialize<'de> for AnyStr {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = AnyStr;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a string")
                }
                fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<AnyStr, E> {
                    Ok(AnyStr)
                }
            }
            deserializer.deserialize_str(V)
        }
    }

    /// The field check of a field whose type is named `Text`: rdc's
    /// [`Text`](crate::json::Text) is checked as [`AnyStr`] (no string handed
    /// over, nothing to drop); any other type of that name is deserialized.
    #[derive(Debug, Default, Clone, Copy)]
    pub struct TextCheck<T>(std::marker::PhantomData<T>);

    impl<'de, T: serde::Deserialize<'de> + 'static> serde::Deserialize<'de> for TextCheck<T> {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            // Decided when `T` is known: one arm is compiled away.
            if std::any::TypeId::of::<T>() == std::any::TypeId::of::<crate::json::Text>() {
                AnyStr::deserialize(deserializer)?;
            } else {
                T::deserialize(deserializer)?;
            }
            Ok(TextCheck(std::marker::PhantomData))
        }
    }
}
