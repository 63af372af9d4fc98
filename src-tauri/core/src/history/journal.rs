//! The journal file: one JSON line per step of a change, appended, and an
//! index of its changes in memory (where each op's line is, never the
//! files' bytes, so memory stays small whatever size the notes are).
//!
//! Opening reads the file once: a torn last line (a crash mid-append) and a
//! line that does not parse are left out, and each change without its
//! `done` line is settled against the disk (see the module doc of
//! [`super`]). Whenever that changed anything, and whenever the changes
//! pruned past the bounds leave enough dead lines, the file is rewritten
//! with the live ones only (`fsutil::atomic_write_private`: 0600, never half
//! written).

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::author::Author;
use super::record::{Bytes, Change, FileAction, FileChange, Line, Op};
use crate::fsutil::{atomic_write_private, create_private_dir};

/// How many changes the history keeps, at most.
pub const MAX_CHANGES: usize = 5000;
/// How old a change may get before it is pruned, in days.
pub const MAX_AGE_DAYS: i64 = 90;

/// The bounds of a history: the oldest changes past either are pruned.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub count: usize,
    pub age: chrono::Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            count: MAX_CHANGES,
            age: chrono::Duration::days(MAX_AGE_DAYS),
        }
    }
}

/// What a change is made with, the same for each of its ops.
#[derive(Debug, Clone)]
pub(super) struct Meta {
    pub at: DateTime<Utc>,
    pub author: Author,
    pub undoes: Option<u64>,
    pub vault: PathBuf,
}

/// Where one line is in the file (without its newline).
#[derive(Debug, Clone, Copy)]
struct Span {
    offset: u64,
    len: usize,
}

struct Entry {
    change: Change,
    vault: PathBuf,
    /// Each op's line and its `seq`, in the order of `change.files`.
    ops: Vec<(Span, usize)>,
    next_seq: usize,
    done: bool,
}

impl Entry {
    fn new(id: u64, meta: &Meta) -> Entry {
        Entry {
            change: Change {
                id,
                at: meta.at,
                author: meta.author.clone(),
                undoes: meta.undoes,
                files: Vec::new(),
            },
            vault: meta.vault.clone(),
            ops: Vec::new(),
            next_seq: 0,
            done: false,
        }
    }

    fn push(&mut self, op: &Op, span: Span) {
        self.change.files.push(FileChange {
            path: op.path.clone(),
            action: FileAction::of(op.before.is_some(), op.after.is_some()),
        });
        self.ops.push((span, op.seq));
        self.next_seq = self.next_seq.max(op.seq + 1);
    }

    fn remove(&mut self, seq: usize) {
        if let Some(index) = self.ops.iter().position(|&(_, s)| s == seq) {
            self.ops.remove(index);
            self.change.files.remove(index);
        }
    }
}

pub(super) struct Journal {
    path: PathBuf,
    file: File,
    len: u64,
    entries: BTreeMap<u64, Entry>,
    next_id: u64,
    /// Changes pruned from `entries` whose lines are still in the file.
    dead: usize,
    limits: Limits,
}

