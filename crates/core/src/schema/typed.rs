//! `SchemaOf<T>`: a schema together with the Rust type its data reads as, so an
//! endpoint's result type follows from its schema.

use std::fmt;
use std::marker::PhantomData;

use super::{HasSchema, Schema};
use crate::json::Value;

/// A [`Schema`] whose data reads as `T`: an entity's schema reads as the entity,
/// `All::of::<E>()` and lists of `E` as `Vec<E>`, a `#[derive(Schema)]` struct's
/// as the struct. Endpoints built from one yield `T` with no type to name.
/// It derefs to the untyped [`Schema`].
///
/// ```
/// use rdc_core::{All, Entity, SchemaOf};
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
/// let one: SchemaOf<User> = User::schema();
/// let all: SchemaOf<Vec<User>> = All::of::<User>();
/// let list: SchemaOf<Vec<User>> = SchemaOf::of();   // from the type: an array of users
/// # let _ = (one, all, list);
/// ```
pub struct SchemaOf<T> {
    schema: Schema,
    reads_as: PhantomData<fn() -> T>,
}

impl<T> SchemaOf<T> {
    /// `schema`, read as `T` on your word: for what the compiler cannot check
    /// (a union read into an enum, a schema built at run time).
    ///
    /// ```
    /// use rdc_core::{entry, SchemaOf, Union};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Link { id: u64 }
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Post { id: u64 }
    /// # #[derive(serde::Deserialize)] #[serde(untagged)] enum FeedItem { Link(Link), Post(Post) }
    /// let feed = SchemaOf::<Vec<FeedItem>>::unchecked(rdc_core::Schema::array(
    ///     Union::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")]),
    /// ));
    /// # let _ = feed;
    /// ```
    pub fn unchecked(schema: impl Into<Schema>) -> SchemaOf<T> {
        SchemaOf { schema: schema.into(), reads_as: PhantomData }
    }

    /// The untyped schema.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The untyped schema, by value.
    pub fn into_schema(self) -> Schema {
        self.schema
    }
}

impl<T: HasSchema> SchemaOf<T> {
    /// The schema the type itself names: `SchemaOf::<User>::of()`,
    /// `SchemaOf::<Vec<User>>::of()` (an array), a `#[derive(Schema)]` struct's.
    pub fn of() -> SchemaOf<T> {
        SchemaOf::unchecked(T::schema())
    }
}

impl<T> SchemaOf<Vec<T>> {
    /// A list of `item`.
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
    /// use rdc_core::{Entity, SchemaOf};
    /// let users: SchemaOf<Vec<User>> = SchemaOf::list(User::schema());
    /// # let _ = users;
    /// ```
    pub fn list(item: SchemaOf<T>) -> SchemaOf<Vec<T>> {
        SchemaOf::unchecked(Schema::array(item.schema))
    }
}

impl<T> Clone for SchemaOf<T> {
    fn clone(&self) -> Self {
        SchemaOf::unchecked(self.schema.clone())
    }
}

impl<T> fmt::Debug for SchemaOf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.schema.fmt(f)
    }
}

impl<T> std::ops::Deref for SchemaOf<T> {
    type Target = Schema;
    fn deref(&self) -> &Schema {
        &self.schema
    }
}

impl<T> From<SchemaOf<T>> for Schema {
    fn from(typed: SchemaOf<T>) -> Schema {
        typed.schema
    }
}

/// An untyped schema reads as JSON.
impl From<Schema> for SchemaOf<Value> {
    fn from(schema: Schema) -> SchemaOf<Value> {
        SchemaOf::unchecked(schema)
    }
}
