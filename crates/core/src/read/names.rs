//! Field names compared as readers meet them: inline, a word at a time
//! (names are short; a call to `memcmp` per member was a sixth of a read in wasm).

/// Whether two field names are equal.
#[inline]
#[allow(clippy::indexing_slicing, reason = "every index is below `len`, the length of both")]
pub(crate) fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let len = a.len();
    if len != b.len() {
        return false;
    }
    let word = |bytes: &[u8], at: usize| {
        let mut word = [0; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        u64::from_ne_bytes(word)
    };
    if len < 8 {
        // Two overlapping half words, or (under 4 bytes) the first, middle and
        // last bytes: together they cover every byte.
        if len >= 4 {
            let half = |bytes: &[u8], at: usize| {
                let mut half = [0; 4];
                half.copy_from_slice(&bytes[at..at + 4]);
                u32::from_ne_bytes(half)
            };
            return half(a, 0) == half(b, 0) && half(a, len - 4) == half(b, len - 4);
        }
        return len == 0 || (a[0] == b[0] && a[len / 2] == b[len / 2] && a[len - 1] == b[len - 1]);
    }
    // Whole words, then the last word (overlapping the one before it).
    let mut at = 0;
    while at + 8 < len {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    word(a, len - 8) == word(b, len - 8)
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn names_compare_equal_exactly_when_they_are() {
        let names = [
            "",
            "a",
            "id",
            "url",
            "blog",
            "login",
            "avatar",
            "node_id",
            "html_url",
            "followers",
            "organizations_url",
            "received_events_url",
            "é",
            "né",
            "naïve_ünïcode_name_here",
        ];
        for a in names {
            for b in names {
                assert_eq!(same(a, b), a == b, "{a:?} {b:?}");
            }
            // One byte changed anywhere.
            for i in 0..a.len() {
                let mut changed = a.as_bytes().to_vec();
                changed[i] ^= 1;
                if let Ok(changed) = std::str::from_utf8(&changed) {
                    assert!(!same(a, changed), "{a:?} {changed:?}");
                }
            }
        }
    }
}
