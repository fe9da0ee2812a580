//! A read from its input: whether it finds anything, then the value read through
//! its schema. Every read, memoized or not, starts here.

use serde::de::DeserializeOwned;

use super::ctx::Ctx;
use super::generated;
use crate::error::ReadError;
use crate::json::Value;
use crate::schema::{pk_string_ref, Schema};
use crate::store::State;

/// Reads `input` (a normalized value, e.g. a stored result) through `schema`
/// into `T`, without memoization. `Ok(None)` means "not found": an entity that is
/// missing, deleted or invalid, or an `All` whose types were never stored.
///
/// ```
/// # use rdc_core::{denormalize, Entity, State, WriteMeta};
/// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// let mut state = State::default();
/// state.write_entities(&User::schema(), rdc_core::json!({"id": "1", "name": "Ada"}), &rdc_core::json::Value::Null, WriteMeta::at(0, 1000)).unwrap();
/// let user: User = denormalize(&state, &User::schema(), &rdc_core::json!("1")).unwrap().unwrap();
/// assert_eq!(user.name, "Ada");
/// ```
pub fn denormalize<T: DeserializeOwned + 'static>(
    state: &State,
    schema: &Schema,
    input: &Value,
) -> Result<Option<T>, ReadError> {
    let ctx = Ctx::unrecorded(state);
    read_with(&ctx, schema, input)
}

/// Reads through an existing context (so the caller can collect its dependencies).
pub(crate) fn read_with<'a, T: DeserializeOwned + 'static>(
    ctx: &Ctx<'a>,
    schema: &Schema,
    input: &'a Value,
) -> Result<Option<T>, ReadError> {
    if !found(ctx, schema, input) {
        return Ok(None);
    }
    ctx.set_root(input);
    generated::read_value::<T>(ctx, schema, input, false).map(Some).map_err(|err| match ctx.too_deep.get() {
        true => ReadError::TooDeep { path: ctx.path.render(), depth: super::ctx::MAX_DEPTH },
        false => ReadError::Type { path: ctx.path.render(), message: err.to_string() },
    })
}

/// Whether a top-level read finds something (see [`denormalize`]).
fn found(ctx: &Ctx<'_>, schema: &Schema, input: &Value) -> bool {
    match schema {
        Schema::Entity(def) => match pk_string_ref(input) {
            // Records the row's liveness (or its table, when missing): a later
            // write that matters wakes the read.
            Some(pk) => ctx.entity_valid(def, &pk),
            None => false,
        },
        Schema::Union(_) | Schema::Invalidate(_) => ctx.value_valid(schema, Some(input)),
        Schema::All(all) => ctx.all_stored(all),
        Schema::Cyclic(_) => found(ctx, &schema.resolved(), input),
        Schema::CollectionEdit(c, edit) => found(ctx, c.edited(*edit), input),
        Schema::Collection(collection) => {
            pk_string_ref(input).is_some_and(|pk| ctx.lookup(collection.def, &pk).is_some())
        }
        // Read as stored: nothing to look up.
        Schema::Array(_) | Schema::Object(_) | Schema::Values(_) | Schema::Lazy(_) | Schema::Scalar(_) => true,
    }
}
