//! A list's keys (`Vec<Pk>`) memoized so that reading them again costs what
//! changed: the memo keeps its answer, each item's verdict and the
//! dependencies that decided it, and patches the answer from the rows the
//! store's journal says changed ([`State::rows_changed_since`]) and from where
//! the list itself changed (an item pushed, unshifted, removed or moved). When
//! it cannot tell, it reads the list whole again.

use std::sync::Arc;

use super::ctx::Ctx;
use super::deps::{Dep, LastTable};
use super::pk::Pk;
use super::prior::ListSource;
use crate::json::Value;
use crate::schema::{pk_string_ref, Object, Schema};
use crate::store::{FastMap, State};

/// Items a list may change by and still be patched (past that, read whole).
const MAX_MIDDLE: usize = 64;

/// A row a dependency names, by its table (its place in [`Tables`]) and
/// index (`usize::MAX`: the whole table).
type RowKey = (usize, usize);

/// The tables an entry's dependencies name, told apart by their key's text
/// (one type key may live at more than one address).
#[derive(Default)]
struct Tables(Vec<&'static str>);

impl Tables {
    fn id(&mut self, key: &'static str) -> usize {
        let found = self.0.iter().position(|k| std::ptr::eq(*k, key)).or_else(|| self.0.iter().position(|k| *k == key));
        found.unwrap_or_else(|| {
            self.0.push(key);
            self.0.len() - 1
        })
    }

    fn row_key(&mut self, dep: &Dep) -> Option<RowKey> {
        match *dep {
            Dep::Entity { key, index, .. } | Dep::Alive { key, index, .. } => Some((self.id(key), index)),
            Dep::Table { key, .. } => Some((self.id(key), usize::MAX)),
            Dep::Void => None,
        }
    }
}

/// The memoized keys of one list.
pub(crate) struct KeysEntry {
    /// What holds the list read (the same `Arc` again: the same list).
    list: ListSource,
    value: Arc<Vec<Pk>>,
    /// The position in the list of each key, ascending.
    at: Vec<u32>,
    /// Per list position: whether its item is shown, and its dependencies.
    items: Vec<Item>,
    deps: Vec<Dep>,
    /// The collection row holding the list, if it is a collection's.
    holder_dep: Option<Dep>,
    /// Dependencies of items that are still theirs.
    live_deps: usize,
    /// Rows to the positions whose dependencies name them, sorted (made
    /// when first needed), and entries added since, unsorted.
    index: Option<Vec<(RowKey, u32)>>,
    added: Vec<(RowKey, u32)>,
    tables: Tables,
    checked_at: u64,
}

#[derive(Clone, Copy)]
struct Item {
    shown: bool,
    from: u32,
    to: u32,
}

/// The list a keys read walks: its items, and what holds them.
struct Source<'a> {
    items: &'a [Value],
    holder: Holder<'a>,
    /// A collection's row: its edits change the list (a result's own key
    /// is followed by whoever reads it).
    holder_dep: Option<Dep>,
}

#[derive(Clone, Copy)]
enum Holder<'a> {
    Result(&'a Arc<Value>),
    Row(&'a Arc<Object>),
}

impl Holder<'_> {
    fn same(self, list: &ListSource) -> bool {
        match (self, list) {
            (Holder::Result(new), ListSource::Result(old)) => Arc::ptr_eq(new, old),
            (Holder::Row(new), ListSource::Row(old, _)) => Arc::ptr_eq(new, old),
            _ => false,
        }
    }

    fn source(self) -> ListSource {
        match self {
            Holder::Result(value) => ListSource::Result(Arc::clone(value)),
            Holder::Row(row) => ListSource::row(Arc::clone(row)),
        }
    }
}

/// The keys memo of a [`MemoCache`](super::MemoCache): one entry per result key.
#[derive(Default)]
pub(crate) struct KeysMemo {
    pub entries: FastMap<String, KeysEntry>,
    /// How many list items' validity this memo looked at (full reads count
    /// every item; a patch counts the items it checked).
    pub visited: u64,
}

impl KeysEntry {
    /// What the keys depend on: each item's check, and a collection's row.
    pub fn deps(&self) -> impl Iterator<Item = &Dep> {
        self.deps.iter().chain(&self.holder_dep)
    }
}

