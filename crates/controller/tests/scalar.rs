//! `Scalar` fields through the controller: typed reads get their lens from
//! the args of the read, a columns endpoint writes only its lens's cells and
//! wakes only that lens's readers.

mod cells;
use cells::{SyncCell, SyncRefCell};
use std::sync::Arc;

use rdc_controller::{from_fn, Controller, FakeTime, FetchError, FnEndpoint, LocalTasks, Spawn};
use rdc_core::json::Value;
use rdc_core::{json, Entity, NormalizeError, Scalar, Schema, SchemaOf};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
struct PortfolioArgs {
    portfolio: String,
}

fn portfolio() -> Scalar {
    Scalar::new("portfolio", |args: &PortfolioArgs| Some(args.portfolio.clone()))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
struct Company {
    id: String,
    name: String,
    price: f64,
    #[entity(scalar = "portfolio()")]
    pct: f64,
}

fn args(portfolio: &str) -> PortfolioArgs {
    PortfolioArgs { portfolio: portfolio.to_owned() }
}

fn controller() -> (Controller, LocalTasks) {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    (Controller::new(time.clone(), time, tasks.clone()), tasks)
}

/// Companies 1 and 2, with each portfolio's own `pct`.
fn companies() -> FnEndpoint<PortfolioArgs, Vec<Company>, String> {
    from_fn("companies", |args: PortfolioArgs| async move {
        let pct = if args.portfolio == "A" { 0.5 } else { 0.1 };
        let company = |id: &str, price| Company { id: id.to_owned(), name: format!("company {id}"), price, pct };
        Ok::<_, String>(vec![company("1", 10.0), company("2", 20.0)])
    })
    .schema(SchemaOf::list(Company::schema()))
}

/// The `pct` column of a portfolio, answering `answer`.
fn columns(answer: Value) -> FnEndpoint<PortfolioArgs, Value, String> {
    from_fn("columns", move |_: PortfolioArgs| {
        let answer = answer.clone();
        async move { Ok::<_, String>(answer) }
    })
    .schema(Schema::values(portfolio().bound_to::<Company>()).into())
}

fn read(c: &Controller, portfolio: &str) -> Arc<Vec<Company>> {
    c.read::<_, Vec<Company>>(&companies(), &args(portfolio)).unwrap().data.unwrap()
}

/// Counts the runs of a tracked listener reading portfolio `name`.
fn reader(c: &Controller, name: &'static str) -> Arc<SyncCell<u32>> {
    let runs = Arc::new(SyncCell::new(0));
    let (seen, reader) = (Arc::clone(&runs), c.clone());
    c.listen_reads(move || {
        seen.set(seen.get() + 1);
        drop(read(&reader, name));
    });
    runs
}

#[test]
fn reads_of_two_portfolios_each_see_their_own_values_and_share_the_rest() {
    let (c, tasks) = controller();
    tasks.block_on(c.fetch(&companies(), args("A"), ())).unwrap();
    tasks.block_on(c.fetch(&companies(), args("B"), ())).unwrap();
    let (a, b) = (read(&c, "A"), read(&c, "B"));
    assert_eq!(a.iter().map(|x| x.pct).collect::<Vec<_>>(), [0.5, 0.5]);
    assert_eq!(b.iter().map(|x| x.pct).collect::<Vec<_>>(), [0.1, 0.1]);
    assert_eq!(
        a.iter().map(|x| (&x.name, x.price)).collect::<Vec<_>>(),
        b.iter().map(|x| (&x.name, x.price)).collect::<Vec<_>>()
    );
    // Memoized per lens: the same Arc again, another one for the other lens.
    assert!(Arc::ptr_eq(&a, &read(&c, "A")) && Arc::ptr_eq(&b, &read(&c, "B")));
    assert!(!Arc::ptr_eq(&a, &b));
}

#[test]
fn a_columns_write_wakes_only_the_readers_of_its_lens() {
    let (c, tasks) = controller();
    tasks.block_on(c.fetch(&companies(), args("A"), ())).unwrap();
    tasks.block_on(c.fetch(&companies(), args("B"), ())).unwrap();
    let (in_a, in_b) = (reader(&c, "A"), reader(&c, "B"));
    let b = read(&c, "B");
    assert_eq!((in_a.get(), in_b.get()), (1, 1));
    let company_version = || c.with_state(|s| s.entity("Company", "1").map(|row| row.version));
    let version = company_version();

    let update = columns(json!({ "1": { "pct": 0.75 } }));
    tasks.block_on(c.fetch(&update, args("A"), ())).unwrap();
    assert_eq!((in_a.get(), in_b.get()), (2, 1), "lens A's reader woke, lens B's did not");
    let a = read(&c, "A");
    assert_eq!((a[0].pct, a[1].pct, a[0].price), (0.75, 0.5, 10.0));
    assert!(Arc::ptr_eq(&b, &read(&c, "B")), "lens B reads as it was");
    assert_eq!(company_version(), version, "the company row was not written");
}

#[test]
fn a_hostile_column_fails_naming_its_path_and_the_store_keeps_what_it_had() {
    let (c, tasks) = controller();
    tasks.block_on(c.fetch(&companies(), args("A"), ())).unwrap();
    let before = read(&c, "A");
    let hostile = columns(json!({ "1": { "pct": "lots" } }));
    let err = tasks.block_on(c.fetch(&hostile, args("A"), ())).unwrap_err();
    match &err {
        FetchError::Normalize(NormalizeError::InvalidField { entity: "Company", path, .. }) => {
            assert_eq!(path, "1.pct")
        }
        other => panic!("expected the invalid field, got {other}"),
    }
    let key = c.key_of(&hostile, &args("A")).unwrap();
    assert!(c.typed_error::<rdc_controller::FnCall<String>>(&key).is_some(), "the error is kept under {key}");
    assert!(Arc::ptr_eq(&before, &read(&c, "A")), "the store kept what it had");
}

/// Reads `key` as the Leptos hooks do (by key, with no typed args).
fn read_by_key(c: &Controller, key: &str) -> Result<Option<Arc<Vec<Company>>>, rdc_core::ReadError> {
    c.read_key::<Vec<Company>>(key, Some(&Schema::array(Company::schema())), false).map(|read| read.data)
}

#[test]
fn a_result_taken_up_elsewhere_keeps_the_lens_it_was_fetched_through() {
    let (server, tasks) = controller();
    tasks.block_on(server.fetch(&companies(), args("A"), ())).unwrap();
    let key = server.key_of(&companies(), &args("A")).unwrap();
    // Hydrated from a server-rendered page's text.
    let (page, _) = controller();
    let text = server.dehydrate().to_script_text();
    page.hydrate(rdc_controller::Dehydrated::from_script_text(&text).unwrap());
    assert_eq!(read_by_key(&page, &key).unwrap().unwrap()[0].pct, 0.5);
    // Shared by another tab.
    let (one, tasks) = controller();
    let (two, _) = controller();
    let outbox = Arc::new(SyncRefCell::new(Vec::new()));
    let sink = Arc::clone(&outbox);
    one.share_writes(move |slice| sink.borrow_mut().push(slice.clone()));
    tasks.block_on(one.fetch(&companies(), args("B"), ())).unwrap();
    for slice in outbox.borrow_mut().drain(..) {
        two.take_shared(slice);
    }
    let key_b = one.key_of(&companies(), &args("B")).unwrap();
    assert_eq!(read_by_key(&two, &key_b).unwrap().unwrap()[0].pct, 0.1);
}

#[test]
fn a_store_with_no_scalar_dehydrates_as_before_and_text_without_args_is_taken_up() {
    let (c, _) = controller();
    #[derive(Debug, Deserialize, Entity)]
    #[allow(dead_code, reason = "read by the entity reader only")]
    struct User {
        id: String,
    }
    let user = from_fn("user", |_: ()| async { Ok::<_, String>(json!({ "id": "1" })) })
        .schema(User::schema().into_schema().into());
    c.set_response(&user, &(), json!({ "id": "1" })).unwrap();
    let text = c.dehydrate().to_script_text();
    assert!(!text.contains("\"args\""), "{text}");
    let (other, _) = controller();
    other.hydrate(rdc_controller::Dehydrated::from_script_text(&text).unwrap());
    assert!(other.entity::<User>("1").unwrap().is_some());
}

#[test]
fn a_read_after_many_fetches_in_flight_still_reads_its_lens() {
    use std::task::{Poll, Waker};
    let open = Arc::new(SyncCell::new(false));
    let wakers: Arc<SyncRefCell<Vec<Waker>>> = Arc::default();
    let (gate, waiting) = (Arc::clone(&open), Arc::clone(&wakers));
    let held = from_fn("companies", move |args: PortfolioArgs| {
        let (gate, waiting) = (Arc::clone(&gate), Arc::clone(&waiting));
        async move {
            std::future::poll_fn(|cx| match gate.get() {
                true => Poll::Ready(()),
                false => {
                    waiting.borrow_mut().push(cx.waker().clone());
                    Poll::Pending
                }
            })
            .await;
            let company = Company { id: "1".to_owned(), name: "one".to_owned(), price: 1.0, pct: 0.5 };
            Ok::<_, String>(vec![Company { pct: if args.portfolio == "P0" { 0.25 } else { 0.5 }, ..company }])
        }
    })
    .schema(SchemaOf::list(Company::schema()));
    let (c, tasks) = controller();
    for i in 0..70 {
        let fetch = c.fetch(&held, args(&format!("P{i}")), ());
        tasks.spawn(Box::pin(async move {
            fetch.await.unwrap();
        }));
    }
    tasks.run();
    assert_eq!(c.inflight_keys().len(), 70);
    open.set(true);
    wakers.borrow_mut().drain(..).for_each(Waker::wake);
    tasks.run();
    assert!(c.inflight_keys().is_empty());
    let key = c.key_of(&held, &args("P0")).unwrap();
    assert_eq!(read_by_key(&c, &key).unwrap().unwrap()[0].pct, 0.25);
}

#[test]
fn set_with_hands_the_stored_entity_with_scalar_fields_to_the_update() {
    let (c, tasks) = controller();
    tasks.block_on(c.fetch(&companies(), args("A"), ())).unwrap();
    let seen = Arc::new(SyncRefCell::new(Value::Null));
    let into = Arc::clone(&seen);
    c.set_with(&Company::schema().into(), &json!("1"), |current| {
        *into.borrow_mut() = current.clone();
        let mut renamed = current;
        renamed["name"] = json!("renamed");
        renamed
    })
    .unwrap();
    assert_eq!(seen.borrow()["price"], json!(10.0));
    assert_eq!(read(&c, "A")[0].name, "renamed");
    assert_eq!(read(&c, "A")[0].pct, 0.5, "the cell keeps its value");
}
