//! The map's rules against a plain model: linear merges and comparisons agree
//! with entry-by-entry ones.

use super::*;

#[test]
fn insert_replaces_in_place_and_remove_keeps_order() {
    let mut m: Map = [("a", Value::from(1)), ("b", Value::from(2)), ("c", Value::from(3))].into_iter().collect();
    assert_eq!(m.insert("b", Value::from(20)), Some(Value::from(2)));
    assert_eq!(m.remove("a"), Some(Value::from(1)));
    let keys: Vec<&str> = m.keys().map(|k| k.as_str()).collect();
    assert_eq!(keys, ["b", "c"]);
    assert_eq!(m.get("b"), Some(&Value::from(20)));
}

#[test]
fn objects_compare_regardless_of_order() {
    let a: Map = [("x", Value::from(1)), ("y", Value::from(2))].into_iter().collect();
    let b: Map = [("y", Value::from(2)), ("x", Value::from(1))].into_iter().collect();
    let c: Map = [("y", Value::from(2)), ("x", Value::from(3))].into_iter().collect();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn many_keys_dedup_and_compare_in_linear_time() {
    // 200,000 entries: quadratic work would take minutes.
    let n = 100_000;
    let keys =
        (0..n).map(|i| (format!("k{i}"), Value::from(i))).chain((0..n).map(|i| (format!("k{i}"), Value::from(i + 1))));
    let m: Map = keys.collect();
    assert_eq!(m.len(), n);
    assert_eq!(m.get("k7"), Some(&Value::from(8)));
    assert_eq!(m.keys().nth(7).map(|k| k.as_str()), Some("k7"));
    let reversed: Map = m.iter().rev().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(m, reversed);
    let same_key: Map = (0..n).map(|i| ("a", Value::from(i))).collect();
    assert_eq!(same_key.len(), 1);
    assert_eq!(same_key.get("a"), Some(&Value::from(n - 1)));
}

proptest::proptest! {
    /// Extending (small maps one by one, larger ones at once) is inserting
    /// each entry in turn: the same keys, places and values.
    #[test]
    fn extending_is_inserting_each_in_turn(
        start in proptest::collection::vec((0u8..40, 0i64..5), 0..20),
        more in proptest::collection::vec((0u8..40, 0i64..5), 0..40),
    ) {
        let entry = |&(k, v): &(u8, i64)| (format!("k{k}"), Value::from(v));
        let mut inserted = Map::new();
        for e in start.iter().chain(&more) {
            let (k, v) = entry(e);
            inserted.insert(k, v);
        }
        let mut extended: Map = start.iter().map(entry).collect();
        extended.extend(more.iter().map(entry));
        let pairs = |m: &Map| m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<Vec<_>>();
        proptest::prop_assert_eq!(pairs(&extended), pairs(&inserted));
    }
}

proptest::proptest! {
    /// `overlaid` is inserting each entry of the other map in turn, and
    /// `includes` says whether that changes nothing (maps small and wide,
    /// keys in step and not).
    #[test]
    fn overlaid_is_inserting_each_and_includes_says_it_changes_nothing(
        base in proptest::collection::vec((0u8..60, 0i64..3), 0..40),
        other in proptest::collection::vec((0u8..60, 0i64..3), 0..40),
        shared in 0usize..40,
    ) {
        let entry = |&(k, v): &(u8, i64)| (format!("k{k}"), Value::from(v));
        let base: Map = base.iter().map(entry).collect();
        // Often the other map starts with the base's own keys, in step.
        let other: Map = base.iter().take(shared).map(|(k, v)| (k.to_string(), v.clone()))
            .chain(other.iter().map(entry)).collect();
        let mut inserted = base.clone();
        for (k, v) in &other {
            inserted.insert(k.clone(), v.clone());
        }
        let pairs = |m: &Map| m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<Vec<_>>();
        let overlaid = base.overlaid(&other);
        proptest::prop_assert_eq!(pairs(&overlaid), pairs(&inserted));
        proptest::prop_assert_eq!(base.includes(&other), pairs(&inserted) == pairs(&base));
    }
}

#[test]
fn dedup_keeps_the_last_value_at_the_first_place() {
    let mut m = Map::from_unique(vec![
        ("a".into(), Value::from(1)),
        ("b".into(), Value::from(2)),
        ("a".into(), Value::from(3)),
        ("a".into(), Value::from(4)),
    ]);
    m.dedup_keys();
    assert_eq!(
        m.iter().map(|(k, v)| (k.as_str(), v.clone())).collect::<Vec<_>>(),
        [("a", Value::from(4)), ("b", Value::from(2))]
    );
}
