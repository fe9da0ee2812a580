//! The wasm entry point Node calls (`wasm-bindgen --target nodejs`).

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// Runs every workload; returns one `"<name>\t<median us>"` line each, like the
/// JavaScript anchor's output.
#[wasm_bindgen]
pub fn run_workloads(projects_text: String, user_text: &str, min_ms: f64) -> Result<String, JsError> {
    let fixtures = crate::Fixtures::new(projects_text, user_text)?;
    let mut out = String::new();
    fixtures.run(min_ms, &performance_now, &mut |name, us| out.push_str(&format!("{name}\t{us:.1}\n")))?;
    Ok(out)
}
