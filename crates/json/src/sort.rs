//! rdc's two sorts, small in wasm where the standard ones are several kilobytes
//! per element type: a heapsort for the short lists it orders (listener ids to
//! wake, an object's keys for a cache key, a query string's keys), `O(n log n)`
//! on any input; and a stable merge of runs for rows, which come nearly sorted.

/// Sorts `v` in place (not stable: equal elements may change places).
///
/// ```
/// let mut v = [5u64, 1, 4, 1, 3];
/// rdc_json::sort::sort(&mut v);
/// assert_eq!(v, [1, 1, 3, 4, 5]);
/// ```
pub fn sort<T: Ord>(v: &mut [T]) {
    // Builds a max-heap, then moves its top behind the shrinking heap.
    for start in (0..v.len() / 2).rev() {
        sift_down(v, start);
    }
    for end in (1..v.len()).rev() {
        v.swap(0, end);
        if let Some(heap) = v.get_mut(..end) {
            sift_down(heap, 0);
        }
    }
}

/// Sorts `v` stably by merging its runs (stretches already in order) in pairs
/// until one is left: linear on sorted input, `O(n log r)` for `r` runs. Rows
/// of a list's topics come in few runs (each table's rows mostly in order, a
/// few referenced rows cycling), which the standard stable sort takes the
/// same way, at several kilobytes of wasm more.
#[doc(hidden)]
#[allow(clippy::indexing_slicing, reason = "run bounds are indices of `v`, in order")]
pub fn merge_runs<T: Ord + Copy>(v: &mut [T]) {
    // Where each run starts, and the end.
    let mut bounds = vec![0];
    for i in 1..v.len() {
        if v[i - 1] > v[i] {
            bounds.push(i);
        }
    }
    bounds.push(v.len());
    let mut buffer = Vec::new();
    while bounds.len() > 2 {
        let mut merged = Vec::with_capacity(bounds.len() / 2 + 2);
        for pair in bounds.chunks(2) {
            merged.push(pair[0]);
        }
        for w in bounds.windows(3).step_by(2) {
            merge(v, w[0], w[1], w[2], &mut buffer);
        }
        if merged.last() != bounds.last() {
            merged.push(v.len());
        }
        bounds = merged;
    }
}

/// Merges the sorted `v[start..middle]` and `v[middle..end]` in place (the
/// first copied out to `buffer`); equal elements keep the first one's first.
#[allow(clippy::indexing_slicing, reason = "start <= middle <= end <= v.len(), and `out` stays behind `j`")]
fn merge<T: Ord + Copy>(v: &mut [T], start: usize, middle: usize, end: usize, buffer: &mut Vec<T>) {
    debug_assert!(start <= middle && middle <= end && end <= v.len());
    buffer.clear();
    buffer.extend_from_slice(&v[start..middle]);
    let (mut i, mut j, mut out) = (0, middle, start);
    while i < buffer.len() {
        if j < end && v[j] < buffer[i] {
            v[out] = v[j];
            j += 1;
        } else {
            v[out] = buffer[i];
            i += 1;
        }
        out += 1;
    }
}

/// Moves `v[at]` down the heap `v` to where its children are no larger.
fn sift_down<T: Ord>(v: &mut [T], mut at: usize) {
    loop {
        let left = 2 * at + 1;
        let larger = match (v.get(left), v.get(left + 1)) {
            (Some(l), Some(r)) if r > l => left + 1,
            (Some(_), _) => left,
            (None, _) => return,
        };
        if v.get(at) >= v.get(larger) {
            return;
        }
        v.swap(at, larger);
        at = larger;
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// Ordered by its first number only (equal ones must keep their order).
    #[derive(Debug, Clone, Copy)]
    struct ByFirst(u16, u16);
    impl PartialEq for ByFirst {
        fn eq(&self, other: &Self) -> bool {
            self.0 == other.0
        }
    }
    impl Eq for ByFirst {}
    impl PartialOrd for ByFirst {
        fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for ByFirst {
        fn cmp(&self, other: &Self) -> std::cmp::Ordering {
            self.0.cmp(&other.0)
        }
    }

    proptest! {
        /// Sorted input, input with a few elements moved, cycling runs, any
        /// input: the stable sort's order (pairs sorted by their first half
        /// keep their second halves' order).
        #[test]
        fn merged_runs_sort_as_the_stable_sort_does(
            n in 0usize..300,
            moves in proptest::collection::vec((0usize..300, 0usize..300), 0..4),
            cycle in 1usize..40,
            any in proptest::collection::vec((0u16..50, 0u16..1000), 0..300),
        ) {
            let mut v: Vec<usize> = (0..n).collect();
            for (a, b) in moves {
                if a < n && b < n {
                    let x = v.remove(a);
                    v.insert(b, x);
                }
            }
            super::merge_runs(&mut v);
            prop_assert_eq!(v, (0..n).collect::<Vec<_>>());
            let mut cycling: Vec<usize> = (0..n).map(|i| i % cycle).collect();
            let mut expected = cycling.clone();
            expected.sort();
            super::merge_runs(&mut cycling);
            prop_assert_eq!(cycling, expected);
            let mut expected = any.clone();
            expected.sort_by_key(|p| p.0);
            let mut got: Vec<ByFirst> = any.iter().map(|&(a, b)| ByFirst(a, b)).collect();
            super::merge_runs(&mut got);
            prop_assert_eq!(got.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(), expected);
        }

        #[test]
        fn sorts_as_the_standard_sort_does(mut v in proptest::collection::vec(0u16..50, 0..200)) {
            let mut expected = v.clone();
            expected.sort_unstable();
            super::sort(&mut v);
            prop_assert_eq!(v, expected);
        }
    }
}