impl Journal {
    pub fn open(path: &Path, limits: Limits) -> io::Result<Journal> {
        if let Some(dir) = path.parent() {
            create_private_dir(dir)?;
        }
        let bytes = match fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        let (entries, next_id, clean) = load(&bytes);
        let mut journal = Journal {
            path: path.to_path_buf(),
            file: open_append(path)?,
            len: bytes.len() as u64,
            entries,
            next_id,
            dead: 0,
            limits,
        };
        let settled = journal.settle(&bytes);
        journal.prune(Utc::now());
        if !clean || settled || journal.dead > 0 {
            journal.compact_from(&bytes)?;
        }
        Ok(journal)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Decides each change left without its `done` line: an op whose file
    /// holds its after-state was written and is kept, any other was not
    /// and is dropped; a change left with no op is dropped. True when there
    /// was any.
    fn settle(&mut self, bytes: &[u8]) -> bool {
        let open: Vec<u64> = self
            .entries
            .iter()
            .filter(|(_, entry)| !entry.done)
            .map(|(&id, _)| id)
            .collect();
        for id in &open {
            let entry = self.entries.get_mut(id).expect("listed above");
            let written: Vec<usize> = entry
                .ops
                .iter()
                .filter_map(|&(span, seq)| {
                    let op = parse_op(&bytes[span.range()])?;
                    let now = read_state(&entry.vault.join(&op.path)).ok()?;
                    (now.as_deref() == op.after.as_ref().map(|b| b.0.as_slice())).then_some(seq)
                })
                .collect();
            let unwritten: Vec<usize> = entry
                .ops
                .iter()
                .map(|&(_, seq)| seq)
                .filter(|seq| !written.contains(seq))
                .collect();
            for seq in unwritten {
                entry.remove(seq);
            }
            entry.done = true;
            if entry.ops.is_empty() {
                self.entries.remove(id);
            }
        }
        !open.is_empty()
    }

    /// Appends the op of `path` to change `id` (a new change when `None`),
    /// durably, before the file is written; returns the change's id.
    pub fn begin_op(
        &mut self,
        id: Option<u64>,
        meta: &Meta,
        path: &str,
        before: Option<Vec<u8>>,
        after: Option<&[u8]>,
    ) -> io::Result<u64> {
        let id = id.unwrap_or_else(|| {
            self.next_id += 1;
            self.next_id
        });
        let seq = self.entries.get(&id).map_or(0, |entry| entry.next_seq);
        let op = Op {
            change: id,
            seq,
            at: meta.at,
            author: meta.author.clone(),
            undoes: meta.undoes,
            vault: meta.vault.clone(),
            path: path.to_string(),
            before: before.map(Bytes),
            after: after.map(|bytes| Bytes(bytes.to_vec())),
        };
        let span = self.append(&Line::Op(op.clone()), true)?;
        self.entries
            .entry(id)
            .or_insert_with(|| Entry::new(id, meta))
            .push(&op, span);
        Ok(id)
    }

    /// The last op of change `id` failed: nothing of it was written.
    pub fn fail_op(&mut self, id: u64) {
        let Some(entry) = self.entries.get_mut(&id) else {
            return;
        };
        let Some(&(_, seq)) = entry.ops.last() else {
            return;
        };
        entry.remove(seq);
        if entry.ops.is_empty() {
            self.entries.remove(&id);
        }
        // Durable, so a later `done` cannot count it in after a crash.
        if let Err(error) = self.append(&Line::Failed { change: id, seq }, true) {
            tracing::warn!(%error, "history: cannot note a failed write; reopening settles it");
        }
    }

    /// Every op of change `id` was written.
    pub fn finish(&mut self, id: u64) {
        let Some(entry) = self.entries.get_mut(&id) else {
            return;
        };
        entry.done = true;
        // Not fsynced: after a crash, the ops' after-states on disk say the
        // same (`settle`).
        if let Err(error) = self.append(&Line::Done { change: id }, false) {
            tracing::warn!(%error, "history: cannot note a finished change; reopening settles it");
        }
        self.prune(Utc::now());
        if self.dead > self.limits.count / 10
            && let Err(error) = self.compact()
        {
            tracing::warn!(%error, "history: cannot rewrite the journal without pruned changes");
        }
    }

    /// The finished changes, oldest first.
    pub fn changes(&self) -> impl DoubleEndedIterator<Item = &Change> {
        self.entries
            .values()
            .filter(|entry| entry.done)
            .map(|entry| &entry.change)
    }

    /// The vault and ops of finished change `id`, read back from the file.
    pub fn ops(&self, id: u64) -> io::Result<Option<(PathBuf, Vec<Op>)>> {
        let Some(entry) = self.entries.get(&id).filter(|entry| entry.done) else {
            return Ok(None);
        };
        let mut file = File::open(&self.path)?;
        let mut ops = Vec::with_capacity(entry.ops.len());
        for (span, _) in &entry.ops {
            let mut line = vec![0; span.len];
            file.seek(SeekFrom::Start(span.offset))?;
            file.read_exact(&mut line)?;
            let op = parse_op(&line).ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidData, "a line of the history changed")
            })?;
            ops.push(op);
        }
        Ok(Some((entry.vault.clone(), ops)))
    }

    fn prune(&mut self, now: DateTime<Utc>) {
        let oldest_kept = now - self.limits.age;
        loop {
            let over = self.entries.len() > self.limits.count;
            let Some(entry) = self.entries.first_entry() else {
                break;
            };
            if !entry.get().done || !(over || entry.get().change.at < oldest_kept) {
                break;
            }
            entry.remove();
            self.dead += 1;
        }
    }

    fn compact(&mut self) -> io::Result<()> {
        let bytes = fs::read(&self.path)?;
        self.compact_from(&bytes)
    }

    /// Rewrites the file with the lines of the changes in `entries` only
    /// (`bytes` is the file as it is).
    fn compact_from(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut out = Vec::new();
        for entry in self.entries.values_mut() {
            for (span, _) in &mut entry.ops {
                let line = &bytes[span.range()];
                *span = Span {
                    offset: out.len() as u64,
                    len: line.len(),
                };
                out.extend_from_slice(line);
                out.push(b'\n');
            }
            if entry.done {
                let done = serde_json::to_vec(&Line::Done {
                    change: entry.change.id,
                })?;
                out.extend_from_slice(&done);
                out.push(b'\n');
            }
        }
        atomic_write_private(&self.path, &out)?;
        self.file = open_append(&self.path)?;
        self.len = out.len() as u64;
        self.dead = 0;
        Ok(())
    }

    fn append(&mut self, line: &Line, sync: bool) -> io::Result<Span> {
        let mut bytes = serde_json::to_vec(line)?;
        let len = bytes.len();
        bytes.push(b'\n');
        let offset = self.len;
        let written = self
            .file
            .write_all(&bytes)
            .and_then(|()| if sync { self.file.sync_data() } else { Ok(()) });
        if let Err(error) = written {
            // A torn line must not run into the next one.
            let _ = self.file.set_len(offset);
            return Err(error);
        }
        self.len += bytes.len() as u64;
        Ok(Span { offset, len })
    }
}

