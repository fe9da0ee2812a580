use rdc::prelude::*;

#[derive(Clone, serde::Deserialize, Entity)]
struct User {
    id: String,
}

#[derive(Clone, serde::Deserialize, Entity)]
struct Post {
    id: String,
}

fn posts() -> RestEndpoint<(), (), Vec<Post>> {
    rdc::rest!(GET "/users", schema = All::of::<User>())
}

async fn first_user(controller: Controller) -> Option<Post> {
    let users = rdc::rest!(GET "/users", schema = All::of::<User>());
    let users: Vec<Post> = controller.fetch(&users, (), ()).await.ok()?;
    users.into_iter().next()
}

fn main() {
    let _ = (posts(), first_user);
}
