//! The `Link` header (RFC 8288): a comma-separated list of `<target>; params`,
//! tokenized (quoted strings with escapes, `rel*` extended values), so no text
//! inside a parameter can make a link.

use crate::params::{ext_value, parameters, Cursor};

/// One link of a `Link` header (RFC 8288): its target and one relation type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The URL between `<` and `>`.
    pub url: String,
    /// One relation type of the `rel` parameter (e.g. `next`), lowercased.
    pub rel: String,
}

/// Parses a `Link` header, one [`Link`] per relation type (`rel="next last"`
/// makes two, as RFC 8288 says: several links sharing the target). The first
/// `rel` parameter counts (later ones are ignored, RFC 8288 §3.3); a `rel*`
/// extended value (RFC 8187) is preferred to it, as starred parameters are
/// preferred to their plain forms; relation types are lowercased (they compare
/// case-insensitively). A link without `rel`, with an empty target, or malformed
/// (garbage after its parameters...) makes none; the next one is still read.
/// Never panics.
///
/// ```
/// let links = rdc_rest::transform::parse_link_header(r#"</items?cursor=5>; rel="next", </items?cursor=0>; rel=prev"#);
/// assert_eq!(links[0].url, "/items?cursor=5");
/// assert_eq!(links[1].rel, "prev");
/// // A `<` inside a quoted parameter is text, not a link.
/// let links = rdc_rest::transform::parse_link_header(r#"</real>; title="<https://evil.example/>"; rel="next""#);
/// assert_eq!((links.len(), links[0].url.as_str()), (1, "/real"));
/// ```
pub fn parse_link_header(header: &str) -> Vec<Link> {
    let mut links = Vec::new();
    let mut cursor = Cursor::new(header);
    loop {
        cursor.skip_ows();
        while cursor.eat(',') {
            cursor.skip_ows();
        }
        if cursor.rest().is_empty() {
            return links;
        }
        if !cursor.eat('<') {
            cursor.skip_element();
            continue;
        }
        let target = cursor.take_until(|c| c == '>');
        if !cursor.eat('>') {
            return links;
        }
        let params = parameters(&mut cursor, true);
        cursor.skip_ows();
        if !cursor.rest().is_empty() && cursor.peek() != Some(',') {
            cursor.skip_element();
            continue;
        }
        let url = target.trim();
        if url.is_empty() {
            continue;
        }
        // Each relation type once, and at most `MAX_RELATIONS` per target: a
        // header cannot make its target's text copied more times than that.
        let mut rels: Vec<String> = Vec::new();
        for rel in relations(&params).split_ascii_whitespace() {
            let rel = rel.to_ascii_lowercase();
            if rels.len() < MAX_RELATIONS && !rels.contains(&rel) {
                rels.push(rel);
            }
        }
        links.extend(rels.into_iter().map(|rel| Link { url: url.to_owned(), rel }));
    }
}

/// Relation types kept per link target (apps follow next, prev, first, last).
const MAX_RELATIONS: usize = 8;

/// The relation types: the first `rel*` that decodes, else the first `rel`.
fn relations(params: &[(String, String)]) -> String {
    let extended = params.iter().filter(|(name, _)| name == "rel*").find_map(|(_, value)| ext_value(value));
    extended
        .or_else(|| params.iter().find(|(name, _)| name == "rel").map(|(_, value)| value.clone()))
        .unwrap_or_default()
}
