//! The normalized store: one serializable state holding every entity once.

mod changes;
mod collection_ops;
mod index;
mod journal;
mod lookup;
mod page;
pub use page::ChangeMark;
mod reach;
mod state;
mod topic;
mod undo;
mod undo_log;
mod write;

pub use changes::{fields_changed, Changes};
pub use reach::Swept;
pub use state::{
    EntityMeta, EntityTable, ErrorEntry, FastMap, ResultEntry, ResultMeta, State, StoredEntity, WriteMeta,
};
pub use topic::{field_bit, sort_rows, FieldMask, Row, RowChange, Topic, TopicFields, TopicKind, LAYOUT};
pub use undo::TakenBack;
