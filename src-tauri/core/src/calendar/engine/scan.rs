//! Finding and reading the notes of the note sources, in parallel.
//!
//! Hidden entries (names starting with `.`: `.obsidian`, `.trash`, our own
//! temp files) and symlinks are never followed, so a scan stays inside the
//! vault and never reads a half-written file.

use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use almanac_loopback::blocking::panic_message;
use chrono_tz::Tz;

use crate::calendar::sources::{ParsedNote, SourceConfig};
use crate::calendar::vault::Vault;
use almanac_model::status::SkippedNote;

/// Notes larger than this are skipped (an event note is a few KB).
const MAX_NOTE_BYTES: u64 = 8 * 1024 * 1024;

/// The vault-relative paths of the notes of `source` at or under `under`
/// (a vault-relative folder or file; `""` for the whole source folder).
pub fn note_paths(vault: &Vault, source: &SourceConfig, under: &str) -> Vec<String> {
    let Some(dir) = source.dir() else {
        return vec![];
    };
    let start = if under.is_empty() { dir } else { under };
    let mut found = Vec::new();
    let root = if start.is_empty() {
        vault.root().to_path_buf()
    } else {
        vault.root().join(start)
    };
    match fs::symlink_metadata(&root) {
        Ok(meta) if meta.is_file() && source.owns(start) => found.push(start.to_string()),
        Ok(meta) if meta.is_dir() => walk(vault, source, &root, &mut found),
        _ => {}
    }
    found
}

fn walk(vault: &Vault, source: &SourceConfig, dir: &Path, found: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            walk(vault, source, &path, found);
        } else if kind.is_file()
            && let Some(rel) = vault.relative(&path)
            && source.owns(&rel)
        {
            found.push(rel);
        }
    }
}

/// Reads one note. `None` when it no longer exists (or is not a regular
/// file); an unreadable note is a skipped one.
pub fn read_note(vault: &Vault, source: &SourceConfig, rel: &str, tz: Tz) -> Option<ParsedNote> {
    let path = vault.root().join(rel);
    let meta = fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let skipped = |reason: String| {
        Some(ParsedNote {
            entries: vec![],
            skipped: vec![SkippedNote {
                path: rel.to_string(),
                reason,
            }],
        })
    };
    if meta.len() > MAX_NOTE_BYTES {
        return skipped(format!("larger than {MAX_NOTE_BYTES} bytes"));
    }
    match fs::read(&path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Some(guarded(rel, || source.parse_note(rel, &text, tz))),
            Err(_) => skipped("not UTF-8 text".to_string()),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => skipped(format!("unreadable: {e}")),
    }
}

/// `parse`'s reading of note `rel`, or, when a reader panics on it (a bug
/// no check foresaw), the note left out with the reason: one note never
/// takes the scan, and every other note, down with it.
fn guarded(rel: &str, parse: impl FnOnce() -> ParsedNote) -> ParsedNote {
    catch_unwind(AssertUnwindSafe(parse)).unwrap_or_else(|panic| {
        let why = panic_message(panic.as_ref());
        tracing::error!(note = rel, "reading the note failed: {why}");
        ParsedNote {
            entries: vec![],
            skipped: vec![SkippedNote {
                path: rel.to_string(),
                reason: format!("Almanac could not read it (an internal error: {why})"),
            }],
        }
    })
}

/// Reads many notes on all cores. `jobs` are `(source index, path)`.
pub fn read_notes(
    vault: &Vault,
    sources: &[SourceConfig],
    jobs: &[(usize, String)],
    tz: Tz,
) -> Vec<(usize, String, Option<ParsedNote>)> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len().div_ceil(64).max(1));
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(jobs.len()));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut local = Vec::new();
                loop {
                    // Claim work in small batches: cheap to balance, few
                    // contended increments.
                    let first = next.fetch_add(32, Ordering::Relaxed);
                    if first >= jobs.len() {
                        break;
                    }
                    for (source, rel) in &jobs[first..(first + 32).min(jobs.len())] {
                        let parsed = read_note(vault, &sources[*source], rel, tz);
                        local.push((*source, rel.clone(), parsed));
                    }
                }
                results
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .extend(local);
            });
        }
    });
    results.into_inner().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_that_panics_leaves_its_note_out_with_the_reason() {
        let parsed = guarded("events/Odd.md", || panic!("index out of range"));
        assert!(parsed.entries.is_empty());
        assert_eq!(parsed.skipped.len(), 1);
        assert_eq!(parsed.skipped[0].path, "events/Odd.md");
        assert!(
            parsed.skipped[0].reason.contains("index out of range"),
            "{}",
            parsed.skipped[0].reason
        );
        let fine = guarded("events/Fine.md", || ParsedNote {
            entries: vec![],
            skipped: vec![],
        });
        assert!(fine.skipped.is_empty());
    }
}
