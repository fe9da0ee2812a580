//! The text of JSON numbers: finding a number's text in a response, whether
//! the `f64` `serde_json` parsed from it gives back the value the text says,
//! and whether two texts say the same value. Nothing here allocates.

/// Where the string whose opening quote is just before `at` ends: the place
/// after its closing quote (`None` when it does not end).
pub(super) fn string_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        match bytes.get(at)? {
            b'"' => return Some(at + 1),
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
}

/// What a float's text says of the `f64` `serde_json` parsed from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Float {
    /// At most 15 digits (an exact `f64`) times a power of ten up to 1e22 (an
    /// exact `f64` too): `serde_json` rounded it once, to the nearest `f64`,
    /// whose shortest text is these digits (15 decimal digits always come
    /// back from an `f64`). Most floats are such.
    Short,
    /// Any other: more digits, or a power of ten further out.
    Long,
}

/// What kind of number a number's text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token {
    /// Digits only (with a sign): `serde_json` reads it as an integer when
    /// it fits (see [`read_as_integer`]).
    Integer,
    /// With a point or an exponent.
    Float(Float),
}

/// Where the number that starts at `at` ends (its characters: digits, sign,
/// point and exponent), and what kind it is: one pass.
pub(super) fn scan_number(bytes: &[u8], mut at: usize) -> (usize, Token) {
    let (mut digits, mut frac, mut exp) = (0u32, 0i32, 0i32);
    let (mut significant, mut in_frac, mut in_exp, mut negative_exp) = (false, false, false, false);
    while let Some(&b) = bytes.get(at) {
        match b {
            b'0'..=b'9' if in_exp => exp = exp.saturating_mul(10).saturating_add(i32::from(b - b'0')),
            b'0'..=b'9' => {
                significant |= b != b'0';
                digits = digits.saturating_add(u32::from(significant));
                frac = frac.saturating_add(i32::from(in_frac));
            }
            b'.' => in_frac = true,
            b'e' | b'E' => in_exp = true,
            b'-' => negative_exp = in_exp,
            b'+' => {}
            _ => break,
        }
        at += 1;
    }
    if !in_frac && !in_exp {
        return (at, Token::Integer);
    }
    let power = if negative_exp { -exp } else { exp }.saturating_sub(frac);
    let short = digits <= 15 && (-22..=22).contains(&power);
    (at, Token::Float(if short { Float::Short } else { Float::Long }))
}

/// Whether `serde_json` reads the integer `text` as an integer: when it fits
/// a `u64` (or, negative, an `i64`); it reads `-0` and larger ones as floats.
pub(super) fn read_as_integer(text: &str) -> bool {
    match text.strip_prefix('-') {
        Some(_) => text.parse::<i64>().is_ok_and(|n| n != 0),
        None => text.parse::<u64>().is_ok(),
    }
}

/// The `f64` the JSON number `text` stands for, which `serde_json` parsed as
/// `f`, and whether it says the value `text` says (its shortest text, the one
/// that reads back as it, says that value): numbers with more significant
/// digits than an `f64` holds do not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Reading {
    /// The `f64` says the text's value.
    Says(f64),
    /// The nearest `f64`, which does not say the text's value.
    Loses(f64),
}

/// What `text`, a [`Float::Long`], is as an `f64` (see [`Reading`]); `None`
/// when `text` does not read as `f` at all (not the number `f` was parsed from).
///
/// `serde_json` rounds some such numbers to a neighbour of the nearest
/// `f64`; those are read again here, with Rust's own parsing, which always
/// gives the nearest.
pub(super) fn read_long(text: &str, f: f64) -> Option<Reading> {
    let (mut theirs, mut ours) = (zmij::Buffer::new(), zmij::Buffer::new());
    let shortest = f.is_finite().then(|| theirs.format_finite(f));
    // Mostly the text is the `f64`'s shortest one, as `zmij` writes it.
    if shortest == Some(text) {
        return Some(Reading::Says(f));
    }
    // The nearest `f64`, a few bits from `serde_json`'s at most (a guard
    // against taking another number's text).
    let nearest = text.parse::<f64>().ok().filter(|g| g.to_bits().abs_diff(f.to_bits()) <= 4)?;
    let nearest_shortest = (nearest != f).then(|| ours.format_finite(nearest));
    if nearest_shortest == Some(text) {
        return Some(Reading::Says(nearest));
    }
    // Written otherwise (`1.50`, `1e-07`): compared by value.
    if shortest.is_some_and(|s| same_value(text, s)) {
        return Some(Reading::Says(f));
    }
    if nearest_shortest.is_some_and(|s| same_value(text, s)) {
        return Some(Reading::Says(nearest));
    }
    Some(Reading::Loses(nearest))
}

