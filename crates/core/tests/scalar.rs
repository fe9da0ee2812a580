//! `Scalar`: entity fields whose values depend on the write's and the read's
//! args (a lens), stored in cells apart from the entity.

use std::sync::Arc;

use rdc_core::json::Value;
use rdc_core::{json, Entity, MemoCache, NormalizeError, Scalar, Schema, State, WriteMeta};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct PortfolioArgs {
    portfolio: String,
}

fn portfolio() -> Scalar {
    Scalar::new("portfolio", |args: &PortfolioArgs| Some(args.portfolio.clone()))
}

#[derive(Debug, PartialEq, Deserialize, Entity)]
struct Company {
    id: String,
    name: String,
    price: f64,
    #[entity(scalar = "portfolio()")]
    pct: f64,
    #[entity(scalar = "portfolio()")]
    shares: Option<u32>,
}

/// The columns of one portfolio, as a columns endpoint reads them.
#[derive(Debug, PartialEq, Deserialize)]
struct Columns {
    pct: f64,
    shares: Option<u32>,
}

fn lens(name: &str) -> Value {
    json!({ "portfolio": name })
}

fn list() -> Schema {
    Schema::array(Company::schema())
}

fn columns() -> Schema {
    Schema::values(portfolio().bound_to::<Company>())
}

/// Companies 1 and 2 fetched through portfolios A and B.
fn two_lenses() -> State {
    let mut state = State::default();
    let a = json!([
        { "id": "1", "name": "Acme", "price": 10.0, "pct": 0.5, "shares": 100 },
        { "id": "2", "name": "Bolt", "price": 20.0, "pct": 0.25, "shares": 40 },
    ]);
    let b = json!([
        { "id": "1", "name": "Acme", "price": 10.0, "pct": 0.1, "shares": 7 },
        { "id": "2", "name": "Bolt", "price": 20.0, "pct": 0.9 },
    ]);
    state.write_result("companies A", &list(), a, &lens("A"), WriteMeta::at(0, 60_000)).unwrap();
    state.write_result("companies B", &list(), b, &lens("B"), WriteMeta::at(1, 60_000)).unwrap();
    state
}

/// The stored object of row `key`/`pk`.
fn row(state: &State, key: &str, pk: &str) -> Arc<rdc_core::Object> {
    state.entity(key, pk).and_then(|row| row.value.clone()).unwrap()
}

fn read(memo: &mut MemoCache, state: &State, portfolio: &str) -> Arc<Vec<Company>> {
    let key = format!("companies {portfolio}");
    memo.read_result_with::<Vec<Company>>(state, &key, &list(), &lens(portfolio)).unwrap().unwrap()
}

#[test]
fn two_lenses_of_one_entity_read_side_by_side_each_with_its_own_values() {
    let state = two_lenses();
    let mut memo = MemoCache::default();
    let (a, b) = (read(&mut memo, &state, "A"), read(&mut memo, &state, "B"));
    let own = |list: &[Company]| list.iter().map(|c| (c.pct, c.shares)).collect::<Vec<_>>();
    assert_eq!(own(&a), [(0.5, Some(100)), (0.25, Some(40))]);
    assert_eq!(own(&b), [(0.1, Some(7)), (0.9, None)]);
    let shared = |list: &[Company]| list.iter().map(|c| (c.name.clone(), c.price)).collect::<Vec<_>>();
    assert_eq!(shared(&a), shared(&b));
    // One Company row; its scalar fields live in the cells, not on it.
    let stored = row(&state, "Company", "1");
    assert_eq!(stored.get("pct"), Some(&json!("Company,1")));
    assert_eq!(
        *row(&state, "Scalar(portfolio)", "Company,1,A"),
        *json!({ "pct": 0.5, "shares": 100 }).as_object().unwrap()
    );
}

