//! What the results reach: the marking a sweep keeps rows by and a page's
//! slice is cut by, and the sweep itself.

use crate::json::Value;
use crate::schema::{pk_string_ref, All, EntityDef, Schema};
use crate::store::State;
use crate::Millis;

/// What [`State::sweep`] dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Swept {
    /// The endpoint keys whose results went.
    pub results: Vec<String>,
    /// How many entity rows went.
    pub entities: usize,
}

impl State {
    /// Drops the results that are past expiry or invalidated and not `in_use`,
    /// expired errors, and the expired rows no remaining result reaches (read
    /// through the schema each result was written with: `schema_of`) and
    /// `keep_row(table, pk, fetched_at)` does not keep (a deleted row is
    /// never kept so).
    ///
    /// ```
    /// # use rdc_core::{All, Entity, Schema, State, WriteMeta};
    /// #[derive(Debug, serde::Deserialize, Entity)]
    /// struct User { id: String }
    /// let schema: Schema = All::of::<User>().into();
    /// let mut state = State::default();
    /// state.write_result("GET /users", &schema, rdc_core::json!([{"id": "1"}]), &rdc_core::json!(null), WriteMeta::at(0, 10))?;
    /// let swept = state.sweep(5, |_| false, |_| Some(schema.clone()), |_, _, _| false);
    /// assert_eq!((swept.results.len(), swept.entities), (0, 0));
    /// let swept = state.sweep(20, |_| false, |_| Some(schema.clone()), |_, _, _| false);
    /// assert_eq!((swept.results.len(), swept.entities), (1, 1));
    /// # Ok::<(), rdc_core::NormalizeError>(())
    /// ```
    #[allow(clippy::indexing_slicing, reason = "a reached table has a flag per row: it is unchanged since marking")]
    pub fn sweep(
        &mut self,
        now: Millis,
        in_use: impl Fn(&str) -> bool,
        schema_of: impl Fn(&str) -> Option<Schema>,
        keep_row: impl Fn(&str, &str, Millis) -> bool,
    ) -> Swept {
        let results: Vec<String> = self
            .results
            .iter()
            .filter(|(k, r)| !in_use(k) && (r.meta.invalidated || now >= r.meta.expires_at))
            .map(|(k, _)| k.clone())
            .collect();
        for key in &results {
            self.results.remove(key);
            self.errors.remove(key);
        }
        self.errors.retain(|_, e| now < e.expires_at);
        let reached = reached_from(self, self.results.keys().map(String::as_str), &schema_of);
        let mut entities = 0;
        for (table_key, table) in self.entities.iter_mut() {
            let before = table.rows.len();
            let seen = reached.rows_of(table_key);
            // `retain` visits rows in order: `index` is each row's index.
            let mut index = 0;
            let indexes = &mut self.indexes;
            table.rows.retain(|pk, row| {
                let keep = now < row.meta.expires_at
                    || seen.is_some_and(|rows| rows[index])
                    || (row.value.is_some() && keep_row(table_key, pk.as_ref(), row.meta.fetched_at));
                index += 1;
                if !keep {
                    indexes.update(table_key, pk, row.value.as_deref(), None);
                }
                keep
            });
            entities += before - table.rows.len();
        }
        self.entities.retain(|_, t| !t.rows.is_empty());
        if entities > 0 || !results.is_empty() {
            self.version += 1;
            // Row indices moved: every reader reads again.
            self.log(|log| log.everything = true);
        }
        Swept { results, entities }
    }

