//! Any JSON through several schemas: normalizing never panics, a failure leaves the
//! store as it was, and whatever normalized reads back without panicking. The
//! bytes go through rdc's own parser (`Value::parse`) when they are text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rdc_core::{denormalize, entry, All, Entity, MemoCache, Schema, State, Union, WriteMeta};
use serde::Deserialize;
use rdc_core::json::Value;

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct User {
    id: String,
    name: String,
}

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Post {
    id: u64,
    #[entity(nested)]
    author: User,
    #[entity(nested)]
    #[serde(default)]
    replies: Vec<Post>,
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(value) = Value::parse(text.to_owned()) else { return };
    // serde_json reads it too (the values are compared by `json_differential`,
    // which allows for serde_json's best-effort floats).
    assert!(serde_json::from_str::<serde_json::Value>(text).is_ok(), "rdc parsed what serde_json refuses");
    let schemas = [
        Schema::array(User::schema()),
        Post::schema().into(),
        Schema::array(Union::by_attribute("type", [entry::<User>("user"), entry::<Post>("post")])),
        All::of::<Post>().into(),
        Schema::values(User::schema()),
    ];
    let mut state = State::default();
    for (i, schema) in schemas.iter().enumerate() {
        let key = format!("k{i}");
        let before = state.version();
        match state.write_result(&key, schema, value.clone(), &Value::Null, WriteMeta::at(i as u64, 1000)) {
            Ok(()) => {
                let stored = state.result(&key).map(|r| r.value.clone()).unwrap_or_default();
                let _ = denormalize::<serde_json::Value>(&state, schema, &stored);
                let _ = MemoCache::default().read_result::<Vec<Post>>(&state, &key, schema);
            }
            Err(_) => assert_eq!(state.version(), before, "a failed normalize changed the store"),
        }
    }
});
