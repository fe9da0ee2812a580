//! `Pk`: an entity reference read as its primary key, without reading the entity.

use serde::de::{self, Deserialize, Deserializer, Visitor};

use crate::json::Text;

/// The name `Pk` asks for; rdc's deserializers answer it with the reference's key.
pub(crate) const PK_MARKER: &str = "$rdc::Pk";

/// The primary key of an entity in a read, taken from the reference: the entity
/// itself is not read, so the read does not depend on its fields (only on it
/// being valid). Read a list as `Vec<Pk>` and each row with `use_entity`, and a
/// change to one entity wakes its row alone. In plain JSON (no schema) a `Pk`
/// reads a string or an integer. A key read from the store shares the stored
/// text (the reference's, or the row key of an `All` of one type), as a
/// [`Text`] field does (no copy per read; like any
/// stored string, it keeps the text of the response it came in alive while it
/// is kept), and cloning one shares it too (a list's keys handed to `<For>` on
/// every render cost no copies).
///
/// ```
/// # use rdc_core::{Entity, MemoCache, Pk, Schema, State, WriteMeta};
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// let mut state = State::default();
/// let users = rdc_core::json!([{"id": "a", "name": "Ada"}, {"id": "b", "name": "Bob"}]);
/// let schema = Schema::array(User::schema());
/// state.write_result("GET /users", &schema, users, &rdc_core::json::Value::Null, WriteMeta::at(0, 1000)).unwrap();
/// let keys = MemoCache::default().read_result::<Vec<Pk>>(&state, "GET /users", &schema).unwrap().unwrap();
/// assert_eq!(keys.iter().map(|k| k.as_str()).collect::<Vec<_>>(), ["a", "b"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pk(pub Text);

impl Pk {
    /// The key's text.
    ///
    /// ```
    /// assert_eq!(rdc_core::Pk::from("u1").as_str(), "u1");
    /// ```
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl From<&str> for Pk {
    fn from(pk: &str) -> Self {
        Pk(Text::from(pk))
    }
}

impl From<String> for Pk {
    fn from(pk: String) -> Self {
        Pk(Text::from(pk))
    }
}

impl std::fmt::Display for Pk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Pk {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Pk {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Pk, D::Error> {
        deserializer.deserialize_newtype_struct(PK_MARKER, PkVisitor)
    }
}

/// Takes a string or a number (plain JSON ids), or the key rdc hands over.
struct PkVisitor;

impl<'de> Visitor<'de> for PkVisitor {
    type Value = Pk;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an entity reference or a primary key")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<Pk, D::Error> {
        deserializer.deserialize_any(PkVisitor)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Pk, E> {
        // The stored string itself when a read of the store hands it over.
        Ok(Pk(crate::json::take_handed(v).unwrap_or_else(|| Text::from(v))))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Pk, E> {
        Ok(Pk::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Pk, E> {
        Ok(Pk::from(crate::schema::integer_text(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Pk, E> {
        Ok(Pk::from(crate::schema::integer_text(v)))
    }
}
