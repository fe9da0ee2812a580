//! Whether a schema can hold entities of a type: what invalidating one
//! entity type everywhere asks of each stored result.

use super::{EntityDef, Schema};

impl Schema {
    /// Whether a value read through this schema can hold entities stored
    /// under `type_key`, directly or nested in other entities (an empty
    /// list of them counts: it may hold some once fetched again).
    ///
    /// ```
    /// use rdc_core::{Entity, Schema};
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// struct Post { id: String }
    /// #[derive(serde::Deserialize, rdc_core::Entity)]
    /// struct User { id: String, #[entity(nested)] posts: Vec<Post> }
    /// let users = Schema::array(User::schema());
    /// assert!(users.holds("Post") && users.holds("User"));
    /// assert!(!Schema::array(Post::schema()).holds("User"));
    /// ```
    pub fn holds(&self, type_key: &str) -> bool {
        self.reaches(|schema| match schema {
            Schema::Entity(def) | Schema::Invalidate(def) => def.key == type_key,
            Schema::Union(poly) => poly.mapping.iter().any(|(_, def)| def.key == type_key),
            Schema::All(all) => all.entity_defs().into_iter().any(|def| def.key == type_key),
            Schema::Collection(collection) | Schema::CollectionEdit(collection, _) => collection.def.key == type_key,
            _ => false,
        })
    }

    /// Whether this schema has a [`Lazy`](super::Lazy) part, directly or in
    /// the entities it holds: then a response reads back otherwise than sent
    /// (see [`lazy_as_keys`](crate::lazy_as_keys)).
    ///
    /// ```
    /// use rdc_core::{Entity, Pk, Schema};
    /// #[derive(serde::Deserialize, Entity)]
    /// struct Building { id: String }
    /// #[derive(serde::Deserialize, Entity)]
    /// struct Department { id: String, #[entity(lazy = "Building")] main: Pk }
    /// assert!(Schema::array(Department::schema()).has_lazy());
    /// assert!(!Schema::array(Building::schema()).has_lazy());
    /// ```
    pub fn has_lazy(&self) -> bool {
        self.reaches(|schema| matches!(schema, Schema::Lazy(_)))
    }

    /// Whether `hit` is true of this schema or of one it reaches (members,
    /// items, the fields of its entities), each met once.
    fn reaches(&self, mut hit: impl FnMut(&Schema) -> bool) -> bool {
        // An explicit stack and the entity types seen: nested and cyclic
        // schemas may refer back to themselves.
        let mut todo = vec![self.clone()];
        let mut seen: Vec<&'static EntityDef> = Vec::new();
        let mut entity = |def: &'static EntityDef, todo: &mut Vec<Schema>| {
            if !seen.iter().any(|s| std::ptr::eq(*s, def)) {
                seen.push(def);
                todo.extend((def.nested)().iter().map(|field| field.schema.clone()));
            }
        };
        let mut cycles: Vec<fn() -> Schema> = Vec::new();
        while let Some(schema) = todo.pop() {
            if hit(&schema) {
                return true;
            }
            match schema {
                Schema::Entity(def) | Schema::Invalidate(def) => entity(def, &mut todo),
                Schema::Array(inner) | Schema::Values(inner) => todo.push((*inner).clone()),
                Schema::Object(fields) => todo.extend(fields.iter().map(|(_, field)| field.clone())),
                Schema::Union(poly) => poly.mapping.iter().for_each(|(_, def)| entity(def, &mut todo)),
                Schema::All(all) => all.entity_defs().into_iter().for_each(|def| entity(def, &mut todo)),
                Schema::Collection(collection) | Schema::CollectionEdit(collection, _) => {
                    todo.push(collection.items_schema());
                }
                // A columns value holds the cells of entities, not entities.
                Schema::Scalar(_) => {}
                // Its value holds keys, but the result brought their entities:
                // fetching it again is what refreshes them.
                Schema::Lazy(inner) => todo.push((*inner).clone()),
                Schema::Cyclic(make) => {
                    if !cycles.iter().any(|l| std::ptr::fn_addr_eq(*l, make)) {
                        cycles.push(make);
                        todo.push(make());
                    }
                }
            }
        }
        false
    }
}
