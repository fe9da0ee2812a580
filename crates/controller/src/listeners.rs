//! Who to wake after a store change. A broad listener hears every change; a
//! tracked listener hears only changes to what its last run read: the endpoint
//! keys, entity rows and tables its reads depended on (targeted notification,
//! so a write costs what it changed, not what is mounted).

use super::topics::Topics;
use rdc_core::{ByAddress, Changes, FastMap, FieldMask, Topic, TopicFields};
use std::sync::Arc;

struct Listener {
    callback: Arc<dyn Fn() + Send + Sync>,
    /// `None`: hears every change. Otherwise what its last run read, as
    /// recorded, and the same without repeats (as indexed).
    topics: Option<(Topics, Topics)>,
}

/// Listeners by id, and tracked ones indexed by what they read (rows with the
/// fields read).
#[derive(Default)]
pub(crate) struct Listeners {
    all: FastMap<u64, Listener>,
    /// Ids of the listeners that hear every change, in order (so a write does
    /// not walk every listener to find them): `listen`'s and `listen_changes`'s
    /// (a list's rows).
    broad: Vec<u64>,
    by_key: FastMap<String, Readers<()>>,
    /// Entries carry the address of the type key their topic used (a key may
    /// live at two addresses: each topic's entry is its own) and its fields.
    by_topic: FastMap<(&'static str, usize), Readers<(ByAddress<str>, FieldMask)>>,
}

/// The listeners indexed under one topic, and how many of those entries belong
/// to removed listeners. Removing a listener only counts its entries; a topic's
/// entries are compacted once half of them are dead (taking each out at once
/// would cost as much as the other listeners of the topic: quadratic when
/// thousands of rows show one entity and unmount together).
struct Readers<M> {
    entries: Vec<(u64, M)>,
    dead: usize,
}

impl<M> Default for Readers<M> {
    fn default() -> Self {
        Readers { entries: Vec::new(), dead: 0 }
    }
}

impl Listeners {
    pub fn add(&mut self, id: u64, callback: Arc<dyn Fn() + Send + Sync>, tracked: bool) {
        let topics = tracked.then(Default::default);
        if !tracked {
            if let Err(at) = self.broad.binary_search(&id) {
                // Ids only grow: this is a push.
                self.broad.insert(at, id);
            }
        }
        self.all.insert(id, Listener { callback, topics });
    }

    pub fn remove(&mut self, id: u64) {
        match self.all.remove(&id) {
            Some(Listener { topics: Some((_, topics)), .. }) => {
                let all = &self.all;
                for key in &topics.keys {
                    mark_dead(&mut self.by_key, key.as_str(), all);
                }
                for record in &topics.rows {
                    mark_dead(&mut self.by_topic, &record.topic.by_text(), all);
                }
            }
            Some(Listener { topics: None, .. }) => {
                if let Ok(at) = self.broad.binary_search(&id) {
                    self.broad.remove(at);
                }
            }
            None => {}
        }
    }

    pub fn len(&self) -> usize {
        self.all.len()
    }

    /// The callback of `id`, and whether it is tracked.
    pub fn callback(&self, id: u64) -> Option<(Arc<dyn Fn() + Send + Sync>, bool)> {
        self.all.get(&id).map(|l| (Arc::clone(&l.callback), l.topics.is_some()))
    }

    /// Replaces what tracked listener `id` follows.
    pub fn set_topics(&mut self, id: u64, recorded: Topics) {
        let Some(listener) = self.all.get_mut(&id) else { return };
        let Some((old_recorded, old)) = listener.topics.as_mut() else { return };
        // Reads of the same data record the same topics in the same order.
        if *old_recorded == recorded {
            return;
        }
        // A re-read that recorded nearly the same: only what differs moves (a
        // first run has nothing to patch).
        let first = old_recorded.rows.is_empty() && old.rows.is_empty();
        if let Some(moved) = (!first).then(|| old.patch(old_recorded, &recorded)).flatten() {
            *old_recorded = recorded;
            for gone in &moved.gone {
                drop_id(&mut self.by_topic, &gone.topic.by_text(), id, &entry(gone));
            }
            for came in &moved.came {
                self.by_topic.entry(came.topic.by_text()).or_default().entries.push((id, entry(came)));
            }
            return;
        }
        let topics = recorded.indexed();
        if *old == topics {
            // (The same rows, perhaps merging other records: kept as now.)
            *old = topics;
            *old_recorded = recorded;
            return;
        }
        // Only what changed moves in the index (a list re-read after one row
        // changed keeps almost all of its topics).
        let old = std::mem::take(old);
        if old.keys != topics.keys {
            for key in &old.keys {
                drop_id(&mut self.by_key, key.as_str(), id, &());
            }
            for key in &topics.keys {
                self.by_key.entry_ref(key.as_str()).or_default().entries.push((id, ()));
            }
        }
        reindex(&mut self.by_topic, &old.rows, &topics.rows, id);
        if let Some(listener) = self.all.get_mut(&id) {
            listener.topics = Some((recorded, topics));
        }
    }

