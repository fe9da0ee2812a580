//! Whether entities, list items and values are valid: live, with their required
//! references valid too (cycles count as valid).

use super::*;
use crate::read::prior::Verdict;
use crate::schema::NestedField;
use crate::store::FastMap;

/// The positions in `object` of the `count` fields of `nested` that decide
/// validity (past 63, every position counts anyway). Stops at the last one found.
fn required_positions(object: &Object, nested: &[NestedField], count: usize) -> u64 {
    let (mut mask, mut left) = (0, count);
    for (i, key) in object.keys().take(64).enumerate() {
        if left == 0 {
            break;
        }
        if nested.iter().any(|f| decides_validity(f) && f.name == key.as_str()) {
            mask |= 1 << i;
            left -= 1;
        }
    }
    mask
}

/// Whether `schema` is a reference to an entity type with no nested field that
/// decides its validity (its validity is its liveness).
fn leaf_reference(schema: &Schema) -> bool {
    match schema {
        Schema::Entity(def) | Schema::Invalidate(def) => !(def.nested)().iter().any(decides_validity),
        _ => false,
    }
}

thread_local! {
    /// Every entity type's [`TypeValidity`] met so far, by the address of its definition.
    static KNOWN_VALIDITY: RefCell<Vec<(ByAddress<EntityDef>, TypeValidity)>> = const { RefCell::new(Vec::new()) };
}

/// Whether a nested field can make its entity invalid: a required reference
/// (lists, maps and objects of entities are always valid, see `value_valid`).
fn decides_validity(field: &NestedField) -> bool {
    field.required
        && matches!(
            field.schema,
            Schema::Entity(_)
                | Schema::Invalidate(_)
                | Schema::Union(_)
                | Schema::Cyclic(_)
                | Schema::CollectionEdit(..)
        )
}

/// What decides the validity of one entity type's entities.
#[derive(Clone, Copy)]
struct TypeValidity {
    /// Its nested fields; those that [decide its validity](decides_validity)
    /// (required references) can make it invalid. (The type's own static
    /// list, not a copy: a shape is copied freely.)
    nested: &'static [NestedField],
    /// How many of them decide its validity.
    deciding: usize,
    /// Whether those all reference types that require nothing (no cycle can
    /// come back through them).
    leaves_only: bool,
}

/// What one read decided about validity, and what decides it per type.
#[derive(Default)]
pub(super) struct Validities {
    /// Validity by (table, row index), and the order it was decided in.
    /// (Made on first use: a read without cycles never needs it.)
    valid: RefCell<Option<FastMap<(ByAddress<str>, usize), bool>>>,
    order: RefCell<Vec<(ByAddress<str>, usize)>>,
    /// How many validity checks of entities with required references are under way.
    checking: Cell<usize>,
    /// The first type's [`TypeValidity`] (most reads meet one or two types:
    /// no list to allocate for them), then the others'.
    first_type: RefCell<Option<(ByAddress<EntityDef>, TypeValidity)>>,
    types: RefCell<Vec<(ByAddress<EntityDef>, TypeValidity)>>,
}

