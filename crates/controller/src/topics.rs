//! What one run of a tracked listener read (its topics), as recorded and as
//! indexed, and how a re-read that recorded nearly the same topics moves the
//! indexed ones without rebuilding them.

use rdc_core::{ByAddress, Topic, TopicFields};

/// What one run of a tracked listener read.
#[derive(Debug, Default, Clone)]
pub(crate) struct Topics {
    pub(super) keys: Vec<String>,
    /// Entity [`Topic`]s (a row's fields, a row's liveness, a whole table),
    /// each with the fields the reads looked at (a mask as
    /// [`fields_changed`](rdc_core::fields_changed) makes them, with
    /// [`LAYOUT`](rdc_core::LAYOUT) set; every bit for liveness and tables).
    /// One kind of entry keeps the index, and the code that maintains it, single.
    pub(super) rows: Vec<TopicFields>,
    /// Indexed topics only, beside `rows`: how many records each row merges,
    /// and whether those all had the same fields (then one can come or go
    /// without looking at the others: see [`Topics::patch`]).
    tally: Vec<Tally>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Tally {
    records: u32,
    uniform: bool,
}

/// Equal when the same keys and the same rows, each row's type key at the same
/// address (as the index tells topics apart): no text compared per row.
impl PartialEq for Topics {
    fn eq(&self, other: &Topics) -> bool {
        self.keys == other.keys && self.rows.len() == other.rows.len() && self.rows == other.rows
    }
}

/// What [`Topics::patch`] moved: rows no longer read and rows newly read.
#[derive(Debug, Default)]
pub(super) struct Moved {
    pub gone: Vec<TopicFields>,
    pub came: Vec<TopicFields>,
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
    pub fn record(&mut self, topics: impl Iterator<Item = TopicFields>) {
        // Where the rows seen last were recorded, by a hash of the row (a miss
        // only costs a repeat, which `dedup` merges later). Short reads (one
        // entity and what it references) skip it.
        const SLOTS: usize = 64;
        // At most one per dependency of the read.
        let count = topics.size_hint().1.unwrap_or(0);
        let mut seen = (count > 8).then_some([(ByAddress(""), 0usize, usize::MAX); SLOTS]);
        self.rows.reserve(count);
        for record in topics {
            let (table, index) = record.topic.order();
            let slot = ((table.address() ^ index.wrapping_mul(0x9e37_79b9)).wrapping_mul(0x9e37_79b9) >> 7) % SLOTS;
            if let Some(known) = seen.as_mut().and_then(|seen| seen.get_mut(slot)) {
                if known.0 == table && known.1 == index {
                    if let Some(first) = self.rows.get_mut(known.2) {
                        first.fields |= record.fields;
                        continue;
                    }
                }
                *known = (table, index, self.rows.len());
            }
            self.rows.push(record);
        }
    }

    /// Gives back what [`Topics::record`] reserved beyond what it recorded (a
    /// read's rows merge: kept topics stay small).
    pub fn trim(&mut self) {
        if self.rows.capacity() > 2 * self.rows.len() + 16 {
            self.rows.shrink_to_fit();
        }
    }