    /// Ids to wake for `changes`, in the order they started listening: a row's
    /// reader only when a field it looked at changed. May hold removed ids not
    /// yet compacted out of the index (`callback` then finds nothing).
    pub fn to_wake(&self, changes: &Changes) -> Vec<u64> {
        if changes.everything {
            let mut ids: Vec<u64> = self.all.keys().copied().collect();
            rdc_core::json::sort::sort(&mut ids);
            return ids;
        }
        let mut ids = self.broad.clone();
        if changes.is_empty() {
            return ids;
        }
        for key in &changes.keys {
            ids.extend(ids_of(self.by_key.get(key.as_str())));
        }
        let mut tables: Vec<&'static str> = Vec::new();
        let mut wake = |topic: Topic, changed: FieldMask| {
            let readers = self.by_topic.get(&topic.by_text()).into_iter().flat_map(|r| &r.entries);
            ids.extend(readers.filter(|(_, (_, fields))| fields & changed != 0).map(|(id, _)| *id));
        };
        for change in &changes.rows {
            wake(Topic::fields(change.row), change.fields);
            if !tables.contains(&change.row.table) {
                tables.push(change.row.table);
            }
        }
        for &row in &changes.alive {
            wake(Topic::alive(row), FieldMask::MAX);
        }
        for table in tables {
            wake(Topic::table(table), FieldMask::MAX);
        }
        rdc_core::json::sort::sort(&mut ids);
        ids.dedup();
        ids
    }
}

/// The ids indexed under one topic.
fn ids_of(readers: Option<&Readers<()>>) -> impl Iterator<Item = u64> + '_ {
    readers.into_iter().flat_map(|r| &r.entries).map(|(id, _)| *id)
}

/// Counts one entry under `key` as a removed listener's, and compacts the
/// topic once half of its entries are (keeping the ids still in `all`).
fn mark_dead<K: std::hash::Hash + Eq + ?Sized, Q: std::hash::Hash + Eq + std::borrow::Borrow<K>, M>(
    map: &mut FastMap<Q, Readers<M>>,
    key: &K,
    all: &FastMap<u64, Listener>,
) {
    let Some(readers) = map.get_mut(key) else { return };
    readers.dead += 1;
    if readers.dead * 2 > readers.entries.len() {
        readers.entries.retain(|(id, _)| all.contains_key(id));
        readers.dead = 0;
        if readers.entries.is_empty() {
            map.remove(key);
        }
    }
}

/// An index entry for a row topic: the address of the key its topic used, and
/// the fields read.
fn entry(record: &TopicFields) -> (ByAddress<str>, FieldMask) {
    (ByAddress(record.topic.table_key()), record.fields)
}

/// Moves listener `id` in `map` from the entries of `old` to those of `new`,
/// both sorted by [`Topic::order`], touching only the topics that differ.
fn reindex(
    map: &mut FastMap<(&'static str, usize), Readers<(ByAddress<str>, FieldMask)>>,
    old: &[TopicFields],
    new: &[TopicFields],
    id: u64,
) {
    // (Plain indices rather than iterator adapters: this walks every topic of
    // a list's listener when its list is read anew.)
    let (mut i, mut j) = (0, 0);
    loop {
        let step = match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) => a.topic.order().cmp(&b.topic.order()),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => return,
        };
        match step {
            std::cmp::Ordering::Less => {
                if let Some(gone) = old.get(i) {
                    drop_id(map, &gone.topic.by_text(), id, &entry(gone));
                }
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                if let Some(added) = new.get(j) {
                    map.entry(added.topic.by_text()).or_default().entries.push((id, entry(added)));
                }
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                if let (Some(a), Some(b)) = (old.get(i), new.get(j)) {
                    let (was, now) = (entry(a), entry(b));
                    if was != now {
                        let mut found = map.get_mut(&b.topic.by_text()).into_iter().flat_map(|r| r.entries.iter_mut());
                        if let Some(slot) = found.find(|(k, e)| *k == id && e.same_topic(&was)) {
                            slot.1 = now;
                        }
                    }
                }
                i += 1;
                j += 1;
            }
        }
    }
}

/// What an index entry says beside its listener's id.
trait IndexEntry: PartialEq {
    /// Whether two entries of one listener under one key stand for the same topic.
    fn same_topic(&self, other: &Self) -> bool;
}

impl IndexEntry for () {
    fn same_topic(&self, _: &Self) -> bool {
        true
    }
}

