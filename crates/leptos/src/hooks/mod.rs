//! The hook family.

mod cache;
mod list;
mod live;
mod loading;
mod mutation;
mod pages;
mod suspense;

pub use cache::{use_cache, use_dle, use_entity, use_entity_by, use_keys, use_query, Dle, EntityKey};
pub use list::{use_list, Row, RowId};
pub use live::{use_live, use_subscription};
pub use loading::{use_loading, Loading};
pub use mutation::{use_mutation, use_queued_mutations, Mutation};
pub use pages::{use_pages, Pages};
pub use suspense::{use_cancelling, use_suspense, use_suspense_optional, DataResult, Readable};
