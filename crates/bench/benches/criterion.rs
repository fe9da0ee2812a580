//! The core workloads under criterion (natively), for before/after comparisons with
//! its statistics: `cargo bench --profile speed -p rdc-bench --bench criterion`.
//! Fixtures as for `core.rs` (`RDC_BENCH_FIXTURES`, default /tmp/rdc-bench-fixtures).
//! The comparison with the JavaScript anchor is `scripts/bench-core` (same V8).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rdc_bench::{Fixtures, Projects, User};
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{denormalize, Entity, MemoCache, State, WriteMeta};

const META: WriteMeta = WriteMeta { fetched_at: 1, date: 1, expires_at: u64::MAX, seq: 0 };

fn fixtures() -> Fixtures {
    let dir = std::env::var("RDC_BENCH_FIXTURES").unwrap_or_else(|_| "/tmp/rdc-bench-fixtures".to_owned());
    let read = |name: &str| {
        std::fs::read_to_string(format!("{dir}/{name}")).unwrap_or_else(|e| {
            panic!("{dir}/{name}: {e}; run `python3 ../shared/bench/gen_fixtures.py {dir}` (scripts/bench-core does)")
        })
    };
    Fixtures::new(read("projects.json"), &read("user.json")).expect("the fixtures are JSON")
}

fn workloads(c: &mut Criterion) {
    let f = fixtures();
    let schema = Projects::schema();
    c.bench_function("normalizeLong", |b| {
        b.iter_batched(
            || f.projects().clone(),
            |input| {
                let mut state = State::default();
                state.write_result("projects", &schema, input, &Value::Null, META).map(|()| state)
            },
            BatchSize::LargeInput,
        )
    });
    c.bench_function("parse+normalizeLong", |b| {
        b.iter(|| {
            let mut state = State::default();
            let value = Value::parse(f.projects_text().to_owned()).expect("JSON");
            state.write_result("projects", &schema, value, &Value::Null, META).map(|()| state)
        })
    });
    let state = f.projects_state().expect("normalizes");
    let result = state.result("projects").map(|r| r.value.clone()).expect("stored");
    c.bench_function("denormalizeLong donotcache", |b| b.iter(|| denormalize::<Projects>(&state, &schema, &result)));
    c.bench_function("denormalizeLong (fresh memo)", |b| {
        b.iter(|| {
            let mut memo = MemoCache::default();
            let read = memo.read_result::<Projects>(&state, "projects", &schema);
            (memo, read)
        })
    });
    let mut memo = MemoCache::default();
    c.bench_function("denormalizeLong withCache", |b| {
        b.iter(|| memo.read_result::<Projects>(&state, "projects", &schema))
    });
    let users = f.user_state().expect("normalizes");
    let login = json!("octocat");
    c.bench_function("denormalizeShort donotcache", |b| {
        b.iter(|| denormalize::<User>(&users, &User::schema(), &login))
    });
    let mut memo = MemoCache::default();
    c.bench_function("denormalizeShort withCache", |b| b.iter(|| memo.entity::<User>(&users, "octocat")));
    for n in [1_000, 100_000] {
        let mut store = f.users_store(n).expect("normalizes");
        let mut i = 0u64;
        c.bench_function(&format!("setOneEntity in {}k store", n / 1000), |b| {
            b.iter(|| {
                i += 1;
                store.write_entities(&User::schema(), f.numbered_user(i % n as u64, i), &Value::Null, META)
            })
        });
    }
}

criterion_group!(benches, workloads);
criterion_main!(benches);
