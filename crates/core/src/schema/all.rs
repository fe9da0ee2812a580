//! `All`: every entity of a type (or of several types) currently in the store.

use std::sync::Arc;

use crate::json::Value;

use super::polymorphic::{Chooser, Polymorphic};
use super::{Entity, EntityDef, Schema, SchemaOf};

/// Every cached entity of one type, or of several types chosen per item.
///
/// Normalizing a response through `All` stores its items like an array of
/// entities would. Reading it returns every entity of the type(s) in the store,
/// in the order they were first stored, leaving out deleted ones; if no entity of
/// the type(s) was ever stored the read finds nothing (so a hook fetches).
///
/// ```
/// use rdc_core::{entry, All, Entity, Schema};
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Link { id: u64 }
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Post { id: u64 }
/// let users: rdc_core::SchemaOf<Vec<User>> = All::of::<User>();
/// let feed: Schema = All::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")]).into();
/// let by_fn: Schema = All::by_function([entry::<Link>("links"), entry::<Post>("posts")], |value, _parent, _key| {
///     value.get("type").and_then(|t| t.as_str()).map(|t| format!("{t}s"))
/// }).into();
/// # let _ = (users, feed, by_fn);
/// ```
#[derive(Debug, Clone)]
pub enum All {
    /// One entity type.
    Single(&'static EntityDef),
    /// Several types, chosen per item.
    Poly(Polymorphic),
}

impl All {
    /// All entities of type `E`; it reads as `Vec<E>`.
    pub fn of<E: Entity>() -> SchemaOf<Vec<E>> {
        SchemaOf::unchecked(All::Single(E::DEF))
    }

    /// Several types; the item's `attribute` value is the mapping key.
    pub fn by_attribute(attribute: &str, mapping: impl IntoIterator<Item = (String, &'static EntityDef)>) -> All {
        All::Poly(Polymorphic {
            mapping: mapping.into_iter().collect(),
            chooser: Chooser::Attribute(attribute.to_owned()),
            invalidates: false,
        })
    }

    /// Several types; `choose(value, parent, key)` returns the mapping key.
    pub fn by_function(
        mapping: impl IntoIterator<Item = (String, &'static EntityDef)>,
        choose: impl Fn(&Value, &Value, &str) -> Option<String> + Send + Sync + 'static,
    ) -> All {
        All::Poly(Polymorphic {
            mapping: mapping.into_iter().collect(),
            chooser: Chooser::Function(Arc::new(choose)),
            invalidates: false,
        })
    }

    /// Merges more mapping entries into a polymorphic `All` (for definitions that
    /// refer to each other). On a singular `All`, the entries turn it polymorphic
    /// by the `type` attribute only if it has none yet; prefer the constructors.
    pub fn define(&mut self, more: impl IntoIterator<Item = (String, &'static EntityDef)>) -> &mut Self {
        let more: Vec<_> = more.into_iter().collect();
        match self {
            All::Poly(poly) => poly.define(more),
            All::Single(_) => {
                *self = All::Poly(Polymorphic {
                    mapping: more,
                    chooser: Chooser::Attribute("type".to_owned()),
                    invalidates: false,
                })
            }
        }
        self
    }

    /// The entity types this `All` reads.
    pub fn entity_defs(&self) -> Vec<&'static EntityDef> {
        match self {
            All::Single(def) => vec![*def],
            All::Poly(poly) => {
                let mut defs: Vec<&'static EntityDef> = Vec::new();
                for (_, def) in &poly.mapping {
                    if !defs.iter().any(|d| d.key == def.key) {
                        defs.push(def);
                    }
                }
                defs
            }
        }
    }
}

impl From<All> for Schema {
    fn from(all: All) -> Schema {
        Schema::All(Arc::new(all))
    }
}
