//! Normalization: walk a response with its schema, stage every entity once and
//! replace it by a reference. Nothing touches the store until the whole response
//! has normalized (see `State::commit`).

use crate::json::{Map, Text, Value};
use indexmap::IndexMap;

use crate::error::NormalizeError;
use std::sync::Arc;

use crate::schema::{
    cell_pk, cells_of, All, Collection, EntityDef, Found, ListEdit, NullMember, Object, Place, Polymorphic, Scalar,
    ScalarSchema, Schema,
};

/// Entities and deletions found in one response, not yet in the store.
#[derive(Debug, Default)]
pub(crate) struct Staged {
    /// Entities by (type key, pk): their type, merged object, and where they were
    /// first met (for error messages: a range of `paths`).
    pub entities: IndexMap<(&'static str, Text), (&'static EntityDef, Object, PathSpan), foldhash::fast::RandomState>,
    /// Every staged entity's path, one after the other (one allocation, not one each).
    pub paths: String,
    pub deletes: Vec<(&'static str, Text)>,
    /// Items that edit collections' lists.
    pub list_edits: Vec<StagedListEdit>,
}

/// An item that edits a collection's lists: its reference, its fields (to
/// match list args) and the edit.
#[derive(Debug)]
pub(crate) struct StagedListEdit {
    pub collection: Arc<Collection>,
    pub reference: Value,
    pub fields: Object,
    pub edit: ListEdit,
}

/// Where in `Staged::paths` an entity's path is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PathSpan(u32, u32);

impl PathSpan {
    /// This path, in the `paths` of its `Staged`.
    #[allow(clippy::indexing_slicing, reason = "a span is where `record_path` appended to these paths")]
    pub fn of(self, paths: &str) -> &str {
        &paths[self.0 as usize..self.1 as usize]
    }
}

impl Staged {
    fn record_path(&mut self, path: &str) -> PathSpan {
        let path = path.trim_start_matches('.');
        let start = self.paths.len();
        self.paths.push_str(path);
        PathSpan(u32::try_from(start).unwrap_or(u32::MAX), u32::try_from(self.paths.len()).unwrap_or(u32::MAX))
    }
}

/// The walk's context: endpoint args and the path for error messages.
pub(crate) struct Normalizer<'a> {
    pub args: &'a Value,
    pub staged: Staged,
    path: String,
    /// The lens each scalar met got from `args` (worked out once per write).
    lenses: Vec<(&'static str, Option<String>)>,
    /// Gives the response back as read (entities whole, lazy fields as their
    /// keys) in place of its references: see [`lazy_as_keys`].
    view: bool,
    /// Whether the value being normalized is the one its `key` names (a member
    /// or a map entry), not a list's item, which sees the list's key.
    own_key: bool,
    /// Whether a [`Scalar`] was met: the result then keeps the write's args.
    pub met_scalar: bool,
}

impl<'a> Normalizer<'a> {
    pub fn new(args: &'a Value) -> Self {
        Normalizer {
            args,
            staged: Staged::default(),
            path: String::new(),
            lenses: Vec::new(),
            own_key: false,
            met_scalar: false,
            view: false,
        }
    }

    fn here(&self) -> String {
        if self.path.is_empty() {
            "the response root".to_owned()
        } else {
            self.path.trim_start_matches('.').to_owned()
        }
    }

    /// Runs `f` with `.name` on the path (for error messages).
    fn with_key<T>(&mut self, name: &str, f: impl FnOnce(&mut Self) -> T) -> T {
        let len = self.path.len();
        self.path.push('.');
        self.path.push_str(name);
        let out = f(self);
        self.path.truncate(len);
        out
    }

    /// Runs `f` with `own_key` set to `own`, then puts it back.
    fn keyed<T>(&mut self, own: bool, f: impl FnOnce(&mut Self) -> T) -> T {
        let was = std::mem::replace(&mut self.own_key, own);
        let out = f(self);
        self.own_key = was;
        out
    }

