#[derive(Clone, serde::Deserialize)]
struct Settings {
    theme: String,
}

fn main() {
    // `-> T` normalizes with T's schema: a plain struct has none (`returns = Settings` keeps it as sent).
    let _ = rdc::rest!(GET "/settings" -> Settings);
}