#[test]
fn a_columns_endpoint_writes_only_the_cells_of_its_lens() {
    let mut state = two_lenses();
    let mut memo = MemoCache::default();
    let (a, b) = (read(&mut memo, &state, "A"), read(&mut memo, &state, "B"));
    let company = row(&state, "Company", "1");
    let cell_b = row(&state, "Scalar(portfolio)", "Company,1,B");

    let answer = json!({ "1": { "pct": 0.75, "shares": 300, "name": "ignored" } });
    state.write_result("columns A", &columns(), answer, &lens("A"), WriteMeta::at(2, 60_000)).unwrap();

    assert!(Arc::ptr_eq(&company, &row(&state, "Company", "1")), "the entity is untouched");
    assert!(Arc::ptr_eq(&cell_b, &row(&state, "Scalar(portfolio)", "Company,1,B")), "lens B untouched");
    let a2 = read(&mut memo, &state, "A");
    assert_eq!((a2[0].pct, a2[0].shares, a2[0].name.as_str()), (0.75, Some(300), "Acme"));
    assert_eq!((a2[1].pct, a2[1].shares), (a[1].pct, a[1].shares), "company 2 keeps its cell");
    assert!(Arc::ptr_eq(&b, &read(&mut memo, &state, "B")), "a read through lens B is the same Arc");
    // Read again, the read still depends on its cells.
    state
        .write_result("columns A", &columns(), json!({ "1": { "pct": 0.8 } }), &lens("A"), WriteMeta::at(3, 60_000))
        .unwrap();
    let a3 = read(&mut memo, &state, "A");
    assert_eq!((a3[0].pct, a3[0].shares), (0.8, Some(300)), "a write lays its fields over the cell's");
    assert!(Arc::ptr_eq(&b, &read(&mut memo, &state, "B")));
    // The columns endpoint reads as the cells of its lens.
    let cols = memo
        .read_result_with::<std::collections::BTreeMap<String, Columns>>(&state, "columns A", &columns(), &lens("A"))
        .unwrap()
        .unwrap();
    assert_eq!(cols["1"], Columns { pct: 0.8, shares: Some(300) });
}

#[test]
fn a_read_through_another_lens_is_read_again_and_never_handed_the_other_s_value() {
    let state = two_lenses();
    let mut memo = MemoCache::default();
    let a = read(&mut memo, &state, "A");
    assert!(Arc::ptr_eq(&a, &read(&mut memo, &state, "A")));
    // The same key read through another lens is read again, not handed lens A's value.
    let through_b = memo.read_result_with::<Vec<Company>>(&state, "companies A", &list(), &lens("B")).unwrap().unwrap();
    assert_eq!(through_b[0].pct, 0.1);
    assert!(!Arc::ptr_eq(&a, &through_b));
    let again = memo.read_result_with::<Vec<Company>>(&state, "companies A", &list(), &lens("A")).unwrap().unwrap();
    assert_eq!(again[0].pct, 0.5);
}

#[test]
fn a_hostile_cell_value_is_refused_with_its_path_and_the_store_keeps_what_it_had() {
    let mut state = two_lenses();
    let before = row(&state, "Scalar(portfolio)", "Company,1,A");
    let err = state
        .write_result("columns A", &columns(), json!({ "1": { "pct": "lots" } }), &lens("A"), WriteMeta::at(2, 60_000))
        .unwrap_err();
    assert!(matches!(&err, NormalizeError::InvalidField { entity: "Company", path, .. } if path == "1.pct"), "{err}");
    let err = state
        .write_result(
            "companies A",
            &list(),
            json!([{ "id": "1", "name": "Acme", "price": 1.0, "pct": null }]),
            &lens("A"),
            WriteMeta::at(3, 60_000),
        )
        .unwrap_err();
    assert!(matches!(&err, NormalizeError::InvalidField { entity: "Company", path, .. } if path == "[0].pct"), "{err}");
    assert!(Arc::ptr_eq(&before, &row(&state, "Scalar(portfolio)", "Company,1,A")));
    assert_eq!(row(&state, "Company", "1").get("price"), Some(&json!(10.0)));
    assert!(state.result("columns A").is_none());
}

