//! serde's `rename_all` rules, applied to snake_case field names so the derive
//! knows each field's wire name.

/// The wire name of `field` under `rule` (a serde `rename_all` value).
pub fn rename(field: &str, rule: Option<&str>) -> Result<String, String> {
    let words: Vec<&str> = field.split('_').filter(|w| !w.is_empty()).collect();
    let capitalize = |w: &str| {
        let mut chars = w.chars();
        chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
    };
    Ok(match rule {
        None => field.to_owned(),
        Some("lowercase") => field.to_lowercase(),
        Some("UPPERCASE") => field.to_uppercase(),
        Some("snake_case") => field.to_owned(),
        Some("SCREAMING_SNAKE_CASE") => field.to_uppercase(),
        Some("kebab-case") => field.replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => field.replace('_', "-").to_uppercase(),
        Some("PascalCase") => words.iter().map(|w| capitalize(w)).collect(),
        Some("camelCase") => {
            let pascal: String = words.iter().map(|w| capitalize(w)).collect();
            let mut chars = pascal.chars();
            chars.next().map(|c| c.to_lowercase().collect::<String>() + chars.as_str()).unwrap_or_default()
        }
        Some(other) => return Err(format!("unknown rename_all rule {other:?}")),
    })
}
