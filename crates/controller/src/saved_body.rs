//! A mutation's body as JSON, so a mutation held offline can be saved with
//! the store and sent again after a reload (`Persist::replay`).

use rdc_core::json::Value;

/// A body an endpoint sends that can be saved as JSON and read back: what
/// [`Persist::replay`](crate::Persist::replay) asks of the endpoints whose
/// held mutations outlive the page. JSON is saved as it is; a body that
/// cannot be saved (a file) answers `None`, and its mutation is reported
/// after the reload instead of sent.
///
/// ```
/// use rdc_controller::SavedBody;
/// use rdc_core::json;
/// let body = json!({ "title": "milk" });
/// let saved = body.to_saved().unwrap();
/// assert_eq!(rdc_core::json::Value::from_saved(saved), Ok(body));
/// ```
pub trait SavedBody: Sized {
    /// The body as JSON, or `None` when it cannot be saved.
    fn to_saved(&self) -> Option<Value>;

    /// The body read back from what [`SavedBody::to_saved`] made.
    ///
    /// # Errors
    /// Why `saved` is not such a body (saved data is not trusted).
    fn from_saved(saved: Value) -> Result<Self, String>;
}

impl SavedBody for Value {
    fn to_saved(&self) -> Option<Value> {
        Some(self.clone())
    }

    fn from_saved(saved: Value) -> Result<Value, String> {
        Ok(saved)
    }
}

impl SavedBody for () {
    fn to_saved(&self) -> Option<Value> {
        Some(Value::Null)
    }

    fn from_saved(saved: Value) -> Result<(), String> {
        match saved {
            Value::Null => Ok(()),
            _ => Err("expected no body (null)".to_owned()),
        }
    }
}
