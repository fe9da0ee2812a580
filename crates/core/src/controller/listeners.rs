//! Who to wake after a store change. A broad listener hears every change; a
//! tracked listener hears only changes to what its last run read: the endpoint
//! keys, entity rows and tables its reads depended on (targeted notification,
//! so a write costs what it changed, not what is mounted).

use std::rc::Rc;

use crate::read::Dep;
use crate::store::{Changes, FastMap, LAYOUT};

/// The index of a liveness topic: its row's index with this bit set.
const ALIVE: usize = 1 << (usize::BITS - 1);
/// The index of a whole table's topic.
const TABLE: usize = usize::MAX;

/// What one run of a tracked listener read.
#[derive(Debug, Default, Clone)]
pub(crate) struct Topics {
    keys: Vec<String>,
    /// Entity topics by (type key, index), with the fields the reads looked at
    /// (a mask as [`fields_changed`](crate::fields_changed) makes them, [`LAYOUT`]
    /// always set): a row's content at its index, its liveness at `index | ALIVE`
    /// and the whole table at `TABLE` (these two with every bit set). One kind
    /// of topic keeps the index, and the code that maintains it, single.
    rows: Vec<((&'static str, usize), u64)>,
}

/// Equal when the same keys and the same rows, each row's type key at the same
/// address (as the index tells topics apart): no text compared per row.
impl PartialEq for Topics {
    fn eq(&self, other: &Topics) -> bool {
        self.keys == other.keys
            && self.rows.len() == other.rows.len()
            && self.rows.iter().zip(&other.rows).all(|(&(a, fa), &(b, fb))| same_row(a, b) && fa == fb)
    }
}

impl Topics {
    pub fn key(&mut self, key: &str) {
        if !self.keys.iter().any(|k| k == key) {
            self.keys.push(key.to_owned());
        }
    }

    /// Records the topics of `deps`. A row met again soon after (a list's items
    /// mostly reference a few entities: each item's read records them again)
    /// has its fields merged into its first record instead of a new one, so
    /// what is sorted, compared and indexed later is about one entry per row.
    pub fn deps(&mut self, deps: &[Dep]) {
        // Where the rows seen last were recorded, by a hash of the row (a miss
        // only costs a repeat, which `dedup` merges later). Short reads (one
        // entity and what it references) skip it.
        const SLOTS: usize = 64;
        let mut seen = (deps.len() > 8).then_some([(0usize, 0usize, usize::MAX); SLOTS]);
        for dep in deps {
            let (row, fields) = match *dep {
                // A dependency narrowed to fields is woken by changes to those
                // fields or to the row's keys (what `Dep::unchanged` compares).
                Dep::Entity { key, index, ref seen, read, .. } => {
                    ((key, index), if seen.is_some() { read | LAYOUT } else { u64::MAX })
                }
                Dep::Alive { key, index, .. } => ((key, index | ALIVE), u64::MAX),
                Dep::Table { key, .. } => ((key, TABLE), u64::MAX),
                Dep::Void => continue,
            };
            let (address, index) = row_order(row);
            let slot = ((address ^ index.wrapping_mul(0x9e37_79b9)).wrapping_mul(0x9e37_79b9) >> 7) % SLOTS;
            if let Some(known) = seen.as_mut().and_then(|seen| seen.get_mut(slot)) {
                if known.0 == address && known.1 == index {
                    if let Some(first) = self.rows.get_mut(known.2) {
                        first.1 |= fields;
                        continue;
                    }
                }
                *known = (address, index, self.rows.len());
            }
            self.rows.push((row, fields));
        }
    }

    /// Sorted by key address (cheaper than comparing the strings), then index,
    /// without repeats (the fields of a row read twice are merged).
    ///
    /// The rows of a list's read come from a few tables, interleaved (an item,
    /// then what it references, then the next item), each table's mostly in
    /// increasing index. So they are dealt out by table first: each table's
    /// rows are then nearly one run, which the stable sort takes in about
    /// linear time (sorted whole, the interleaving leaves no runs).
    fn dedup(&mut self) {
        // Each table's rows, with the address of its type key.
        let mut tables: Vec<(usize, Vec<((&'static str, usize), u64)>)> = Vec::new();
        for &row in &self.rows {
            let address = row_order(row.0).0;
            match tables.iter_mut().find(|(a, _)| *a == address) {
                Some((_, table)) => table.push(row),
                None => tables.push((address, vec![row])),
            }
        }
        // Tables by address (a few: an insertion sort), each table's rows by
        // index (the one sort of such rows in rdc).
        for i in 1..tables.len() {
            let mut j = i;
            while j > 0 && tables.get(j - 1).map(|t| t.0) > tables.get(j).map(|t| t.0) {
                tables.swap(j - 1, j);
                j -= 1;
            }
        }
        self.rows.clear();
        for (_, mut table) in tables {
            crate::store::sort_rows(&mut table);
            self.rows.append(&mut table);
        }
        self.rows.dedup_by(|later, kept| {
            let same = same_row(later.0, kept.0);
            if same {
                kept.1 |= later.1;
            }
            same
        });
    }
}

struct Listener {
    callback: Rc<dyn Fn()>,
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
    /// not walk every listener to find them; hooks never listen so).
    broad: Vec<u64>,
    by_key: FastMap<String, Readers<()>>,
    /// Entries carry the address of the type key their topic used (a key may
    /// live at two addresses: each topic's entry is its own) and its fields.
    by_topic: FastMap<(&'static str, usize), Readers<(usize, u64)>>,
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
    pub fn add(&mut self, id: u64, callback: Rc<dyn Fn()>, tracked: bool) {
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
                for (row, _) in &topics.rows {
                    mark_dead(&mut self.by_topic, row, all);
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
            ids.sort_unstable();
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
        let mut wake = |topic: (&'static str, usize), changed: u64| {
            let readers = self.by_topic.get(&topic).into_iter().flat_map(|r| &r.entries);
            ids.extend(readers.filter(|(_, (_, fields))| fields & changed != 0).map(|(id, _)| *id));
        };
        for &(table, index, changed) in &changes.rows {
            wake((table, index), changed);
            if !tables.contains(&table) {
                tables.push(table);
            }
        }
        for &(table, index) in &changes.alive {
            wake((table, index | ALIVE), u64::MAX);
        }
        for table in tables {
            wake((table, TABLE), u64::MAX);
        }
        ids.sort_unstable();
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

/// The order topics are kept in: by the address of the table key, then index.
fn row_order((key, index): (&'static str, usize)) -> (usize, usize) {
    (key.as_ptr() as usize, index)
}

fn same_row(a: (&'static str, usize), b: (&'static str, usize)) -> bool {
    std::ptr::eq(a.0, b.0) && a.1 == b.1
}

/// Moves listener `id` in `map` from the entries of `old` to those of `new`,
/// both sorted by `row_order`, touching only the topics that differ.
fn reindex(
    map: &mut FastMap<(&'static str, usize), Readers<(usize, u64)>>,
    old: &[((&'static str, usize), u64)],
    new: &[((&'static str, usize), u64)],
    id: u64,
) {
    // Index entries carry the address of the key their topic used, and the
    // fields read. (Plain indices rather than iterator adapters: this walks
    // every topic of a list's listener on each change of the list.)
    let entry = |&(row, fields): &((&'static str, usize), u64)| (row.0.as_ptr() as usize, fields);
    let (mut i, mut j) = (0, 0);
    loop {
        let step = match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) => row_order(a.0).cmp(&row_order(b.0)),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => return,
        };
        match step {
            std::cmp::Ordering::Less => {
                if let Some(gone) = old.get(i) {
                    drop_id(map, &gone.0, id, &entry(gone));
                }
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                if let Some(added) = new.get(j) {
                    map.entry(added.0).or_default().entries.push((id, entry(added)));
                }
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                if let (Some(a), Some(b)) = (old.get(i), new.get(j)) {
                    let (was, now) = (entry(a), entry(b));
                    if was != now {
                        let mut found = map.get_mut(&b.0).into_iter().flat_map(|r| r.entries.iter_mut());
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
trait Topic: PartialEq {
    /// Whether two entries of one listener under one key stand for the same topic.
    fn same_topic(&self, other: &Self) -> bool;
}

impl Topic for () {
    fn same_topic(&self, _: &Self) -> bool {
        true
    }
}

/// A row entry: the address of the type key its topic used, and the fields read.
impl Topic for (usize, u64) {
    fn same_topic(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

/// Takes the entry of `id` for the topic of `entry` off `key`'s list (and the
/// list off the map once empty). One: a type key may live at two addresses
/// (topics are kept apart by address, the index by content), and each was
/// indexed once.
fn drop_id<K: std::hash::Hash + Eq + ?Sized, Q: std::hash::Hash + Eq + std::borrow::Borrow<K>, M: Topic>(
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

    fn topics(rows: Vec<((&'static str, usize), u64)>) -> Topics {
        Topics { rows, ..Topics::default() }
    }

    fn row_change(fields: u64) -> Changes {
        Changes { rows: vec![("Note", 1, fields)], ..Changes::default() }
    }

    /// A type key may live at two addresses (`Entity::DEF` is a constant): a
    /// listener reading one row through both has two topics, each with its fields.
    #[test]
    fn a_row_read_through_two_key_addresses_keeps_each_topics_fields() {
        let a: &'static str = Box::leak(String::from("Note").into_boxed_str());
        let b: &'static str = Box::leak(String::from("Note").into_boxed_str());
        let (low, high) = if (a.as_ptr() as usize) < (b.as_ptr() as usize) { (a, b) } else { (b, a) };
        let mut listeners = Listeners::default();
        listeners.add(1, Rc::new(|| {}), true);
        // The author (bit 0) read through one address, the title (bit 2) through the other.
        listeners.set_topics(1, topics(vec![((low, 1), 0b001 | LAYOUT), ((high, 1), 0b100 | LAYOUT)]));
        // The next run reads through the first address only.
        listeners.set_topics(1, topics(vec![((low, 1), 0b001 | LAYOUT)]));
        assert_eq!(listeners.to_wake(&row_change(0b001)), vec![1]);
        assert!(listeners.to_wake(&row_change(0b100)).is_empty());
        // Both again, then the second one's fields move (a key was added before them).
        listeners.set_topics(1, topics(vec![((low, 1), 0b001 | LAYOUT), ((high, 1), 0b100 | LAYOUT)]));
        listeners.set_topics(1, topics(vec![((low, 1), 0b001 | LAYOUT), ((high, 1), 0b1000 | LAYOUT)]));
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
            listeners.add(id, Rc::new(|| {}), true);
            listeners.set_topics(id, topics(vec![(("Note", 1), 0b1 | LAYOUT)]));
        }
        listeners.add(5000, Rc::new(|| {}), true);
        listeners.set_topics(5000, topics(vec![(("Other", 1), 0b1 | LAYOUT)]));
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
        listeners.add(1, Rc::new(|| {}), false);
        listeners.add(2, Rc::new(|| {}), true);
        listeners.add(3, Rc::new(|| {}), false);
        assert_eq!(listeners.to_wake(&row_change(0b1)), vec![1, 3]);
        listeners.remove(1);
        assert_eq!(listeners.to_wake(&Changes::default()), vec![3]);
        listeners.remove(3);
        assert!(listeners.broad.is_empty());
        let everything = Changes { everything: true, ..Changes::default() };
        assert_eq!(listeners.to_wake(&everything), vec![2]);
    }
}
