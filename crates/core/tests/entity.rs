//! Spec 2.2: entities, their keys, typed fields and lifecycle hooks.

mod common;

use chrono::{TimeZone, Utc};
use common::*;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{denormalize, Entity, EntityMeta, MemoCache, NormalizeError, Object, Schema, State, WriteMeta};
use rust_decimal::Decimal;
use serde::Deserialize;

#[test]
fn type_key_defaults_to_the_type_name_and_can_be_set() {
    assert_eq!(Link::KEY, "Link");
    assert_eq!(User::KEY, "User");
    assert_eq!(ExchangePrice::KEY, "ExchangePrice");
}

#[test]
fn primary_key_comes_from_the_wire_name_of_the_pk_field() {
    let price: Object = rdc_core::json::from_value(&json!({ "exchangePair": "BTC-USD" })).unwrap();
    assert_eq!(ExchangePrice::pk_of(&price).as_deref(), Some("BTC-USD"));
    let link: Object = rdc_core::json::from_value(&json!({ "id": 5 })).unwrap();
    assert_eq!(Link::pk_of(&link).as_deref(), Some("5"));
}

/// A numeric key field is stored under the text `pk_of` gives it: integers at
/// the edges of both integer types, and fractions.
#[test]
fn numeric_keys_are_stored_under_their_pk_of_text() {
    #[derive(Debug, Deserialize, Entity)]
    struct Reading {
        #[allow(dead_code)]
        id: f64,
    }
    let mut state = State::default();
    let ids = [json!(0), json!(42), json!(-7), json!(u64::MAX), json!(i64::MIN), json!(1.5), json!(-0.25)];
    for id in &ids {
        let object = json!({ "id": id.clone() });
        state.write_entities(&Reading::schema(), object, &Value::Null, WriteMeta::at(0, 1000)).unwrap();
    }
    for id in &ids {
        let object: Object = rdc_core::json::from_value(&json!({ "id": id.clone() })).unwrap();
        let key = Reading::pk_of(&object).unwrap();
        assert!(state.entity("Reading", &key).is_some(), "{id} stored under {key:?}");
    }
    assert_eq!(state.entity_count(), ids.len());
    assert!(state.entity("Reading", "18446744073709551615").is_some());
    assert!(state.entity("Reading", "-9223372036854775808").is_some());
}

#[derive(Debug, Deserialize, Entity)]
#[entity(pk = "org, login")]
#[allow(dead_code)]
struct Member {
    org: String,
    login: String,
}

#[test]
fn composite_primary_keys_join_their_parts() {
    let mut state = State::default();
    write(&mut state, "m", &Member::schema(), json!({ "org": "rust", "login": "ada" }), 1);
    assert!(state.entity("Member", "rust,ada").is_some());
}

/// Parts holding the separator must not make two entities one row:
/// ("acme,inc", "bob") and ("acme", "inc,bob") are two members.
#[test]
fn composite_keys_with_commas_in_their_parts_stay_apart() {
    let mut state = State::default();
    let members = Schema::array(Member::schema());
    let wire = json!([{ "org": "acme,inc", "login": "bob" }, { "org": "acme", "login": "inc,bob" }]);
    write(&mut state, "m", &members, wire, 1);
    assert_eq!(state.entity_count(), 2, "both members are stored");
    let first: Object = rdc_core::json::from_value(&json!({ "org": "acme,inc", "login": "bob" })).unwrap();
    let second: Object = rdc_core::json::from_value(&json!({ "org": "acme", "login": "inc,bob" })).unwrap();
    assert_ne!(Member::pk_of(&first), Member::pk_of(&second));
    // The encoding is the public one, so an app can look a member up.
    assert_eq!(Member::pk_of(&first), Some(rdc_core::composite_pk(["acme,inc", "bob"])));
    assert!(state.entity("Member", &rdc_core::composite_pk(["acme", "inc,bob"])).is_some());
}

