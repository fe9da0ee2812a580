//! Whether entities, list items and values are valid: live, with their required
//! references valid too (cycles count as valid).

use super::*;
use crate::read::prior::Verdict;

impl<'a> Ctx<'a> {
    /// Whether `pk` names a live entity of `def` whose required nested entities
    /// are valid too. Entities already being checked count as valid (cycles).
    pub fn entity_valid(&self, def: &'static EntityDef, pk: &str) -> bool {
        let (table, found) = self.find(def, pk);
        let Some((index, _, row)) = found else {
            // It may be stored later: any write to its table counts.
            self.depend(Dep::Table { key: def.key, version: table.map_or(0, |t| t.version) });
            return false;
        };
        let Some(object) = row.value.as_deref() else {
            self.depend_alive(def.key, index, false);
            return false;
        };
        let shape = self.validity_of(def);
        if shape.deciding == 0 {
            self.depend_alive(def.key, index, true);
            return true;
        }
        // Its validity also depends on where its required references point.
        let references = |ctx: &Self| {
            if ctx.record {
                let read = required_positions(object, shape.nested, shape.deciding);
                ctx.depend(Dep::Entity { key: def.key, index, version: row.version, seen: row.value.clone(), read });
            }
        };
        let references_valid = |ctx: &Self| {
            let mut deciding = shape.nested.iter().filter(|f| decides_validity(f));
            deciding.all(|field| ctx.value_valid(&field.schema, object.get(field.name)))
        };
        if shape.leaves_only {
            // Its required references lead to entities that require nothing:
            // no cycle can come back here, so nothing needs remembering.
            references(self);
            return references_valid(self);
        }
        let slot = (ByAddress(def.key), index);
        if let Some(known) = self.valid.borrow().as_ref().and_then(|v| v.get(&slot)) {
            // Its dependencies were recorded on the first visit.
            return *known;
        }
        references(self);
        // Provisionally valid, so a cycle back here ends; what is decided on
        // that assumption is forgotten if it turns out false.
        let mark = self.valid_order.borrow().len();
        self.valid.borrow_mut().get_or_insert_with(FastMap::default).insert(slot, true);
        self.valid_order.borrow_mut().push(slot);
        // A chain of required references deeper than a read follows cannot be
        // read whole: its head is invalid (and the walk stays bounded).
        let depth = self.checking.get();
        self.checking.set(depth + 1);
        let valid = depth < MAX_DEPTH && references_valid(self);
        self.checking.set(depth);
        if !valid {
            let later: Vec<_> = self.valid_order.borrow_mut().drain(mark + 1..).collect();
            if let Some(known) = self.valid.borrow_mut().as_mut() {
                for slot in later {
                    known.remove(&slot);
                }
            }
        }
        self.valid.borrow_mut().get_or_insert_with(FastMap::default).insert(slot, valid);
        valid
    }

    /// Whether the items of a tracked list of `schema` keep verdicts: only
    /// where a check records every dependency it looked at, references to
    /// entity types whose required references require nothing (others
    /// remember validity within a read, so a later item's check would record
    /// less).
    pub fn keeps_verdicts(&self, schema: &Schema) -> bool {
        match schema {
            Schema::Entity(def) | Schema::Invalidate(def) => self.validity_of(def).leaves_only,
            _ => false,
        }
    }

    /// Whether item `position` of the tracked list resolves (`schema` a
    /// reference that [keeps verdicts](Ctx::keeps_verdicts)): the previous
    /// read's verdict while what decided it holds, otherwise decided again;
    /// either way its dependencies are recorded.
    pub fn item_valid(&self, position: usize, schema: &Schema, item: &Value) -> bool {
        let start = self.next_dep();
        let reused = self.prior.as_ref().and_then(|prior| {
            // The same reference in the previous list: looked for after the last
            // one found, one further (an item went), then at the same position.
            // So a list with items added, removed or one moved reuses the rest.
            let old = prior.list.source.items();
            let cursor = self.cursor.get();
            let at = [cursor, cursor + 1, position].into_iter().find(|&j| old.get(j) == Some(item))?;
            self.cursor.set(at + 1);
            let verdict = (*prior.list.verdicts.get(at)?)?;
            let range = verdict.deps_from as usize..verdict.deps_to as usize;
            let holds = prior.changed.get(range.clone())?.iter().all(|changed| !changed);
            (holds && prior.deps.borrow_mut().reuse(range.start, range.end, &self.deps)).then_some(verdict.valid)
        });
        let valid = reused.unwrap_or_else(|| {
            self.exact.set(true);
            let valid = self.value_valid(schema, Some(item));
            self.exact.set(false);
            valid
        });
        let end = self.next_dep();
        if let Some(slot) = self.list.borrow_mut().as_mut().and_then(|l| l.verdicts.get_mut(position)) {
            let (deps_from, deps_to) =
                (u32::try_from(start).unwrap_or(u32::MAX), u32::try_from(end).unwrap_or(u32::MAX));
            *slot = Some(Verdict { valid, deps_from, deps_to });
        }
        valid
    }

    /// Whether a required nested value resolves.
    pub fn value_valid(&self, schema: &Schema, value: Option<&Value>) -> bool {
        match schema {
            Schema::Entity(def) | Schema::Invalidate(def) => match value.and_then(crate::schema::pk_string_ref) {
                Some(pk) => self.entity_valid(def, &pk),
                None => false,
            },
            Schema::Union(poly) => match value {
                Some(value) => match poly.reference(value) {
                    Some((def, pk)) => self.entity_valid(def, &pk),
                    None => !value.is_null(),
                },
                None => false,
            },
            Schema::Lazy(_) => self.value_valid(&schema.resolved(), value),
            Schema::CollectionAdd(c, _) => self.value_valid(&c.item, value),
            Schema::Array(_) | Schema::Values(_) | Schema::Object(_) | Schema::All(_) | Schema::Collection(_) => true,
        }
    }
}
