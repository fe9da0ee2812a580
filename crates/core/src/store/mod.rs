//! The normalized store: one serializable state holding every entity once.

mod changes;
mod collection_ops;
mod page;
mod reach;
mod state;
mod undo;
mod undo_log;
mod write;

pub use changes::{fields_changed, sort_rows, Changes, RowWith, ALIVE, LAYOUT, TABLE};
pub use reach::Swept;
pub use state::{
    EntityMeta, EntityTable, ErrorEntry, FastMap, ResultEntry, ResultMeta, State, StoredEntity, WriteMeta,
};
pub use undo::TakenBack;
