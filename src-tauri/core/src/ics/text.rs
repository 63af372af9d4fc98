//! Content lines: escaping TEXT values and folding lines at 75 octets
//! (RFC 5545 §3.1, §3.3.11).

/// Appends `NAME[;params]:value` with `value` already in its final form,
/// folded so no line exceeds 75 octets (never inside a UTF-8 character).
pub fn raw_line(out: &mut String, name: &str, value: &str) {
    let line = format!("{name}:{value}");
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

/// Appends a TEXT property, escaping `\`, `;`, `,` and newlines.
pub fn text_line(out: &mut String, name: &str, value: &str) {
    raw_line(out, name, &escape(value));
}

fn escape(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for ch in value.chars() {
        match ch {
            '\\' => escaped.push_str("\\\\"),
            ';' => escaped.push_str("\\;"),
            ',' => escaped.push_str("\\,"),
            '\n' => escaped.push_str("\\n"),
            '\r' => {}
            _ => escaped.push(ch),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_fold_and_text_is_escaped() {
        let mut out = String::new();
        text_line(&mut out, "DESCRIPTION", &"a;b,c\\d\ne ".repeat(20));
        assert!(out.lines().all(|l| l.len() <= 75), "{out}");
        let unfolded = out.replace("\r\n ", "");
        assert!(unfolded.starts_with("DESCRIPTION:a\\;b\\,c\\\\d\\ne "));
    }

    #[test]
    fn folding_never_splits_a_character() {
        let mut out = String::new();
        text_line(&mut out, "SUMMARY", &"é".repeat(100));
        for line in out.split("\r\n") {
            assert!(line.len() <= 75);
        }
        assert_eq!(
            out.replace("\r\n ", "").trim_end(),
            format!("SUMMARY:{}", "é".repeat(100))
        );
    }
}
