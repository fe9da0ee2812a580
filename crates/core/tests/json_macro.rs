//! `rdc_core::json!` builds what `serde_json::json!` builds, for every form.

use rdc_core::json;

/// Each input through both macros, compared.
macro_rules! same {
    ($($input:tt)+) => {
        assert_eq!(serde_json::Value::from(json!($($input)+)), serde_json::json!($($input)+), "{}", stringify!($($input)+));
    };
}

#[test]
fn every_form_matches_serde_json() {
    let id = 7u32;
    let name = String::from("Ada");
    let key = "dynamic";
    let list = vec![1, 2, 3];
    let maybe: Option<&str> = None;
    same!(null);
    same!(true);
    same!(false);
    same!(-1.5);
    same!("text");
    same!(id);
    same!([]);
    same!({});
    same!([null, true, false, 1, "a", [], {}, [1, [2, [3]]], {"a": {"b": null}}]);
    same!([id, name.clone(), id + 1, list.len()]);
    same!([1, 2,]);
    same!({"id": id, "name": name, "list": list, "maybe": maybe, "neg": -3, "sum": 1 + 2});
    same!({"a": null, "b": [null], "c": {"d": [1, {"e": false}]},});
    same!({(key): 1, (format!("k{id}")): [true]});
    same!({ "x": if id > 3 { "big" } else { "small" } });
    same!({"nested": json!({"already": "built"})});
}

#[test]
fn a_variable_key_is_its_value() {
    let key = "role";
    let built = json!({ key: "admin" });
    assert_eq!(built["role"], "admin");
}
