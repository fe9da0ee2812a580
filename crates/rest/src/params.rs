//! Header parameters (`; name=value`) as `Link` (RFC 8288) and
//! `Content-Disposition` (RFC 6266) write them: tokens, quoted strings with
//! backslash escapes, and RFC 8187 extended values (`name*=UTF-8''%E2%9C%93`).
//! Nothing here panics on any input; what is malformed is left to the caller.

/// A position in a header value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cursor<'h> {
    rest: &'h str,
}

impl<'h> Cursor<'h> {
    /// At the start of `header`.
    pub(crate) fn new(header: &'h str) -> Cursor<'h> {
        Cursor { rest: header }
    }

    /// What is left.
    pub(crate) fn rest(&self) -> &'h str {
        self.rest
    }

    /// The next character.
    pub(crate) fn peek(&self) -> Option<char> {
        self.rest.chars().next()
    }

    /// Consumes `c` if it is next.
    pub(crate) fn eat(&mut self, c: char) -> bool {
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    /// Skips optional whitespace (spaces and tabs).
    pub(crate) fn skip_ows(&mut self) {
        self.rest = self.rest.trim_start_matches([' ', '\t']);
    }

    /// Consumes up to (not including) the first character `stop` accepts, or the end.
    pub(crate) fn take_until(&mut self, stop: impl Fn(char) -> bool) -> &'h str {
        let end = self.rest.find(stop).unwrap_or(self.rest.len());
        let (taken, rest) = self.rest.split_at(end);
        self.rest = rest;
        taken
    }

    /// A quoted string, the cursor at its opening `"`: the text with each `\x`
    /// read as `x`, up to the closing `"` (or the end, when it is missing).
    pub(crate) fn quoted_string(&mut self) -> String {
        let mut out = String::new();
        self.eat('"');
        let mut chars = self.rest.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.rest = self.rest.get(i + 1..).unwrap_or_default();
                    return out;
                }
                '\\' => match chars.next() {
                    Some((_, escaped)) => out.push(escaped),
                    None => break,
                },
                _ => out.push(c),
            }
        }
        self.rest = "";
        out
    }

    /// Skips to the next `,` that is outside quoted strings and `<...>` (not
    /// consuming it), past a malformed list element.
    pub(crate) fn skip_element(&mut self) {
        let mut quoted = false;
        let mut escaped = false;
        let mut angle = false;
        for (i, c) in self.rest.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if quoted => escaped = true,
                '"' if !angle => quoted = !quoted,
                '<' if !quoted => angle = true,
                '>' if !quoted => angle = false,
                ',' if !quoted && !angle => {
                    self.rest = self.rest.get(i..).unwrap_or_default();
                    return;
                }
                _ => {}
            }
        }
        self.rest = "";
    }
}

/// Parameters at the cursor, `*( OWS ";" OWS name [ BWS "=" BWS value ] )`, as
/// RFC 8288 appendix B.3 reads them: names lowercased, a value quoted or up to
/// the next `;` (or `,` when `list`: the header is a comma-separated list), a
/// missing value empty. Stops before anything that is not `;` (the caller
/// decides whether that is the list's `,`, the end, or garbage).
pub(crate) fn parameters(cursor: &mut Cursor<'_>, list: bool) -> Vec<(String, String)> {
    let mut params = Vec::new();
    loop {
        cursor.skip_ows();
        if !cursor.eat(';') {
            return params;
        }
        cursor.skip_ows();
        let name = cursor.take_until(|c| matches!(c, ' ' | '\t' | '=' | ';' | ',')).to_ascii_lowercase();
        cursor.skip_ows();
        let value = if cursor.eat('=') {
            cursor.skip_ows();
            if cursor.peek() == Some('"') {
                cursor.quoted_string()
            } else {
                cursor.take_until(|c| c == ';' || (list && c == ',')).trim_end_matches([' ', '\t']).to_owned()
            }
        } else {
            String::new()
        };
        if !name.is_empty() {
            params.push((name, value));
        }
    }
}

/// Decodes an RFC 8187 `ext-value`, `charset "'" [ language ] "'" value-chars`:
/// UTF-8 or ISO-8859-1 (each byte its code point); every character an
/// `attr-char` or a `%` with two hex digits. `None` for anything else (another
/// charset, an invalid escape such as `%+1`, bytes that are not UTF-8...).
pub(crate) fn ext_value(value: &str) -> Option<String> {
    let mut parts = value.splitn(3, '\'');
    let charset = parts.next()?;
    let _language = parts.next()?;
    let bytes = percent_decode(parts.next()?)?;
    if charset.eq_ignore_ascii_case("utf-8") {
        String::from_utf8(bytes).ok()
    } else if charset.eq_ignore_ascii_case("iso-8859-1") {
        Some(bytes.into_iter().map(char::from).collect())
    } else {
        None
    }
}

/// Whether `text` is an HTTP token (RFC 9110 §5.6.2): one or more `tchar`s.
pub(crate) fn is_token(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// RFC 8187's `attr-char`.
fn is_attr_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b)
}

/// `value-chars`: attr-chars and `%XX` escapes (exactly two hex digits).
fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.bytes();
    while let Some(b) = bytes.next() {
        if b == b'%' {
            let high = hex(bytes.next()?)?;
            let low = hex(bytes.next()?)?;
            out.push((high << 4) | low);
        } else if is_attr_char(b) {
            out.push(b);
        } else {
            return None;
        }
    }
    Some(out)
}

/// One hex digit's value.
fn hex(digit: u8) -> Option<u8> {
    char::from(digit).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ext_values_decode_strictly() {
        assert_eq!(ext_value("UTF-8''%E2%9C%93.txt").as_deref(), Some("✓.txt"));
        assert_eq!(ext_value("iso-8859-1'fr'na%EFve.txt").as_deref(), Some("naïve.txt"));
        for bad in ["UTF-8''%+1", "UTF-8''%1", "UTF-8''%G1", "UTF-8''a b", "UTF-8''%FF", "koi8-r''x", "UTF-8'x", "x"] {
            assert_eq!(ext_value(bad), None, "{bad}");
        }
    }

    #[test]
    fn parameters_unquote_and_stop_where_told() {
        let mut c = Cursor::new(r#"; A="x\"; y" ;b = 2 , c=3"#);
        assert_eq!(parameters(&mut c, true), [("a".into(), "x\"; y".into()), ("b".into(), "2".into())]);
        assert_eq!(c.rest(), ", c=3");
        let mut c = Cursor::new("; a=1,2; b");
        assert_eq!(parameters(&mut c, false), [("a".into(), "1,2".into()), ("b".into(), String::new())]);
    }
}
