//! An object's members read through their schemas, as a serde map.

use super::*;

/// Which members of an object have schemas.
#[derive(Clone, Copy)]
pub(super) enum Fields<'s> {
    /// An entity's nested fields.
    Nested(&'static [NestedField]),
    /// An `Object` schema's named members.
    Named(&'s [(String, Schema)]),
    /// A `Values` schema: every member.
    All(&'s Schema),
}

impl<'s> Fields<'s> {
    /// The schema of member `name`, and whether it is required (not an `Option`).
    fn get(&self, name: &str) -> Option<(&'s Schema, bool)> {
        match self {
            Fields::Nested(fields) => fields.iter().find(|f| same(f.name, name)).map(|f| (&f.schema, f.required)),
            Fields::Named(fields) => fields.iter().find(|(n, _)| same(n, name)).map(|(_, s)| (s, true)),
            Fields::All(schema) => Some((schema, true)),
        }
    }
}

/// The members of an entity or object; schema'd members are read through
/// their schema, unresolvable references are left out (an `Option` reads `None`).
///
/// For an entity, `track` is its dependency slot and a token: each value a
/// visitor does not ignore marks its position as read, so a later change to the
/// other fields leaves the read as it was.
pub(crate) struct Members<'a, 's, 'c> {
    pub(super) iter: crate::json::Iter<'a>,
    pub(super) fields: Fields<'s>,
    pub(super) pending: Option<(&'a str, &'a Value, Option<&'s Schema>)>,
    pub(super) ctx: &'c Ctx<'a>,
    pub(super) revisit: bool,
    pub(super) track: Option<(usize, u32)>,
    /// Position in the object of the next key `iter` yields.
    pub(super) position: usize,
    /// Positions read so far (given to the dependency once all keys were seen).
    pub(super) read: u64,
}

impl<'a, 's, 'c> MapAccess<'a> for Members<'a, 's, 'c> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'a>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        for (name, value) in self.iter.by_ref() {
            self.position += 1;
            let field = self.fields.get(name);
            if let Some((schema, required)) = field {
                // In a cycle, optional references are cut so the value stays finite.
                if self.revisit && !required && is_reference(schema) {
                    continue;
                }
                if !value.is_null() && !resolves(self.ctx, schema, value) {
                    // Left out because of its value: the read depends on it.
                    self.read |= 1u64.checked_shl((self.position - 1) as u32).unwrap_or(0);
                    continue;
                }
            }
            // A lazy field is read as plain JSON: its keys, as stored.
            let schema = field.map(|(schema, _)| schema).filter(|schema| !matches!(schema, Schema::Lazy(_)));
            self.pending = Some((name, value, schema));
            return seed.deserialize(BorrowedStrDeserializer::<Error>::new(name)).map(Some);
        }
        if let Some((slot, _)) = self.track {
            self.ctx.fields_read(slot, self.read);
        }
        Ok(None)
    }

    fn next_value_seed<S: DeserializeSeed<'a>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let ctx = self.ctx;
        let token = self.track.map_or(0, |(_, token)| token);
        if token != 0 {
            ctx.ignored.set(0);
        }
        let (name, read) = match self.pending.take() {
            Some((name, value, Some(schema))) => {
                (name, seed.deserialize(ValueDe { value, schema, ctx, revisit: self.revisit, token }))
            }
            Some((name, value, None)) => {
                let ignored = (token != 0).then_some((&ctx.ignored, token));
                (name, seed.deserialize(PlainDe { value, path: &ctx.path, ignored }))
            }
            None => return Err(de::Error::custom("value requested before key")),
        };
        if let Some((_, token)) = self.track {
            if ctx.ignored.get() != token {
                // Positions past 63 always count (see `Dep::Entity`).
                self.read |= 1u64.checked_shl((self.position - 1) as u32).unwrap_or(0);
            }
        }
        ctx.path.at(Segment::Field(name), read)
    }
}