    /// The results at `keys` (or their errors) and the rows they reach, read
    /// through `schema_of`: what one read of a server-rendered page needs.
    pub fn slice<'k>(
        &self,
        keys: impl IntoIterator<Item = &'k str>,
        schema_of: impl Fn(&str) -> Option<Schema>,
    ) -> State {
        self.slice_with_rows(keys, schema_of, |_, _| false)
    }

    /// [`State::slice`], with also the rows `also` picks by table key and pk.
    ///
    /// ```
    /// # use rdc_core::{All, Entity, Schema, State, WriteMeta};
    /// # #[derive(Debug, serde::Deserialize, Entity)] struct User { id: String }
    /// let mut state = State::default();
    /// state.write_entities(&Schema::array(User::schema()), rdc_core::json!([{ "id": "1" }, { "id": "2" }]), &rdc_core::json!(null), WriteMeta::at(0, 10))?;
    /// let slice = state.slice_with_rows([], |_| None, |table, pk| table == "User" && pk == "2");
    /// assert_eq!((slice.entity("User", "1").is_some(), slice.entity("User", "2").is_some()), (false, true));
    /// # Ok::<(), rdc_core::NormalizeError>(())
    /// ```
    pub fn slice_with_rows<'k>(
        &self,
        keys: impl IntoIterator<Item = &'k str>,
        schema_of: impl Fn(&str) -> Option<Schema>,
        also: impl Fn(&str, &str) -> bool,
    ) -> State {
        let keys: Vec<&str> = keys.into_iter().collect();
        let reached = reached_from(self, keys.iter().copied(), &schema_of);
        let mut slice = State { version: self.version, ..State::default() };
        for key in keys {
            if let Some(result) = self.results.get(key) {
                slice.results.insert(key.to_owned(), result.clone());
            } else if let Some(error) = self.errors.get(key) {
                slice.errors.insert(key.to_owned(), error.clone());
            }
        }
        for (type_key, table) in &self.entities {
            let seen = reached.rows_of(type_key);
            let rows: crate::store::EntityTable = crate::store::EntityTable {
                version: table.version,
                rows: table
                    .rows
                    .iter()
                    .enumerate()
                    .filter(|(index, (pk, _))| {
                        seen.and_then(|rows| rows.get(*index)).is_some_and(|reached| *reached) || also(type_key, pk)
                    })
                    .map(|(_, (pk, row))| (pk.clone(), row.clone()))
                    .collect(),
            };
            if !rows.rows.is_empty() {
                slice.entities.insert(type_key.clone(), rows);
            }
        }
        slice
    }
}

/// The rows a sweep found reachable: per table key, a flag per row index (no
/// key is copied or hashed per row, so a sweep of a large store stays cheap).
/// Also, per scalar table, where the cells of the entities reached are
/// (marked in one pass over the table once every result is walked).
#[derive(Default)]
pub(crate) struct Reached(Vec<(&'static str, Vec<bool>)>, Vec<(&'static str, std::collections::HashSet<String>)>);

/// The rows the results at `keys` reach, read through the schema each was
/// written with (`schema_of`; a result of unknown schema reaches nothing).
pub(crate) fn reached_from<'k>(
    state: &State,
    results: impl IntoIterator<Item = &'k str>,
    schema_of: &impl Fn(&str) -> Option<Schema>,
) -> Reached {
    let mut reached = Reached::default();
    for key in results {
        if let (Some(result), Some(schema)) = (state.results.get(key), schema_of(key)) {
            mark(state, &schema, &result.value, &mut reached);
        }
    }
    reached.mark_cells(state);
    reached
}

impl Reached {
    /// Marks the cells of the entities whose cells key is in `self.1`: a
    /// cell's pk is its entity's cells key, a comma, then the lens (whose
    /// commas are encoded), so one pass over each scalar table.
    fn mark_cells(&mut self, state: &State) {
        for (key, entities) in std::mem::take(&mut self.1) {
            let Some(table) = state.entities.get(key) else { continue };
            for (index, (pk, _)) in table.rows.iter().enumerate() {
                if pk.as_str().rsplit_once(',').is_some_and(|(cells, _)| entities.contains(cells)) {
                    self.mark(key, table.rows.len(), index);
                }
            }
        }
    }

    /// Per row index of table `key`, whether it was reached (`None`: no row was).
    pub(crate) fn rows_of(&self, key: &str) -> Option<&[bool]> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, rows)| rows.as_slice())
    }

    /// Marks row `index` of table `key` (of `len` rows); `false` if it already was.
    fn mark(&mut self, key: &'static str, len: usize, index: usize) -> bool {
        let at = match self.0.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                self.0.push((key, vec![false; len]));
                self.0.len() - 1
            }
        };
        match self.0.get_mut(at).and_then(|(_, rows)| rows.get_mut(index)) {
            Some(seen) if !*seen => {
                *seen = true;
                true
            }
            _ => false,
        }
    }
}

/// What is left to mark: a value read through a schema, or a stored row.
enum Mark<'a> {
    Value(Schema, &'a Value),
    Row(&'static EntityDef, usize),
}

/// Adds every entity `value` (read through `schema`) reaches to `out`. The
/// walk keeps its own stack: a chain of references as long as a server makes
/// it (a reply thread) costs heap, not call depth.
fn mark<'a>(state: &'a State, schema: &Schema, value: &'a Value, out: &mut Reached) {
    let mut todo = vec![Mark::Value(schema.clone(), value)];
    while let Some(next) = todo.pop() {
        match next {
            Mark::Value(schema, value) => mark_value(state, schema, value, out, &mut todo),
            Mark::Row(def, index) => mark_row(state, def, index, out, &mut todo),
        }
    }
}

