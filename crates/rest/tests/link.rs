//! The `Link` header (RFC 8288), issue 27 item 9: parameters are tokenized, so a
//! `<` or a `,` inside a quoted string never starts a link.

use rdc_rest::transform::{parse_link_header, Link};

fn links(header: &str) -> Vec<(String, String)> {
    parse_link_header(header).into_iter().map(|Link { url, rel }| (url, rel)).collect()
}

fn pairs(want: &[(&str, &str)]) -> Vec<(String, String)> {
    want.iter().map(|(u, r)| (u.to_string(), r.to_string())).collect()
}

#[test]
fn a_quoted_angle_bracket_in_a_parameter_is_not_a_link() {
    let header = r#"</real>; title="<https://evil.example/steal>"; rel="next""#;
    assert_eq!(links(header), pairs(&[("/real", "next")]));
    let header = r#"</real>; title="x>, <https://evil.example/steal>; rel=next"; rel="prev""#;
    assert_eq!(links(header), pairs(&[("/real", "prev")]));
}

#[test]
fn commas_inside_quoted_strings_do_not_split_links() {
    let header = r#"</a>; title="one, two; three", </b>; rel=prev, </c>; title="x, <d>"; rel="next""#;
    assert_eq!(links(header), pairs(&[("/b", "prev"), ("/c", "next")]));
}

#[test]
fn quoted_strings_keep_backslash_escapes() {
    let header = r#"</a>; title="say \"hi\", <x>"; rel="next", </b>; rel="pr\ev""#;
    assert_eq!(links(header), pairs(&[("/a", "next"), ("/b", "prev")]));
}

#[test]
fn several_rels_in_one_value_make_one_link_each() {
    let header = "</last>; rel=\"next  last\",</first>;rel=\"first\tprev\"";
    assert_eq!(links(header), pairs(&[("/last", "next"), ("/last", "last"), ("/first", "first"), ("/first", "prev")]));
}

#[test]
fn rel_values_are_case_insensitive() {
    assert_eq!(links(r#"</a>; REL="Next""#), pairs(&[("/a", "next")]));
}

#[test]
fn the_first_rel_parameter_wins() {
    assert_eq!(links("</a>; rel=next; rel=prev"), pairs(&[("/a", "next")]));
}

#[test]
fn rel_star_is_an_rfc_8187_ext_value() {
    assert_eq!(links("</a>; rel*=UTF-8''next"), pairs(&[("/a", "next")]));
    assert_eq!(links("</a>; rel*=utf-8'en'next%20last"), pairs(&[("/a", "next"), ("/a", "last")]));
    // The extended form is preferred to the plain one, in any order.
    assert_eq!(links("</a>; rel=prev; rel*=UTF-8''next"), pairs(&[("/a", "next")]));
    // An invalid one is ignored.
    assert_eq!(links("</a>; rel*=UTF-8''%+1next; rel=prev"), pairs(&[("/a", "prev")]));
}

#[test]
fn malformed_links_are_skipped_and_links_without_rel_make_none() {
    assert_eq!(links(r#"garbage "<x>", </a>; rel=next"#), pairs(&[("/a", "next")]));
    assert_eq!(links("</a>; title=x, </b>; rel=next"), pairs(&[("/b", "next")]));
    assert_eq!(links(r#"</a>; rel="next" junk, </b>; rel=prev"#), pairs(&[("/b", "prev")]));
    assert_eq!(links("</a; rel=next"), pairs(&[]));
    assert_eq!(links("<>; rel=next, , </b>;rel=next"), pairs(&[("/b", "next")]));
    assert_eq!(links(""), pairs(&[]));
}

/// A target with thousands of relation types (repeated or not) makes at most
/// eight links, each once: what the header copies stays proportional to it.
#[test]
fn a_link_with_thousands_of_relations_copies_its_target_a_bounded_number_of_times() {
    let n = 8_000;
    let header = format!("<{}>; rel=\"{}\"", "u".repeat(n), "a ".repeat(n));
    let made = parse_link_header(&header);
    assert_eq!(made.len(), 1, "a repeated relation makes one link");
    let distinct: String = (0..n).map(|i| format!("r{i} ")).collect();
    let header = format!("<{}>; rel=\"{distinct}\"", "u".repeat(n));
    let bytes: usize = parse_link_header(&header).iter().map(|l| l.url.len()).sum();
    assert!(bytes <= 8 * header.len(), "{bytes} bytes of URLs from a {}-byte header", header.len());
    assert_eq!(links(r#"</p>; rel="next NEXT next last""#), pairs(&[("/p", "next"), ("/p", "last")]));
}
