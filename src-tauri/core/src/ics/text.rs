//! Content lines: the one place Almanac's text becomes iCalendar. Every
//! value is made safe for its kind and every line folded at 75 octets
//! (RFC 5545 §3.1), so no text from a note or a client can end a line and
//! start a property of its own.
//!
//! - TEXT values ([`text_line`]): `\`, `;`, `,` escaped and line breaks
//!   written as `\n` (§3.3.11); other control characters dropped (TEXT
//!   excludes them, TAB aside).
//! - Every other value ([`raw_line`]: URI, CAL-ADDRESS, dates, `RRULE`):
//!   control characters (CR and LF among them) dropped, as such values have
//!   no escaping and a line break in one would start a new property.
//! - Parameter values ([`param`]): control characters and `"` dropped, and
//!   the value quoted when it holds `;`, `:` or `,` (§3.2).

/// Appends `NAME[;params]:value` with `value` in its final form except for
/// control characters, which are dropped; the line is folded so none
/// exceeds 75 octets (never inside a UTF-8 character).
pub fn raw_line(out: &mut String, name: &str, value: &str) {
    let name: String = name.chars().filter(|c| !is_control(*c)).collect();
    let value: String = value.chars().filter(|c| !is_control(*c)).collect();
    folded(out, &format!("{name}:{value}"));
}

/// Appends a TEXT property, escaping `\`, `;`, `,` and line breaks.
pub fn text_line(out: &mut String, name: &str, value: &str) {
    raw_line(out, name, &escape(value));
}

/// `;NAME=value` for a property name, the value quoted if it needs it.
pub fn param(name: &str, value: &str) -> String {
    let value: String = value
        .chars()
        .filter(|c| !is_control(*c) && *c != '"')
        .collect();
    if value.contains([';', ':', ',']) {
        format!(";{name}=\"{value}\"")
    } else {
        format!(";{name}={value}")
    }
}

/// RFC 5545's CONTROL: C0 but TAB, and DEL.
fn is_control(ch: char) -> bool {
    (ch.is_ascii_control() && ch != '\t') || ch == '\u{7f}'
}

fn folded(out: &mut String, line: &str) {
    let mut width = 0;
    for ch in line.chars() {
        if width + ch.len_utf8() > 75 {
            out.push_str("\r\n ");
            width = 1;
        }
        out.push(ch);
        width += ch.len_utf8();
    }
    out.push_str("\r\n");
}

/// A TEXT value escaped; CRLF, CR and LF each become one `\n`.
fn escape(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => escaped.push_str("\\\\"),
            ';' => escaped.push_str("\\;"),
            ',' => escaped.push_str("\\,"),
            '\n' => escaped.push_str("\\n"),
            '\r' => {
                chars.next_if_eq(&'\n');
                escaped.push_str("\\n");
            }
            _ if is_control(ch) => {}
            _ => escaped.push(ch),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unfolded(text: &str) -> String {
        text.replace("\r\n ", "")
    }

    #[test]
    fn long_lines_fold_and_text_is_escaped() {
        let mut out = String::new();
        text_line(&mut out, "DESCRIPTION", &"a;b,c\\d\ne ".repeat(20));
        assert!(out.lines().all(|l| l.len() <= 75), "{out}");
        assert!(unfolded(&out).starts_with("DESCRIPTION:a\\;b\\,c\\\\d\\ne "));
    }

    #[test]
    fn folding_never_splits_a_character() {
        let mut out = String::new();
        text_line(&mut out, "SUMMARY", &"é".repeat(100));
        for line in out.split("\r\n") {
            assert!(line.len() <= 75);
        }
        assert_eq!(
            unfolded(&out).trim_end(),
            format!("SUMMARY:{}", "é".repeat(100))
        );
    }

    #[test]
    fn four_byte_characters_fold_whole_at_the_limit() {
        let mut out = String::new();
        // 8 bytes of name and colon, then 4-byte characters: 75 is not a
        // multiple, so a naive cut would split one.
        text_line(&mut out, "SUMMARY", &"🎉".repeat(40));
        for line in out.split("\r\n") {
            assert!(line.len() <= 75, "{line}");
        }
        assert_eq!(unfolded(&out).trim_end().len(), "SUMMARY:".len() + 160);
    }

    #[test]
    fn every_line_break_in_text_is_escaped() {
        let mut out = String::new();
        text_line(&mut out, "DESCRIPTION", "a\r\nb\rc\nd\u{1b}e\tf");
        assert_eq!(out, "DESCRIPTION:a\\nb\\nc\\nde\tf\r\n");
    }

    #[test]
    fn a_uri_cannot_start_a_property() {
        let mut out = String::new();
        raw_line(
            &mut out,
            "URL",
            "https://x.example/\r\nATTENDEE;RSVP=TRUE:mailto:victim@example.com\r\nX-INJ:1",
        );
        assert_eq!(
            out.matches("\r\n").count(),
            1 + out.matches("\r\n ").count()
        );
        assert!(
            unfolded(&out).starts_with("URL:https://x.example/ATTENDEE;RSVP=TRUE:mailto:"),
            "{out}"
        );
    }

    #[test]
    fn parameter_values_are_quoted_or_cleaned() {
        assert_eq!(param("TZID", "Europe/Berlin"), ";TZID=Europe/Berlin");
        assert_eq!(param("TZID", "A;B:C,D"), ";TZID=\"A;B:C,D\"");
        assert_eq!(param("CN", "say \"hi\"\r\nX:1"), ";CN=\"say hiX:1\"");
    }
}
