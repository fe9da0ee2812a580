//! Issue 27, item 12: a decimal sent as a bare JSON number keeps its digits.
//! `Value::parse` keeps the text of a number its `f64` cannot give back, and
//! decimal fields read that text: through the normalize-time field check, the
//! store and a typed read.

use std::str::FromStr;

use rdc_core::json::{self, Value};
use rdc_core::{Entity, MemoCache, Schema, State, WriteMeta};
use rust_decimal::Decimal;
use serde::Deserialize;

#[derive(Debug, Deserialize, Entity)]
struct Quote {
    #[allow(dead_code)]
    id: String,
    #[serde(with = "rdc_core::fields::decimal")]
    price: Decimal,
}

/// More digits than an `f64` holds: as an `f64` it reads `12345678901234567000`.
const LONG: &str = "12345678901234567890.123456789";

fn parse(text: &str) -> Value {
    Value::parse(text.to_owned()).unwrap()
}

fn read_price(state: &State, id: &str) -> Decimal {
    MemoCache::default().entity::<Quote>(state, id).unwrap().unwrap().price
}

fn write(state: &mut State, body: &str, now: u64) {
    let schema = Schema::array(Quote::schema());
    state.write_result("GET /quotes", &schema, parse(body), &Value::Null, WriteMeta::at(now, u64::MAX)).unwrap();
}

#[test]
fn a_decimal_sent_as_a_bare_number_reads_back_exactly() {
    let mut state = State::default();
    write(&mut state, &format!(r#"[{{"id": "q", "price": {LONG}}}]"#), 0);
    assert_eq!(read_price(&state, "q"), Decimal::from_str(LONG).unwrap());
    assert_eq!(read_price(&state, "q").to_string(), LONG);
}

#[test]
fn a_decimal_too_wide_for_an_f64_passes_the_field_check() {
    // As an `f64`, `Decimal::MAX` reads 79228162514264340000000000000: more
    // than a `Decimal` holds, so the field check refused the response.
    let max = Decimal::MAX.to_string();
    let mut state = State::default();
    write(&mut state, &format!(r#"[{{"id": "q", "price": {max}}}]"#), 0);
    assert_eq!(read_price(&state, "q"), Decimal::MAX);
}

#[test]
fn a_decimal_that_changed_beyond_f64_precision_is_a_change() {
    let mut state = State::default();
    write(&mut state, &format!(r#"[{{"id": "q", "price": {LONG}}}]"#), 0);
    let changed = "12345678901234567890.123456788";
    write(&mut state, &format!(r#"[{{"id": "q", "price": {changed}}}]"#), 1);
    assert_eq!(read_price(&state, "q"), Decimal::from_str(changed).unwrap());
}

#[test]
fn exact_decimals_read_through_from_value_as_plain_and_field_decimals() {
    #[derive(Deserialize)]
    struct Both {
        plain: Decimal,
        #[serde(with = "rdc_core::fields::decimal")]
        field: Decimal,
        #[serde(with = "rdc_core::fields::number_from_string")]
        parsed: Decimal,
    }
    let body = parse(&format!(r#"{{"plain": {LONG}, "field": {LONG}, "parsed": {LONG}}}"#));
    let both: Both = json::from_value(&body).unwrap();
    let exact = Decimal::from_str(LONG).unwrap();
    assert_eq!((both.plain, both.field, both.parsed), (exact, exact, exact));
}

#[test]
fn numbers_equal_in_value_stay_equal_and_ones_past_f64_precision_differ() {
    let list = parse(&format!(
        "[1.5, 1.50, 15e-1, 1, 1.0, {LONG}, {LONG}0, 12345678901234567890123456789e-9, 12345678901234567890.123456788]"
    ));
    let n = |i: usize| list[i].clone();
    assert_eq!(n(0), n(1));
    assert_eq!(n(0), n(2));
    assert_ne!(n(3), n(4), "an integer and a float differ, as in serde_json");
    assert_eq!(n(5), n(6), "trailing zeros of a fraction");
    assert_eq!(n(5), n(7), "the same value with an exponent");
    assert_ne!(n(5), n(8), "one digit apart, though the same f64");
    assert_eq!(n(5).as_f64(), n(8).as_f64());
}

#[test]
fn a_numbers_text_shows_in_debug_and_as_its_own() {
    let list = parse(&format!("[{LONG}, 0.1, 123456789012345678901234567890]"));
    let Value::Number(long) = &list[0] else { panic!("a number") };
    assert_eq!(long.exact_text(), Some(LONG));
    assert_eq!(long.to_string(), LONG);
    let Value::Number(short) = &list[1] else { panic!("a number") };
    assert_eq!(short.exact_text(), None, "0.1 is what its f64 says");
    assert_eq!(format!("{list:?}"), format!("[{LONG}, 0.1, 123456789012345678901234567890]"));
}

/// A plain `Decimal` field asks for a string; a read hands it the kept text
/// once `read/path.rs`'s `PlainDe` passes `deserialize_str` of a number to
/// the number (`json::Number` answers it with its kept text).
#[test]
fn a_plain_decimal_field_reads_a_bare_number_exactly() {
    #[derive(Debug, Deserialize, Entity)]
    struct Plain {
        #[allow(dead_code)]
        id: String,
        price: Decimal,
    }
    let mut state = State::default();
    let body = parse(&format!(r#"{{"id": "p", "price": {LONG}}}"#));
    state.write_entities(&Plain::schema(), body, &Value::Null, WriteMeta::at(0, u64::MAX)).unwrap();
    let read = MemoCache::default().entity::<Plain>(&state, "p").unwrap().unwrap();
    assert_eq!(read.price, Decimal::from_str(LONG).unwrap());
}
