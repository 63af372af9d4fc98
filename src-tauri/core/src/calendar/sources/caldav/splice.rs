//! Putting a rewritten series back into its resource: Almanac edits the
//! master `VEVENT` only, so the resource's modified occurrences
//! (`RECURRENCE-ID`) and the `VTIMEZONE`s they use are carried over from the
//! server's copy into the new text.

/// `new` (a whole `VCALENDAR`) with the modified occurrences of `old`, and
/// the zones `new` lacks, added before its end.
pub fn with_overrides(new: &str, old: &str) -> String {
    let blocks = top_level_blocks(old);
    let kept: Vec<&String> = blocks
        .iter()
        .filter(|block| match block_name(block) {
            Some("VEVENT") => block.lines().any(|l| l.starts_with("RECURRENCE-ID")),
            Some("VTIMEZONE") => {
                tzid(block).is_none_or(|id| !new.contains(&format!("TZID:{id}\r\n")))
            }
            _ => false,
        })
        .collect();
    let Some(end) = new.rfind("END:VCALENDAR") else {
        return new.to_string();
    };
    let mut out = new[..end].to_string();
    for block in kept {
        out.push_str(block);
    }
    out.push_str(&new[end..]);
    out
}

/// The components directly inside the `VCALENDAR`, each with CRLF lines.
fn top_level_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let (mut depth, mut current) = (0usize, String::new());
    for line in text.lines().map(|l| l.trim_end_matches('\r')) {
        if line.starts_with("BEGIN:") {
            depth += 1;
        }
        if depth >= 2 {
            current.push_str(line);
            current.push_str("\r\n");
        }
        if line.starts_with("END:") {
            depth = depth.saturating_sub(1);
            if depth == 1 && !current.is_empty() {
                blocks.push(std::mem::take(&mut current));
            }
        }
    }
    blocks
}

fn block_name(block: &str) -> Option<&str> {
    block.lines().next()?.strip_prefix("BEGIN:")
}

fn tzid(block: &str) -> Option<&str> {
    block
        .lines()
        .find_map(|l| l.trim_end_matches('\r').strip_prefix("TZID:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_and_missing_zones_carry_over_and_the_old_master_does_not() {
        let old = "BEGIN:VCALENDAR\nBEGIN:VTIMEZONE\nTZID:Europe/Paris\nEND:VTIMEZONE\n\
                   BEGIN:VEVENT\nUID:s\nSUMMARY:Old\nBEGIN:VALARM\nEND:VALARM\nEND:VEVENT\n\
                   BEGIN:VEVENT\nUID:s\nRECURRENCE-ID;TZID=Europe/Paris:20260105T090000\nSUMMARY:Moved\nEND:VEVENT\n\
                   END:VCALENDAR\n";
        let new = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:s\r\nSUMMARY:New\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let out = with_overrides(new, old);
        assert!(
            out.contains("SUMMARY:New") && out.contains("SUMMARY:Moved"),
            "{out}"
        );
        assert!(!out.contains("SUMMARY:Old"), "{out}");
        assert!(out.contains("TZID:Europe/Paris\r\n"), "{out}");
        assert!(out.ends_with("END:VEVENT\r\nEND:VCALENDAR\r\n"), "{out}");
    }
}