/// A row entry: the address of the type key its topic used, and the fields read.
impl IndexEntry for (ByAddress<str>, FieldMask) {
    fn same_topic(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

/// Takes the entry of `id` for the topic of `entry` off `key`'s list (and the
/// list off the map once empty). One: a type key may live at two addresses
/// (topics are kept apart by address, the index by content), and each was
/// indexed once.
fn drop_id<K: std::hash::Hash + Eq + ?Sized, Q: std::hash::Hash + Eq + std::borrow::Borrow<K>, M: IndexEntry>(
    map: &mut FastMap<Q, Readers<M>>,
    key: &K,
    id: u64,
    entry: &M,
) {
    if let Some(readers) = map.get_mut(key) {
        if let Some(at) = readers.entries.iter().position(|(i, e)| *i == id && e.same_topic(entry)) {
            readers.entries.swap_remove(at);
        }
        if readers.entries.is_empty() {
            map.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdc_core::{Row, LAYOUT};

    /// A run that read the fields of row 1 of each table with the mask beside it.
    fn topics(rows: Vec<(&'static str, FieldMask)>) -> Topics {
        let mut topics = Topics::default();
        topics.rows = rows
            .into_iter()
            .map(|(table, fields)| TopicFields { topic: Topic::fields(Row { table, index: 1 }), fields })
            .collect();
        topics
    }

    fn row_change(fields: u64) -> Changes {
        Changes {
            rows: vec![rdc_core::RowChange { row: Row { table: "Note", index: 1 }, fields }],
            ..Changes::default()
        }
    }

    /// A type key may live at two addresses (`Entity::DEF` is a constant): a
    /// listener reading one row through both has two topics, each with its fields.
    #[test]
    fn a_row_read_through_two_key_addresses_keeps_each_topics_fields() {
        let a: &'static str = Box::leak(String::from("Note").into_boxed_str());
        let b: &'static str = Box::leak(String::from("Note").into_boxed_str());
        let (low, high) = if ByAddress(a) < ByAddress(b) { (a, b) } else { (b, a) };
        let mut listeners = Listeners::default();
        listeners.add(1, Arc::new(|| {}), true);
        // The author (bit 0) read through one address, the title (bit 2) through the other.
        listeners.set_topics(1, topics(vec![(low, 0b001 | LAYOUT), (high, 0b100 | LAYOUT)]));
        // The next run reads through the first address only.
        listeners.set_topics(1, topics(vec![(low, 0b001 | LAYOUT)]));
        assert_eq!(listeners.to_wake(&row_change(0b001)), vec![1]);
        assert!(listeners.to_wake(&row_change(0b100)).is_empty());
        // Both again, then the second one's fields move (a key was added before them).
        listeners.set_topics(1, topics(vec![(low, 0b001 | LAYOUT), (high, 0b100 | LAYOUT)]));
        listeners.set_topics(1, topics(vec![(low, 0b001 | LAYOUT), (high, 0b1000 | LAYOUT)]));
        assert_eq!(listeners.to_wake(&row_change(0b001)), vec![1]);
        assert_eq!(listeners.to_wake(&row_change(0b1000)), vec![1]);
        assert!(listeners.to_wake(&row_change(0b10)).is_empty());
        // Gone, and the only reader of the row: its topic goes at once.
        listeners.remove(1);
        assert!(listeners.by_topic.is_empty());
    }

    /// Many readers of one row going at once cost each a count, not a search
    /// through the others; the row's entries are compacted once half are dead.
    #[test]
    fn removed_listeners_are_compacted_out_of_the_index() {
        let mut listeners = Listeners::default();
        let entries = |l: &Listeners| l.by_topic.get(&("Note", 1)).map_or(0, |r| r.entries.len());
        for id in 0..1000 {
            listeners.add(id, Arc::new(|| {}), true);
            listeners.set_topics(id, topics(vec![("Note", 0b1 | LAYOUT)]));
        }
        listeners.add(5000, Arc::new(|| {}), true);
        listeners.set_topics(5000, topics(vec![("Other", 0b1 | LAYOUT)]));
        for id in 0..500 {
            listeners.remove(id);
        }
        // Half removed: not yet compacted, and a change still names them.
        assert_eq!(entries(&listeners), 1000);
        assert_eq!(listeners.to_wake(&row_change(0b1)).len(), 1000);
        listeners.remove(500);
        assert_eq!(entries(&listeners), 499);
        assert_eq!(listeners.to_wake(&row_change(0b1)), (501..1000).collect::<Vec<_>>());
        for id in 501..1000 {
            listeners.remove(id);
        }
        // Every reader of the row gone: the row leaves the index; the other stays.
        assert_eq!(entries(&listeners), 0);
        assert_eq!(listeners.by_topic.len(), 1);
    }

    /// Broad listeners hear every change, without a write walking the others.
    #[test]
    fn broad_listeners_hear_every_change_until_removed() {
        let mut listeners = Listeners::default();
        listeners.add(1, Arc::new(|| {}), false);
        listeners.add(2, Arc::new(|| {}), true);
        listeners.add(3, Arc::new(|| {}), false);
        assert_eq!(listeners.to_wake(&row_change(0b1)), vec![1, 3]);
        listeners.remove(1);
        assert_eq!(listeners.to_wake(&Changes::default()), vec![3]);
        listeners.remove(3);
        assert!(listeners.broad.is_empty());
        let everything = Changes { everything: true, ..Changes::default() };
        assert_eq!(listeners.to_wake(&everything), vec![2]);
    }
}
