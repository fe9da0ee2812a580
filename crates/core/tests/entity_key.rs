//! Spec 2.2: an entity's type key, when set with `#[entity(key = "...")]`, is
//! the name of its table, not its Rust type name: normalizing stores it there,
//! references to it point there, and reads (by pk, nested, `All`, deletion)
//! look there. Every other test's key equals its type name, so a derive that
//! ignored `key` would pass them all.

use std::sync::Arc;

use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{denormalize, All, Entity, MemoCache, Schema, State, WriteMeta};
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
#[entity(key = "acct")]
struct Account {
    id: u32,
    name: String,
}

/// Nests an `Account`; its own key differs from its type name too.
#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
#[entity(key = "billing/invoice")]
struct Invoice {
    id: String,
    total: u32,
    #[entity(nested)]
    account: Account,
}

fn meta(now: u64) -> WriteMeta {
    WriteMeta::at(now, 60_000)
}

/// The names of the store's tables, sorted.
fn tables(state: &State) -> Vec<String> {
    let mut names: Vec<String> = state.tables().keys().cloned().collect();
    names.sort();
    names
}

#[test]
fn the_derive_takes_the_key_attribute() {
    assert_eq!(Account::KEY, "acct");
    assert_eq!(Invoice::KEY, "billing/invoice");
}

#[test]
fn entities_are_stored_and_read_under_their_key_not_their_type_name() {
    let mut state = State::default();
    let invoice = json!({ "id": "inv-1", "total": 30, "account": { "id": 7, "name": "Ada" } });
    state.write_result("GET /invoices/inv-1", &Invoice::schema(), invoice, &Value::Null, meta(1)).unwrap();

    // Both the entity and the one nested in it live in tables named by their keys.
    assert_eq!(tables(&state), ["acct", "billing/invoice"]);
    assert!(state.entity("acct", "7").is_some());
    assert!(state.entity("billing/invoice", "inv-1").is_some());
    assert!(state.entity("Account", "7").is_none());
    assert!(state.entity("Invoice", "inv-1").is_none());

    // Reads follow the key: the result (with its nested reference), one entity
    // by pk (memoized and not), and `All` over the type.
    let stored = state.result("GET /invoices/inv-1").unwrap().value.clone();
    let read: Invoice = denormalize(&state, &Invoice::schema(), &stored).unwrap().expect("the invoice is found");
    assert_eq!(read.account, Account { id: 7, name: "Ada".into() });
    assert_eq!(read.total, 30);
    let account: Account = denormalize(&state, &Account::schema(), &json!(7)).unwrap().expect("found by pk");
    assert_eq!(account.name, "Ada");
    let mut memo = MemoCache::default();
    let account: Arc<Account> = memo.entity::<Account>(&state, "7").unwrap().expect("memoized read finds it");
    assert_eq!(account.name, "Ada");
    let all: Schema = All::of::<Account>().into();
    let accounts =
        memo.read::<Vec<Account>>(&state, "all accounts", &all, &Value::Null).unwrap().expect("All finds the table");
    assert_eq!(accounts.iter().map(|a| a.id).collect::<Vec<_>>(), [7]);

    // A write of the entity alone updates the row the nested write made.
    state.write_entities(&Account::schema(), json!({ "id": 7, "name": "Ada L." }), &Value::Null, meta(2)).unwrap();
    assert_eq!(tables(&state), ["acct", "billing/invoice"]);
    let read: Invoice = denormalize(&state, &Invoice::schema(), &stored).unwrap().unwrap();
    assert_eq!(read.account.name, "Ada L.", "the invoice reads the account from the same table");

    // Deleting by the type's invalidation schema deletes the keyed row.
    state.write_entities(&Schema::invalidate::<Account>(), json!(7), &Value::Null, meta(3)).unwrap();
    assert!(state.entity("acct", "7").is_none());
    assert!(memo.entity::<Account>(&state, "7").unwrap().is_none());
}

#[test]
fn a_saved_store_names_the_table_by_key_and_reads_back_through_the_type() {
    // The store's serialized form names tables by key: a state restored from it
    // (saved by another build, say) is read through the type's key.
    let mut state = State::default();
    state.write_entities(&Account::schema(), json!({ "id": 1, "name": "Grace" }), &Value::Null, meta(1)).unwrap();
    let saved = serde_json::to_value(&state).unwrap();
    assert!(saved["entities"]["acct"]["rows"]["1"].is_object(), "saved under the key: {saved}");
    assert!(saved["entities"].get("Account").is_none(), "nothing under the type name: {saved}");
    let restored: State = serde_json::from_value(saved).unwrap();
    let account: Account = denormalize(&restored, &Account::schema(), &json!(1)).unwrap().unwrap();
    assert_eq!(account.name, "Grace");
}
