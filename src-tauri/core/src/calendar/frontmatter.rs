//! YAML frontmatter: splitting it from the note, parsing it, and rewriting
//! some keys while keeping everything else byte-for-byte.
//!
//! A note with frontmatter starts with a `---` line; the YAML runs to the next
//! `---` (or `...`) line; the body is everything after that line, untouched.
//!
//! Rewriting replaces, appends or removes top-level keys. The other keys keep
//! their order and their exact text (quoting, comments, flow style), because
//! the YAML is cut into one text segment per top-level key and only the
//! segments of changed keys are re-rendered. The cut is checked against the
//! real parse; when it cannot be trusted (complex keys, odd layouts), the
//! mapping is re-serialized whole instead: keys, values and order still
//! survive, only their formatting may change.
//!
//! A changed string value keeps the quoting it had (`"…"`, `'…'` or plain),
//! see [`quoting`]. Plain stays plain only while a YAML 1.1 reader would still
//! read it as the same string: `10:00` is the integer 600 there. New times are
//! written double-quoted, as the Full Calendar plugin writes them.

use serde_norway::{Mapping, Value};

mod quoting;

/// A note cut into frontmatter and body. `head + yaml + close + body` is the
/// original text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split<'a> {
    /// The opening fence line, with its line break.
    pub head: &'a str,
    /// The YAML text between the fences.
    pub yaml: &'a str,
    /// The closing fence line, with its line break (if any).
    pub close: &'a str,
    /// Everything after the closing fence.
    pub body: &'a str,
}

/// Cuts `text` into frontmatter and body; `None` when the note has no
/// (terminated) frontmatter.
pub fn split(text: &str) -> Option<Split<'_>> {
    let first_end = text.find('\n')? + 1;
    let head = &text[..first_end];
    if head.trim_start_matches('\u{feff}').trim_end() != "---" {
        return None;
    }
    let mut offset = first_end;
    for line in text[first_end..].split_inclusive('\n') {
        let fence = line.trim_end();
        if fence == "---" || fence == "..." {
            return Some(Split {
                head,
                yaml: &text[first_end..offset],
                close: line,
                body: &text[offset + line.len()..],
            });
        }
        offset += line.len();
    }
    None
}

/// Parses frontmatter YAML into its top-level mapping (empty YAML is an
/// empty mapping).
pub fn parse(yaml: &str) -> Result<Mapping, String> {
    if yaml.trim().is_empty() {
        return Ok(Mapping::new());
    }
    match serde_norway::from_str::<Value>(yaml) {
        Ok(Value::Mapping(mapping)) => Ok(mapping),
        Ok(Value::Null) => Ok(Mapping::new()),
        Ok(_) => Err("frontmatter is not a key: value mapping".to_string()),
        Err(e) => Err(format!("frontmatter is not valid YAML: {e}")),
    }
}

/// One change to a top-level key: `Some` sets it, `None` removes it.
pub type Update = (String, Option<Value>);

/// Applies `updates` to the frontmatter `yaml` (see the module docs) and
/// returns the new YAML text.
pub fn rewrite(yaml: &str, updates: &[Update]) -> Result<String, String> {
    let mut expected = parse(yaml)?;
    for (key, value) in updates {
        let key_value = Value::String(key.clone());
        match value {
            Some(v) => {
                expected.insert(key_value, v.clone());
            }
            None => {
                expected.shift_remove(&key_value);
            }
        }
    }
    if let Some(text) = rewrite_segments(yaml, updates)
        && parse(&text).ok().as_ref() == Some(&expected)
    {
        return Ok(text);
    }
    render_mapping(&expected)
}

/// Serializes a whole mapping as frontmatter YAML.
pub fn render_mapping(mapping: &Mapping) -> Result<String, String> {
    if mapping.is_empty() {
        return Ok(String::new());
    }
    serde_norway::to_string(mapping).map_err(|e| format!("cannot render frontmatter: {e}"))
}

/// The segment-preserving rewrite; `None` when the YAML's layout is not one
/// the cut handles, or a key appears twice.
fn rewrite_segments(yaml: &str, updates: &[Update]) -> Option<String> {
    let (preamble, segments) = segment(yaml)?;
    let parsed = parse(yaml).ok()?;
    let parsed_keys: Vec<String> = parsed.keys().map(key_text).collect::<Option<_>>()?;
    let cut_keys: Vec<&str> = segments.iter().map(|s| s.key.as_str()).collect();
    if parsed_keys != cut_keys {
        return None;
    }
    let crlf = yaml.contains("\r\n");
    let newline = if crlf { "\r\n" } else { "\n" };
    let render = |segment: Option<&Segment>, key: &str, value: &Value| -> Option<String> {
        let text = match (value, segment) {
            // A string keeps the key's text and the value's quoting.
            (Value::String(s), Some(old)) => {
                let (key_text, value_text) = old.text.split_at(old.value_at);
                format!(
                    "{key_text} {}\n",
                    quoting::scalar(s, quoting::of(value_text))
                )
            }
            (Value::String(s), None) if quoting::is_plain_key(key) => {
                format!("{key}: {}\n", quoting::scalar(s, quoting::Style::New))
            }
            _ => {
                let mut one = Mapping::new();
                one.insert(Value::String(key.to_string()), value.clone());
                serde_norway::to_string(&one).ok()?
            }
        };
        Some(if crlf {
            text.replace('\n', "\r\n")
        } else {
            text
        })
    };
    let mut out = String::with_capacity(yaml.len() + 64);
    out.push_str(preamble);
    for segment in &segments {
        match updates.iter().find(|(k, _)| *k == segment.key) {
            None => {
                out.push_str(segment.text);
                if !segment.text.ends_with('\n') {
                    out.push_str(newline);
                }
            }
            Some((key, Some(value))) => out.push_str(&render(Some(segment), key, value)?),
            Some((_, None)) => {}
        }
    }
    for (key, value) in updates {
        if let Some(value) = value
            && !segments.iter().any(|s| s.key == *key)
        {
            out.push_str(&render(None, key, value)?);
        }
    }
    Some(out)
}