impl Span {
    fn range(&self) -> std::ops::Range<usize> {
        self.offset as usize..self.offset as usize + self.len
    }
}

/// The changes of a journal's bytes, the next id, and whether every line
/// was whole and readable.
fn load(bytes: &[u8]) -> (BTreeMap<u64, Entry>, u64, bool) {
    let mut entries: BTreeMap<u64, Entry> = BTreeMap::new();
    let mut last_id = 0;
    let mut clean = true;
    let mut offset = 0;
    while offset < bytes.len() {
        let Some(end) = bytes[offset..].iter().position(|&b| b == b'\n') else {
            // Torn by a crash mid-append: never fsynced, so never acted on.
            clean = false;
            break;
        };
        let span = Span {
            offset: offset as u64,
            len: end,
        };
        offset += end + 1;
        match serde_json::from_slice::<Line>(&bytes[span.range()]) {
            Ok(Line::Op(op)) => {
                last_id = last_id.max(op.change);
                let meta = Meta {
                    at: op.at,
                    author: op.author.clone(),
                    undoes: op.undoes,
                    vault: op.vault.clone(),
                };
                entries
                    .entry(op.change)
                    .or_insert_with(|| Entry::new(op.change, &meta))
                    .push(&op, span);
            }
            Ok(Line::Failed { change, seq }) => {
                if let Some(entry) = entries.get_mut(&change) {
                    entry.remove(seq);
                }
                clean = false;
            }
            Ok(Line::Done { change }) => {
                if let Some(entry) = entries.get_mut(&change) {
                    entry.done = true;
                }
            }
            Err(error) => {
                tracing::warn!(%error, "history: a line of the journal is unreadable; left out");
                clean = false;
            }
        }
    }
    entries.retain(|_, entry| !entry.ops.is_empty());
    (entries, last_id, clean)
}