    /// Normalizes `value` found under `key` of `parent`.
    pub fn normalize(
        &mut self,
        schema: &Schema,
        value: Value,
        parent: &Value,
        key: &str,
    ) -> Result<Value, NormalizeError> {
        match schema {
            Schema::Entity(def) => self.entity(def, value, parent, key),
            Schema::Array(inner) => {
                self.array(value, parent, key, |n, item, parent, key| n.normalize(inner, item, parent, key))
            }
            Schema::Object(fields) => match value {
                Value::Object(mut map) => {
                    for (i, (name, field_schema)) in fields.iter().enumerate() {
                        map = self.member(map, name, field_schema, fields.null_member(i))?;
                    }
                    Ok(Value::Object(map))
                }
                Value::Null => Ok(Value::Null),
                other => Err(self.shape("an object", &other)),
            },
            Schema::Values(inner) => match value {
                Value::Object(map) => {
                    let mut out = Vec::with_capacity(map.len());
                    // A `null` member is no entry (as in data-client): a map of entities reads whole.
                    for (name, item) in map.into_iter().filter(|(_, item)| !item.is_null()) {
                        let normalized =
                            self.with_key(&name, |n| n.keyed(true, |n| n.normalize(inner, item, &Value::Null, &name)))?;
                        out.push((name, normalized));
                    }
                    // The keys of a map, each once already: no lookup per key.
                    Ok(Value::Object(Map::from_unique(out)))
                }
                Value::Null => Ok(Value::Null),
                other => Err(self.shape("an object", &other)),
            },
            Schema::Union(poly) => self.polymorphic(poly, value, parent, key),
            Schema::All(all) => match all.as_ref() {
                All::Single(def) => {
                    self.array(value, parent, key, |n, item, parent, key| n.entity(def, item, parent, key))
                }
                All::Poly(poly) => {
                    self.array(value, parent, key, |n, item, parent, key| n.polymorphic(poly, item, parent, key))
                }
            },
            Schema::Invalidate(def) => self.invalidate(def, value, parent, key),
            Schema::CollectionEdit(collection, edit) => {
                // What a list's args are matched with: the item's fields, or
                // for an assign the write's own args.
                let fields = match edit {
                    ListEdit::Assign => self.args.as_object(),
                    _ => value.as_object(),
                };
                let fields = fields.cloned().unwrap_or_default();
                let reference = self.normalize(collection.edited(*edit), value, parent, key)?;
                if self.view {
                    return Ok(reference);
                }
                self.staged.list_edits.push(StagedListEdit {
                    collection: Arc::clone(collection),
                    reference: reference.clone(),
                    fields,
                    edit: *edit,
                });
                Ok(reference)
            }
            Schema::Collection(collection) => {
                let items = match collection.map() {
                    Some(map) if !value.is_null() => self.normalize(map, value, parent, key)?,
                    Some(_) => return Err(self.shape("an object", &value)),
                    None => self.array(value, parent, key, |n, item, parent, key| {
                        n.normalize(&collection.item, item, parent, key)
                    })?,
                };
                if self.view {
                    return Ok(items);
                }
                // Nested under a parent (`nested_by`): keyed by it, not by the args.
                let nested = collection.nested_args(parent, key);
                let pk = Text::new(collection.list_key(nested.as_ref().unwrap_or(self.args)));
                let mut row = Object::new();
                row.insert("items".to_owned(), items);
                let path = self.staged.record_path(&self.path);
                self.staged.entities.insert((collection.def.key, pk.clone()), (collection.def, row, path));
                Ok(Value::String(pk))
            }
            Schema::Cyclic(_) => {
                let resolved = schema.resolved().into_owned();
                self.normalize(&resolved, value, parent, key)
            }
            // Stored as its inner schema stores it, its keys as text (as read).
            Schema::Lazy(_) if self.view => {
                let mut keys =
                    Normalizer { path: self.path.clone(), own_key: self.own_key, ..Normalizer::new(self.args) };
                keys.normalize(schema, value, parent, key)
            }
            Schema::Lazy(inner) => Ok(keys_as_text(inner, self.normalize(inner, value, parent, key)?)),
            Schema::Scalar(scalar) => self.columns(scalar, value, key),
        }
    }