/// One top-level key's text: its line plus every line that belongs to it.
struct Segment<'a> {
    key: String,
    text: &'a str,
    /// Where the value starts in `text`: just after the key's `:`.
    value_at: usize,
}

/// A mapping key as plain text, if it is a scalar.
fn key_text(key: &Value) -> Option<String> {
    match key {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Cuts YAML into the text before the first key and one segment per
/// top-level key (its line plus every following indented, list, comment or
/// blank line).
fn segment(yaml: &str) -> Option<(&str, Vec<Segment<'_>>)> {
    let mut preamble_end = None;
    let mut segments: Vec<(String, usize, usize, usize)> = Vec::new();
    let mut offset = 0;
    for line in yaml.split_inclusive('\n') {
        let starts_key = line
            .chars()
            .next()
            .is_some_and(|c| !matches!(c, ' ' | '\t' | '#' | '-' | '\r' | '\n'));
        if starts_key {
            let (key, value_at) = top_level_key(line)?;
            if preamble_end.is_none() {
                preamble_end = Some(offset);
            }
            if let Some(last) = segments.last_mut() {
                last.3 = offset;
            }
            segments.push((key, value_at, offset, yaml.len()));
        } else if line.starts_with("---") || line.starts_with("...") {
            return None;
        }
        offset += line.len();
    }
    let preamble_end = preamble_end.unwrap_or(yaml.len());
    let segments = segments
        .into_iter()
        .map(|(key, value_at, start, end)| Segment {
            key,
            text: &yaml[start..end],
            value_at,
        })
        .collect();
    Some((&yaml[..preamble_end], segments))
}

/// The key of a `key: value` line at column 0, unquoted, and the offset just
/// past its `:`; `None` for lines the cut does not understand (complex keys,
/// flow collections, anchors…).
fn top_level_key(line: &str) -> Option<(String, usize)> {
    let first = line.chars().next()?;
    if matches!(
        first,
        '?' | '{' | '[' | '&' | '*' | '!' | '|' | '>' | '%' | '@' | '`'
    ) {
        return None;
    }
    if first == '"' || first == '\'' {
        let close = line[1..].find(first)? + 1;
        let rest = &line[close + 1..];
        let rest = rest.strip_prefix(':')?;
        if !(rest.is_empty() || rest.starts_with([' ', '\t', '\r', '\n'])) {
            return None;
        }
        let inner = &line[1..close];
        if inner.contains('\\') || inner.contains("''") {
            return None;
        }
        return Some((inner.to_string(), close + 2));
    }
    let bytes = line.as_bytes();
    let colon = (0..bytes.len()).find(|&i| {
        bytes[i] == b':'
            && bytes
                .get(i + 1)
                .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    })?;
    let key = line[..colon].trim_end();
    if key.contains(" #") || key.is_empty() {
        return None;
    }
    Some((key.to_string(), colon + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_reassembles() {
        let text = "---\ntitle: A\n---\nbody\n---\nmore";
        let s = split(text).unwrap();
        assert_eq!(s.yaml, "title: A\n");
        assert_eq!(s.body, "body\n---\nmore");
        assert_eq!(format!("{}{}{}{}", s.head, s.yaml, s.close, s.body), text);
        assert!(split("no frontmatter").is_none());
        assert!(split("---\nunterminated: yes\n").is_none());
        assert_eq!(split("---\n---\n").unwrap().yaml, "");
    }

    #[test]
    fn rewrite_keeps_other_keys_verbatim_and_in_order() {
        let yaml = "# leading comment\ntitle: Old\ntags: [a,  b]   # odd spacing\nquoted: 'x'\nlist:\n- 1\n- 2\nnested:\n  deep: true\n";
        let out = rewrite(
            yaml,
            &[
                ("title".into(), Some(Value::String("New".into()))),
                ("quoted".into(), None),
                ("date".into(), Some(Value::String("2024-01-05".into()))),
            ],
        )
        .unwrap();
        assert_eq!(
            out,
            "# leading comment\ntitle: New\ntags: [a,  b]   # odd spacing\nlist:\n- 1\n- 2\nnested:\n  deep: true\ndate: 2024-01-05\n"
        );
    }

    #[test]
    fn odd_layouts_fall_back_to_a_full_render() {
        let yaml = "? complex\n: key\ntitle: x\n";
        let out = rewrite(yaml, &[("title".into(), Some(Value::String("y".into())))]).unwrap();
        let parsed = parse(&out).unwrap();
        assert_eq!(parsed.get("title"), Some(&Value::String("y".into())));
        assert_eq!(parsed.get("complex"), Some(&Value::String("key".into())));
    }

    #[test]
    fn rejects_non_mappings() {
        assert!(parse("- a\n- b\n").is_err());
        assert!(parse("key: [unclosed\n").is_err());
        assert!(parse("").unwrap().is_empty());
    }
}