/// Marks what `value` reaches directly; what lies further goes on `todo`.
fn mark_value<'a>(state: &'a State, schema: Schema, value: &'a Value, out: &mut Reached, todo: &mut Vec<Mark<'a>>) {
    match schema {
        Schema::Entity(def) | Schema::Invalidate(def) => {
            if let Some(index) = pk_string_ref(value).and_then(|pk| row_index(state, def, &pk)) {
                todo.push(Mark::Row(def, index));
            }
        }
        Schema::Array(inner) => {
            for item in value.as_array().into_iter().flatten() {
                todo.push(Mark::Value((*inner).clone(), item));
            }
        }
        Schema::Values(inner) => {
            for item in value.as_object().into_iter().flat_map(|m| m.values()) {
                todo.push(Mark::Value((*inner).clone(), item));
            }
        }
        Schema::Object(fields) => {
            for (name, field) in fields.iter() {
                if let Some(item) = value.get(name) {
                    todo.push(Mark::Value(field.clone(), item));
                }
            }
        }
        Schema::Union(poly) => {
            if let Some((def, pk)) = poly.reference(value) {
                if let Some(index) = row_index(state, def, &pk) {
                    todo.push(Mark::Row(def, index));
                }
            }
        }
        Schema::All(all) => {
            let defs = match all.as_ref() {
                All::Single(def) => vec![*def],
                All::Poly(_) => all.entity_defs(),
            };
            for def in defs {
                let rows = state.entities.get(def.key).map_or(0, |t| t.rows.len());
                todo.extend((0..rows).map(|index| Mark::Row(def, index)));
            }
        }
        Schema::Collection(collection) => {
            let Some(pk) = pk_string_ref(value) else { return };
            let Some(table) = state.entities.get(collection.def.key) else { return };
            let Some((index, _, row)) = table.rows.get_full(pk.as_ref()) else { return };
            if !out.mark(collection.def.key, table.rows.len(), index) {
                return;
            }
            if let Some(items) = row.value.as_ref().and_then(|r| r.get("items")) {
                todo.push(Mark::Value(collection.items_schema(), items));
            }
        }
        Schema::Cyclic(_) => todo.push(Mark::Value(schema.resolved().into_owned(), value)),
        // The result keeps what it brought (no other read would fetch it again).
        Schema::Lazy(inner) => todo.push(Mark::Value((*inner).clone(), value)),
        Schema::CollectionEdit(c, edit) => todo.push(Mark::Value(c.edited(edit).clone(), value)),
        Schema::Scalar(scalar) => mark_cells(&scalar, value, out),
    }
}

/// Notes the cells (in every lens) of the entity whose scalar member is
/// `value`, marked once every result is walked (see `Reached::mark_cells`).
fn mark_cells(scalar: &crate::ScalarSchema, value: &Value, out: &mut Reached) {
    let Some(cells) = pk_string_ref(value) else { return };
    let key = scalar.scalar().def.key;
    match out.1.iter_mut().find(|(k, _)| *k == key) {
        Some((_, entities)) => {
            entities.insert(cells.into_owned());
        }
        None => out.1.push((key, std::iter::once(cells.into_owned()).collect())),
    }
}

/// The index of entity `def`/`pk` in its table, if stored.
fn row_index(state: &State, def: &'static EntityDef, pk: &str) -> Option<usize> {
    state.entities.get(def.key).and_then(|t| t.rows.get_index_of(pk))
}

/// Marks row `index` of `def`'s table; its nested fields go on `todo`.
fn mark_row<'a>(state: &'a State, def: &'static EntityDef, index: usize, out: &mut Reached, todo: &mut Vec<Mark<'a>>) {
    let Some(table) = state.entities.get(def.key) else { return };
    let Some((_, row)) = table.rows.get_index(index) else { return };
    if !out.mark(def.key, table.rows.len(), index) {
        return;
    }
    let Some(object) = row.value.as_deref() else { return };
    for field in (def.nested)() {
        if let Some(value) = object.get(field.name) {
            todo.push(Mark::Value(field.schema.clone(), value));
        }
    }
}
