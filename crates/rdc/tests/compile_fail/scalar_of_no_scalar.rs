use rdc::prelude::*;

// `scalar = ".."` names a `Scalar`, not another schema.
#[derive(serde::Deserialize, Entity)]
struct Company {
    id: String,
    #[entity(scalar = "Schema::values(Company::schema())")]
    pct: f64,
}

fn main() {}
