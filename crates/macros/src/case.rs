//! serde's `rename_all` rules, applied to field names as serde applies them
//! (only ASCII letters change case; `lowercase` and `snake_case` leave a field
//! name as it is), so the derive knows each field's wire name.

/// The wire name of `field` under `rule` (a serde `rename_all` value).
pub fn rename(field: &str, rule: Option<&str>) -> Result<String, String> {
    let pascal = || {
        let mut out = String::new();
        let mut capitalize = true;
        for ch in field.chars() {
            if ch == '_' {
                capitalize = true;
            } else if capitalize {
                out.push(ch.to_ascii_uppercase());
                capitalize = false;
            } else {
                out.push(ch);
            }
        }
        out
    };
    Ok(match rule {
        None | Some("lowercase") | Some("snake_case") => field.to_owned(),
        Some("UPPERCASE") | Some("SCREAMING_SNAKE_CASE") => field.to_ascii_uppercase(),
        Some("kebab-case") => field.replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => field.to_ascii_uppercase().replace('_', "-"),
        Some("PascalCase") => pascal(),
        Some("camelCase") => {
            let pascal = pascal();
            let mut chars = pascal.chars();
            chars.next().map(|c| c.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
        }
        Some(other) => return Err(format!("unknown rename_all rule {other:?}")),
    })
}

#[cfg(test)]
mod tests {
    use super::rename;

    #[test]
    fn rules_change_names_as_serde_does() {
        let r = |field, rule| rename(field, Some(rule)).unwrap();
        assert_eq!(r("user_name", "camelCase"), "userName");
        assert_eq!(r("user_name", "PascalCase"), "UserName");
        assert_eq!(r("userName", "lowercase"), "userName");
        assert_eq!(r("straße", "UPPERCASE"), "STRAßE");
        assert_eq!(r("user_name", "SCREAMING-KEBAB-CASE"), "USER-NAME");
        assert_eq!(r("user_name", "kebab-case"), "user-name");
        assert!(rename("x", Some("Title")).is_err());
    }
}
