//! Looking an entity up by a unique field other than its primary key (a slug,
//! an email): a scan of its table, as data-client's `indexes` answer.

use crate::json::{Text, Value};
use crate::schema::same_arg;
use crate::store::State;

impl State {
    /// The primary key of the live entity of table `key` whose field `field`
    /// is `value` (scalars compare by text, so `"7"` finds `7`): the first
    /// stored, should several share it. A scan of the table: memoize what
    /// reads it, as [`Controller::entity_by`](https://docs.rs/rdc-controller)
    /// does through the table's version.
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
        let table = self.entities.get(key)?;
        table.rows.iter().find_map(|(pk, row)| {
            let found = row.value.as_ref()?.get(field)?;
            same_arg(found, value).then_some(pk)
        })
    }
}
