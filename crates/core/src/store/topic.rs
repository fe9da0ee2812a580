//! Topics: what a read depends on and a write changes (a row's fields, whether
//! a row is live, a whole table), with the fields concerned. Writes log them
//! ([`Changes`](crate::Changes)), reads record them
//! ([`MemoCache::topics`](crate::MemoCache::topics)), and the controller
//! indexes its listeners by them.

use crate::ByAddress;

/// Which fields of a row, by position: bit `i` for position `i` below 63, and
/// [`LAYOUT`] for the row's keys or their order, any position from 63 on, or
/// the row coming or going. A reader that looked at the fields of mask `read`
/// can have seen a change only when `read & changed != 0`.
pub type FieldMask = u64;

/// The bit a change sets when an object's keys changed (or a field at position
/// 63 or later): every reader of the row must look again.
pub const LAYOUT: FieldMask = 1 << 63;

/// The bit of field position `at`.
///
/// ```
/// # use rdc_core::{field_bit, LAYOUT};
/// assert_eq!(field_bit(1), 0b10);
/// assert_eq!(field_bit(63), LAYOUT);
/// assert_eq!(field_bit(500), LAYOUT);
/// ```
pub const fn field_bit(at: usize) -> FieldMask {
    if at < 63 {
        1 << at
    } else {
        LAYOUT
    }
}

/// A row of the store: its table's key and its index in that table.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// The table's key (an entity type's key, from its definition).
    pub table: &'static str,
    /// The row's index (rows keep their index until a GC sweep).
    pub index: usize,
}

impl Row {
    /// The order rows are sorted and told apart in: by the table key's
    /// address, then index.
    pub fn order(self) -> (ByAddress<str>, usize) {
        (ByAddress(self.table), self.index)
    }
}

/// Equal when the same table (by address: see [`ByAddress`]) and index.
impl PartialEq for Row {
    fn eq(&self, other: &Self) -> bool {
        self.order() == other.order()
    }
}

impl Eq for Row {}

/// A row that changed, with the fields that changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowChange {
    /// The row.
    pub row: Row,
    /// Its fields that changed (all of them for a row that came or went).
    pub fields: FieldMask,
}

/// What readers depend on and writes change: one row's fields, whether one
/// row is live, or a whole table. Packed as a table key and one word (the
/// row's index; the index with its top bit set; or `usize::MAX`), so a
/// topic sorts and hashes as cheaply as a row.
#[derive(Debug, Clone, Copy)]
pub struct Topic {
    table: &'static str,
    at: usize,
}

/// What a [`Topic`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopicKind {
    /// The fields of the row at this index.
    Fields(usize),
    /// Whether the row at this index is live.
    Alive(usize),
    /// The whole table.
    Table,
}

impl Topic {
    const ALIVE: usize = 1 << (usize::BITS - 1);
    const TABLE: usize = usize::MAX;

    /// The fields of `row`.
    ///
    /// ```
    /// # use rdc_core::{Row, Topic, TopicKind};
    /// let row = Row { table: "User", index: 3 };
    /// assert_eq!(Topic::fields(row).kind(), TopicKind::Fields(3));
    /// assert_eq!(Topic::alive(row).kind(), TopicKind::Alive(3));
    /// assert_eq!(Topic::table("User").kind(), TopicKind::Table);
    /// ```
    pub fn fields(row: Row) -> Topic {
        Topic { table: row.table, at: row.index }
    }

    /// Whether `row` is live.
    pub fn alive(row: Row) -> Topic {
        Topic { table: row.table, at: row.index | Topic::ALIVE }
    }

    /// The whole of table `table`.
    pub fn table(table: &'static str) -> Topic {
        Topic { table, at: Topic::TABLE }
    }

    /// What it is about.
    pub fn kind(self) -> TopicKind {
        match self.at {
            Topic::TABLE => TopicKind::Table,
            at if at & Topic::ALIVE != 0 => TopicKind::Alive(at & !Topic::ALIVE),
            at => TopicKind::Fields(at),
        }
    }

    /// The table's key.
    pub fn table_key(self) -> &'static str {
        self.table
    }

    /// The order topics are sorted and told apart in: by the table key's
    /// address (see [`ByAddress`]), then the packed word.
    pub fn order(self) -> (ByAddress<str>, usize) {
        (ByAddress(self.table), self.at)
    }

    /// The topic by its table key's text, for maps that must find it from a
    /// key at another address (an entity type's key may live at two).
    pub fn by_text(self) -> (&'static str, usize) {
        (self.table, self.at)
    }
}

/// A topic with the fields read (by a reader) or changed (by a write).
#[derive(Debug, Clone, Copy)]
pub struct TopicFields {
    /// The topic.
    pub topic: Topic,
    /// The fields (all of them for liveness and table topics).
    pub fields: FieldMask,
}

/// Equal when the same topic (by address) and the same fields.
impl PartialEq for TopicFields {
    fn eq(&self, other: &Self) -> bool {
        self.topic.order() == other.topic.order() && self.fields == other.fields
    }
}

impl Eq for TopicFields {}

impl PartialOrd for TopicFields {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// By [`Topic::order`], then fields.
impl Ord for TopicFields {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.topic.order(), self.fields).cmp(&(other.topic.order(), other.fields))
    }
}

/// Sorts `rows` (topics, or rows with their places) stably: one algorithm for
/// every such list in rdc. They mostly come in runs of increasing index, which
/// a merge of runs (`rdc_json::sort::merge_runs`) sorts in about linear time; a
/// few are sorted in place.
///
/// ```
/// # use rdc_core::{sort_rows, Row, Topic, TopicFields};
/// let at = |index| TopicFields { topic: Topic::fields(Row { table: "User", index }), fields: 1 };
/// let mut rows = vec![at(2), at(0), at(1)];
/// sort_rows(&mut rows);
/// assert_eq!(rows, vec![at(0), at(1), at(2)]);
/// ```
pub fn sort_rows<T: Ord + Copy>(rows: &mut [T]) {
    if rows.len() <= 16 {
        // A few rows: an insertion sort in place (no copies to allocate).
        for i in 1..rows.len() {
            let mut j = i;
            while j > 0 && rows.get(j - 1) > rows.get(j) {
                rows.swap(j - 1, j);
                j -= 1;
            }
        }
        return;
    }
    crate::sort::merge_runs(rows);
}
