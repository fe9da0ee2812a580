//! HTTP-dates (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and
//! asctime forms a recipient must read too.

use chrono::{Datelike, NaiveDateTime};

/// A date a header gave, in UTC; `short_year` when RFC 850 left out its century.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HttpDate {
    at: NaiveDateTime,
    short_year: bool,
}

/// Reads `text` as an HTTP-date: `Sun, 06 Nov 1994 08:49:37 GMT`,
/// `Sunday, 06-Nov-94 08:49:37 GMT` or `Sun Nov  6 08:49:37 1994`.
pub(crate) fn parse(text: &str) -> Option<HttpDate> {
    let text = text.trim();
    if let Ok(at) = chrono::DateTime::parse_from_rfc2822(text) {
        return Some(HttpDate { at: at.naive_utc(), short_year: false });
    }
    // RFC 850: a full day name (redundant, so not checked against the date).
    if let Some((day, rest)) = text.split_once(", ") {
        if day.bytes().all(|b| b.is_ascii_alphabetic()) {
            let at = NaiveDateTime::parse_from_str(rest, "%d-%b-%y %H:%M:%S GMT").ok()?;
            return Some(HttpDate { at, short_year: true });
        }
    }
    let at = NaiveDateTime::parse_from_str(text, "%a %b %e %H:%M:%S %Y").ok()?;
    Some(HttpDate { at, short_year: false })
}

/// How long from `now` to `at`, an RFC 850 year read as the one within 50
/// years of the other date's (RFC 9110: never more than 50 years ahead).
pub(crate) fn between(now: HttpDate, at: HttpDate) -> Option<chrono::TimeDelta> {
    let near = |date: HttpDate, other: HttpDate| -> Option<NaiveDateTime> {
        if !date.short_year || other.short_year {
            return Some(date.at);
        }
        let reference = other.at.year();
        let mut year = reference - reference.rem_euclid(100) + date.at.year().rem_euclid(100);
        if year > reference + 50 {
            year -= 100;
        } else if year <= reference - 50 {
            year += 100;
        }
        date.at.with_year(year)
    };
    Some(near(at, now)? - near(now, at)?)
}
