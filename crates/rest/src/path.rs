//! Path templates: `/price/:exchangePair`, optional segments `/users{/:id}`,
//! percent-encoded parameters, and the sorted query string of the other args.

use std::ops::Range;

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

/// How deep optional parts nest; a `{` deeper than this is plain text, so
/// parsing, filling and dropping a template stay within a small stack
/// whatever it holds.
const MAX_NESTING: usize = 16;

/// The pieces up to the end of the template, or of the optional part opened
/// `depth` levels deep (`depth` 0: the template itself).
fn parse_pieces(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, depth: usize) -> Vec<Piece> {
    let nested = depth > 0;
    let mut pieces = Vec::new();
    let mut literal = String::new();
    while let Some(&c) = chars.peek() {
        match c {
            '}' if nested => {
                chars.next();
                break;
            }
            '{' if depth < MAX_NESTING => {
                chars.next();
                if !literal.is_empty() {
                    pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                }
                pieces.push(Piece::Optional(parse_pieces(chars, depth + 1)));
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

/// `template` split after its scheme and authority (`http://localhost:8080`),
/// when it starts with them (RFC 3986 scheme, then `//`); else nothing and all
/// of it. The authority ends where a path, query, fragment or optional part
/// starts.
fn split_origin(template: &str) -> (&str, &str) {
    let Some((scheme, after)) = template.split_once("://") else { return ("", template) };
    let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !is_scheme {
        return ("", template);
    }
    let authority = after.find(['/', '\\', '?', '#', '{']).unwrap_or(after.len());
    template.split_at(scheme.len() + "://".len() + authority)
}

impl PathTemplate {
    /// Parses a template. `:name` is a parameter; `{...}` is an optional part.
    /// An absolute template's scheme and authority are text as they are (a
    /// port is no parameter).
    ///
    /// ```
    /// let t = rdc_rest::PathTemplate::parse("http://localhost:8080/users/:id");
    /// assert_eq!(t.params(), ["id"]);
    /// ```
    pub fn parse(template: &str) -> PathTemplate {
        let (origin, rest) = split_origin(template);
        let mut pieces = parse_pieces(&mut rest.chars().peekable(), 0);
        if !origin.is_empty() {
            pieces.insert(0, Piece::Literal(origin.to_owned()));
        }
        PathTemplate { pieces }
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
    /// args as a sorted query string.
    ///
    /// # Errors
    /// [`ParamError::Missing`] names a required parameter that is missing, null or
    /// empty; [`ParamError::DotSegment`] a parameter that would make its path
    /// segment `.` or `..` (in an optional part too: a given value is never dropped).
    pub fn url(&self, args: &Map) -> Result<String, ParamError> {
        let mut path = String::new();
        let mut spans = Vec::new();
        fill(&self.pieces, args, &mut path, &mut spans).map_err(|name| ParamError::Missing(name.to_owned()))?;
        if let Some(name) = dot_segment_param(&path, &spans) {
            return Err(ParamError::DotSegment(name.to_owned()));
        }
        let params = self.params();
        // In canonical order, as cache keys are: equal args make one URL.
        let query: Vec<(&str, &Value)> = args
            .sorted()
            .into_iter()
            .filter(|(k, v)| !params.contains(&k.as_str()) && !v.is_null())
            .map(|(k, v)| (k.as_str(), v))
            .collect();
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

/// Why a template could not be filled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamError {
    /// This required parameter is missing, null or empty.
    Missing(String),
    /// This parameter's value would make its path segment a dot segment (`.`,
    /// `..`, `%2E`...), which a URL parser removes, moving the request to another
    /// resource (`/members/..` is the members' parent). No encoding avoids it.
    DotSegment(String),
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

/// Fills pieces, recording where each param's value went in `out`. `Err` names a
/// missing param; an optional part missing one is dropped (with its records).
fn fill<'t>(
    pieces: &'t [Piece],
    args: &Map,
    out: &mut String,
    spans: &mut Vec<(Range<usize>, &'t str)>,
) -> Result<(), &'t str> {
    for piece in pieces {
        match piece {
            Piece::Literal(text) => out.push_str(text),
            Piece::Param(name) => match args.get(name).filter(|v| !v.is_null() && v.as_str() != Some("")) {
                Some(value) => {
                    let start = out.len();
                    out.push_str(&encode(&scalar(value)));
                    spans.push((start..out.len(), name));
                }
                None => return Err(name),
            },
            Piece::Optional(inner) => {
                let (mark, spans_mark) = (out.len(), spans.len());
                if fill(inner, args, out, spans).is_err() {
                    out.truncate(mark);
                    spans.truncate(spans_mark);
                }
            }
        }
    }
    Ok(())
}

/// The first param whose path segment is a dot segment once filled. The segment
/// is the whole text between separators, the template's text around the value
/// included (`/x/.:a` with `a` = `.` is `..`); `\` counts as a separator, as
/// it does in `http(s)` URLs.
fn dot_segment_param<'t>(path: &str, spans: &[(Range<usize>, &'t str)]) -> Option<&'t str> {
    let end = path.find(['?', '#']).unwrap_or(path.len());
    let is_separator = |c: char| c == '/' || c == '\\';
    spans.iter().filter(|(range, _)| range.start < end).find_map(|(range, name)| {
        let start = path.get(..range.start).and_then(|p| p.rfind(is_separator)).map_or(0, |i| i + 1);
        let stop = path.get(range.end..end).and_then(|p| p.find(is_separator)).map_or(end, |i| range.end + i);
        path.get(start..stop).is_some_and(is_dot_segment).then_some(*name)
    })
}

/// Whether a WHATWG URL parser treats `segment` as `.` or `..`: one or two dots,
/// each `.` or `%2e` in any case (tabs and newlines, which the parser strips, are
/// skipped).
fn is_dot_segment(segment: &str) -> bool {
    let mut rest = segment;
    let mut dots = 0;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix(['\t', '\n', '\r']) {
            rest = after;
            continue;
        }
        rest = match rest.strip_prefix('.') {
            Some(after) => after,
            None if rest.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("%2e")) => rest.get(3..).unwrap_or_default(),
            None => return false,
        };
        dots += 1;
    }
    dots == 1 || dots == 2
}

/// Percent-encodes everything but RFC 3986 unreserved characters, so a value can
/// never add a path segment, a query or a fragment (`/`, `?`, `#`, `%`...). Dots
/// stay: no encoding keeps `.` or `..` from being a dot segment (`%2E` is one
/// too), so [`PathTemplate::url`] refuses such segments instead.
///
/// ```
/// assert_eq!(rdc_rest::encode("a/../b?c#d"), "a%2F..%2Fb%3Fc%23d");
/// assert_eq!(rdc_rest::encode("%2e"), "%252e");
/// assert_eq!(rdc_rest::encode("é"), "%C3%A9");
/// ```
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'~' | b'.') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
