//! Property: whatever order writes arrive in, the data fetched last wins.

mod common;

use common::*;
use proptest::prelude::*;
use rdc_core::json;
use rdc_core::{denormalize, Entity, Schema, State, WriteMeta};

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn any_interleaving_of_writes_leaves_the_newest_data(
        times in proptest::collection::hash_set(0u64..1_000_000, 1..20),
        order in any::<proptest::sample::Index>(),
        deletes in proptest::collection::vec(any::<bool>(), 20),
    ) {
        // Distinct fetch times; some writes are deletions.
        let mut writes: Vec<(u64, bool)> = times.into_iter().zip(deletes).collect();
        let n = writes.len();
        // A deterministic shuffle driven by `order`.
        for i in (1..n).rev() {
            let j = order.index(i + 1);
            writes.swap(i, j);
        }
        let mut state = State::default();
        for (fetched_at, delete) in &writes {
            let meta = WriteMeta { fetched_at: *fetched_at, date: 2_000_000, expires_at: 3_000_000, seq: 0 };
            if *delete {
                state.write_entities(&Schema::invalidate::<User>(), json!("u"), NO_ARGS, meta).unwrap();
            } else {
                state.write_entities(&User::schema(), json!({ "id": "u", "name": format!("t{fetched_at}") }), NO_ARGS, meta).unwrap();
            }
        }
        let newest = writes.iter().max_by_key(|(t, _)| *t).copied().unwrap();
        let read: Option<User> = denormalize(&state, &User::schema(), &json!("u")).unwrap();
        if newest.1 {
            prop_assert!(read.is_none(), "the newest write deleted it: {writes:?}");
        } else {
            prop_assert_eq!(read.map(|u| u.name), Some(format!("t{}", newest.0)), "{:?}", writes);
        }
    }
}
