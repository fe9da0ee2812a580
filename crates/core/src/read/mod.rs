//! Typed reads of the store: denormalization into the user's types, memoized so
//! that a read of unchanged data returns the identical `Arc`.

mod ctx;
pub(crate) mod de;
mod deps;
pub(crate) mod generated;
mod keys;
mod memo;
mod names;
pub(crate) mod path;
mod pk;
mod prior;
mod query;
mod top;

pub use generated::{ReadFn, ReadListFn};
pub use memo::MemoCache;
pub use pk::Pk;
pub use query::Query;
pub use top::denormalize;