fn parse_op(line: &[u8]) -> Option<Op> {
    match serde_json::from_slice(line) {
        Ok(Line::Op(op)) => Some(op),
        _ => None,
    }
}

/// A file's bytes, `None` when there is no file.
pub(super) fn read_state(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn open_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(crate::fsutil::PRIVATE_FILE);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(vault: &Path) -> Meta {
        Meta {
            at: Utc::now(),
            author: Author::Cli,
            undoes: None,
            vault: vault.to_path_buf(),
        }
    }

    fn one_change(journal: &mut Journal, vault: &Path, name: &str) -> u64 {
        let id = journal
            .begin_op(None, &meta(vault), name, None, Some(b"x"))
            .unwrap();
        fs::write(vault.join(name), b"x").unwrap();
        journal.finish(id);
        id
    }

    #[test]
    fn the_oldest_changes_past_the_count_are_pruned_and_stay_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("history/changes.jsonl");
        let limits = Limits {
            count: 20,
            age: chrono::Duration::days(1),
        };
        let mut journal = Journal::open(&file, limits).unwrap();
        let ids: Vec<u64> = (0..50)
            .map(|n| one_change(&mut journal, dir.path(), &format!("{n}.md")))
            .collect();
        let kept: Vec<u64> = journal.changes().map(|c| c.id).collect();
        assert_eq!(kept, ids[30..]);
        drop(journal);
        let reopened = Journal::open(&file, limits).unwrap();
        let kept: Vec<u64> = reopened.changes().map(|c| c.id).collect();
        assert_eq!(kept, ids[30..]);
        let lines = fs::read_to_string(&file).unwrap().lines().count();
        assert_eq!(lines, 40, "one op and one done line per kept change");
        let (_, ops) = reopened.ops(ids[49]).unwrap().unwrap();
        assert_eq!(ops[0].path, "49.md");
    }

    #[test]
    fn changes_older_than_the_age_are_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("changes.jsonl");
        let mut journal = Journal::open(&file, Limits::default()).unwrap();
        let old = Meta {
            at: Utc::now() - chrono::Duration::days(MAX_AGE_DAYS + 1),
            ..meta(dir.path())
        };
        let id = journal.begin_op(None, &old, "a.md", None, None).unwrap();
        journal.finish(id);
        assert_eq!(journal.changes().count(), 0);
        let recent = one_change(&mut journal, dir.path(), "b.md");
        assert_eq!(
            journal.changes().map(|c| c.id).collect::<Vec<_>>(),
            [recent]
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_journal_and_its_folder_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("history/changes.jsonl");
        let mut journal = Journal::open(&file, Limits::default()).unwrap();
        one_change(&mut journal, dir.path(), "a.md");
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(file.parent().unwrap()), 0o700);
    }

    #[test]
    fn a_torn_last_line_is_left_out_and_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("changes.jsonl");
        let mut journal = Journal::open(&file, Limits::default()).unwrap();
        let id = one_change(&mut journal, dir.path(), "a.md");
        drop(journal);
        let mut torn = OpenOptions::new().append(true).open(&file).unwrap();
        torn.write_all(br#"{"line":"op","change":9"#).unwrap();
        let mut journal = Journal::open(&file, Limits::default()).unwrap();
        let next = one_change(&mut journal, dir.path(), "b.md");
        drop(journal);
        let reopened = Journal::open(&file, Limits::default()).unwrap();
        let ids: Vec<u64> = reopened.changes().map(|c| c.id).collect();
        assert_eq!(ids, [id, next]);
    }
}