    /// These recorded topics as indexed: sorted by key address (cheaper than
    /// comparing the strings), then index, without repeats (the fields of a
    /// row recorded twice are merged), with the tally of each row's records.
    ///
    /// The rows of a list's read come from a few tables, interleaved (an item,
    /// then what it references, then the next item), each table's mostly in
    /// increasing index. So they are dealt out by table first: each table's
    /// rows are then a few runs, which [`sort_rows`](rdc_core::sort_rows)
    /// merges in about linear time (sorted whole, the interleaving leaves no
    /// runs). A few rows are sorted whole, in place.
    pub fn indexed(&self) -> Topics {
        let mut out = Topics { keys: self.keys.clone(), ..Topics::default() };
        if self.rows.len() <= 16 {
            // One entity's reader (mounted by the hundred): no dealing out.
            let mut rows = self.rows.clone();
            rdc_core::sort_rows(&mut rows);
            out.merge_sorted(rows);
            return out;
        }
        // Each table's rows, with the address of its type key.
        let mut tables: Vec<(ByAddress<str>, Vec<TopicFields>)> = Vec::new();
        for &row in &self.rows {
            let address = row.topic.order().0;
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
        for (_, mut table) in tables {
            rdc_core::sort_rows(&mut table);
            out.merge_sorted(table);
        }
        out
    }

    /// Appends sorted `rows` to these indexed topics, a row recorded again
    /// merged into its entry (fields joined, records counted).
    fn merge_sorted(&mut self, rows: Vec<TopicFields>) {
        for record in rows {
            match (self.rows.last_mut(), self.tally.last_mut()) {
                (Some(kept), Some(tally)) if same_topic(kept.topic, record.topic) => {
                    tally.records += 1;
                    tally.uniform &= kept.fields == record.fields;
                    kept.fields |= record.fields;
                }
                _ => {
                    self.rows.push(record);
                    self.tally.push(Tally { records: 1, uniform: true });
                }
            }
        }
    }

    /// Moves these indexed topics from the record `before` to the record
    /// `after` (the listener's last two runs) by the records that differ: the
    /// stretch between their longest common start and end. A list re-read after
    /// one item went, came or changed differs in that item and in the rows
    /// recorded next to it, whatever the length of the list. `None` (nothing
    /// changed here) when the keys differ, the stretch is long, or a row in it
    /// merges records of other fields (its fields now cannot be told from the
    /// stretch alone): then the caller indexes `after` anew.
    pub fn patch(&mut self, before: &Topics, after: &Topics) -> Option<Moved> {
        if self.keys != after.keys || before.keys != after.keys {
            return None;
        }
        let (old, new) = (&before.rows[..], &after.rows[..]);
        let start = old.iter().zip(new).take_while(|&(a, b)| a == b).count();
        let (old, new) = (old.get(start..)?, new.get(start..)?);
        let end = old.iter().rev().zip(new.iter().rev()).take_while(|&(a, b)| a == b).count();
        let (gone, came) = (old.get(..old.len() - end)?, new.get(..new.len() - end)?);
        // Beyond this, rebuilding (a sort of about linear cost) is as cheap.
        const MOST: usize = 64;
        if gone.len() + came.len() > MOST.min(self.rows.len() / 2 + 8) {
            return None;
        }
        // Each row of the stretch once, with its records' net count.
        let mut net: Vec<(TopicFields, i64)> = Vec::new();
        for (&record, step) in gone.iter().map(|r| (r, -1)).chain(came.iter().map(|r| (r, 1))) {
            match net.iter_mut().find(|(r, _)| same_topic(r.topic, record.topic)) {
                Some((r, n)) if r.fields == record.fields => *n += step,
                Some(_) => return None,
                None => net.push((record, step)),
            }
        }
        // Checked before anything moves: each row's fields stay its records'.
        let mut plan = Vec::with_capacity(net.len());
        for &(record, n) in net.iter().filter(|(_, n)| *n != 0) {
            let at = self.find(record.topic);
            let records = match at.map(|at| (self.rows.get(at), self.tally.get(at))) {
                Some((Some(kept), Some(tally))) if tally.uniform && kept.fields == record.fields => {
                    i64::from(tally.records)
                }
                Some(_) => return None,
                None => 0,
            };
            let now = u32::try_from(records + n).ok()?;
            plan.push((record, now));
        }
        let mut moved = Moved::default();
        for (record, records) in plan {
            match (self.find(record.topic), records) {
                (Some(at), 0) => {
                    self.rows.remove(at);
                    self.tally.remove(at);
                    moved.gone.push(record);
                }
                (Some(at), records) => {
                    if let Some(tally) = self.tally.get_mut(at) {
                        tally.records = records;
                    }
                }
                (None, 0) => {}
                (None, records) => {
                    let at = self.rows.partition_point(|r| r.topic.order() <= record.topic.order());
                    self.rows.insert(at, record);
                    self.tally.insert(at, Tally { records, uniform: true });
                    moved.came.push(record);
                }
            }
        }
        Some(moved)
    }

    /// Where indexed topic `topic` is.
    fn find(&self, topic: Topic) -> Option<usize> {
        let from = self.rows.partition_point(|r| r.topic.order() < topic.order());
        self.rows.get(from).filter(|r| same_topic(r.topic, topic)).map(|_| from)
    }
}

/// Whether `a` and `b` are the same topic, their table keys at one address.
#[inline(always)]
pub(super) fn same_topic(a: Topic, b: Topic) -> bool {
    a.order() == b.order()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rdc_core::{Row, LAYOUT};

    /// Two tables, one of them under two addresses of its type key (as
    /// `Entity::DEF` constants may be), a few rows each, alive and table topics.
    fn row(pick: u8) -> Topic {
        thread_local! {
            static KEYS: [&'static str; 3] = [
                Box::leak(String::from("Note").into_boxed_str()),
                Box::leak(String::from("Note").into_boxed_str()),
                Box::leak(String::from("User").into_boxed_str()),
            ];
        }
        let table = KEYS.with(|k| k[usize::from(pick % 3)]);
        match pick / 3 % 8 {
            6 => Topic::alive(Row { table, index: 2 }),
            7 => Topic::table(table),
            i => Topic::fields(Row { table, index: usize::from(i) }),
        }
    }

    fn record(picks: &[(u8, u8)]) -> Topics {
        let rows = picks.iter().map(|&(r, f)| TopicFields {
            topic: row(r),
            fields: [u64::MAX, 0b1 | LAYOUT, 0b10 | LAYOUT][usize::from(f % 3)],
        });
        Topics { rows: rows.collect(), ..Topics::default() }
    }

    proptest! {
        /// Patching the indexed topics of one record into the next gives what
        /// indexing the next gives (rows, fields and tallies), whenever it patches;
        /// the rows it says went and came are the difference.
        #[test]
        fn a_patch_indexes_as_a_rebuild_does(
            before in proptest::collection::vec((0u8..24, 0u8..3), 0..40),
            at in 0usize..40,
            cut in 0usize..6,
            added in proptest::collection::vec((0u8..24, 0u8..3), 0..6),
        ) {
            let mut after = before.clone();
            let at = at.min(after.len());
            let cut = cut.min(after.len() - at);
            after.splice(at..at + cut, added);
            let (before, after) = (record(&before), record(&after));
            let mut indexed = before.indexed();
            let was = indexed.clone();
            if let Some(moved) = indexed.patch(&before, &after) {
                let rebuilt = after.indexed();
                prop_assert_eq!(&indexed.rows, &rebuilt.rows);
                prop_assert_eq!(&indexed.tally, &rebuilt.tally);
                for gone in &moved.gone {
                    prop_assert!(was.find(gone.topic).is_some() && rebuilt.find(gone.topic).is_none());
                }
                for came in &moved.came {
                    prop_assert!(was.find(came.topic).is_none() && rebuilt.find(came.topic).is_some());
                }
                let kept = was.rows.iter().filter(|r| rebuilt.find(r.topic).is_some()).count();
                prop_assert_eq!(kept + moved.came.len(), rebuilt.rows.len());
                prop_assert_eq!(was.rows.len() - moved.gone.len(), kept);
            }
        }
    }

    /// A list's re-read after its first item went: the item's rows go, the
    /// author first recorded with it is recorded later instead (the same topic).
    #[test]
    fn a_list_losing_an_item_patches_only_that_item() {
        // Items 0..6 (index 0..6 of one table) by authors 0..2 (index 0..2 of another).
        let list = |items: std::ops::Range<u8>| {
            let mut picks = Vec::new();
            let mut authors_seen = Vec::new();
            for i in items {
                picks.push((i * 3, 1));
                if !authors_seen.contains(&(i % 2)) {
                    authors_seen.push(i % 2);
                    picks.push((2 + i % 2 * 3, 0));
                }
            }
            record(&picks)
        };
        let (before, after) = (list(0..6), list(1..6));
        let mut indexed = before.indexed();
        let moved = indexed.patch(&before, &after).expect("a short stretch differs");
        assert_eq!(moved.gone.len(), 1);
        assert!(same_topic(moved.gone[0].topic, row(0)));
        assert!(moved.came.is_empty());
        assert_eq!(indexed.rows, after.indexed().rows);
    }
}
