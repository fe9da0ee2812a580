use rdc::prelude::*;

#[derive(Clone, serde::Deserialize)]
struct Settings {
    theme: String,
}

fn main() {
    let _ = rdc::rest!(GET "/settings", schema = All::of::<Settings>());
}