    /// Normalizes one schema'd member of an object in place; an absent member
    /// stays absent, and a `null` one as `null` says (`NoList`: a list
    /// refuses it, as where no member is known).
    fn member(
        &mut self,
        mut map: Object,
        name: &str,
        schema: &Schema,
        null: NullMember,
    ) -> Result<Object, NormalizeError> {
        if map.get(name).is_some_and(Value::is_null) {
            match null {
                NullMember::Allowed => return Ok(map),
                NullMember::Refused => return Err(self.with_key(name, |n| n.shape(expected(schema), &Value::Null))),
                NullMember::NoList => {}
            }
        }
        // Out while it is normalized (a chooser sees the parent without it), then
        // back at its place: field positions are what change tracking compares.
        let Some((at, owned_name, item)) = map.take_entry(name) else { return Ok(map) };
        let parent = Value::Object(map);
        let normalized = self.with_key(name, |n| n.keyed(true, |n| n.normalize(schema, item, &parent, name)))?;
        // Built as an object just above; the other arm cannot happen.
        let mut map = match parent {
            Value::Object(map) => map,
            _ => Object::new(),
        };
        map.insert_at(at, owned_name, normalized);
        Ok(map)
    }

    /// Normalizes each item of a list; items see the list's own `parent` and `key`
    /// (spec 2.1: the parent object of the array and the array's key on it).
    /// An object is the list of its values, in order (as data-client's `Array`
    /// and `All` take it). `null` is no list (an optional member's `null`
    /// never comes here).
    fn array(
        &mut self,
        value: Value,
        parent: &Value,
        key: &str,
        mut each: impl FnMut(&mut Self, Value, &Value, &str) -> Result<Value, NormalizeError>,
    ) -> Result<Value, NormalizeError> {
        match value {
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                let len = self.path.len();
                for (i, item) in items.into_iter().enumerate() {
                    push_index(&mut self.path, i);
                    let normalized = self.keyed(false, |n| each(n, item, parent, key));
                    self.path.truncate(len);
                    out.push(normalized?);
                }
                Ok(Value::Array(out))
            }
            Value::Object(map) => {
                let mut out = Vec::with_capacity(map.len());
                for (name, item) in map {
                    out.push(self.with_key(&name, |n| n.keyed(false, |n| each(n, item, parent, key)))?);
                }
                Ok(Value::Array(out))
            }
            other => Err(self.shape("an array", &other)),
        }
    }

    fn polymorphic(
        &mut self,
        poly: &Polymorphic,
        value: Value,
        parent: &Value,
        key: &str,
    ) -> Result<Value, NormalizeError> {
        let choice = poly.choose(&value, parent, key);
        match choice.as_deref().and_then(|c| poly.entity_for(c)) {
            Some(def) => {
                let pk = match poly.invalidates {
                    true => self.invalidate(def, value, parent, key)?,
                    false => self.entity(def, value, parent, key)?,
                };
                if self.view {
                    return Ok(pk);
                }
                let mut reference = Map::with_capacity(2);
                reference.insert("id".to_owned(), pk);
                reference.insert("schema".to_owned(), Value::String(choice.unwrap_or_default().into()));
                Ok(Value::Object(reference))
            }
            // Rule 4 of All: an unmapped choice passes the original value through.
            None => Ok(value),
        }
    }