#[test]
fn a_write_whose_args_give_no_lens_writes_all_but_its_scalar_fields() {
    let mut state = two_lenses();
    let cell = row(&state, "Scalar(portfolio)", "Company,1,A");
    let one = json!([{ "id": "1", "name": "Acme Corp", "price": 11.0, "pct": 0.99 }]);
    state.write_result("companies", &list(), one, &json!({}), WriteMeta::at(2, 60_000)).unwrap();
    assert_eq!(row(&state, "Company", "1").get("name"), Some(&json!("Acme Corp")));
    assert_eq!(row(&state, "Company", "1").get("pct"), Some(&json!("Company,1")));
    assert!(Arc::ptr_eq(&cell, &row(&state, "Scalar(portfolio)", "Company,1,A")), "the cells are left as they were");
    let a = read(&mut MemoCache::default(), &state, "A");
    assert_eq!((a[0].name.as_str(), a[0].price, a[0].pct), ("Acme Corp", 11.0, 0.5));
    // A columns answer has nothing else to write: refused, naming the scalar.
    let err = state
        .write_result("columns", &columns(), json!({ "1": { "pct": 0.1 } }), &json!({}), WriteMeta::at(3, 60_000))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Scalar(portfolio) at 1 was rejected: the endpoint's args give no `portfolio` lens for Company"
    );
}

#[test]
fn a_read_without_a_lens_reads_options_as_none_and_names_the_scalar_for_the_others() {
    #[derive(Debug, Deserialize, Entity)]
    #[entity(key = "Company")]
    struct CompanyName {
        name: String,
        #[entity(scalar = "portfolio()")]
        shares: Option<u32>,
        #[serde(rename = "id")]
        _id: String,
    }
    let state = two_lenses();
    let mut memo = MemoCache::default();
    let name = memo.entity::<CompanyName>(&state, "1").unwrap().unwrap();
    assert_eq!((name.name.as_str(), name.shares), ("Acme", None));
    let err = memo.entity::<Company>(&state, "1").unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot read pct as the requested type: no `portfolio` lens: the read has no args that give one"
    );
    // A lens with no cell for the entity: `None`, or the same kind of error.
    let c = memo.read_result_with::<Vec<CompanyName>>(&state, "companies A", &list(), &lens("C")).unwrap().unwrap();
    assert_eq!(c[0].shares, None);
    let err = memo.read_result_with::<Vec<Company>>(&state, "companies A", &list(), &lens("C")).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"cannot read [0].pct as the requested type: no `portfolio` cell of Company,1 in lens "C""#
    );
}

#[test]
fn an_entity_written_without_its_scalar_fields_reads_cells_written_later() {
    let mut state = State::default();
    let plain = json!({ "id": "9", "name": "Nova", "price": 3.0 });
    state.write_result("company 9", &Company::schema(), plain, &json!(null), WriteMeta::at(0, 60_000)).unwrap();
    let answer = json!({ "9": { "pct": 0.3 } });
    state.write_result("columns A", &columns(), answer, &lens("A"), WriteMeta::at(1, 60_000)).unwrap();
    let read = MemoCache::default()
        .read_result_with::<Company>(&state, "company 9", &Company::schema(), &lens("A"))
        .unwrap()
        .unwrap();
    assert_eq!((read.pct, read.shares), (0.3, None));
}

#[test]
fn a_sweep_keeps_the_cells_of_entities_a_kept_result_reaches() {
    let mut state = two_lenses();
    let keep_a = |key: &str| key == "companies A";
    state.sweep(100_000, keep_a, |_| Some(list()), |_, _, _| false);
    // Lens A's result reaches companies 1 and 2, and with them their cells in every lens.
    assert!(state.result("companies B").is_none());
    for cell in ["Company,1,A", "Company,1,B", "Company,2,A", "Company,2,B"] {
        assert!(state.entity("Scalar(portfolio)", cell).is_some(), "{cell} kept");
    }
    let b = read(&mut MemoCache::default(), &state, "A");
    assert_eq!(b[0].pct, 0.5);
    state.sweep(100_000, |_| false, |_| Some(list()), |_, _, _| false);
    assert!(state.entity("Scalar(portfolio)", "Company,1,A").is_none(), "unreached, expired cells go");
}

