//! `Content-Disposition` filenames (RFC 6266): read strictly, then made safe to
//! save on every platform a browser saves on (Windows, macOS, Linux, Android)
//! and unable to pass for another name.

use crate::params::{ext_value, parameters, Cursor};

/// The longest name, in UTF-8 bytes: ext4's and APFS's limit (NTFS counts 255
/// UTF-16 units, never more than the UTF-8 bytes).
const MAX_BYTES: usize = 255;

/// The longest extension (its dot included) a long name keeps when it is cut.
const MAX_EXTENSION_BYTES: usize = 64;

/// The filename of a `Content-Disposition` header, safe to save: `filename*`
/// (RFC 8187: UTF-8 or ISO-8859-1, strict `%XX` escapes) is preferred to
/// `filename` (quoted or not); `None` when neither gives a name. Then:
/// - control characters, and invisible ones that make a name look like another
///   (bidi overrides and marks, zero-width and other format characters,
///   noncharacters), are removed: `invoice\u{202E}fdp.exe` is not "invoiceexe.pdf";
/// - characters Windows, macOS or Android refuse (`<>:"/\|?*`) become `_`, so
///   no path survives;
/// - any whitespace becomes a space and a run of it one space, so padding cannot
///   push the real extension out of sight (`a.pdf` + 300 spaces + `.exe`);
/// - leading dots and whitespace (hidden files, `..`), and trailing ones
///   (Windows drops them), are trimmed;
/// - Windows device names (`CON`, `nul.txt`, `COM1`..., `LPT1`...) get a `_` prefix;
/// - the name is cut to 255 UTF-8 bytes on a character boundary, keeping its
///   extension.
///
/// ```
/// use rdc_rest::transform::content_disposition_filename as f;
/// assert_eq!(f(r#"attachment; filename="a b.txt""#).as_deref(), Some("a b.txt"));
/// assert_eq!(f("attachment; filename*=UTF-8''%E2%9C%93.txt; filename=x.txt").as_deref(), Some("✓.txt"));
/// assert_eq!(f(r#"attachment; filename="../../etc/passwd""#).as_deref(), Some("_.._etc_passwd"));
/// assert_eq!(f("attachment; filename*=UTF-8''invoice%E2%80%AEfdp.exe").as_deref(), Some("invoicefdp.exe"));
/// assert_eq!(f("attachment; filename=nul.txt").as_deref(), Some("_nul.txt"));
/// assert_eq!(f("inline"), None);
/// ```
pub fn content_disposition_filename(header: &str) -> Option<String> {
    let mut cursor = Cursor::new(header);
    let _disposition_type = cursor.take_until(|c| c == ';');
    let params = parameters(&mut cursor, false);
    let value = |name: &str| params.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    let extended = value("filename*").and_then(ext_value);
    let plain = value("filename").map(str::to_owned);
    [extended, plain].into_iter().flatten().map(|name| sanitize(&name)).find(|name| !name.is_empty())
}

/// `name` made safe to save (see [`content_disposition_filename`]); empty when
/// nothing is left.
fn sanitize(name: &str) -> String {
    let mut cleaned = String::with_capacity(name.len());
    for c in name.chars().filter(|c| !c.is_control() && !is_invisible(*c)) {
        match c {
            '<' | '>' | ':' | '"' | '/' | '\\' | '|' | '?' | '*' => cleaned.push('_'),
            // Any whitespace is one space, and a run of it one too.
            c if c.is_whitespace() => {
                if !cleaned.ends_with(' ') {
                    cleaned.push(' ');
                }
            }
            c => cleaned.push(c),
        }
    }
    let trimmed = trim(&cleaned);
    let named = if is_windows_device(trimmed) { format!("_{trimmed}") } else { trimmed.to_owned() };
    cap(&named)
}

/// Without leading and trailing dots and whitespace.
fn trim(name: &str) -> &str {
    name.trim_matches(|c: char| c == '.' || c.is_whitespace())
}

/// Whether Windows reads `name` as a device: its part before the first dot
/// (trailing spaces ignored) is a reserved name, in any case.
fn is_windows_device(name: &str) -> bool {
    const DEVICES: [&str; 7] = ["con", "prn", "aux", "nul", "conin$", "conout$", "clock$"];
    let stem = name.split('.').next().unwrap_or_default().trim_end_matches(' ').to_lowercase();
    let numbered = ["com", "lpt"].iter().any(|port| {
        stem.strip_prefix(port).is_some_and(|n| {
            let mut digits = n.chars();
            matches!(digits.next(), Some('0'..='9' | '¹' | '²' | '³')) && digits.next().is_none()
        })
    });
    numbered || DEVICES.contains(&stem.as_str())
}

/// `name` cut to [`MAX_BYTES`] on a character boundary, keeping an extension of
/// at most [`MAX_EXTENSION_BYTES`]; trailing dots and whitespace trimmed again.
fn cap(name: &str) -> String {
    if name.len() <= MAX_BYTES {
        return name.to_owned();
    }
    let extension = name.rfind('.').and_then(|dot| name.get(dot..)).filter(|e| e.len() <= MAX_EXTENSION_BYTES);
    let extension = extension.unwrap_or_default();
    let stem = name.get(..name.len() - extension.len()).unwrap_or_default();
    let mut end = MAX_BYTES - extension.len();
    while !stem.is_char_boundary(end) {
        end -= 1;
    }
    let cut = format!("{}{extension}", stem.get(..end).unwrap_or_default());
    trim(&cut).to_owned()
}

/// Characters that show nothing, or change how the characters around them
/// show: bidi controls and marks, zero-width and other format characters
/// (Unicode's `Cf`), line and paragraph separators, fillers, variation
/// selectors, tags, and noncharacters.
fn is_invisible(c: char) -> bool {
    let code = u32::from(c);
    (code & 0xFFFE) == 0xFFFE
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{0600}'..='\u{0605}'
                | '\u{061C}'
                | '\u{06DD}'
                | '\u{070F}'
                | '\u{0890}'..='\u{0891}'
                | '\u{08E2}'
                | '\u{115F}'..='\u{1160}'
                | '\u{17B4}'..='\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FDD0}'..='\u{FDEF}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFFB}'
                | '\u{110BD}'
                | '\u{110CD}'
                | '\u{13430}'..='\u{1343F}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}
