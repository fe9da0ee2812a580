//! Lists read through their schema: arrays, collections and `All` tables, item by
//! item, dropping what no longer resolves.

use super::*;

/// Every list a read presents, as one type (so a `Vec<T>` visitor is built once).
pub(crate) enum List<'a, 's, 'c> {
    Items(Items<'a, 's, 'c>),
    Rows(AllRows<'a, 's, 'c>),
}

/// The next item of a [`List`] that is shown, and its index for error paths.
pub(crate) enum Item<'a, 's, 'c> {
    /// A value read through the list's item schema.
    Value(usize, ValueDe<'a, 's, 'c>),
    /// A row of an `All`, already looked up (`true`: as its type's variant),
    /// and its key as stored.
    Row(usize, EntityDe<'a, 'c>, bool, &'a crate::json::Text),
}

impl<'a, 's, 'c> List<'a, 's, 'c> {
    /// The next item shown (invalid entities are skipped).
    pub(crate) fn next_item(&mut self) -> Option<Item<'a, 's, 'c>> {
        match self {
            List::Items(items) => {
                let ctx = items.ctx;
                for (i, item) in items.items.by_ref() {
                    let shown = if items.tracked {
                        ctx.item_valid(i, items.schema, item)
                    } else {
                        resolves(ctx, items.schema, item)
                    };
                    if shown {
                        return Some(Item::Value(
                            i,
                            ValueDe { value: item, schema: items.schema, ctx, revisit: false, token: 0 },
                        ));
                    }
                }
                None
            }
            List::Rows(rows) => {
                let ctx = rows.ctx;
                for (def, key, row) in rows.rows.by_ref() {
                    let Some(object) = row.value.as_deref() else { continue };
                    if !ctx.entity_valid(def, key) {
                        continue;
                    }
                    let Some((pk, _, slot)) = ctx.lookup_fields(def, key, true) else { continue };
                    rows.read += 1;
                    let entity = EntityDe { def, pk, object, slot: Some(slot), ctx };
                    return Some(Item::Row(rows.read - 1, entity, matches!(rows.all, All::Poly(_)), key));
                }
                None
            }
        }
    }

    /// At most the items left (invalid ones are skipped): lets a `Vec` allocate once.
    pub(crate) fn size_hint(&self) -> usize {
        match self {
            List::Items(items) => items.items.len(),
            List::Rows(rows) => rows.rows.len(),
        }
    }

    /// The read's context.
    pub(crate) fn ctx(&self) -> &'c Ctx<'a> {
        match self {
            List::Items(items) => items.ctx,
            List::Rows(rows) => rows.ctx,
        }
    }
}

impl<'a> SeqAccess<'a> for List<'a, '_, '_> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'a>>(&mut self, seed: S) -> Result<Option<S::Value>, Error> {
        let path = &self.ctx().path;
        match self.next_item() {
            None => Ok(None),
            Some(Item::Value(i, item)) => path.at(Segment::Index(i), seed.deserialize(item).map(Some)),
            Some(Item::Row(i, entity, false, _)) => path.at(Segment::Index(i), seed.deserialize(entity).map(Some)),
            Some(Item::Row(i, entity, true, _)) => {
                path.at(Segment::Index(i), seed.deserialize(Tagged(entity)).map(Some))
            }
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(List::size_hint(self))
    }
}

/// Items of a list, leaving out entities that are deleted or invalid.
pub(crate) struct Items<'a, 's, 'c> {
    pub(super) items: std::iter::Enumerate<std::slice::Iter<'a, Value>>,
    pub(super) schema: &'s Schema,
    pub(super) ctx: &'c Ctx<'a>,
    /// The read's top-level list, of references that keep verdicts: validity
    /// through [`Ctx::item_valid`].
    pub(super) tracked: bool,
}

/// Whether an item of a list or map is shown: entity references must be valid.
pub(crate) fn resolves(ctx: &Ctx<'_>, schema: &Schema, item: &Value) -> bool {
    !is_reference(schema) || ctx.value_valid(schema, Some(item))
}

/// Whether a schema stands for a single entity reference.
pub(crate) fn is_reference(schema: &Schema) -> bool {
    match schema {
        Schema::Entity(_) | Schema::Union(_) | Schema::Invalidate(_) | Schema::Cyclic(_) => true,
        Schema::CollectionEdit(c, edit) => is_reference(c.edited(*edit)),
        _ => false,
    }
}

/// The rows of an `All`, live and valid ones only.
pub(crate) struct AllRows<'a, 's, 'c> {
    pub(super) rows: std::vec::IntoIter<(&'static EntityDef, &'a crate::json::Text, &'a StoredEntity)>,
    /// Items read so far (the index an error reports).
    pub(super) read: usize,
    pub(super) all: &'s All,
    pub(super) ctx: &'c Ctx<'a>,
}
