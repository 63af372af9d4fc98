//! The registry's rule, checked on the source: outside `kinds/`, no
//! production code matches source kinds with a fall-through (`_ =>`) or
//! `matches!`, so a new kind cannot compile past a place that must decide
//! for it.

use std::path::Path;

use super::scan::rust_files;

/// The names of the kind enums a match may be on.
const KIND_PATTERNS: [&str; 3] = ["KindSettings::", "ResolvedKind::", "Kind::"];

fn names_a_kind(text: &str) -> bool {
    KIND_PATTERNS.iter().any(|pattern| {
        text.match_indices(pattern).any(|(at, _)| {
            // `Kind::` also ends `KindSettings::`; any of them counts, but
            // not a longer name such as `ErrorKind::`.
            let before = text[..at].chars().next_back();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                || text[..at].ends_with("Source")
        })
    })
}

/// The production part of a file: what comes before its test module.
fn production(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod tests")
        .map_or(text, |at| &text[..at])
}

/// The text from `open` (an opening bracket) to its closing one.
fn balanced(text: &str, open: usize) -> &str {
    let (opening, closing) = match text.as_bytes()[open] {
        b'(' => (b'(', b')'),
        _ => (b'{', b'}'),
    };
    let mut depth = 0;
    for (offset, byte) in text.as_bytes()[open..].iter().enumerate() {
        if *byte == opening {
            depth += 1;
        } else if *byte == closing {
            depth -= 1;
            if depth == 0 {
                return &text[open..=open + offset];
            }
        }
    }
    &text[open..]
}

/// The arms of a match block (its `{ … }`) at its own level: nested blocks
/// (arm bodies, struct patterns' fields) left out, tuple patterns kept.
fn top_level(block: &str) -> String {
    let mut open: Vec<char> = Vec::new();
    let mut kept = String::new();
    for c in block.chars() {
        if matches!(c, '}' | ')' | ']') {
            open.pop();
        }
        let in_braces = open.iter().filter(|o| **o == '{').count();
        if in_braces == 1 {
            kept.push(c);
        }
        if matches!(c, '{' | '(' | '[') {
            open.push(c);
        }
    }
    kept
}

/// Each fall-through on kinds in `text`, as a short description.
fn fall_throughs(text: &str) -> Vec<String> {
    let text = production(text);
    let mut found = Vec::new();
    for (at, _) in text.match_indices("matches!(") {
        let call = balanced(text, at + "matches!".len());
        if names_a_kind(call) {
            found.push(call.to_string());
        }
    }
    for (at, _) in text.match_indices("match ") {
        let preceded = text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '!'));
        let Some(open) = text[at..].find('{').map(|o| at + o) else {
            continue;
        };
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        let in_comment = text[line_start..at].trim_start().starts_with("//");
        if !preceded || in_comment {
            continue;
        }
        let arms = top_level(balanced(text, open));
        // A wildcard arm: `_` alone between an arm's end and its `=>`.
        let wildcard = arms
            .split("=>")
            .any(|part| part.rsplit([',', '{', '}']).next().unwrap_or(part).trim() == "_");
        if wildcard && names_a_kind(&arms) {
            found.push(text[at..open].to_string());
        }
    }
    found
}

#[test]
fn no_kind_match_outside_the_registry_falls_through() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let registry = src.join("kinds");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut offenders = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&registry)) {
        let text = std::fs::read_to_string(file).unwrap();
        for found in fall_throughs(&text) {
            offenders.push(format!("{}: {found}", file.display()));
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
}

#[test]
fn the_check_finds_both_forms() {
    let with_matches = "fn f(k: &ResolvedKind) -> bool { matches!(k, ResolvedKind::Ical { .. }) }";
    assert_eq!(fall_throughs(with_matches).len(), 1);
    let with_wildcard = "fn f(k: &KindSettings) -> u8 {\n    match k {\n        \
                         KindSettings::Ical { .. } => 1,\n        _ => 0,\n    }\n}";
    assert_eq!(fall_throughs(with_wildcard).len(), 1);
    let tuple = "fn f(a: &ResolvedKind, b: Kind) -> u8 {\n    match (a, b) {\n        \
                 (ResolvedKind::Ical { .. }, Kind::Ical) => 1,\n        _ => 0,\n    }\n}";
    assert_eq!(fall_throughs(tuple).len(), 1);
    let exhaustive = "fn f(k: Kind) -> u8 {\n    match k {\n        Kind::Ical => 1,\n        \
                      Kind::Caldav | Kind::Tasks => 0,\n    }\n}";
    assert!(fall_throughs(exhaustive).is_empty());
    let other = "fn f(e: &io::Error) -> u8 { match e.kind() { ErrorKind::NotFound => 1, _ => 0 } }";
    assert!(fall_throughs(other).is_empty());
}
