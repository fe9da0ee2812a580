//! The entities of the benchmark fixtures (`gen_fixtures.py`).

use rdc_core::{Entity, Schema};
use serde::Deserialize;

/// A CI build type (nested in projects).
#[derive(Debug, Clone, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
pub struct BuildType {
    /// Primary key.
    pub id: String,
    /// Internal id.
    pub internal_id: String,
    /// Display name.
    pub name: String,
    /// Owning project's name.
    pub project_name: String,
    /// Owning project's id.
    pub project_id: String,
    /// Owning project's internal id.
    pub project_internal_id: String,
    /// API link.
    pub href: String,
    /// Web link.
    pub web_url: String,
    /// Paused builds do not run.
    pub paused: bool,
}

/// A project's build types: a plain object holding a list of entities.
#[derive(Debug, Clone, Deserialize)]
pub struct BuildTypes {
    /// How many.
    pub count: u32,
    /// The build types.
    #[serde(rename = "buildType")]
    pub build_type: Vec<BuildType>,
}

/// A CI project.
#[derive(Debug, Clone, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// Primary key.
    pub id: String,
    /// Internal id.
    pub internal_id: String,
    /// Display name.
    pub name: String,
    /// Parent project.
    pub parent_project_id: String,
    /// Archived projects are hidden.
    pub archived: bool,
    /// Free text.
    pub description: String,
    /// API link.
    pub href: String,
    /// Web link.
    pub web_url: String,
    /// Nested build types.
    #[entity(schema = "build_types_schema()")]
    pub build_types: BuildTypes,
}

fn build_types_schema() -> Schema {
    Schema::object([("buildType", Schema::array(BuildType::schema()))])
}

/// The `projects.json` response.
#[derive(Debug, Clone, Deserialize)]
pub struct Projects {
    /// Every project.
    pub project: Vec<Project>,
}

impl Projects {
    /// `{project: [Project]}`.
    pub fn schema() -> Schema {
        Schema::object([("project", Schema::array(Project::schema()))])
    }
}

/// The `user.json` user (all 32 fields typed; the instants kept as text, as the
/// JavaScript anchor keeps them), keyed by `login`.
#[derive(Debug, Clone, Deserialize, Entity)]
#[entity(pk = "login")]
pub struct User {
    /// `login`.
    pub login: String,
    /// `id`.
    pub id: u64,
    /// `node_id`.
    pub node_id: String,
    /// `avatar_url`.
    pub avatar_url: String,
    /// `gravatar_id`.
    pub gravatar_id: String,
    /// `url`.
    pub url: String,
    /// `html_url`.
    pub html_url: String,
    /// `type` on the wire.
    #[serde(rename = "type")]
    pub kind: String,
    /// `site_admin`.
    pub site_admin: bool,
    /// `name`.
    pub name: String,
    /// `company`.
    pub company: String,
    /// `blog`.
    pub blog: String,
    /// `location`.
    pub location: String,
    /// `email`.
    pub email: Option<String>,
    /// `hireable`.
    pub hireable: Option<String>,
    /// `bio`.
    pub bio: Option<String>,
    /// `twitter_username`.
    pub twitter_username: Option<String>,
    /// `public_repos`.
    pub public_repos: u64,
    /// `public_gists`.
    pub public_gists: u64,
    /// `followers`.
    pub followers: u64,
    /// `following`.
    pub following: u64,
    /// `created_at`.
    pub created_at: String,
    /// `updated_at`.
    pub updated_at: String,
    /// `followers_url`.
    pub followers_url: String,
    /// `following_url`.
    pub following_url: String,
    /// `gists_url`.
    pub gists_url: String,
    /// `starred_url`.
    pub starred_url: String,
    /// `subscriptions_url`.
    pub subscriptions_url: String,
    /// `organizations_url`.
    pub organizations_url: String,
    /// `repos_url`.
    pub repos_url: String,
    /// `events_url`.
    pub events_url: String,
    /// `received_events_url`.
    pub received_events_url: String,
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
