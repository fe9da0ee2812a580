//! Collection edits through `resource` in headless Chromium against the API
//! server: a created user joins the end of the shown list, one created by an
//! unshift endpoint its front, a deleted one leaves it; the list is fetched once.
#![cfg(target_arch = "wasm32")]

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use leptos::prelude::*;
use rdc::core::{Collection, Entity, SchemaOf};
use rdc::leptos::{new_controller, use_suspense, DataProvider};
use rdc::rest::{resource, BoxFuture, BrowserClient, HttpClient, HttpRequest, HttpResponse, Resource, RestEndpoint};
use rdc_e2e::{mount_point, wait_for_text};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The browser client, noting each request as `METHOD path`.
#[derive(Clone, Default)]
struct Noting(Arc<Mutex<Vec<String>>>);

impl HttpClient for Noting {
    fn send(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, String>> {
        let path = request.url.split("/api").nth(1).unwrap_or_default().to_owned();
        self.0.lock().unwrap().push(format!("{} {path}", request.method));
        BrowserClient.send(request)
    }
}

fn list() -> SchemaOf<Vec<User>> {
    Collection::of("EditedUsers", User::schema())
}

fn users(client: &Noting) -> Resource<User, UserId, (), NewUser> {
    resource::<User>("/users/:id", "EditedUsers")
        .args::<UserId>()
        .list_args::<()>()
        .body::<NewUser>()
        .map(|e| at_server(e.clone()).client(client.clone()))
}

#[component]
fn Names(list: RestEndpoint<(), (), Vec<User>>) -> impl IntoView {
    let users = use_suspense(list, ());
    view! {
        <Suspense fallback=|| view! { <p>"loading"</p> }>
            <ol>
                {move || Suspend::new(async move {
                    users.await.map(|all| all.iter().map(|u| view! { <li>{u.name.clone()}"|"</li> }).collect_view())
                })}
            </ol>
        </Suspense>
    }
}

/// The names the list shows, in order.
fn shown(root: &web_sys::HtmlElement) -> Vec<String> {
    let text = root.text_content().unwrap_or_default();
    text.split('|').filter(|n| !n.is_empty()).map(str::to_owned).collect()
}

#[wasm_bindgen_test]
async fn pushed_unshifted_and_deleted_users_edit_the_shown_list_without_a_refetch() {
    let noting = Noting::default();
    let users = users(&noting);
    let front =
        at_server(RestEndpoint::post("/users").args::<()>().body::<NewUser>().schema(Collection::unshift(&list())))
            .client(noting.clone());
    let root = mount_point();
    let controller = new_controller();
    let (c, get_list) = (controller.clone(), users.get_list.clone());
    let _handle = leptos::mount::mount_to(
        root.clone(),
        move || view! { <DataProvider controller=c.clone()><Names list=get_list.clone()/></DataProvider> },
    );
    wait_for_text(&root, 5000, |t| t.contains("Ada Lovelace")).await;
    let before = shown(&root);

    let tag = js_sys::Math::random();
    let last: User = controller.fetch(&users.create, (), NewUser { name: format!("Last {tag}") }).await.unwrap();
    let first: User = controller.fetch(&front, (), NewUser { name: format!("First {tag}") }).await.unwrap();
    wait_for_text(&root, 2000, |t| t.contains(&first.name)).await;
    let mut want = vec![first.name.clone()];
    want.extend(before.iter().cloned());
    want.push(last.name.clone());
    assert_eq!(shown(&root), want, "unshifted at the front, pushed at the end");

    controller.fetch(&users.delete, UserId { id: last.id.clone() }, ()).await.unwrap();
    controller.fetch(&users.delete, UserId { id: first.id.clone() }, ()).await.unwrap();
    wait_for_text(&root, 2000, |t| !t.contains(&last.name) && !t.contains(&first.name)).await;
    assert_eq!(shown(&root), before, "both deleted users left the list");

    let sent = noting.0.lock().unwrap().clone();
    let want = ["GET /users", "POST /users", "POST /users"].map(str::to_owned).to_vec();
    assert_eq!(sent[..3], want[..], "the list was fetched once: {sent:?}");
    assert_eq!(sent[3..], [format!("DELETE /users/{}", last.id), format!("DELETE /users/{}", first.id)]);
}