/// Whether two JSON number texts (or `zmij`'s of an `f64`) say the same
/// value: `1.50` and `15e-1` do; texts that are no numbers compare as text.
pub(super) fn same_value(a: &str, b: &str) -> bool {
    let (Some(pa), Some(pb)) = (Parts::of(a), Parts::of(b)) else { return a == b };
    match (pa.significant(), pb.significant()) {
        (Some(Ok(x)), Some(Ok(y))) => {
            pa.negative == pb.negative
                && x.point == y.point
                && x.len == y.len
                && pa.digits().skip(x.skip).take(x.len).eq(pb.digits().skip(y.skip).take(y.len))
        }
        // Both zero (of any sign).
        (None, None) => true,
        // An exponent out of range: compared as written.
        (Some(Err(())), _) | (_, Some(Err(()))) => a == b,
        _ => false,
    }
}

/// A number's text taken apart: `-12.50e3` is negative, `12`, `50`, `3`.
struct Parts<'a> {
    negative: bool,
    int: &'a [u8],
    frac: &'a [u8],
    exp: i64,
}

/// Where a number's significant digits are, and the power of ten of the
/// place before the first: the value is `0.d1d2d3... * 10^point`.
struct Significant {
    skip: usize,
    len: usize,
    point: i64,
}

impl<'a> Parts<'a> {
    fn of(text: &'a str) -> Option<Parts<'a>> {
        let bytes = text.as_bytes();
        let (negative, rest) = match bytes.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, bytes),
        };
        let (mantissa, exponent) =
            rest.split_at(rest.iter().position(|b| matches!(b, b'e' | b'E')).unwrap_or(rest.len()));
        let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
            Some(point) => {
                let (int, frac) = mantissa.split_at(point);
                #[allow(clippy::indexing_slicing, reason = "`frac` starts with the point")]
                (int, &frac[1..])
            }
            None => (mantissa, &[][..]),
        };
        let all_digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
        if int.is_empty() || !all_digits(int) || !all_digits(frac) {
            return None;
        }
        let exp = match exponent.split_first() {
            None => 0,
            Some((_, e)) => parse_exponent(e)?,
        };
        Some(Parts { negative, int, frac, exp })
    }

    fn digits(&self) -> impl Iterator<Item = u8> + '_ {
        self.int.iter().chain(self.frac).copied()
    }

    fn leading_zeros(&self) -> usize {
        self.digits().take_while(|&d| d == b'0').count()
    }

    /// `None` for zero; `Err` when the power of ten does not fit an `i64`.
    fn significant(&self) -> Option<Result<Significant, ()>> {
        let total = self.int.len() + self.frac.len();
        let skip = self.leading_zeros();
        if skip == total {
            return None;
        }
        let trailing = self.int.iter().chain(self.frac).rev().take_while(|&&d| d == b'0').count();
        let point = i64::try_from(self.int.len())
            .ok()
            .zip(i64::try_from(skip).ok())
            .and_then(|(int, skip)| (int - skip).checked_add(self.exp));
        Some(point.map(|point| Significant { skip, len: total - skip - trailing, point }).ok_or(()))
    }
}

