//! HTTP-dates (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and
//! asctime forms a recipient must read too. Read by hand: a date library's
//! format-string parser cost the wasm about 28 KB of code.

const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const LONG_DAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/// A date a header gave, in UTC; `short_year` when RFC 850 left out its century.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HttpDate {
    /// The year (an RFC 850 one taken in 1969..=2068, until `between` places it).
    year: i64,
    /// 1 to 12.
    month: i64,
    /// 1 to the month's last day.
    day: i64,
    /// Seconds into the day (60 for a leap second's).
    seconds: i64,
    short_year: bool,
}

/// Reads `text` as an HTTP-date: `Sun, 06 Nov 1994 08:49:37 GMT`,
/// `Sunday, 06-Nov-94 08:49:37 GMT` or `Sun Nov  6 08:49:37 1994`. A day
/// name that does not fit the date is refused, but RFC 850's (redundant).
pub(crate) fn parse(text: &str) -> Option<HttpDate> {
    let text = text.trim();
    if let Some((name, rest)) = text.split_once(", ") {
        let parts: Vec<&str> = rest.split(' ').collect();
        if let Some(weekday) = DAYS.iter().position(|d| *d == name) {
            let [day, month, year, time, "GMT"] = *parts.as_slice() else { return None };
            let date = date(number(year, 4)?, month, number(day, 2)?, time, false)?;
            return (date.weekday() == weekday).then_some(date);
        }
        LONG_DAYS.iter().position(|d| *d == name)?;
        let [day_month_year, time, "GMT"] = *parts.as_slice() else { return None };
        let date_parts: Vec<&str> = day_month_year.split('-').collect();
        let [day, month, year] = *date_parts.as_slice() else { return None };
        let year = number(year, 2)?;
        return date(if year < 69 { 2000 + year } else { 1900 + year }, month, number(day, 2)?, time, true);
    }
    // asctime: the day of the month is padded with a space, not a zero.
    let parts: Vec<&str> = text.split(' ').collect();
    let (name, month, day, time, year) = match *parts.as_slice() {
        [name, month, "", day, time, year] => (name, month, number(day, 1)?, time, year),
        [name, month, day, time, year] => (name, month, number(day, 2)?, time, year),
        _ => return None,
    };
    let weekday = DAYS.iter().position(|d| *d == name)?;
    let date = date(number(year, 4)?, month, day, time, false)?;
    (date.weekday() == weekday).then_some(date)
}

/// How many seconds from `now` to `at`, an RFC 850 year read as the one
/// within 50 years of the other date's (RFC 9110: never more than 50 years ahead).
pub(crate) fn between(now: HttpDate, at: HttpDate) -> Option<i64> {
    let near = |date: HttpDate, other: HttpDate| -> Option<i64> {
        let mut year = date.year;
        if date.short_year && !other.short_year {
            let reference = other.year;
            year = reference - reference.rem_euclid(100) + date.year.rem_euclid(100);
            if year > reference + 50 {
                year -= 100;
            } else if year <= reference - 50 {
                year += 100;
            }
        }
        // 29 February of a year that has none.
        (date.day <= month_length(year, date.month))
            .then(|| days_from_civil(year, date.month, date.day) * 86_400 + date.seconds)
    };
    Some(near(at, now)? - near(now, at)?)
}

/// A checked date from its parts; `time` is `HH:MM:SS`.
fn date(year: i64, month: &str, day: i64, time: &str, short_year: bool) -> Option<HttpDate> {
    let month = i64::try_from(MONTHS.iter().position(|m| *m == month)? + 1).ok()?;
    let time_parts: Vec<&str> = time.split(':').collect();
    let [hours, minutes, seconds] = *time_parts.as_slice() else { return None };
    let (hours, minutes, seconds) = (number(hours, 2)?, number(minutes, 2)?, number(seconds, 2)?);
    let valid = (1..=month_length(year, month)).contains(&day) && hours < 24 && minutes < 60 && seconds <= 60;
    valid.then_some(HttpDate { year, month, day, seconds: hours * 3600 + minutes * 60 + seconds, short_year })
}

/// `text` as a number of exactly `width` ASCII digits.
fn number(text: &str, width: usize) -> Option<i64> {
    if text.len() != width || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn month_length(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
/// (H. Hinnant's `days_from_civil`: years counted from March, in 400-year eras).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

impl HttpDate {
    /// 0 for Monday to 6 for Sunday (1970-01-01 was a Thursday).
    fn weekday(&self) -> usize {
        usize::try_from((days_from_civil(self.year, self.month, self.day) + 3).rem_euclid(7)).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seconds(text: &str) -> Option<i64> {
        let epoch = parse("Thu, 01 Jan 1970 00:00:00 GMT")?;
        between(epoch, parse(text)?)
    }

    #[test]
    fn each_form_reads_as_the_same_instant() {
        assert_eq!(seconds("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777));
        assert_eq!(seconds("Sunday, 06-Nov-94 08:49:37 GMT"), Some(784_111_777));
        assert_eq!(seconds("Sun Nov  6 08:49:37 1994"), Some(784_111_777));
        assert_eq!(seconds("Tue, 29 Feb 2000 23:59:59 GMT"), Some(951_868_799));
    }

    #[test]
    fn malformed_or_impossible_dates_are_refused() {
        for text in [
            "",
            "Sun, 06 Nov 1994 08:49:37",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Mon, 06 Nov 1994 08:49:37 GMT",
            "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 06 nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:60:00 GMT",
            "Sun, 06 Nov +994 08:49:37 GMT",
            "Thu, 29 Feb 2001 00:00:00 GMT",
            "Thu, 31 Apr 2001 00:00:00 GMT",
            "Sunday, 06-Nov-94 08:49:37",
            "Someday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov 6 08:49:37 1994",
            "Mon Nov  6 08:49:37 1994",
            "Sun Nov  6 08:49:37",
        ] {
            assert!(parse(text).is_none(), "{text:?}");
        }
    }
}