#[test]
fn exchange_price_keeps_the_exact_decimal_and_parses_the_instant() {
    let mut state = State::default();
    let wire = json!({ "exchangePair": "BTC-USD", "price": "43250.123456789012345678", "updatedAt": "2026-11-25T12:34:56.789Z" });
    write(&mut state, "GET /price/BTC-USD", &ExchangePrice::schema(), wire, 1);
    let price = MemoCache::default().entity::<ExchangePrice>(&state, "BTC-USD").unwrap().unwrap();
    assert_eq!(price.price, "43250.123456789012345678".parse::<Decimal>().unwrap());
    assert_eq!(price.price.to_string(), "43250.123456789012345678");
    assert_eq!(
        price.updated_at,
        Utc.with_ymd_and_hms(2026, 11, 25, 12, 34, 56).unwrap() + chrono::Duration::milliseconds(789)
    );
}

#[test]
fn ticker_parses_its_price_from_a_string() {
    let mut state = State::default();
    let wire = json!({ "product_id": "BTC-USD", "trade_id": 7, "price": "37001.25", "size": "0.01", "time": "2026-11-25T12:00:00Z", "bid": "1", "ask": "2", "volume": "3" });
    write(&mut state, "t", &Ticker::schema(), wire, 1);
    let ticker = MemoCache::default().entity::<Ticker>(&state, "BTC-USD").unwrap().unwrap();
    assert_eq!(ticker.price, 37001.25);
    assert_eq!(ticker.trade_id, 7);
}

#[test]
fn missing_fields_with_defaults_read_their_default() {
    let mut state = State::default();
    // Feed items default id to 0 (spec 2.2); the pk still has to come from somewhere,
    // so this post has one, and the article's comments default to empty.
    write(
        &mut state,
        "a",
        &Article::schema(),
        json!({ "id": 1, "title": "T", "author": { "id": "u", "name": "N" } }),
        1,
    );
    let article = MemoCache::default().entity::<Article>(&state, "1").unwrap().unwrap();
    assert!(article.comments.is_empty());
}

#[test]
fn a_missing_primary_key_names_the_entity_and_the_path() {
    let mut state = State::default();
    let schema = Schema::array(Article::schema());
    let wire = json!([
        { "id": 1, "title": "ok", "author": { "id": "u1", "name": "A" } },
        { "id": 2, "title": "bad", "author": { "name": "no id" } }
    ]);
    let err = state.write_result("GET /articles", &schema, wire, NO_ARGS, meta(1)).unwrap_err();
    assert_eq!(err, NormalizeError::MissingPrimaryKey { entity: "User", path: "[1].author".into() });
    assert_eq!(err.to_string(), "User at [1].author has no primary key");
    // All or nothing: the first article and its author were not stored either.
    assert_eq!(state.entity_count(), 0);
    assert!(state.result("GET /articles").is_none());
}

#[test]
fn a_field_of_the_wrong_type_names_its_path_and_changes_nothing() {
    let mut state = State::default();
    let good = json!({ "exchangePair": "BTC-USD", "price": "1.5", "updatedAt": "2026-11-25T12:00:00Z" });
    write(&mut state, "p", &ExchangePrice::schema(), good, 1);
    let version = state.version();
    let bad = json!([{ "exchangePair": "BTC-USD", "price": "not a number", "updatedAt": "2026-11-25T12:00:00Z" }]);
    let err = state.write_result("p2", &Schema::array(ExchangePrice::schema()), bad, NO_ARGS, meta(2)).unwrap_err();
    match &err {
        NormalizeError::InvalidField { entity, path, message } => {
            assert_eq!(*entity, "ExchangePrice");
            assert_eq!(path, "[0].price");
            assert!(message.contains("not a number"), "{message}");
        }
        other => panic!("unexpected {other:?}"),
    }
    // Deeper in a longer list, after other entities were staged: the path is still its own.
    let good =
        |i: usize| json!({ "exchangePair": format!("P-{i}"), "price": "1", "updatedAt": "2026-11-25T12:00:00Z" });
    let mut list: Vec<_> = (0..120).map(good).collect();
    list[107]["price"] = json!("bad");
    let err =
        state.write_result("p3", &Schema::array(ExchangePrice::schema()), json!(list), NO_ARGS, meta(2)).unwrap_err();
    assert!(matches!(&err, NormalizeError::InvalidField { path, .. } if path == "[107].price"), "{err}");
    assert_eq!(state.version(), version);
    let stored = MemoCache::default().entity::<ExchangePrice>(&state, "BTC-USD").unwrap().unwrap();
    assert_eq!(stored.price.to_string(), "1.5");
}

