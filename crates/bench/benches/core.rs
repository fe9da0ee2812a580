//! The same workloads natively (`cargo bench -p rdc-bench`), timed with the anchor's loop.
//! The cross-language comparison is `scripts/bench-core` (wasm in Node beside the
//! JavaScript anchor); these are for profiling and before/after checks.

use std::time::Instant;

fn main() {
    let dir = std::env::var("RDC_BENCH_FIXTURES").unwrap_or_else(|_| "/tmp/rdc-bench-fixtures".to_owned());
    let (Ok(projects), Ok(user)) =
        (std::fs::read_to_string(format!("{dir}/projects.json")), std::fs::read_to_string(format!("{dir}/user.json")))
    else {
        eprintln!(
            "no fixtures in {dir}: run `python3 ../shared/bench/gen_fixtures.py {dir}` (scripts/bench-core does)"
        );
        std::process::exit(1);
    };
    let fixtures = match rdc_bench::Fixtures::new(projects, &user) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("bad fixtures: {e}");
            std::process::exit(1);
        }
    };
    let start = Instant::now();
    let now = move || start.elapsed().as_secs_f64() * 1000.0;
    let min_ms = std::env::var("MIN_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000.0);
    if let Err(e) = fixtures
        .run(min_ms, std::env::var("RDC_BENCH_ONLY").ok().as_deref(), &now, &mut |name, us| println!("{name}\t{us:.1}"))
    {
        eprintln!("a workload failed: {e}");
        std::process::exit(1);
    }
}
