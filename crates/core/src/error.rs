//! Typed errors that say what went wrong and where.

use thiserror::Error;

/// Why a response could not be normalized. The store is unchanged when this is
/// returned: normalizing one response is all or nothing.
///
/// ```
/// use rdc_core::NormalizeError;
/// let e = NormalizeError::MissingPrimaryKey { entity: "User", path: "[2]".into() };
/// assert_eq!(e.to_string(), "User at [2] has no primary key");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NormalizeError {
    /// An entity object lacks (or has a non-scalar) primary key.
    #[error("{entity} at {path} has no primary key")]
    MissingPrimaryKey {
        /// The entity's type key.
        entity: &'static str,
        /// Where the entity sits in the response, e.g. `[2].author`.
        path: String,
    },
    /// A field does not deserialize into its declared type.
    #[error("{entity} at {path}: {message}")]
    InvalidField {
        /// The entity's type key.
        entity: &'static str,
        /// Path of the bad field in the response, e.g. `[0].price`.
        path: String,
        /// What serde said.
        message: String,
    },
    /// The schema expected another JSON shape here (e.g. an array).
    #[error("expected {expected} at {path}, found {found}")]
    UnexpectedShape {
        /// What the schema expects: `an array`, `an object`...
        expected: &'static str,
        /// What was there: `a string`, `null`...
        found: &'static str,
        /// Where in the response.
        path: String,
    },
    /// An entity's `process` or `validate` hook refused the value.
    #[error("{entity} at {path} was rejected: {reason}")]
    Rejected {
        /// The entity's type key.
        entity: &'static str,
        /// Where in the response.
        path: String,
        /// The hook's reason.
        reason: String,
    },
}

/// Why a typed read failed (as opposed to finding nothing, which is `Ok(None)`).
///
/// ```
/// use rdc_core::ReadError;
/// let e = ReadError::Type { path: "[0].name".into(), message: "invalid type".into() };
/// assert!(e.to_string().contains("[0].name"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReadError {
    /// The stored data does not fit the requested Rust type.
    #[error("cannot read {path} as the requested type: {message}")]
    Type {
        /// Path within the result, e.g. `[3].author.name`.
        path: String,
        /// What serde said.
        message: String,
    },
    /// Entities nested deeper than a read follows (a reply thread thousands
    /// long): the read fails rather than show the chain cut short.
    ///
    /// ```
    /// let e = rdc_core::ReadError::TooDeep { path: "parent.parent".into(), depth: 128 };
    /// assert_eq!(e.to_string(), "entities nested deeper than 128 at parent.parent");
    /// ```
    #[error("entities nested deeper than {depth} at {path}")]
    TooDeep {
        /// Path within the result of the entity past the bound.
        path: String,
        /// How deep a read follows.
        depth: usize,
    },
}