/// `Text` fields are checked as strings at normalize time; a type of the user's
/// own that is also named `Text` is checked by its own `Deserialize`.
#[test]
fn text_fields_are_checked_and_a_users_own_text_type_keeps_its_rules() {
    mod own {
        /// Not rdc's `Text`: a number.
        #[derive(Debug, serde::Deserialize)]
        pub struct Text(#[allow(dead_code)] pub u32);
    }
    #[derive(Debug, Deserialize, Entity)]
    #[allow(dead_code)]
    struct Shared {
        id: String,
        name: rdc_core::json::Text,
        nick: Option<rdc_core::json::Text>,
    }
    #[derive(Debug, Deserialize, Entity)]
    #[allow(dead_code)]
    struct Counted {
        id: String,
        count: own::Text,
    }
    let mut state = State::default();
    let ok = json!({ "id": "1", "name": "Ada", "nick": null });
    state.write_result("ok", &Shared::schema(), ok, NO_ARGS, meta(1)).unwrap();
    let bad = json!({ "id": "2", "name": 7 });
    let err = state.write_result("bad", &Shared::schema(), bad, NO_ARGS, meta(1)).unwrap_err();
    assert!(matches!(&err, NormalizeError::InvalidField { path, .. } if path == "name"), "{err}");
    let bad = json!({ "id": "3", "name": "x", "nick": ["no"] });
    let err = state.write_result("bad", &Shared::schema(), bad, NO_ARGS, meta(1)).unwrap_err();
    assert!(matches!(&err, NormalizeError::InvalidField { path, .. } if path == "nick"), "{err}");
    state.write_result("n", &Counted::schema(), json!({ "id": "1", "count": 3 }), NO_ARGS, meta(1)).unwrap();
    let err = state.write_result("s", &Counted::schema(), json!({ "id": "2", "count": "three" }), NO_ARGS, meta(1));
    assert!(matches!(&err, Err(NormalizeError::InvalidField { path, .. }) if path == "count"), "{err:?}");
}

#[test]
fn a_bad_instant_is_refused_with_its_path() {
    let mut state = State::default();
    let bad = json!({ "exchangePair": "X", "price": "1", "updatedAt": "yesterday" });
    let err = state.write_result("p", &ExchangePrice::schema(), bad, NO_ARGS, meta(1)).unwrap_err();
    assert!(matches!(err, NormalizeError::InvalidField { ref path, .. } if path == "updatedAt"), "{err}");
}

#[test]
fn data_fetched_earlier_never_overwrites_data_fetched_later() {
    let mut state = State::default();
    let late = WriteMeta { fetched_at: 200, date: 300, expires_at: 1000, seq: 0 };
    let early = WriteMeta { fetched_at: 100, date: 400, expires_at: 1000, seq: 0 };
    state.write_entities(&User::schema(), json!({ "id": "1", "name": "new" }), NO_ARGS, late).unwrap();
    // The older request answers last.
    state.write_entities(&User::schema(), json!({ "id": "1", "name": "old" }), NO_ARGS, early).unwrap();
    let user: User = denormalize(&state, &User::schema(), &json!("1")).unwrap().unwrap();
    assert_eq!(user.name, "new");
    assert_eq!(state.entity("User", "1").unwrap().meta.fetched_at, 200);
}

#[test]
fn merge_lays_incoming_fields_over_stored_ones() {
    #[derive(Debug, Deserialize, Entity)]
    struct Profile {
        id: u32,
        #[serde(default)]
        bio: Option<String>,
        #[serde(default)]
        email: Option<String>,
    }
    let mut state = State::default();
    write(&mut state, "a", &Profile::schema(), json!({ "id": 1, "bio": "b", "email": "e" }), 1);
    write(&mut state, "b", &Profile::schema(), json!({ "id": 1, "bio": "b2" }), 2);
    let p: Profile = denormalize(&state, &Profile::schema(), &json!(1)).unwrap().unwrap();
    assert_eq!((p.id, p.bio.as_deref(), p.email.as_deref()), (1, Some("b2"), Some("e")));

    // Fields that all equal stored ones change nothing: the row keeps its version.
    let version = state.entity("Profile", "1").unwrap().version;
    write(&mut state, "c", &Profile::schema(), json!({ "id": 1, "bio": "b2" }), 3);
    assert_eq!(state.entity("Profile", "1").unwrap().version, version);

    // One entity met twice in one response: the later fields over the earlier.
    let both = json!([{ "id": 2, "bio": "first", "email": "e" }, { "id": 2, "bio": "second" }]);
    write(&mut state, "d", &Schema::array(Profile::schema()), both, 4);
    let p: Profile = denormalize(&state, &Profile::schema(), &json!(2)).unwrap().unwrap();
    assert_eq!((p.bio.as_deref(), p.email.as_deref()), (Some("second"), Some("e")));
}

fn reject_negative(value: &Object) -> Result<(), String> {
    match value.get("balance").and_then(Value::as_i64) {
        Some(b) if b < 0 => Err(format!("balance {b} is negative")),
        _ => Ok(()),
    }
}

fn stamp(mut value: Value, args: &Value) -> Result<Value, String> {
    if let Some(owner) = args.get("owner") {
        value["owner"] = owner.clone();
    }
    Ok(value)
}

fn keep_highest(existing: &Object, incoming: &Object) -> Object {
    let high = |o: &Object| o.get("balance").and_then(Value::as_i64).unwrap_or(0);
    if high(incoming) >= high(existing) {
        incoming.clone()
    } else {
        existing.clone()
    }
}

fn never_older_than_stored(existing: &EntityMeta, incoming: &EntityMeta) -> bool {
    incoming.date >= existing.date
}

#[derive(Debug, Deserialize, Entity)]
#[entity(
    validate = "reject_negative",
    process = "stamp",
    merge = "keep_highest",
    should_update = "never_older_than_stored"
)]
#[allow(dead_code)]
struct Account {
    id: u32,
    balance: i64,
    #[serde(default)]
    owner: Option<String>,
}

