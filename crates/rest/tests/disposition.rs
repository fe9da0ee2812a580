//! `Content-Disposition` filenames (issue 27, item 10): decoded strictly, then
//! made safe to save on every platform a browser saves on (Windows, macOS,
//! Linux, Android) and unable to pass for another name.

use rdc_rest::transform::content_disposition_filename as filename;

fn star(encoded: &str) -> Option<String> {
    filename(&format!("attachment; filename*=UTF-8''{encoded}"))
}

#[test]
fn bidi_and_format_characters_are_removed() {
    // U+202E RIGHT-TO-LEFT OVERRIDE shows "invoice\u{202E}fdp.exe" as "invoiceexe.pdf".
    assert_eq!(star("invoice%E2%80%AEfdp.exe").as_deref(), Some("invoicefdp.exe"));
    for (encoded, want) in [
        ("a%E2%80%8Bb.txt", "ab.txt"),          // zero-width space
        ("a%E2%80%8Db.txt", "ab.txt"),          // zero-width joiner
        ("%EF%BB%BFa.txt", "a.txt"),            // BOM / zero-width no-break space
        ("a%E2%81%A6b%E2%81%A9.txt", "ab.txt"), // isolates
        ("a%D8%9Cb.txt", "ab.txt"),             // Arabic letter mark
        ("a%E2%80%8Eb.txt", "ab.txt"),          // left-to-right mark
        ("a%C2%ADb.txt", "ab.txt"),             // soft hyphen
        ("a%E2%81%A0b.txt", "ab.txt"),          // word joiner
        ("a%E2%80%A8b.txt", "ab.txt"),          // line separator
        ("a%F3%A0%80%81b.txt", "ab.txt"),       // language tag
        ("a%EF%BF%BEb.txt", "ab.txt"),          // noncharacter
        ("a%C2%85b.txt", "ab.txt"),             // C1 control (NEL)
    ] {
        assert_eq!(star(encoded).as_deref(), Some(want), "{encoded}");
    }
    // Visible text is kept.
    assert_eq!(star("r%C3%A9sum%C3%A9%20%E2%9C%93.pdf").as_deref(), Some("résumé ✓.pdf"));
}

#[test]
fn windows_reserved_names_are_renamed() {
    for (name, want) in [
        ("CON", "_CON"),
        ("nul.txt", "_nul.txt"),
        ("Aux.tar.gz", "_Aux.tar.gz"),
        ("prn", "_prn"),
        ("COM1", "_COM1"),
        ("com9.log", "_com9.log"),
        ("LPT1.txt", "_LPT1.txt"),
        ("lpt9", "_lpt9"),
        ("CON .txt", "_CON .txt"),
        ("CON.", "_CON"),
        ("conin$", "_conin$"),
    ] {
        assert_eq!(filename(&format!("attachment; filename=\"{name}\"")).as_deref(), Some(want), "{name}");
    }
    assert_eq!(star("COM%C2%B9.txt").as_deref(), Some("_COM¹.txt"));
    for fine in ["CONSOLE.txt", "nul-report.txt", "COM10", "LPT", "icon.png", "a.con"] {
        assert_eq!(filename(&format!("attachment; filename=\"{fine}\"")).as_deref(), Some(fine));
    }
}

#[test]
fn windows_reserved_characters_are_replaced() {
    assert_eq!(
        filename(r#"attachment; filename="a<b>c:d\"e|f?g*h\\i/j.txt""#).as_deref(),
        Some("a_b_c_d_e_f_g_h_i_j.txt")
    );
    assert_eq!(star("a%00b%01c%1Fd%7F.txt").as_deref(), Some("abcd.txt"));
    assert_eq!(filename("attachment; filename=/etc/passwd").as_deref(), Some("_etc_passwd"));
    assert_eq!(filename(r#"attachment; filename="../../etc/passwd""#).as_deref(), Some("_.._etc_passwd"));
}

#[test]
fn leading_and_trailing_dots_and_spaces_are_trimmed() {
    for (name, want) in [
        ("report.pdf.", Some("report.pdf")),
        ("report.pdf . . ", Some("report.pdf")),
        ("  report.pdf", Some("report.pdf")),
        (".bashrc", Some("bashrc")),
        ("...", None),
        (". .", None),
        ("\u{202E}", None),
    ] {
        assert_eq!(filename(&format!("attachment; filename=\"{name}\"")).as_deref(), want, "{name:?}");
    }
}

#[test]
fn long_names_are_capped_at_255_bytes_keeping_the_extension() {
    let long = format!("{}.pdf", "a".repeat(300));
    let name = filename(&format!("attachment; filename=\"{long}\"")).unwrap();
    assert_eq!((name.len(), name.ends_with(".pdf")), (255, true));
    // Two-byte characters: cut on a character boundary.
    let name = star(&format!("{}.txt", "%C3%A9".repeat(200))).unwrap();
    assert!(name.len() <= 255 && name.len() >= 253 && name.ends_with(".txt"), "{}", name.len());
    // No extension worth keeping: the name is cut, and trailing dots go.
    let name = filename(&format!("attachment; filename=\"{}. {}\"", "b".repeat(253), "c".repeat(100))).unwrap();
    assert_eq!(name, "b".repeat(253));
    // Short names are untouched.
    assert_eq!(filename("attachment; filename=a.pdf").as_deref(), Some("a.pdf"));
}

#[test]
fn invalid_percent_escapes_in_filename_star_are_refused() {
    for bad in ["%+1.txt", "%1.txt", "%G0.txt", "a%", "%-1.txt", "a b.txt"] {
        assert_eq!(star(bad), None, "{bad}");
        let header = format!("attachment; filename*=UTF-8''{bad}; filename=\"fallback.txt\"");
        assert_eq!(filename(&header).as_deref(), Some("fallback.txt"), "{bad}");
    }
}

#[test]
fn iso_8859_1_filename_star_is_decoded() {
    assert_eq!(filename("attachment; filename*=iso-8859-1''na%EFve.txt").as_deref(), Some("naïve.txt"));
    assert_eq!(filename("attachment; filename*=ISO-8859-1'fr'%E9t%E9.txt").as_deref(), Some("été.txt"));
    // Unknown charsets fall back to `filename`.
    assert_eq!(filename("attachment; filename*=koi8-r''%C1.txt; filename=b.txt").as_deref(), Some("b.txt"));
}

/// A run of spaces cannot push the real extension out of sight: every kind of
/// whitespace becomes one space (so `CON` + U+3000 is still a device name).
#[test]
fn whitespace_runs_collapse_to_one_space() {
    let padded = format!("a.pdf{}.exe", "%20".repeat(300));
    assert_eq!(star(&padded).as_deref(), Some("a.pdf .exe"));
    assert_eq!(star("a%E3%80%80%09%C2%A0b.txt").as_deref(), Some("a b.txt"));
    assert_eq!(star("CON%E3%80%80.txt").as_deref(), Some("_CON .txt"));
}
