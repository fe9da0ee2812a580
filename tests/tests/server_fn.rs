//! A Leptos `#[server]` function as an rdc endpoint (`from_fn`): its results
//! land in the same normalized store as REST results, in headless Chromium
//! against the API server (which serves the function's server side).
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use leptos::prelude::*;
use rdc::controller::{from_fn, FetchError, FnEndpoint, FnError};
use rdc::core::Entity;
use rdc::leptos::{new_controller, use_entity, use_suspense, DataProvider};
use rdc_e2e::{mount_point, wait_for_text};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Runs on the server (here: the demo server's `POST /api/sfn/user`); this
/// build is the browser's, where the macro makes it a request.
#[server(prefix = "/api", endpoint = "sfn/user")]
pub async fn get_user_fn(id: String) -> Result<User, ServerFnError> {
    Err(ServerFnError::new(format!("only the server runs this ({id})")))
}

fn user_fn() -> FnEndpoint<String, User, ServerFnError> {
    let _ = leptos::server_fn::client::try_set_server_url(rdc_e2e::API_URL);
    from_fn("get_user_fn", get_user_fn).schema(User::schema())
}

#[wasm_bindgen_test]
async fn a_server_function_result_is_normalized_into_the_store() {
    let controller = new_controller();
    let by_rest: User = controller.fetch(&get_user(), UserId { id: "u2".into() }, ()).await.unwrap();
    let fresh = new_controller();
    let by_fn: User = fresh.fetch(&user_fn(), "u2".to_owned(), ()).await.unwrap();
    assert_eq!(by_fn, by_rest, "the server function answers what the REST endpoint does");
    assert_eq!(fresh.entity::<User>("u2").unwrap().as_deref(), Some(&by_rest), "and its user is in the store");
    match fresh.fetch(&user_fn(), "nobody".to_owned(), ()).await.unwrap_err() {
        FetchError::Endpoint(FnError::Failed { endpoint, error }) => {
            assert_eq!(endpoint, "get_user_fn");
            assert!(error.to_string().contains("no user nobody"), "{error}")
        }
        other => panic!("the server's error, typed: {other:?}"),
    }
}

#[wasm_bindgen_test]
async fn a_server_function_read_shows_in_a_component_and_its_entity_in_another() {
    let root = mount_point();
    let _handle = leptos::mount::mount_to(root.clone(), || {
        view! {
            <DataProvider>
                {
                    let user = use_suspense(user_fn(), "u3".to_owned());
                    let row = use_entity::<User>("u3");
                    view! {
                        <Suspense fallback=|| "loading">
                            {move || Suspend::new(async move { user.await.map(|u| format!("fn:{} ", u.name)) })}
                        </Suspense>
                        <p>{move || row.get().map(|u| format!("row:{}", u.name))}</p>
                    }
                }
            </DataProvider>
        }
    });
    let text = wait_for_text(&root, 5000, |t| t.contains("fn:") && t.contains("row:")).await;
    let name = text.split("fn:").nth(1).and_then(|t| t.split(" row:").next()).unwrap_or_default();
    assert!(!name.is_empty(), "{text}");
    assert!(text.ends_with(&format!("row:{name}")), "one entity, read by the server function and by the row: {text}");
}
