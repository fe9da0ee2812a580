//! The wasm entry point Node calls (`wasm-bindgen --target nodejs`).

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// Runs the workloads whose names start with `only` (every one when it is
/// empty); returns one `"<name>\t<median us>"` line each, like the JavaScript
/// anchor's output.
#[wasm_bindgen]
pub fn run_workloads(projects_text: String, user_text: &str, min_ms: f64, only: &str) -> Result<String, JsError> {
    let fixtures = crate::Fixtures::new(projects_text, user_text)?;
    let mut out = String::new();
    let only = (!only.is_empty()).then_some(only);
    fixtures.run(min_ms, only, &performance_now, &mut |name, us| out.push_str(&format!("{name}\t{us:.1}\n")))?;
    Ok(out)
}
