//! The hook family.

mod activity;
mod cache;
mod each;
mod fetch;
mod follow;
mod lazy;
mod list;
mod live;
mod loading;
mod mutation;
mod object_url;
mod pages;
mod previous;
mod select;
mod server_action;
mod suspense;

pub use activity::{use_is_fetching, use_is_fetching_of, use_pending_mutations};
pub use cache::{use_cache, use_dle, use_entity, use_entity_by, use_keys, use_query, Dle, EntityKey};
pub use each::use_dle_each;
pub use fetch::{use_error, use_fetch, use_prefetch};
pub use lazy::use_lazy;
pub use list::{use_list, Row, RowId};
pub use live::{use_live, use_subscription};
pub use loading::{use_loading, Loading};
#[cfg(feature = "offline")]
pub use mutation::use_queued_mutations;
pub use mutation::{use_mutation, Mutation};
pub(crate) use object_url::ObjectUrls;
pub use object_url::{use_object_url, BlobResult, Img, ObjectUrl};
pub use pages::{use_pages, Pages};
pub use previous::{use_keep_previous, use_placeholder, Shown};
pub use select::{use_query_select, use_select};
pub use server_action::{use_server_action, use_server_action_with, ServerForm, ServerFormError};
pub use suspense::{use_cancelling, use_suspense, use_suspense_keys, use_suspense_optional, DataResult, Readable};