#[test]
fn hooks_process_validate_and_merge_are_called() {
    let mut state = State::default();
    state
        .write_result("a", &Account::schema(), json!({ "id": 1, "balance": 5 }), &json!({ "owner": "ada" }), meta(1))
        .unwrap();
    let a: Account = denormalize(&state, &Account::schema(), &json!(1)).unwrap().unwrap();
    assert_eq!(a.owner.as_deref(), Some("ada"));

    let err =
        state.write_result("b", &Account::schema(), json!({ "id": 2, "balance": -1 }), NO_ARGS, meta(2)).unwrap_err();
    assert_eq!(err.to_string(), "Account at the response root was rejected: balance -1 is negative");

    write(&mut state, "c", &Account::schema(), json!({ "id": 1, "balance": 3 }), 3);
    let a: Account = denormalize(&state, &Account::schema(), &json!(1)).unwrap().unwrap();
    assert_eq!(a.balance, 5, "the custom merge kept the higher balance");
}

#[test]
fn a_partial_nested_object_merges_with_the_stored_entity_and_is_checked_after_merging() {
    let mut state = State::default();
    write(&mut state, "u", &User::schema(), json!({ "id": "u1", "name": "Ada" }), 1);
    // The article's author is only a stub: fine, the store has the rest.
    write(&mut state, "a", &Article::schema(), json!({ "id": 1, "title": "T", "author": { "id": "u1" } }), 2);
    let article = MemoCache::default().entity::<Article>(&state, "1").unwrap().unwrap();
    assert_eq!(article.author.name, "Ada");
    // A stub of a user the store does not know is incomplete: refused, with its path.
    let err = state
        .write_result(
            "b",
            &Article::schema(),
            json!({ "id": 2, "title": "T", "author": { "id": "u9" } }),
            NO_ARGS,
            meta(3),
        )
        .unwrap_err();
    assert_eq!(
        err,
        NormalizeError::InvalidField { entity: "User", path: "author".into(), message: "missing field `name`".into() }
    );
    assert!(state.entity("Article", "2").is_none());
}

