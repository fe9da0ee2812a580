//! The benchmark fixtures read back through rdc-core (so the workloads time real reads).

use rdc_bench::{Fixtures, Projects, User};
use rdc_core::json;
use rdc_core::{Entity, MemoCache};

fn fixtures() -> Fixtures {
    let user = json!({
        "login": "octocat", "id": 1, "node_id": "n", "avatar_url": "a", "gravatar_id": "", "url": "u", "html_url": "h",
        "type": "User", "site_admin": false, "name": "The Octocat", "company": "@example", "blog": "b", "location": "l",
        "email": null, "hireable": null, "bio": null, "twitter_username": null, "public_repos": 8, "public_gists": 8,
        "followers": 3, "following": 9, "created_at": "2011-01-25T18:44:36Z", "updated_at": "2024-01-22T12:13:45Z",
        "followers_url": "f", "following_url": "f", "gists_url": "g", "starred_url": "s", "subscriptions_url": "s",
        "organizations_url": "o", "repos_url": "r", "events_url": "e", "received_events_url": "r"
    });
    let projects = json!({ "project": [
        { "id": "P1", "internalId": "p1", "name": "One", "parentProjectId": "_Root", "archived": false, "description": "d",
          "href": "h", "webUrl": "w", "buildTypes": { "count": 1, "buildType": [
            { "id": "B1", "internalId": "b1", "name": "Build", "projectName": "One", "projectId": "P1",
              "projectInternalId": "p1", "href": "h", "webUrl": "w", "paused": false } ] } }
    ] });
    Fixtures::new(projects.to_string(), &user.to_string()).unwrap()
}

#[test]
fn the_user_reads_back_without_a_retry() {
    let f = fixtures();
    let state = f.user_state().unwrap();
    let input = json!("octocat");
    let user: User = rdc_core::denormalize(&state, &User::schema(), &input).unwrap().unwrap();
    assert_eq!(user.followers, 3);
    let memo = MemoCache::default().entity::<User>(&state, "octocat").unwrap().unwrap();
    assert_eq!(memo.login, "octocat");
}

#[test]
fn the_projects_read_back_with_their_build_types() {
    let f = fixtures();
    let state = f.projects_state().unwrap();
    let read = MemoCache::default().read_result::<Projects>(&state, "projects", &Projects::schema()).unwrap().unwrap();
    assert_eq!(read.project[0].build_types.build_type[0].name, "Build");
    assert_eq!(state.entity_count(), 2);
}

#[test]
fn every_workload_runs_its_work_without_error_and_reports_in_order() {
    let f = fixtures();
    let start = std::time::Instant::now();
    let now = move || start.elapsed().as_secs_f64() * 1000.0;
    let mut seen = Vec::new();
    f.run(0.0, None, &now, &mut |name, us| seen.push((name.to_owned(), us))).unwrap();
    assert_eq!(seen.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(), rdc_bench::WORKLOADS);
    assert!(seen.iter().all(|(_, us)| us.is_finite() && *us >= 0.0), "{seen:?}");
}

#[test]
fn a_workload_whose_work_fails_is_an_error_not_a_figure() {
    // Projects whose build types have no id: nothing normalizes, so nothing is timed.
    let broken =
        json!({ "project": [{ "id": "P1", "buildTypes": { "count": 1, "buildType": [{ "name": "no id" }] } }] });
    let f = Fixtures::new(broken.to_string(), &json!({ "login": "octocat" }).to_string()).unwrap();
    let mut reported = Vec::new();
    let error = f.run(0.0, Some("normalizeLong"), &|| 0.0, &mut |name, _| reported.push(name.to_owned())).unwrap_err();
    assert_eq!((error.workload.as_str(), reported.len()), ("normalizeLong", 0), "{error}");
}
