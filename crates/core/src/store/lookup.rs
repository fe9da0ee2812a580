//! Looking an entity up by a unique field other than its primary key (a slug,
//! an email), as data-client's `indexes` answer: through the field's declared
//! index ([`Entity::INDEXES`](crate::Entity::INDEXES)) in constant time, else
//! a scan of its table.

use crate::json::{Text, Value};
use crate::schema::{same_arg, EntityDef};
use crate::store::State;

impl State {
    /// The primary key of the live entity of table `key` whose field `field`
    /// is `value` (scalars compare by text, so `"7"` finds `7`): the first
    /// stored, should several share it. A field the type declares an index on
    /// (`#[entity(index = "email")]`) is a hash lookup; any other is a scan of
    /// the table: memoize what reads it, as
    /// [`Controller::entity_by`](https://docs.rs/rdc-controller) does through
    /// the table's version.
    ///
    /// ```
    /// use rdc_core::{json, Entity, State, WriteMeta};
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct User { id: u32, email: String }
    /// let mut state = State::default();
    /// let users = json!([{ "id": 1, "email": "ada@example.com" }, { "id": 2, "email": "bo@example.com" }]);
    /// state.write_entities(&rdc_core::Schema::array(User::schema()), users, &json!(null), WriteMeta::at(0, 1000))?;
    /// let pk = state.pk_where("User", "email", &json!("bo@example.com"));
    /// assert_eq!(pk.map(|pk| pk.as_str()), Some("2"));
    /// assert!(state.pk_where("User", "email", &json!("nobody@example.com")).is_none());
    /// # Ok::<(), rdc_core::NormalizeError>(())
    /// ```
    pub fn pk_where(&self, key: &str, field: &str, value: &Value) -> Option<&Text> {
        let table = self.entities.get(key);
        if let Some(found) = self.indexes.find(key, field, value, table) {
            return found;
        }
        table?.rows.iter().find_map(|(pk, row)| {
            let found = row.value.as_ref()?.get(field)?;
            same_arg(found, value).then_some(pk)
        })
    }

    /// Whether [`State::pk_where`] on table `key` and `field` looks through
    /// an index (declared by the type, and built: by a write of the type or
    /// by [`State::index_entity`]).
    ///
    /// ```
    /// use rdc_core::{json, Entity, State, WriteMeta};
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// #[entity(index = "slug")]
    /// struct Post { id: u32, slug: String, title: String }
    /// let mut state = State::default();
    /// assert!(!state.is_indexed("Post", "slug"));
    /// state.write_entities(&Post::schema(), json!({ "id": 1, "slug": "hello", "title": "Hi" }), &json!(null), WriteMeta::at(0, 1000))?;
    /// assert!(state.is_indexed("Post", "slug") && !state.is_indexed("Post", "title"));
    /// # Ok::<(), rdc_core::NormalizeError>(())
    /// ```
    pub fn is_indexed(&self, key: &str, field: &str) -> bool {
        self.indexes.has(key, field)
    }

    /// What the index alone answers for [`State::pk_where`] (for tests that
    /// compare it with a scan): `None` when no index answers (none built, or
    /// null, a list or an object asked for), `Some(None)` when none holds it.
    ///
    /// ```
    /// use rdc_core::{json, State};
    /// assert_eq!(State::default().pk_indexed("Post", "slug", &json!("hi")), None);
    /// ```
    #[doc(hidden)]
    pub fn pk_indexed(&self, key: &str, field: &str, value: &Value) -> Option<Option<&Text>> {
        self.indexes.find(key, field, value, self.entities.get(key))
    }

    /// Builds the indexes entity type `def` declares that this store has not
    /// built yet, from the rows it holds (a write of the type builds them
    /// too; a store loaded, taken up or sliced has none until then). Changes
    /// no data and no version.
    ///
    /// ```
    /// use rdc_core::{json, Entity, State, WriteMeta};
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// #[entity(index = "email")]
    /// struct User { id: u32, email: String }
    /// let mut state = State::default();
    /// state.write_entities(&User::schema(), json!({ "id": 1, "email": "ada@example.com" }), &json!(null), WriteMeta::at(0, 1000))?;
    /// // A saved copy comes back without its indexes.
    /// let mut loaded: State = serde_json::from_str(&serde_json::to_string(&state)?)?;
    /// assert!(!loaded.is_indexed("User", "email"));
    /// loaded.index_entity(User::DEF);
    /// assert!(loaded.is_indexed("User", "email"));
    /// assert_eq!(loaded.pk_where("User", "email", &json!("ada@example.com")).map(|pk| pk.as_str()), Some("1"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn index_entity(&mut self, def: &'static EntityDef) {
        if !def.indexes.is_empty() {
            self.indexes.ensure(def.key, def.indexes, self.entities.get(def.key));
        }
    }
}