/// The item schema of a list schema whose keys this memo reads, and the
/// list it reads from `result`: a list (or a collection's list) of references
/// to an entity type whose required references require nothing, so each
/// item's check records every dependency it looked at.
fn source<'a>(state: &'a State, schema: &'a Schema, result: &'a Arc<Value>) -> Option<(&'a Schema, Source<'a>)> {
    let (item, source) = match schema {
        Schema::Array(item) => {
            (&**item, Source { items: result.as_array()?, holder: Holder::Result(result), holder_dep: None })
        }
        Schema::Collection(c) if c.map().is_none() => {
            let pk = pk_string_ref(result)?;
            let row = state.entity(c.def.key, &pk)?.value.as_ref()?;
            let recorder = Ctx::new(state);
            recorder.lookup(c.def, &pk)?;
            let holder_dep = recorder.into_deps().pop();
            (&c.item, Source { items: row.get("items")?.as_array()?, holder: Holder::Row(row), holder_dep })
        }
        _ => return None,
    };
    let probe = Ctx::unrecorded(state);
    matches!(item, Schema::Entity(_) | Schema::Invalidate(_)).then_some(())?;
    probe.keeps_verdicts(item).then_some((item, source))
}

impl KeysMemo {
    /// The keys of the list stored as the result of `key` (the value
    /// `result`), read through `schema`; `None` when this memo does
    /// not read that list (the caller reads it the general way).
    pub fn read(&mut self, state: &State, key: &str, result: &Arc<Value>, schema: &Schema) -> Option<Arc<Vec<Pk>>> {
        if let Some(entry) = self.entries.get(key).filter(|e| e.checked_at == state.version()) {
            return Some(Arc::clone(&entry.value));
        }
        let Some((item, source)) = source(state, schema, result) else {
            self.entries.remove(key);
            return None;
        };
        if let Some(entry) = self.entries.get_mut(key) {
            let patched = entry.patch(state, item, &source, &mut self.visited);
            if patched == Some(()) {
                entry.holder_dep = source.holder_dep;
                return Some(Arc::clone(&entry.value));
            }
        }
        // A patch that failed may have left the entry half done.
        self.entries.remove(key);
        self.visited += source.items.len() as u64;
        let entry = full(state, item, &source)?;
        let value = Arc::clone(&entry.value);
        self.entries.insert(key.to_owned(), entry);
        Some(value)
    }
}

/// Reads every item of `source` (each item's verdict and dependencies kept).
fn full(state: &State, schema: &Schema, source: &Source<'_>) -> Option<KeysEntry> {
    let ctx = Ctx::new(state);
    let n = u32::try_from(source.items.len()).ok()?;
    let mut items = Vec::with_capacity(n as usize);
    let (mut value, mut at) = (Vec::with_capacity(n as usize), Vec::with_capacity(n as usize));
    for (i, item) in (0..n).zip(source.items) {
        let (shown, from, to) = decide(&ctx, schema, item)?;
        if shown {
            value.push(key_of(item)?);
            at.push(i);
        }
        items.push(Item { shown, from, to });
    }
    let deps = ctx.into_deps();
    Some(KeysEntry {
        list: source.holder.source(),
        value: Arc::new(value),
        at,
        items,
        live_deps: deps.len(),
        deps,
        holder_dep: source.holder_dep.clone(),
        index: None,
        added: Vec::new(),
        tables: Tables::default(),
        checked_at: state.version(),
    })
}

/// Decides whether `item` is shown, recording every dependency the check
/// looked at; returns the verdict and the range of `ctx`'s dependencies.
fn decide(ctx: &Ctx<'_>, schema: &Schema, item: &Value) -> Option<(bool, u32, u32)> {
    let from = u32::try_from(ctx.next_dep()).ok()?;
    let shown = ctx.decide_item(schema, item);
    let to = u32::try_from(ctx.next_dep()).ok()?;
    Some((shown, from, to))
}

/// The key of a shown item as `Pk`'s `Deserialize` takes it (a text
/// reference shared); `None` when it does not take it (read the general way).
fn key_of(item: &Value) -> Option<Pk> {
    match item {
        Value::String(text) => Some(Pk(text.clone())),
        other => <Pk as serde::Deserialize>::deserialize(other).ok(),
    }
}