    /// Normalizes entity `value`, found under `key` of `parent`.
    fn entity(
        &mut self,
        def: &'static EntityDef,
        value: Value,
        parent: &Value,
        key: &str,
    ) -> Result<Value, NormalizeError> {
        let value = match value {
            // Already a reference (a pk), as in JS.
            Value::String(_) | Value::Number(_) => return Ok(value),
            Value::Null => return Ok(Value::Null),
            Value::Object(_) => value,
            other => return Err(self.shape("an object", &other)),
        };
        let found = Found { parent, key, args: self.args };
        let value = (def.process_found)(value, &found).map_err(|reason| self.rejected(def, reason))?;
        let Value::Object(mut object) = value else {
            return Err(self.rejected(def, "process did not return an object".to_owned()));
        };
        // A pk that is one field's text is that text (no copy); others are built.
        let shared = def.pk_field.and_then(|field| match object.get(field) {
            Some(Value::String(text)) => Some(text.clone()),
            _ => None,
        });
        let pk = match shared {
            Some(text) => text,
            None => (def.pk_found)(&object, &found)
                .map(Text::new)
                .ok_or_else(|| NormalizeError::MissingPrimaryKey { entity: def.key, path: self.here() })?,
        };
        (def.validate)(&object).map_err(|reason| self.rejected(def, reason))?;
        for field in (def.nested)() {
            if let Schema::Scalar(scalar) = &field.schema {
                object = self.scalar_member(object, field.name, scalar, def, &pk)?;
                continue;
            }
            let null = if field.required { NullMember::Refused } else { NullMember::Allowed };
            object = self.member(object, field.name, &field.schema, null)?;
        }
        if self.view {
            return Ok(Value::Object(object));
        }
        let reference = pk.clone();
        let slot = (def.key, pk);
        match self.staged.entities.get_mut(&slot) {
            // Met again in the same response: the default merge lays the new
            // fields over the staged object in place.
            Some((_, existing, _)) if def.default_merge => existing.extend(object),
            Some((_, existing, _)) => *existing = (def.merge)(existing, &object),
            None => {
                let path = self.staged.record_path(&self.path);
                self.staged.entities.insert(slot, (def, object, path));
            }
        }
        Ok(Value::String(reference))
    }

    /// Moves scalar field `name` of entity `def`/`pk` to its cell in the
    /// write's lens; the member then holds where the entity's cells are
    /// (also when absent, so cells written later are read).
    fn scalar_member(
        &mut self,
        mut object: Object,
        name: &str,
        scalar: &ScalarSchema,
        def: &'static EntityDef,
        pk: &str,
    ) -> Result<Object, NormalizeError> {
        self.met_scalar = true;
        let cells = Value::String(Text::new(cells_of(def.key, pk)));
        let Some((at, owned_name, value)) = object.take_entry(name) else {
            object.insert(name.to_owned(), cells);
            return Ok(object);
        };
        // No lens in the write's args: the value has no cell to go to and is
        // left out; the entity's other fields are written (a mutation's answer
        // the server has committed is not refused for it).
        if self.lens(&scalar.scalar).is_none() {
            object.insert_at(at, owned_name, cells);
            return Ok(object);
        }
        if let Place::Field { check, .. } = &scalar.place {
            self.with_key(name, |n| n.checked(def, *check, &value))?;
        }
        let mut fields = Object::new();
        fields.insert(owned_name.clone(), value);
        self.with_key(name, |n| n.stage_cell(&scalar.scalar, def, pk, fields))?;
        object.insert_at(at, owned_name, cells);
        Ok(object)
    }

