//! The normalized store: one serializable state holding every entity once.

mod changes;
mod collection_ops;
mod state;
mod undo;
mod undo_log;
mod write;

pub use changes::{fields_changed, Changes, LAYOUT};
pub(crate) use changes::{sort_rows, RowWith};
pub use state::{
    EntityMeta, EntityTable, ErrorEntry, FastMap, ResultEntry, ResultMeta, State, StoredEntity, WriteMeta,
};
pub(crate) use undo::TakenRow;