impl KeysEntry {
    /// Brings the keys up to date from what changed since they were read;
    /// `None` when that cannot be told (read whole again).
    fn patch(&mut self, state: &State, schema: &Schema, source: &Source<'_>, visited: &mut u64) -> Option<()> {
        if self.deps.len() > 2 * self.live_deps + 1024 {
            return None;
        }
        // The rows changed since, when the journal can tell (else every item is checked).
        let tables = &mut self.tables;
        let changed: Option<Vec<RowKey>> = state
            .rows_changed_since(self.checked_at)
            .map(|rows| rows.map(|row| (tables.id(row.table), row.index)).collect());
        let ctx = Ctx::new(state);
        if !source.holder.same(&self.list) {
            self.relist(&ctx, schema, source, visited)?;
        }
        // Items whose dependencies name a changed row: checked, and decided
        // again when something they looked at changed.
        let mut candidates: Vec<u32> = Vec::new();
        let Some(changed) = changed else {
            candidates.extend(0..u32::try_from(self.items.len()).ok()?);
            return self.check(state, schema, source, candidates, visited);
        };
        if !changed.is_empty() {
            let index = self.index.get_or_insert_with(|| index_of(&self.items, &self.deps, &mut self.tables));
            for row in changed.iter().flat_map(|&(table, index)| [(table, index), (table, usize::MAX)]) {
                let start = index.partition_point(|(key, _)| *key < row);
                let found = index.get(start..).unwrap_or(&[]).iter().take_while(|(key, _)| *key == row);
                candidates.extend(found.map(|(_, position)| *position));
                candidates.extend(self.added.iter().filter(|(key, _)| *key == row).map(|(_, position)| *position));
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        self.check(state, schema, source, candidates, visited)
    }

    /// Checks the items at `candidates` (ascending positions), decides again
    /// those whose dependencies changed, and shows or hides them.
    fn check(
        &mut self,
        state: &State,
        schema: &Schema,
        source: &Source<'_>,
        candidates: Vec<u32>,
        visited: &mut u64,
    ) -> Option<()> {
        let ctx = Ctx::new(state);
        let mut flips: Vec<(u32, bool)> = Vec::new();
        let mut last = LastTable::default();
        for position in candidates {
            let item = *self.items.get(position as usize)?;
            *visited += 1;
            let deps = self.deps.get_mut(item.from as usize..item.to as usize)?;
            if deps.iter_mut().all(|dep| dep.unchanged(state, &mut last)) {
                continue;
            }
            let shown = self.decide_again(&ctx, schema, source, position)?;
            if shown != item.shown {
                flips.push((position, shown));
            }
        }
        if self.added.len() > 64 {
            if let Some(index) = self.index.as_mut() {
                // The index and the entries added since, each sorted: two runs,
                // merged in linear time (rdc's sorts: the standard ones are
                // kilobytes of wasm per element type).
                crate::sort::sort(&mut self.added);
                index.append(&mut self.added);
                crate::sort::merge_runs(index);
            }
        }
        if !flips.is_empty() {
            self.flip(&flips, source)?;
        }
        self.list = source.holder.source();
        self.checked_at = state.version();
        Some(())
    }

    /// Decides item `position` of `source` afresh; its new dependencies
    /// replace its old ones.
    fn decide_again(&mut self, ctx: &Ctx<'_>, schema: &Schema, source: &Source<'_>, position: u32) -> Option<bool> {
        let reference = source.items.get(position as usize)?;
        let (shown, _, _) = decide(ctx, schema, reference)?;
        let deps: Vec<Dep> = ctx.recording.deps.borrow_mut().drain(..).collect();
        let from = u32::try_from(self.deps.len()).ok()?;
        let to = from.checked_add(u32::try_from(deps.len()).ok()?)?;
        let slot = self.items.get_mut(position as usize)?;
        self.live_deps = (self.live_deps + deps.len()).saturating_sub((slot.to - slot.from) as usize);
        *slot = Item { shown, from, to };
        let tables = &mut self.tables;
        self.added.extend(deps.iter().filter_map(|dep| tables.row_key(dep)).map(|row| (row, position)));
        self.deps.extend(deps);
        Some(shown)
    }

    /// Shows or hides the items at `flips` (positions, ascending), copying the
    /// keys between them.
    fn flip(&mut self, flips: &[(u32, bool)], source: &Source<'_>) -> Option<()> {
        let (old, old_at) = (&*self.value, &self.at);
        let mut value = Vec::with_capacity(old.len() + flips.len());
        let mut at = Vec::with_capacity(old.len() + flips.len());
        let mut done = 0;
        for &(position, shown) in flips {
            let upto = old_at.partition_point(|&p| p < position);
            value.extend_from_slice(old.get(done..upto)?);
            at.extend_from_slice(old_at.get(done..upto)?);
            done = upto;
            if shown {
                value.push(key_of(source.items.get(position as usize)?)?);
                at.push(position);
            } else {
                done += 1;
            }
        }
        value.extend_from_slice(old.get(done..)?);
        at.extend_from_slice(old_at.get(done..)?);
        self.value = Arc::new(value);
        self.at = at;
        Some(())
    }

    /// Follows the list from the one read last to `source`'s: the items
    /// before and after what changed keep their verdicts; the changed middle
    /// (a few items pushed, unshifted or removed) is decided afresh, or, for
    /// one item moved across many, turned round.
    fn relist(&mut self, ctx: &Ctx<'_>, schema: &Schema, source: &Source<'_>, visited: &mut u64) -> Option<()> {
        let list = self.list.clone();
        let old = list.items();
        let new = source.items;
        let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
        let most = old.len().min(new.len()) - prefix;
        let suffix = old.iter().rev().zip(new.iter().rev()).take(most).take_while(|(a, b)| a == b).count();
        let (old_mid, new_mid) = (prefix..old.len() - suffix, prefix..new.len() - suffix);
        // Positions move: the index is made again when needed.
        self.index = None;
        self.added.clear();
        let at_prefix = self.at.partition_point(|&p| (p as usize) < prefix);
        let at_suffix = self.at.partition_point(|&p| (p as usize) < old_mid.end);
        let shift = |p: u32| (p as usize + new.len()).checked_sub(old.len()).and_then(|p| u32::try_from(p).ok());
        let mut value: Vec<Pk> = Vec::with_capacity(new.len());
        let mut at: Vec<u32> = Vec::with_capacity(new.len());
        value.extend_from_slice(self.value.get(..at_prefix)?);
        at.extend_from_slice(self.at.get(..at_prefix)?);
        let (olds, news) = (old.get(old_mid.clone())?, new.get(new_mid.clone())?);
        let turned = olds.len() == news.len() && olds.len() > 1;
        if turned && olds.get(1..) == news.get(..news.len() - 1) && olds.first() == news.last() {
            // The first moved to the end: its item turns round.
            self.items.get_mut(old_mid.clone())?.rotate_left(1);
        } else if turned && olds.get(..olds.len() - 1) == news.get(1..) && olds.last() == news.first() {
            self.items.get_mut(old_mid.clone())?.rotate_right(1);
        } else if news.len() <= MAX_MIDDLE && olds.len() <= MAX_MIDDLE {
            let gone: usize = self.items.get(old_mid.clone())?.iter().map(|i| (i.to - i.from) as usize).sum();
            self.live_deps = self.live_deps.saturating_sub(gone);
            let placeholder = Item { shown: false, from: 0, to: 0 };
            self.items.splice(old_mid.clone(), std::iter::repeat_n(placeholder, news.len()));
            for position in new_mid.clone() {
                *visited += 1;
                self.decide_again(ctx, schema, source, u32::try_from(position).ok()?)?;
            }
            self.added.clear();
        } else {
            return None;
        }
        for position in new_mid {
            if self.items.get(position)?.shown {
                value.push(key_of(new.get(position)?)?);
                at.push(u32::try_from(position).ok()?);
            }
        }
        for &p in self.at.get(at_suffix..)? {
            at.push(shift(p)?);
        }
        if value.get(at_prefix..) != self.value.get(at_prefix..at_suffix) {
            value.extend_from_slice(self.value.get(at_suffix..)?);
            self.value = Arc::new(value);
        }
        self.at = at;
        Some(())
    }
}

/// Rows to the positions whose dependencies name them, sorted.
fn index_of(items: &[Item], deps: &[Dep], tables: &mut Tables) -> Vec<(RowKey, u32)> {
    let mut index: Vec<(RowKey, u32)> = Vec::with_capacity(deps.len());
    for (position, item) in (0u32..).zip(items) {
        let deps = deps.get(item.from as usize..item.to as usize).unwrap_or(&[]);
        index.extend(deps.iter().filter_map(|dep| tables.row_key(dep)).map(|row| (row, position)));
    }
    crate::sort::merge_runs(&mut index);
    index
}