    /// A columns value (a [`Scalar::bound_to`] entity's scalar fields, found
    /// under the entity's pk): its fields go to the entity's cell in the
    /// write's lens; the entity is left as it is.
    fn columns(&mut self, scalar: &ScalarSchema, value: Value, key: &str) -> Result<Value, NormalizeError> {
        self.met_scalar = true;
        let def = match &scalar.place {
            Place::Columns(def) => *def,
            Place::Field { .. } => {
                return Err(self.rejected(scalar.scalar.def, "a scalar field outside an entity".to_owned()))
            }
        };
        let object = match value {
            Value::Object(object) => object,
            Value::Null => return Ok(Value::Null),
            other => return Err(self.shape("an object", &other)),
        };
        // Keyed by the pk it is found under (as data-client's `parent[key] ===
        // input`); a list's item or the response root is keyed by its own pk.
        let pk = match self.own_key {
            true => key.to_owned(),
            false => (def.pk)(&object)
                .ok_or_else(|| NormalizeError::MissingPrimaryKey { entity: def.key, path: self.here() })?,
        };
        let mut fields = Object::new();
        for (name, value) in object {
            let field = (def.nested)().iter().find_map(|f| match &f.schema {
                Schema::Scalar(s) if f.name == name.as_str() && s.scalar.key() == scalar.scalar.key() => {
                    match s.place {
                        Place::Field { check, .. } => Some(check),
                        Place::Columns(_) => None,
                    }
                }
                _ => None,
            });
            // Members that are no field of this scalar are left out.
            let Some(check) = field else { continue };
            self.with_key(&name, |n| n.checked(def, check, &value))?;
            fields.insert(name, value);
        }
        let cells = self.stage_cell(&scalar.scalar, def, &pk, fields)?;
        Ok(Value::String(cells))
    }

    /// Checks a scalar field's `value` with `check` (its Rust type).
    fn checked(
        &self,
        def: &'static EntityDef,
        check: fn(&Value) -> Result<(), crate::FieldError>,
        value: &Value,
    ) -> Result<(), NormalizeError> {
        check(value).map_err(|e| NormalizeError::InvalidField {
            entity: def.key,
            path: join_path(&self.here(), &e.path),
            message: e.message,
        })
    }

    /// The lens `scalar` gets from the write's args (worked out once per write).
    fn lens(&mut self, scalar: &Scalar) -> Option<String> {
        let known = self.lenses.iter().find(|(key, _)| *key == scalar.key()).map(|(_, lens)| lens.clone());
        known.unwrap_or_else(|| {
            let lens = scalar.lens(self.args);
            self.lenses.push((scalar.key(), lens.clone()));
            lens
        })
    }

    /// Stages `fields` in the cell of entity `def`/`pk` in the write's lens
    /// of `scalar`; returns where the entity's cells are.
    fn stage_cell(
        &mut self,
        scalar: &Scalar,
        def: &'static EntityDef,
        pk: &str,
        fields: Object,
    ) -> Result<Text, NormalizeError> {
        let lens = self.lens(scalar).ok_or_else(|| {
            self.rejected(scalar.def, format!("the endpoint's args give no `{}` lens for {}", scalar.key(), def.key))
        })?;
        let cells = cells_of(def.key, pk);
        let slot = (scalar.def.key, Text::new(cell_pk(&cells, &lens)));
        match self.staged.entities.get_mut(&slot) {
            Some((_, existing, _)) => existing.extend(fields),
            None => {
                let path = self.staged.record_path(&self.path);
                self.staged.entities.insert(slot, (scalar.def, fields, path));
            }
        }
        Ok(Text::new(cells))
    }

    fn invalidate(
        &mut self,
        def: &'static EntityDef,
        value: Value,
        parent: &Value,
        key: &str,
    ) -> Result<Value, NormalizeError> {
        if self.view {
            return Ok(value);
        }
        let pk = match &value {
            Value::Object(object) => (def.pk_found)(object, &Found { parent, key, args: self.args }),
            scalar => crate::schema::pk_string(scalar),
        };
        let pk = pk.ok_or_else(|| NormalizeError::MissingPrimaryKey { entity: def.key, path: self.here() })?;
        let pk = Text::new(pk);
        self.staged.entities.shift_remove(&(def.key, pk.clone()));
        self.staged.deletes.push((def.key, pk.clone()));
        Ok(Value::String(pk))
    }