impl Validities {
    /// The [`TypeValidity`] of `def`'s entities (worked out once per type and read).
    fn of(&self, def: &'static EntityDef) -> TypeValidity {
        // By the definition's address: two types may share a type key's text.
        let address = ByAddress(def);
        // The first type read is kept apart (most reads meet one or two types:
        // no list to allocate for them).
        let mut first = self.first_type.borrow_mut();
        match first.as_ref() {
            Some((a, shape)) if *a == address => return *shape,
            _ => {}
        }
        let mut validities = self.types.borrow_mut();
        if let Some((_, shape)) = validities.iter().find(|(a, _)| *a == address) {
            return *shape;
        }
        // A type's shape never changes (its nested fields are static): worked out
        // once per thread, then shared by every read (a list's rows each read once).
        let shape = KNOWN_VALIDITY.with(|known| {
            let mut known = known.borrow_mut();
            if let Some((_, shape)) = known.iter().find(|(a, _)| *a == address) {
                return *shape;
            }
            let nested = (def.nested)();
            let deciding = nested.iter().filter(|f| decides_validity(f)).count();
            let leaves_only = nested.iter().filter(|f| decides_validity(f)).all(|f| leaf_reference(&f.schema));
            let shape = TypeValidity { nested, deciding, leaves_only };
            known.push((address, shape));
            shape
        });
        if first.is_none() {
            *first = Some((address, shape));
        } else {
            validities.push((address, shape));
        }
        shape
    }
}

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
        let shape = self.validity.of(def);
        if shape.deciding == 0 {
            self.depend_alive(def.key, index, true);
            return true;
        }
        // Its validity also depends on where its required references point.
        let references = |ctx: &Self| {
            if ctx.recording.on {
                let read = required_positions(object, shape.nested, shape.deciding);
                ctx.depend(Dep::Entity { key: def.key, index, version: row.version, seen: row.value.clone(), read });
            }
        };
        let references_valid = |ctx: &Self| {
            let mut deciding = shape.nested.iter().filter(|f| decides_validity(f));
            match shape.leaves_only {
                // Each names a type that requires nothing: valid when live.
                true => deciding.all(|field| ctx.leaf_live(&field.schema, object.get(field.name))),
                false => deciding.all(|field| ctx.value_valid(&field.schema, object.get(field.name))),
            }
        };
        if shape.leaves_only {
            // Its required references lead to entities that require nothing:
            // no cycle can come back here, so nothing needs remembering.
            references(self);
            return references_valid(self);
        }
        let slot = (ByAddress(def.key), index);
        if let Some(known) = self.validity.valid.borrow().as_ref().and_then(|v| v.get(&slot)) {
            // Its dependencies were recorded on the first visit.
            return *known;
        }
        references(self);
        // Provisionally valid, so a cycle back here ends; what is decided on
        // that assumption is forgotten if it turns out false.
        let mark = self.validity.order.borrow().len();
        self.validity.valid.borrow_mut().get_or_insert_with(FastMap::default).insert(slot, true);
        self.validity.order.borrow_mut().push(slot);
        // A chain of required references deeper than a read follows cannot be
        // read whole: its head is invalid (and the walk stays bounded).
        let depth = self.validity.checking.get();
        self.validity.checking.set(depth + 1);
        let valid = depth < MAX_DEPTH && references_valid(self);
        self.validity.checking.set(depth);
        if !valid {
            let later: Vec<_> = self.validity.order.borrow_mut().drain(mark + 1..).collect();
            if let Some(known) = self.validity.valid.borrow_mut().as_mut() {
                for slot in later {
                    known.remove(&slot);
                }
            }
        }
        self.validity.valid.borrow_mut().get_or_insert_with(FastMap::default).insert(slot, valid);
        valid
    }

    /// Whether `value` names a live entity of `schema`, a reference to a type
    /// that requires nothing (what [`Ctx::entity_valid`] decides for it,
    /// without working out its type's validity first).
    fn leaf_live(&self, schema: &Schema, value: Option<&Value>) -> bool {
        let (Schema::Entity(def) | Schema::Invalidate(def)) = schema else { return self.value_valid(schema, value) };
        let Some(pk) = value.and_then(crate::schema::pk_string_ref) else { return false };
        let (table, found) = self.find(def, &pk);
        let Some((index, _, row)) = found else {
            self.depend(Dep::Table { key: def.key, version: table.map_or(0, |t| t.version) });
            return false;
        };
        let live = row.value.is_some();
        self.depend_alive(def.key, index, live);
        live
    }

    /// Whether the items of a tracked list of `schema` keep verdicts: only
    /// where a check records every dependency it looked at, references to
    /// entity types whose required references require nothing (others
    /// remember validity within a read, so a later item's check would record
    /// less).
    pub fn keeps_verdicts(&self, schema: &Schema) -> bool {
        match schema {
            Schema::Entity(def) | Schema::Invalidate(def) => self.validity.of(def).leaves_only,
            _ => false,
        }
    }

    /// Whether item `position` of the tracked list resolves (`schema` a
    /// reference that [keeps verdicts](Ctx::keeps_verdicts)): the previous
    /// read's verdict while what decided it holds, otherwise decided again;
    /// either way its dependencies are recorded.
    pub fn item_valid(&self, position: usize, schema: &Schema, item: &Value) -> bool {
        let start = self.next_dep();
        let reused = self.reuse.prior.as_ref().and_then(|prior| {
            // The same reference in the previous list: looked for after the last
            // one found, one further (an item went), then at the same position.
            // So a list with items added, removed or one moved reuses the rest.
            let old = prior.list.source.items();
            let cursor = self.reuse.cursor.get();
            let at = [cursor, cursor + 1, position].into_iter().find(|&j| old.get(j) == Some(item))?;
            self.reuse.cursor.set(at + 1);
            let verdict = (*prior.list.verdicts.get(at)?)?;
            let range = verdict.deps_from as usize..verdict.deps_to as usize;
            let holds = prior.changed.get(range.clone())?.iter().all(|changed| !changed);
            (holds && prior.deps.borrow_mut().reuse(range.start, range.end, &self.recording.deps))
                .then_some(verdict.valid)
        });
        let valid = reused.unwrap_or_else(|| {
            self.recording.exact.set(true);
            let valid = self.value_valid(schema, Some(item));
            self.recording.exact.set(false);
            valid
        });
        let end = self.next_dep();
        if let Some(slot) = self.reuse.list.borrow_mut().as_mut().and_then(|l| l.verdicts.get_mut(position)) {
            let (deps_from, deps_to) =
                (u32::try_from(start).unwrap_or(u32::MAX), u32::try_from(end).unwrap_or(u32::MAX));
            *slot = Some(Verdict { valid, deps_from, deps_to });
        }
        valid
    }

    /// Whether `item` (a reference whose type [keeps verdicts](Ctx::keeps_verdicts))
    /// is shown, recording every dependency the check looks at.
    pub fn decide_item(&self, schema: &Schema, item: &Value) -> bool {
        self.recording.exact.set(true);
        let valid = self.value_valid(schema, Some(item));
        self.recording.exact.set(false);
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
            Schema::Cyclic(_) => self.value_valid(&schema.resolved(), value),
            Schema::CollectionEdit(c, edit) => self.value_valid(c.edited(*edit), value),
            // A lazy field's keys are read as they are: valid whatever they name.
            Schema::Array(_)
            | Schema::Values(_)
            | Schema::Object(_)
            | Schema::All(_)
            | Schema::Collection(_)
            | Schema::Lazy(_)
            | Schema::Scalar(_) => true,
        }
    }
}