/// A person keyed by the map key it is found under (no id field of its own).
#[derive(Debug, Deserialize, Entity)]
#[entity(pk_found = "person_key")]
#[allow(dead_code)]
struct Person {
    name: String,
}

fn person_key(_: &Object, found: &rdc_core::Found<'_>) -> Option<String> {
    Some(found.key.to_owned()).filter(|key| !key.is_empty())
}

#[test]
fn a_pk_can_come_from_the_key_the_entity_is_found_under() {
    let mut state = State::default();
    let people = json!({ "ada": { "name": "Ada" }, "bo": { "name": "Bo" } });
    state
        .write_result("GET /people", &Schema::values(Person::schema()), people, &Value::Null, WriteMeta::at(0, 1000))
        .unwrap();
    assert_eq!(state.entity("Person", "ada").unwrap().value.as_ref().unwrap()["name"], "Ada");
    assert_eq!(*state.result("GET /people").unwrap().value, json!({ "ada": "ada", "bo": "bo" }));
    let read: std::collections::BTreeMap<String, Person> =
        denormalize(&state, &Schema::values(Person::schema()), &state.result("GET /people").unwrap().value)
            .unwrap()
            .unwrap();
    assert_eq!(read["bo"].name, "Bo");
    // At the top of a response there is no key: no pk, and nothing stored.
    let before = state.version();
    let err = state.write_entities(&Person::schema(), json!({ "name": "Cy" }), &Value::Null, WriteMeta::at(1, 1000));
    assert!(matches!(err, Err(NormalizeError::MissingPrimaryKey { .. })), "{err:?}");
    assert_eq!(state.version(), before);
}

/// A comment that takes its post's id from the post it is nested in, and
/// its thread from the endpoint's args.
#[derive(Debug, Deserialize, Entity)]
#[entity(process_found = "comment_in_post")]
#[allow(dead_code)]
struct Remark {
    id: u32,
    #[serde(rename = "postId")]
    post_id: u32,
    thread: String,
}

fn comment_in_post(mut value: Value, found: &rdc_core::Found<'_>) -> Result<Value, String> {
    let post =
        found.parent.get("id").cloned().ok_or_else(|| format!("a remark outside a post (under {:?})", found.key))?;
    let thread = found.args.get("thread").cloned().unwrap_or(json!("main"));
    if let Value::Object(remark) = &mut value {
        remark.insert("postId".to_owned(), post);
        remark.insert("thread".to_owned(), thread);
    }
    Ok(value)
}

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Posting {
    id: u32,
    #[entity(nested)]
    remarks: Vec<Remark>,
}

#[test]
fn process_can_read_the_parent_object_and_the_args() {
    let mut state = State::default();
    let article = json!({ "id": 7, "remarks": [{ "id": 1 }, { "id": 2 }] });
    let args = json!({ "thread": "side" });
    state.write_result("GET /articles/7", &Posting::schema(), article, &args, WriteMeta::at(0, 1000)).unwrap();
    let remark = MemoCache::default().entity::<Remark>(&state, "2").unwrap().unwrap();
    assert_eq!((remark.post_id, remark.thread.as_str()), (7, "side"));
    // Found at the top, a remark has no parent: the hook refuses it, naming the path.
    let err =
        state.write_entities(&Remark::schema(), json!({ "id": 3 }), &Value::Null, WriteMeta::at(1, 1000)).unwrap_err();
    assert!(err.to_string().contains("a remark outside a post"), "{err}");
    assert!(state.entity("Remark", "3").is_none());
}
