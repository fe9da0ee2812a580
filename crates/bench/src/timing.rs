//! The timing loop the JavaScript anchor uses (5 warm-up runs, then samples
//! for at least `min_ms`, median), so both sides are measured the same way.
//! What a sample builds is freed inside its clock, as V8 collects the
//! anchor's young garbage inside its timings; and each workload's result is
//! checked once, outside the clock, so a workload that fails measures nothing.

use std::any::Any;
use std::fmt::Display;

/// What a timed run produced; freed before its clock stops.
pub(crate) type Keep = Box<dyn Any>;

/// A run whose work failed (what it said): its workload is not measured.
pub(crate) struct Failed(pub String);

/// `result` as what a run produced, or as [`Failed`].
pub(crate) fn kept<T: 'static, E: Display>(result: Result<T, E>) -> Keep {
    match result {
        Ok(value) => Box::new(value),
        Err(error) => Box::new(Failed(error.to_string())),
    }
}

/// A read's `result` as what a run produced: reading nothing fails as an error does.
pub(crate) fn kept_some<T: 'static, E: Display>(result: Result<Option<T>, E>) -> Keep {
    match result {
        Ok(Some(value)) => Box::new(value),
        Ok(None) => Box::new(Failed("the read found nothing".to_owned())),
        Err(error) => Box::new(Failed(error.to_string())),
    }
}

/// An untimed setup's `result`, freed here (outside the clock), or [`Failed`].
pub(crate) fn set_up<T, E: Display>(result: Result<T, E>) -> Keep {
    match result {
        Ok(_) => Box::new(()),
        Err(error) => Box::new(Failed(error.to_string())),
    }
}

/// Median of the samples of `f`, in microseconds.
///
/// # Errors
/// What the first run failed with.
pub(crate) fn median_us(min_ms: f64, now: &dyn Fn() -> f64, f: &mut dyn FnMut() -> Keep) -> Result<f64, String> {
    median_us_with(min_ms, now, &mut || Box::new(()), &mut |_| f())
}

/// Like `median_us`, with an untimed `setup` making each sample's input (a
/// normalize consumes its parsed input; the anchor's only reads it, so it can
/// reuse one).
///
/// # Errors
/// What the first run failed with.
pub(crate) fn median_us_with(
    min_ms: f64,
    now: &dyn Fn() -> f64,
    setup: &mut dyn FnMut() -> Keep,
    f: &mut dyn FnMut(Keep) -> Keep,
) -> Result<f64, String> {
    let input = setup();
    if let Some(Failed(why)) = input.downcast_ref::<Failed>() {
        return Err(why.clone());
    }
    let first = f(input);
    if let Some(Failed(why)) = first.downcast_ref::<Failed>() {
        return Err(why.clone());
    }
    drop(first);
    for _ in 1..5 {
        drop(f(setup()));
    }
    let mut samples = Vec::new();
    let end = now() + min_ms;
    while now() < end || samples.len() < 5 {
        let input = setup();
        let start = now();
        drop(f(input));
        samples.push(now() - start);
    }
    samples.sort_by(f64::total_cmp);
    Ok(samples.get(samples.len() / 2).copied().unwrap_or(0.0) * 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_of_nothing_or_a_failed_setup_measures_nothing() {
        let now = || 0.0;
        let nothing = median_us(0.0, &now, &mut || kept_some(Ok::<Option<u8>, String>(None)));
        assert_eq!(nothing, Err("the read found nothing".to_owned()));
        let setup = median_us_with(0.0, &now, &mut || set_up(Err::<(), _>("no store")), &mut |_| Box::new(()));
        assert_eq!(setup, Err("no store".to_owned()));
        assert!(median_us(0.0, &now, &mut || kept_some(Ok::<_, String>(Some(1u8)))).is_ok());
    }
}
