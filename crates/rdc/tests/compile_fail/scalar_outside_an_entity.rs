use rdc::prelude::*;

#[derive(serde::Deserialize)]
struct PortfolioArgs { portfolio: String }

fn portfolio() -> Scalar {
    Scalar::new("portfolio", |args: &PortfolioArgs| Some(args.portfolio.clone()))
}

// A plain struct has no pk to key the cells by.
#[derive(serde::Deserialize, Schema)]
struct Summary {
    #[entity(scalar = "portfolio()")]
    pct: f64,
}

fn main() {}