    fn shape(&self, expected: &'static str, found: &Value) -> NormalizeError {
        NormalizeError::UnexpectedShape { expected, found: found.kind(), path: self.here() }
    }

    fn rejected(&self, def: &EntityDef, reason: String) -> NormalizeError {
        NormalizeError::Rejected { entity: def.key, path: self.here(), reason }
    }
}

/// `value`, a response of `schema` (with `args`), as the store reads it back:
/// each lazy field holds its keys, not its entities; all else stays as sent
/// (entities whole, a page its own items). What a typed result decodes when
/// the schema has a lazy field ([`Schema::has_lazy`]).
///
/// ```
/// use rdc_core::{json, lazy_as_keys, Entity, Pk, Schema};
/// #[derive(serde::Deserialize, Entity)]
/// struct Building { id: String }
/// #[derive(serde::Deserialize, Entity)]
/// struct Department { id: String, #[entity(lazy = "Vec<Building>")] buildings: Vec<Pk> }
/// let schema = Schema::array(Department::schema());
/// let wire = json!([{"id": "d1", "buildings": [{"id": "b1"}]}]);
/// assert_eq!(lazy_as_keys(&schema, wire, &json!(null))?, json!([{"id": "d1", "buildings": ["b1"]}]));
/// # Ok::<(), rdc_core::NormalizeError>(())
/// ```
///
/// # Errors
/// When `value` does not normalize through `schema` (as a write would say).
pub fn lazy_as_keys(schema: &Schema, value: Value, args: &Value) -> Result<Value, NormalizeError> {
    Normalizer { view: true, ..Normalizer::new(args) }.normalize(schema, value, &Value::Null, "")
}

/// A lazy field's `keys` (as `schema` stored them) as its readers take them:
/// each entity's pk as text (`7` is `"7"`), a list without the `null`s that
/// name nothing (as a list of entities reads without them).
fn keys_as_text(schema: &Schema, keys: Value) -> Value {
    let items = |item: &Schema, items: Vec<Value>| {
        Value::Array(items.into_iter().filter(|k| !k.is_null()).map(|k| keys_as_text(item, k)).collect())
    };
    match (schema, keys) {
        (Schema::Entity(_) | Schema::Invalidate(_), Value::Number(n)) => {
            crate::schema::pk_string(&Value::Number(n)).map_or(Value::Null, |pk| Value::String(pk.into()))
        }
        (Schema::Array(item), Value::Array(list)) => items(item, list),
        (Schema::All(all), Value::Array(list)) => match all.as_ref() {
            All::Single(def) => items(&Schema::Entity(def), list),
            All::Poly(_) => Value::Array(list),
        },
        (Schema::Values(item), Value::Object(map)) => {
            Value::Object(map.into_iter().map(|(name, k)| (name, keys_as_text(item, k))).collect())
        }
        (Schema::Cyclic(_), keys) => keys_as_text(&schema.resolved(), keys),
        (_, keys) => keys,
    }
}

/// What a value of `schema` is, for a message saying it was not there.
fn expected(schema: &Schema) -> &'static str {
    match schema {
        Schema::Array(_) | Schema::All(_) | Schema::Collection(_) => "an array",
        Schema::Cyclic(_) => expected(&schema.resolved()),
        Schema::Lazy(inner) => expected(inner),
        _ => "an object",
    }
}

/// Appends `[i]` without the formatting machinery (this runs for every list item).
fn push_index(path: &mut String, i: usize) {
    path.push('[');
    path.push_str(itoa::Buffer::new().format(i));
    path.push(']');
}

pub(crate) fn join_path(base: &str, field: &str) -> String {
    // A field error at the entity itself has the path ".".
    let field = if field == "." { "" } else { field };
    match (base.is_empty(), field.is_empty()) {
        (true, _) => field.to_owned(),
        (false, true) => base.to_owned(),
        (false, false) if field.starts_with('[') => format!("{base}{field}"),
        (false, false) => format!("{base}.{field}"),
    }
}
