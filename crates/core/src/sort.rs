//! One small sort for the short lists rdc orders (listener ids to wake, an
//! object's keys for a cache key, a query string's keys). The standard
//! unstable sort is several kilobytes of wasm per element type; a heapsort is
//! a few hundred bytes and `O(n log n)` on any input.

/// Sorts `v` in place (not stable: equal elements may change places).
///
/// ```
/// let mut v = [5u64, 1, 4, 1, 3];
/// rdc_core::__private::sort(&mut v);
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

/// Sorts `v`, in about linear time when it is nearly sorted (an insertion sort
/// while the elements it moves stay within a budget, the heapsort once they
/// do not): rows of a list's topics come mostly in order, one or two out of
/// place. Stable while the insertion sort finishes; callers order by a key
/// that tells all elements apart when their order matters.
pub(crate) fn sort_nearly_sorted<T: Ord>(v: &mut [T]) {
    let mut budget = 8 * v.len() + 64;
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && v.get(j - 1) > v.get(j) {
            if budget == 0 {
                sort(v);
                return;
            }
            v.swap(j - 1, j);
            j -= 1;
            budget -= 1;
        }
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

    proptest! {
        /// Sorted input, input with a few elements out of place (the insertion
        /// sort) and any input (past the budget, the heapsort).
        #[test]
        fn nearly_sorted_sorts_as_the_standard_sort_does(
            n in 0usize..300,
            moves in proptest::collection::vec((0usize..300, 0usize..300), 0..4),
            mut any in proptest::collection::vec(0u16..50, 0..300),
        ) {
            let mut v: Vec<usize> = (0..n).collect();
            for (a, b) in moves {
                if a < n && b < n {
                    let x = v.remove(a);
                    v.insert(b, x);
                }
            }
            super::sort_nearly_sorted(&mut v);
            prop_assert_eq!(v, (0..n).collect::<Vec<_>>());
            let mut expected = any.clone();
            expected.sort_unstable();
            super::sort_nearly_sorted(&mut any);
            prop_assert_eq!(any, expected);
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