/// An exponent's digits with their sign; `None` when it is malformed or
/// does not fit an `i64`.
fn parse_exponent(e: &[u8]) -> Option<i64> {
    let (negative, digits) = match e.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, e),
    };
    if digits.is_empty() {
        return None;
    }
    let mut n: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(i64::from(d - b'0'))?;
    }
    Some(if negative { -n } else { n })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_of_one_value_compare_equal() {
        for (a, b) in
            [("1.5", "15e-1"), ("1.50", "1.5"), ("-0", "0.0e7"), ("100", "1e2"), ("0.001", "1E-3"), ("12e+1", "120")]
        {
            assert!(same_value(a, b), "{a} {b}");
        }
        for (a, b) in [("1.5", "-1.5"), ("1.5", "1.51"), ("10", "1"), ("0.1", "0.01"), ("1", "0")] {
            assert!(!same_value(a, b), "{a} {b}");
        }
        assert!(same_value("1e99999999999999999999", "1e99999999999999999999"), "out of range: as written");
        assert!(!same_value("1e99999999999999999999", "1e99999999999999999998"));
    }

    #[test]
    fn an_f64_says_short_numbers_and_not_long_ones() {
        let read = |text: &str| {
            let f = serde_json::from_str::<f64>(text).unwrap();
            match scan_number(text.as_bytes(), 0) {
                (end, Token::Float(Float::Short)) if end == text.len() => Some(Reading::Says(f)),
                (end, _) if end == text.len() => read_long(text, f),
                _ => panic!("{text} ends early"),
            }
        };
        for text in ["0", "-0", "0.1", "1.5", "123456789012345", "1e20", "-2.5e-300", "0.30000000000000004", "1e22"] {
            assert_eq!(read(text), Some(Reading::Says(text.parse().unwrap())), "{text}");
        }
        for text in [
            "12345678901234567890.123456789",
            "0.1000000000000000000001",
            "18446744073709551616",
            "1.00000000000000001",
        ] {
            assert_eq!(read(text), Some(Reading::Loses(text.parse().unwrap())), "{text}");
        }
        assert_eq!(scan_number(b"-12.5e-3,", 0), (8, Token::Float(Float::Short)));
        assert_eq!(scan_number(b"1.5e-22", 0), (7, Token::Float(Float::Long)), "a power of ten past 1e22");
        assert_eq!(scan_number(b"1234567890123456.0", 0), (18, Token::Float(Float::Long)), "17 digits");
        assert_eq!(scan_number(b"0.000000000000001234", 0), (20, Token::Float(Float::Short)), "leading zeros");
        assert_eq!(scan_number(b"-123]", 0), (4, Token::Integer));
        assert_eq!(read_long("0.30000000000000004", 7.0), None, "not the text of 7");
    }

    #[test]
    fn a_number_serde_json_rounds_to_a_neighbour_reads_as_the_nearest() {
        // serde_json reads this as -958801346.4319148, the neighbour of the
        // nearest f64 (whose shortest text this is).
        let text = "-958801346.4319149";
        let theirs: f64 = serde_json::from_str(text).unwrap();
        let nearest: f64 = text.parse().unwrap();
        assert_ne!(theirs, nearest);
        assert_eq!(read_long(text, theirs), Some(Reading::Says(nearest)));
    }

    #[test]
    fn integers_serde_json_reads_as_floats_are_told_apart() {
        for text in ["0", "7", "18446744073709551615", "-1", "-9223372036854775808"] {
            assert!(read_as_integer(text), "{text}");
        }
        for text in ["-0", "18446744073709551616", "-9223372036854775809", "123456789012345678901234567890"] {
            assert!(!read_as_integer(text), "{text}");
        }
    }

    #[test]
    fn strings_and_numbers_end_where_they_end() {
        let text = br#""a\"b\\" 12.5e-3,"#;
        assert_eq!(string_end(text, 1), Some(8));
        assert_eq!(scan_number(text, 9), (16, Token::Float(Float::Short)));
        assert_eq!(string_end(br#""open"#, 1), None);
    }
}
