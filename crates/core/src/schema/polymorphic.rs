//! Choosing one entity type per value: shared by [`Union`] and polymorphic [`All`](super::All).

use std::fmt;
use std::sync::Arc;

use crate::json::Value;

use super::{Entity, EntityDef, Schema};

/// A function of `(value, parent, key)` returning the mapping key of `value`.
pub type ChooseFn = Arc<dyn Fn(&Value, &Value, &str) -> Option<String> + Send + Sync>;

/// How a polymorphic schema picks the mapping key of a value.
#[derive(Clone)]
pub enum Chooser {
    /// The value of this attribute is the mapping key (e.g. `type`).
    Attribute(String),
    /// A function of `(value, parent, key)` returns the mapping key.
    Function(ChooseFn),
}

impl fmt::Debug for Chooser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Chooser::Attribute(name) => write!(f, "Attribute({name:?})"),
            Chooser::Function(_) => f.write_str("Function(..)"),
        }
    }
}

/// A mapping from choice to entity type, and how to choose.
///
/// Normalized references look like `{"id": pk, "schema": choice}`; a value whose
/// choice is not in the mapping is kept as it is and creates no entity.
#[derive(Debug, Clone)]
pub struct Polymorphic {
    pub(crate) mapping: Vec<(String, &'static EntityDef)>,
    pub(crate) chooser: Chooser,
    /// Whether the chosen entity is deleted rather than stored (see
    /// [`Union::invalidate`]).
    pub(crate) invalidates: bool,
}

impl Polymorphic {
    /// The entity type and pk a stored union reference `{"id", "schema"}`
    /// names; `None` for a value that passed through unmapped.
    pub(crate) fn reference(&self, value: &Value) -> Option<(&'static EntityDef, String)> {
        let def = self.entity_for(value.get("schema")?.as_str()?)?;
        let pk = super::pk_string_ref(value.get("id")?)?;
        Some((def, pk.into_owned()))
    }

    /// The mapping key chosen for `value` found under `key` of `parent`.
    pub fn choose(&self, value: &Value, parent: &Value, key: &str) -> Option<String> {
        match &self.chooser {
            Chooser::Attribute(name) => match value.get(name)? {
                Value::String(s) => Some(s.to_string()),
                other => Some(crate::json_text(other)),
            },
            Chooser::Function(f) => f(value, parent, key),
        }
    }

    /// The entity type mapped to `choice`.
    pub fn entity_for(&self, choice: &str) -> Option<&'static EntityDef> {
        self.mapping.iter().find(|(k, _)| k == choice).map(|(_, def)| *def)
    }

    /// Merges `more` into the mapping (later entries replace same keys).
    pub(crate) fn define(&mut self, more: Vec<(String, &'static EntityDef)>) {
        for (key, def) in more {
            match self.mapping.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = def,
                None => self.mapping.push((key, def)),
            }
        }
    }
}

/// Builds a mapping entry: `("link", entry::<Link>())`.
///
/// ```
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Link { id: u64 }
/// let entry = rdc_core::entry::<Link>("link");
/// assert_eq!(entry.0, "link");
/// ```
pub fn entry<E: Entity>(choice: &str) -> (String, &'static EntityDef) {
    (choice.to_owned(), E::DEF)
}

/// A single value that is one of several entity types.
///
/// ```
/// use rdc_core::{entry, Schema, Union};
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Link { id: u64 }
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Post { id: u64 }
/// let item: Schema = Union::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")]);
/// # let _ = item;
/// ```
#[derive(Debug)]
pub struct Union;

impl Union {
    /// Chooses by the value of `attribute`.
    pub fn by_attribute(attribute: &str, mapping: impl IntoIterator<Item = (String, &'static EntityDef)>) -> Schema {
        Schema::Union(Arc::new(Polymorphic {
            mapping: mapping.into_iter().collect(),
            chooser: Chooser::Attribute(attribute.to_owned()),
            invalidates: false,
        }))
    }

    /// Chooses by a function of `(value, parent, key)`.
    pub fn by_function(
        mapping: impl IntoIterator<Item = (String, &'static EntityDef)>,
        choose: impl Fn(&Value, &Value, &str) -> Option<String> + Send + Sync + 'static,
    ) -> Schema {
        Schema::Union(Arc::new(Polymorphic {
            mapping: mapping.into_iter().collect(),
            chooser: Chooser::Function(Arc::new(choose)),
            invalidates: false,
        }))
    }

    /// The schema of an endpoint that deletes one entity of several types
    /// (data-client's `Invalidate` of a `Union`): `union`'s choice picks the
    /// type of the value answered (the entity, or enough of it for its pk and
    /// the choice), and that entity is deleted, as [`Schema::invalidate`]
    /// deletes one of a single type. A value whose choice is not mapped
    /// deletes nothing and passes through; one without a pk is refused
    /// (`MissingPrimaryKey`) and nothing changes. An entity schema gives its
    /// `Invalidate`, a list deletes each of its items, a `Cyclic` schema is
    /// built first; other schemas come back unchanged (they store, not delete).
    ///
    /// ```
    /// use rdc_core::{entry, json, Entity, Schema, State, Union, WriteMeta};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Link { id: u64 }
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Post { id: u64 }
    /// let item = Union::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")]);
    /// let mut state = State::default();
    /// let feed = json!([{ "id": 1, "type": "link" }, { "id": 1, "type": "post" }]);
    /// state.write_entities(&Schema::array(item.clone()), feed, &json!(null), WriteMeta::at(0, 1000))?;
    /// state.write_entities(&Union::invalidate(&item), json!({ "id": 1, "type": "post" }), &json!(null), WriteMeta::at(1, 1000))?;
    /// assert!(state.entity("Link", "1").is_some() && state.entity("Post", "1").is_none());
    /// # Ok::<(), rdc_core::NormalizeError>(())
    /// ```
    pub fn invalidate(union: &Schema) -> Schema {
        match union {
            Schema::Union(poly) => Schema::Union(Arc::new(Polymorphic { invalidates: true, ..(**poly).clone() })),
            Schema::Entity(def) => Schema::Invalidate(def),
            Schema::Array(items) => Schema::Array(Arc::new(Union::invalidate(items))),
            Schema::Cyclic(build) => Union::invalidate(&build()),
            Schema::Lazy(inner) => Schema::lazy(Union::invalidate(inner)),
            other => other.clone(),
        }
    }
}
