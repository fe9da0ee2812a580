//! # rdc-rest
//!
//! `RestEndpoint`: path templates, the overridable fetch pipeline, binary bodies and
//! the transform recipes of the specification.
#![deny(missing_docs)]
