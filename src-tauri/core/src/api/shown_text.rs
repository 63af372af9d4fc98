//! Text a script chose (a token name, a reason), made safe to show in the
//! consent dialog, where the user must see exactly what they allow.
//!
//! - Characters that are invisible or change the direction of the text around
//!   them (bidi controls such as U+202E, zero-width characters, other format
//!   characters) are shown as a visible `[U+XXXX]`: `evil\u{202E}gnp.exe`
//!   cannot pass for `evilexe.png`.
//! - A word that mixes letters of scripts that look alike (Latin, Greek,
//!   Cyrillic, Armenian, Cherokee: `pаypal` with a Cyrillic `а`), or uses
//!   styled look-alikes of Latin letters (fullwidth, mathematical, letter-like
//!   symbols), is flagged with a warning the dialog shows.
//!
//! The tables are small on purpose: they cover the characters used to
//! disguise text, not all of Unicode's confusables.

/// Shows `text` with every invisible or direction-changing character as a
/// visible `[U+XXXX]`.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_visible(&mut out, c);
    }
    out
}

/// Appends `c` to `out`, as `[U+XXXX]` when it is invisible or changes the
/// direction of the text (see [`visible`]).
pub fn push_visible(out: &mut String, c: char) {
    if is_hidden(c) {
        push_code_point(out, c);
    } else {
        out.push(c);
    }
}

/// Appends `c` as its visible `[U+XXXX]`.
pub fn push_code_point(out: &mut String, c: char) {
    out.push_str(&format!("[U+{:04X}]", c as u32));
}

/// Why `text` may be imitating other text, if it may: one warning per
/// suspicious word.
pub fn look_alike_warnings(text: &str) -> Vec<String> {
    text.split_whitespace()
        .filter_map(|word| {
            let mut scripts: Vec<&str> = Vec::new();
            for script in word
                .chars()
                .filter(|c| c.is_alphabetic())
                .filter_map(script_of)
            {
                if !scripts.contains(&script) {
                    scripts.push(script);
                }
            }
            let word = visible(word);
            if scripts.contains(&STYLED) {
                Some(format!(
                    "“{word}” uses styled letters that look like ordinary ones."
                ))
            } else if scripts.len() > 1 {
                Some(format!(
                    "“{word}” mixes {} letters, which can imitate another word.",
                    scripts.join(" and ")
                ))
            } else {
                None
            }
        })
        .collect()
}

/// Invisible or direction-changing: bidi controls, zero-width and other
/// format characters, fillers that render as nothing, and control
/// characters other than line breaks and tabs.
fn is_hidden(c: char) -> bool {
    matches!(
        c as u32,
        0x00AD            // soft hyphen
        | 0x034F          // combining grapheme joiner
        | 0x061C          // Arabic letter mark
        | 0x115F | 0x1160 | 0x3164 | 0xFFA0 // Hangul fillers
        | 0x17B4 | 0x17B5 // Khmer inherent vowels
        | 0x180B..=0x180F // Mongolian variation selectors, vowel separator
        | 0x200B..=0x200F // zero-width space, (non-)joiner, LRM, RLM
        | 0x2028 | 0x2029 // line and paragraph separators
        | 0x202A..=0x202E // bidi embeddings and overrides
        | 0x2060..=0x206F // word joiner, invisible operators, bidi isolates
        | 0xFEFF          // zero-width no-break space
        | 0xFFF9..=0xFFFB // interlinear annotation
        | 0x1D173..=0x1D17A // musical formatting
        | 0xE0000..=0xE007F // tags
    ) || (c.is_control() && c != '\n' && c != '\t')
}

/// The script group of letters that styled look-alikes belong to.
const STYLED: &str = "styled";

/// The script of a letter, for the scripts whose letters are commonly
/// mistaken for each other (`None`: any other letter).
fn script_of(c: char) -> Option<&'static str> {
    Some(match c as u32 {
        0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x1E00..=0x1EFF => "Latin",
        0x370..=0x3FF | 0x1F00..=0x1FFF => "Greek",
        0x400..=0x52F | 0x1C80..=0x1C8F | 0x2DE0..=0x2DFF | 0xA640..=0xA69F => "Cyrillic",
        0x530..=0x58F => "Armenian",
        0x13A0..=0x13FF | 0xAB70..=0xABBF => "Cherokee",
        // Fullwidth Latin, letter-like symbols, mathematical alphanumerics.
        0xFF21..=0xFF3A | 0xFF41..=0xFF5A | 0x2100..=0x214F | 0x1D400..=0x1D7FF => STYLED,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_become_visible() {
        assert_eq!(visible("evil\u{202E}gnp.exe"), "evil[U+202E]gnp.exe");
        assert_eq!(
            visible("a\u{200B}b\u{2066}c\u{061C}d\u{FEFF}\u{7}"),
            "a[U+200B]b[U+2066]c[U+061C]d[U+FEFF][U+0007]"
        );
        assert_eq!(
            visible("Line one\nnäive — 日本語 ✓"),
            "Line one\nnäive — 日本語 ✓"
        );
    }

    #[test]
    fn mixed_scripts_and_styled_letters_are_flagged() {
        assert!(look_alike_warnings("Back up my calendar").is_empty());
        assert!(look_alike_warnings("Резервная копия calendar").is_empty());
        let mixed = look_alike_warnings("open p\u{0430}ypal now");
        assert_eq!(mixed.len(), 1);
        assert!(mixed[0].contains("Latin and Cyrillic"), "{mixed:?}");
        let styled = look_alike_warnings("\u{FF41}pple");
        assert!(styled[0].contains("styled"), "{styled:?}");
    }
}
