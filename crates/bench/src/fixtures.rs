//! The entities of the benchmark fixtures (`gen_fixtures.py`). Their strings are
//! `Text`: a read shares the stored strings (as the anchor's objects share
//! JavaScript's) instead of copying each into a `String`.

use rdc_core::json::Text;
use rdc_core::{Entity, Schema};
use serde::Deserialize;

/// A CI build type (nested in projects).
#[derive(Debug, Clone, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
pub struct BuildType {
    /// Primary key.
    pub id: Text,
    /// Internal id.
    pub internal_id: Text,
    /// Display name.
    pub name: Text,
    /// Owning project's name.
    pub project_name: Text,
    /// Owning project's id.
    pub project_id: Text,
    /// Owning project's internal id.
    pub project_internal_id: Text,
    /// API link.
    pub href: Text,
    /// Web link.
    pub web_url: Text,
    /// Paused builds do not run.
    pub paused: bool,
}

/// A project's build types: a plain object holding a list of entities.
#[derive(Debug, Clone, Deserialize, Schema)]
pub struct BuildTypes {
    /// How many.
    pub count: u32,
    /// The build types.
    #[serde(rename = "buildType")]
    #[entity(nested)]
    pub build_type: Vec<BuildType>,
}

/// A CI project.
#[derive(Debug, Clone, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// Primary key.
    pub id: Text,
    /// Internal id.
    pub internal_id: Text,
    /// Display name.
    pub name: Text,
    /// Parent project.
    pub parent_project_id: Text,
    /// Archived projects are hidden.
    pub archived: bool,
    /// Free text.
    pub description: Text,
    /// API link.
    pub href: Text,
    /// Web link.
    pub web_url: Text,
    /// Nested build types.
    #[entity(nested)]
    pub build_types: BuildTypes,
}

/// The `projects.json` response: `{project: [Project]}`.
#[derive(Debug, Clone, Deserialize, Schema)]
pub struct Projects {
    /// Every project.
    #[entity(nested)]
    pub project: Vec<Project>,
}

/// The `user.json` user (all 32 fields typed; the instants kept as text, as the
/// JavaScript anchor keeps them), keyed by `login`.
#[derive(Debug, Clone, Deserialize, Entity)]
#[entity(pk = "login")]
pub struct User {
    /// `login`.
    pub login: Text,
    /// `id`.
    pub id: u64,
    /// `node_id`.
    pub node_id: Text,
    /// `avatar_url`.
    pub avatar_url: Text,
    /// `gravatar_id`.
    pub gravatar_id: Text,
    /// `url`.
    pub url: Text,
    /// `html_url`.
    pub html_url: Text,
    /// `type` on the wire.
    #[serde(rename = "type")]
    pub kind: Text,
    /// `site_admin`.
    pub site_admin: bool,
    /// `name`.
    pub name: Text,
    /// `company`.
    pub company: Text,
    /// `blog`.
    pub blog: Text,
    /// `location`.
    pub location: Text,
    /// `email`.
    pub email: Option<Text>,
    /// `hireable`.
    pub hireable: Option<Text>,
    /// `bio`.
    pub bio: Option<Text>,
    /// `twitter_username`.
    pub twitter_username: Option<Text>,
    /// `public_repos`.
    pub public_repos: u64,
    /// `public_gists`.
    pub public_gists: u64,
    /// `followers`.
    pub followers: u64,
    /// `following`.
    pub following: u64,
    /// `created_at`.
    pub created_at: Text,
    /// `updated_at`.
    pub updated_at: Text,
    /// `followers_url`.
    pub followers_url: Text,
    /// `following_url`.
    pub following_url: Text,
    /// `gists_url`.
    pub gists_url: Text,
    /// `starred_url`.
    pub starred_url: Text,
    /// `subscriptions_url`.
    pub subscriptions_url: Text,
    /// `organizations_url`.
    pub organizations_url: Text,
    /// `repos_url`.
    pub repos_url: Text,
    /// `events_url`.
    pub events_url: Text,
    /// `received_events_url`.
    pub received_events_url: Text,
}

/// An author of [`ListItem`]s (the browser benchmark's list, read natively).
#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
#[entity(key = "ListAuthor")]
pub struct ListAuthor {
    /// Primary key.
    pub id: u32,
    /// Shown in every row of their items.
    pub name: String,
}

/// A list item with a required author: a list of their keys depends on each
/// item's validity.
#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
#[entity(key = "ListItem")]
pub struct ListItem {
    /// Primary key.
    pub id: u32,
    /// Shown in its row.
    pub name: String,
    /// The author.
    #[entity(nested)]
    pub author: ListAuthor,
}