#[test]
fn a_type_read_through_serde_reads_its_scalar_fields_the_same() {
    #[derive(Debug, Deserialize, Entity)]
    #[entity(key = "Company", serde_read)]
    struct ThroughSerde {
        name: String,
        #[entity(scalar = "portfolio()")]
        pct: f64,
        #[entity(scalar = "portfolio()")]
        shares: Option<u32>,
        #[serde(rename = "id")]
        _id: String,
    }
    assert!(ThroughSerde::READER.is_none());
    let state = two_lenses();
    let mut memo = MemoCache::default();
    let b = memo.read_result_with::<Vec<ThroughSerde>>(&state, "companies B", &list(), &lens("B")).unwrap().unwrap();
    assert_eq!(
        b.iter().map(|c| (c.name.as_str(), c.pct, c.shares)).collect::<Vec<_>>(),
        [("Acme", 0.1, Some(7)), ("Bolt", 0.9, None)]
    );
    let err = memo.entity::<ThroughSerde>(&state, "1").unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot read pct as the requested type: no `portfolio` lens: the read has no args that give one"
    );
}

#[test]
fn columns_in_a_list_are_keyed_by_each_row_s_pk_not_by_the_list_s_key() {
    let rows = json!([{ "id": "1", "pct": 0.5 }, { "id": "2", "pct": 0.7 }]);
    let in_object = Schema::object([("rows", Schema::array(portfolio().bound_to::<Company>()))]);
    let in_values = Schema::values(Schema::array(portfolio().bound_to::<Company>()));
    let mut state = State::default();
    state
        .write_result("rows", &in_object, json!({ "rows": rows.clone() }), &lens("A"), WriteMeta::at(0, 1000))
        .unwrap();
    state.write_result("by name", &in_values, json!({ "x": rows }), &lens("B"), WriteMeta::at(0, 1000)).unwrap();
    for (cell, pct) in [("Company,1,A", 0.5), ("Company,2,A", 0.7), ("Company,1,B", 0.5), ("Company,2,B", 0.7)] {
        assert_eq!(row(&state, "Scalar(portfolio)", cell).get("pct"), Some(&json!(pct)), "{cell}");
    }
    assert!(state.entity("Scalar(portfolio)", "Company,rows,A").is_none());
    assert!(state.entity("Scalar(portfolio)", "Company,x,B").is_none());
    // A map key "" is the pk of its columns, as any other key is.
    state
        .write_result(
            "empty key",
            &columns(),
            json!({ "": { "id": "3", "pct": 0.9 } }),
            &lens("A"),
            WriteMeta::at(0, 1000),
        )
        .unwrap();
    assert_eq!(row(&state, "Scalar(portfolio)", "Company,,A").get("pct"), Some(&json!(0.9)));
}

#[test]
fn pks_and_lenses_with_commas_keep_their_cells_apart() {
    let mut state = State::default();
    let row = |id: &str, pct: f64| json!([{ "id": id, "name": "n", "price": 1.0, "pct": pct }]);
    state.write_result("one", &list(), row("1,A", 0.1), &lens("B"), WriteMeta::at(0, 60_000)).unwrap();
    state.write_result("two", &list(), row("1", 0.2), &lens("A,B"), WriteMeta::at(1, 60_000)).unwrap();
    state.write_result("three", &list(), row("1", 0.3), &lens("A"), WriteMeta::at(2, 60_000)).unwrap();
    let mut memo = MemoCache::default();
    let pct = |memo: &mut MemoCache, key: &str| {
        memo.read_result::<Vec<Company>>(&state, key, &list()).unwrap().unwrap()[0].pct
    };
    assert_eq!((pct(&mut memo, "one"), pct(&mut memo, "two"), pct(&mut memo, "three")), (0.1, 0.2, 0.3));
    assert_eq!(state.tables()["Scalar(portfolio)"].rows.len(), 3);
}

#[test]
fn an_entity_read_as_json_without_a_lens_reads_its_scalar_fields_as_null() {
    let state = two_lenses();
    let json = rdc_core::denormalize::<Value>(&state, &Company::schema().into(), &json!("1")).unwrap().unwrap();
    assert_eq!(json, json!({ "id": "1", "name": "Acme", "price": 10.0, "pct": null, "shares": null }));
    // Typed, a field that is no `Option` still fails naming the scalar.
    let err = MemoCache::default().entity::<Company>(&state, "1").unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot read pct as the requested type: no `portfolio` lens: the read has no args that give one"
    );
}
