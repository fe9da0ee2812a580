//! Path templates: `/price/:exchangePair`, optional segments `/users{/:id}`,
//! percent-encoded parameters, and the sorted query string of the other args.

use rdc_core::json::{Map, Value};

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal(String),
    Param(String),
    /// `{...}`: kept only when every parameter inside is given.
    Optional(Vec<Piece>),
}

/// A parsed path template.
///
/// ```
/// use rdc_rest::PathTemplate;
/// let t = PathTemplate::parse("/products/:productId/ticker");
/// assert_eq!(t.params(), ["productId"]);
/// let args = rdc_core::json!({ "productId": "BTC/USD", "level": 2 });
/// assert_eq!(t.url(args.as_object().unwrap()).unwrap(), "/products/BTC%2FUSD/ticker?level=2");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathTemplate {
    pieces: Vec<Piece>,
}

fn is_param_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn parse_pieces(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, nested: bool) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    while let Some(&c) = chars.peek() {
        match c {
            '}' if nested => {
                chars.next();
                break;
            }
            '{' => {
                chars.next();
                if !literal.is_empty() {
                    pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                }
                pieces.push(Piece::Optional(parse_pieces(chars, true)));
            }
            ':' => {
                chars.next();
                let mut name = String::new();
                while let Some(&n) = chars.peek().filter(|n| is_param_char(**n)) {
                    name.push(n);
                    chars.next();
                }
                if name.is_empty() {
                    literal.push(':');
                } else {
                    if !literal.is_empty() {
                        pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                    }
                    pieces.push(Piece::Param(name));
                }
            }
            _ => {
                literal.push(c);
                chars.next();
            }
        }
    }
    if !literal.is_empty() {
        pieces.push(Piece::Literal(literal));
    }
    pieces
}

impl PathTemplate {
    /// Parses a template. `:name` is a parameter; `{...}` is an optional part.
    pub fn parse(template: &str) -> PathTemplate {
        PathTemplate { pieces: parse_pieces(&mut template.chars().peekable(), false) }
    }

    /// Every parameter name, in order.
    pub fn params(&self) -> Vec<&str> {
        fn walk<'a>(pieces: &'a [Piece], out: &mut Vec<&'a str>) {
            for piece in pieces {
                match piece {
                    Piece::Param(name) => out.push(name),
                    Piece::Optional(inner) => walk(inner, out),
                    Piece::Literal(_) => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.pieces, &mut out);
        out
    }

    /// The path with parameters filled in and percent-encoded, followed by the other
    /// args as a sorted query string. `Err(name)` names a missing required parameter.
    pub fn url(&self, args: &Map) -> Result<String, String> {
        let mut path = String::new();
        fill(&self.pieces, args, &mut path, true)?;
        let params = self.params();
        // Sorted as `(key, place)` pairs, the sort `canonical_text` uses (one
        // sort instance in the binary; keys are unique, so places never decide).
        let mut keys: Vec<(&str, usize)> = args
            .iter()
            .enumerate()
            .filter(|(_, (k, v))| !params.contains(&k.as_str()) && !v.is_null())
            .map(|(i, (k, _))| (k.as_str(), i))
            .collect();
        rdc_core::__private::sort(&mut keys);
        let query: Vec<(&str, &Value)> = keys.into_iter().map(|(k, _)| (k, &args[k])).collect();
        if !query.is_empty() {
            path.push('?');
            let pairs: Vec<String> = query
                .into_iter()
                .flat_map(|(k, v)| match v {
                    Value::Array(items) => items.iter().map(|i| pair(k, i)).collect::<Vec<_>>(),
                    other => vec![pair(k, other)],
                })
                .collect();
            path.push_str(&pairs.join("&"));
        }
        Ok(path)
    }
}

fn pair(key: &str, value: &Value) -> String {
    format!("{}={}", encode(key), encode(&scalar(value)))
}

/// A JSON value as URL text: strings bare, other values in JSON form (objects
/// with sorted keys, so equal args make one URL however they were built).
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.to_string(),
        other => rdc_core::canonical_text(other),
    }
}

/// Fills pieces; an optional part is dropped when one of its params is missing.
fn fill(pieces: &[Piece], args: &Map, out: &mut String, required: bool) -> Result<(), String> {
    for piece in pieces {
        match piece {
            Piece::Literal(text) => out.push_str(text),
            Piece::Param(name) => match args.get(name).filter(|v| !v.is_null() && v.as_str() != Some("")) {
                Some(value) => out.push_str(&encode(&scalar(value))),
                None if required => return Err(name.clone()),
                None => return Err(String::new()),
            },
            Piece::Optional(inner) => {
                let mut part = String::new();
                if fill(inner, args, &mut part, false).is_ok() {
                    out.push_str(&part);
                }
            }
        }
    }
    Ok(())
}

/// Percent-encodes everything but RFC 3986 unreserved characters, so a value can
/// never add a path segment, a query or a fragment (`/`, `?`, `#`, `%`, `.` runs...).
/// A value of only dots (`.` or `..`) is encoded too, so it is never a dot segment.
///
/// ```
/// assert_eq!(rdc_rest::encode("a/../b?c#d"), "a%2F..%2Fb%3Fc%23d");
/// assert_eq!(rdc_rest::encode(".."), "%2E%2E");
/// assert_eq!(rdc_rest::encode("é"), "%C3%A9");
/// ```
pub fn encode(text: &str) -> String {
    let dots_only = !text.is_empty() && text.bytes().all(|b| b == b'.');
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        let unreserved =
            byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'~') || (byte == b'.' && !dots_only);
        if unreserved {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
