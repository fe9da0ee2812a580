//! Who to wake after a store change. A broad listener hears every change; a
//! tracked listener hears only changes to what its last run read: the endpoint
//! keys, entity rows and tables its reads depended on (targeted notification,
//! so a write costs what it changed, not what is mounted).

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::read::Dep;
use crate::store::{Changes, FastMap};

/// What one run of a tracked listener read.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Topics {
    keys: Vec<String>,
    rows: Vec<(&'static str, usize)>,
    alive: Vec<(&'static str, usize)>,
    tables: Vec<&'static str>,
}

impl Topics {
    pub fn key(&mut self, key: &str) {
        if !self.keys.iter().any(|k| k == key) {
            self.keys.push(key.to_owned());
        }
    }

    pub fn deps(&mut self, deps: &[Dep]) {
        for dep in deps {
            match *dep {
                Dep::Entity { key, index, .. } => self.rows.push((key, index)),
                Dep::Alive { key, index, .. } => self.alive.push((key, index)),
                Dep::Table { key, .. } => self.tables.push(key),
                Dep::Void => {}
            }
        }
    }

    /// Sorted by key address (cheaper than comparing the strings), without repeats.
    fn dedup(&mut self) {
        fn by_address(rows: &mut Vec<(&'static str, usize)>) {
            rows.sort_unstable_by_key(|row| row_order(*row));
            rows.dedup_by(|a, b| std::ptr::eq(a.0, b.0) && a.1 == b.1);
        }
        by_address(&mut self.rows);
        by_address(&mut self.alive);
        self.tables.sort_unstable_by_key(|key| key.as_ptr() as usize);
        self.tables.dedup_by(|a, b| std::ptr::eq(*a, *b));
    }
}

struct Listener {
    callback: Rc<dyn Fn()>,
    /// `None`: hears every change. Otherwise what its last run read, as
    /// recorded, and the same without repeats (as indexed).
    topics: Option<(Topics, Topics)>,
}

/// Listeners by id, and tracked ones indexed by what they read.
#[derive(Default)]
pub(crate) struct Listeners {
    all: BTreeMap<u64, Listener>,
    by_key: FastMap<String, Vec<u64>>,
    by_row: FastMap<(&'static str, usize), Vec<u64>>,
    by_alive: FastMap<(&'static str, usize), Vec<u64>>,
    by_table: FastMap<&'static str, Vec<u64>>,
}

impl Listeners {
    pub fn add(&mut self, id: u64, callback: Rc<dyn Fn()>, tracked: bool) {
        let topics = tracked.then(Default::default);
        self.all.insert(id, Listener { callback, topics });
    }

    pub fn remove(&mut self, id: u64) {
        if let Some(Listener { topics: Some((_, topics)), .. }) = self.all.remove(&id) {
            self.unindex(id, &topics);
        }
    }

    pub fn len(&self) -> usize {
        self.all.len()
    }

    /// The callback of `id`, and whether it is tracked.
    pub fn callback(&self, id: u64) -> Option<(Rc<dyn Fn()>, bool)> {
        self.all.get(&id).map(|l| (Rc::clone(&l.callback), l.topics.is_some()))
    }

    /// Replaces what tracked listener `id` follows.
    pub fn set_topics(&mut self, id: u64, recorded: Topics) {
        let Some(listener) = self.all.get_mut(&id) else { return };
        let Some((old_recorded, old)) = listener.topics.as_mut() else { return };
        // Reads of the same data record the same topics in the same order.
        if *old_recorded == recorded {
            return;
        }
        let mut topics = recorded.clone();
        topics.dedup();
        if *old == topics {
            *old_recorded = recorded;
            return;
        }
        // Only what changed moves in the index (a list re-read after one row
        // changed keeps almost all of its topics).
        let old = std::mem::take(old);
        if old.keys != topics.keys {
            for key in &old.keys {
                drop_id(&mut self.by_key, key, id);
            }
            for key in &topics.keys {
                self.by_key.entry_ref(key.as_str()).or_default().push(id);
            }
        }
        reindex(&mut self.by_row, &old.rows, &topics.rows, row_order, id);
        reindex(&mut self.by_alive, &old.alive, &topics.alive, row_order, id);
        reindex(&mut self.by_table, &old.tables, &topics.tables, |t| (t.as_ptr() as usize, 0), id);
        if let Some(listener) = self.all.get_mut(&id) {
            listener.topics = Some((recorded, topics));
        }
    }

    fn unindex(&mut self, id: u64, topics: &Topics) {
        for key in &topics.keys {
            drop_id(&mut self.by_key, key, id);
        }
        for row in &topics.rows {
            drop_id(&mut self.by_row, row, id);
        }
        for row in &topics.alive {
            drop_id(&mut self.by_alive, row, id);
        }
        for table in &topics.tables {
            drop_id(&mut self.by_table, table, id);
        }
    }

    /// Ids to wake for `changes`, in the order they started listening.
    pub fn to_wake(&self, changes: &Changes) -> Vec<u64> {
        if changes.everything {
            return self.all.keys().copied().collect();
        }
        let mut ids: Vec<u64> = self.all.iter().filter(|(_, l)| l.topics.is_none()).map(|(id, _)| *id).collect();
        if changes.is_empty() {
            return ids;
        }
        for key in &changes.keys {
            ids.extend(self.by_key.get(key.as_str()).into_iter().flatten());
        }
        let mut tables: Vec<&'static str> = Vec::new();
        for row in &changes.rows {
            ids.extend(self.by_row.get(row).into_iter().flatten());
            if !tables.contains(&row.0) {
                tables.push(row.0);
            }
        }
        for row in &changes.alive {
            ids.extend(self.by_alive.get(row).into_iter().flatten());
        }
        for table in tables {
            ids.extend(self.by_table.get(table).into_iter().flatten());
        }
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

/// The order topics are kept in: by the address of the table key, then index.
fn row_order((key, index): (&'static str, usize)) -> (usize, usize) {
    (key.as_ptr() as usize, index)
}

/// Moves listener `id` in `map` from the keys of `old` to those of `new`, both
/// sorted by `order`, touching only the keys that differ.
fn reindex<K: Copy + std::hash::Hash + Eq>(
    map: &mut FastMap<K, Vec<u64>>,
    old: &[K],
    new: &[K],
    order: impl Fn(K) -> (usize, usize),
    id: u64,
) {
    let (mut old, mut new) = (old.iter().copied().peekable(), new.iter().copied().peekable());
    loop {
        let step = match (old.peek().copied(), new.peek().copied()) {
            (Some(a), Some(b)) => order(a).cmp(&order(b)),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => return,
        };
        match step {
            std::cmp::Ordering::Less => {
                if let Some(gone) = old.next() {
                    drop_id(map, &gone, id);
                }
            }
            std::cmp::Ordering::Greater => {
                if let Some(added) = new.next() {
                    map.entry(added).or_default().push(id);
                }
            }
            std::cmp::Ordering::Equal => {
                old.next();
                new.next();
            }
        }
    }
}

/// Takes one entry of `id` off `key`'s list (and the list off the map once
/// empty). One: a type key may live at two addresses (topics are kept apart by
/// address, the index by content), and each was indexed once.
fn drop_id<K: std::hash::Hash + Eq>(map: &mut FastMap<K, Vec<u64>>, key: &K, id: u64) {
    if let Some(ids) = map.get_mut(key) {
        if let Some(at) = ids.iter().position(|i| *i == id) {
            ids.swap_remove(at);
        }
        if ids.is_empty() {
            map.remove(key);
        }
    }
}
