//! The crate's layout, checked from its source (issue 33, "the engine in
//! rooms"): no import circle between the crate's top-level modules, nor
//! between the rooms of `calendar/` but those named below with why; a
//! `calendar/` root of at most ten files; a module doc in every folder.
//!
//! A circle is found from the paths each file names (`use` trees and paths
//! in code, see [`scan`]). Each known circle is allowed as the one import
//! that closes it (`from → to`), named with why it is still there: the
//! imports left once those are taken out must form no circle. An allowed
//! import that no longer exists, or no longer closes a circle, fails too,
//! so the list only shrinks.
//!
//! [`no_fall_through`] checks the source-kind registry's rule the same way:
//! no match on a kind outside the registry (`kinds/`) falls through.

mod no_fall_through;
mod scan;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use scan::{File, ModPath};

/// Imports between the rooms of `calendar/` that close a circle today.
const CALENDAR_CIRCLES: &[(&str, &str, &str)] = &[
    (
        "index",
        "engine",
        "the readers answering from the cache (`listing`, `note_occurrences`, \
         `per_day`) are `impl Calendar` blocks, as the engine is composed of \
         its rooms (see `engine`'s module doc)",
    ),
    (
        "write",
        "engine",
        "writes (`dispatch`, `detach`) are `impl Calendar` blocks, as the \
         engine is composed of its rooms",
    ),
    (
        "sources",
        "engine",
        "the CalDAV source's engine side (`worker`, `writes`, `moves`) is \
         `impl Calendar` blocks, kept with the rest of the CalDAV client",
    ),
    (
        "sources",
        "write",
        "a move out of a CalDAV calendar writes its note side with the note \
         writer (`write::notes`)",
    ),
    (
        "index",
        "sources",
        "the occurrence index's tests read their notes with the Full Note \
         reader (`sources::fullnote`)",
    ),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The modules `files` import from each other, grouped by `node` (which
/// returns `None` for a file or path outside the graph), with the files
/// and paths that make each import.
fn graph(
    files: &[File],
    node: impl Fn(&ModPath) -> Option<String>,
) -> BTreeMap<(String, String), BTreeSet<String>> {
    let mut edges: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let Some(from) = node(&file.module) else {
            continue;
        };
        for name in &file.names {
            if let Some(to) = node(name).filter(|to| *to != from) {
                let shown = format!("{} names {}", file.path.display(), name.join("::"));
                edges.entry((from.clone(), to)).or_default().insert(shown);
            }
        }
    }
    edges
}

/// A circle in `edges`, as the modules on it, if there is one.
fn find_circle(edges: &BTreeSet<(String, String)>) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        edges: &BTreeSet<(String, String)>,
        on_path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = on_path.iter().position(|m| m == at) {
            let mut circle = on_path[start..].to_vec();
            circle.push(at.to_owned());
            return Some(circle);
        }
        if !done.insert(at.to_owned()) {
            return None;
        }
        on_path.push(at.to_owned());
        for (_, to) in edges.iter().filter(|(from, _)| from == at) {
            if let Some(circle) = visit(to, edges, on_path, done) {
                return Some(circle);
            }
        }
        on_path.pop();
        None
    }
    let mut done = BTreeSet::new();
    let starts: BTreeSet<&String> = edges.iter().map(|(from, _)| from).collect();
    starts
        .into_iter()
        .find_map(|start| visit(start, edges, &mut Vec::new(), &mut done))
}

/// Whether `to` reaches `from` in `edges`, so that `from → to` closes a circle.
fn closes_circle(edges: &BTreeSet<(String, String)>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut next = vec![to.to_owned()];
    while let Some(at) = next.pop() {
        if at == from {
            return true;
        }
        if seen.insert(at.clone()) {
            next.extend(
                edges
                    .iter()
                    .filter(|(f, _)| *f == at)
                    .map(|(_, t)| t.clone()),
            );
        }
    }
    false
}

/// What is wrong with `edges` against the `allowed` circle-closing imports.
fn circle_faults(
    what: &str,
    edges: &BTreeMap<(String, String), BTreeSet<String>>,
    allowed: &[(&str, &str, &str)],
) -> Vec<String> {
    let all: BTreeSet<(String, String)> = edges.keys().cloned().collect();
    let mut faults = Vec::new();
    for (from, to, _) in allowed {
        let edge = ((*from).to_owned(), (*to).to_owned());
        if !all.contains(&edge) {
            faults.push(format!(
                "{what}: {from} no longer imports {to}: remove it from the allowed circles"
            ));
        } else if !closes_circle(&all, from, to) {
            faults.push(format!("{what}: {from} → {to} no longer closes a circle: remove it from the allowed circles"));
        }
    }
    let left: BTreeSet<(String, String)> = all
        .iter()
        .filter(|(f, t)| !allowed.iter().any(|(af, at, _)| f == af && t == at))
        .cloned()
        .collect();
    if let Some(circle) = find_circle(&left) {
        let evidence: Vec<String> = circle
            .windows(2)
            .map(|pair| {
                let shown = &edges[&(pair[0].clone(), pair[1].clone())];
                format!(
                    "  {} → {}: {}",
                    pair[0],
                    pair[1],
                    shown.iter().next().unwrap()
                )
            })
            .collect();
        faults.push(format!(
            "{what}: a new import circle {}:\n{}",
            circle.join(" → "),
            evidence.join("\n")
        ));
    }
    faults
}

/// The names of the modules directly in `dir` (files and folders).
fn children(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|name| name != "mod" && name != "lib")
        .collect()
}

#[test]
fn no_circle_between_top_level_modules() {
    let top = children(&src());
    let files = scan::crate_files(&src());
    let edges = graph(&files, |path| {
        path.first().filter(|m| top.contains(*m)).cloned()
    });
    // None is allowed: what every layer shares lives below it (the model
    // crate, `scopes`, `kinds`, `loopback_server`, `api::query_slots`).
    let faults = circle_faults("top-level modules", &edges, &[]);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn no_new_circle_between_the_rooms_of_calendar() {
    let rooms = children(&src().join("calendar"));
    let files = scan::crate_files(&src());
    let edges = graph(&files, |path| match path.as_slice() {
        [top, room, ..] if top == "calendar" && rooms.contains(room) => Some(room.clone()),
        _ => None,
    });
    let faults = circle_faults("calendar's rooms", &edges, CALENDAR_CIRCLES);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn the_root_of_calendar_holds_at_most_ten_files() {
    let files: Vec<String> = std::fs::read_dir(src().join("calendar"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        files.len() <= 10,
        "calendar/ holds {} files at its root: {files:?}",
        files.len()
    );
}

#[test]
fn every_folder_has_a_module_doc() {
    fn folders(dir: &Path, into: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                into.push(path.clone());
                folders(&path, into);
            }
        }
    }
    let mut all = Vec::new();
    folders(&src(), &mut all);
    let undocumented: Vec<String> = all
        .iter()
        .filter(|dir| {
            let inside = dir.join("mod.rs");
            let beside = dir.with_extension("rs");
            let module = if inside.exists() { inside } else { beside };
            let text = std::fs::read_to_string(&module).unwrap_or_default();
            !text.trim_start().starts_with("//!")
        })
        .map(|dir| dir.display().to_string())
        .collect();
    assert!(
        undocumented.is_empty(),
        "folders without a module doc: {undocumented:#?}"
    );
}

#[test]
fn the_scan_finds_a_circle_and_resolves_paths() {
    let edge = |from: &str, to: &str| (from.to_owned(), to.to_owned());
    let circle: BTreeSet<_> = [edge("a", "b"), edge("b", "c"), edge("c", "a")].into();
    assert_eq!(
        find_circle(&circle),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert!(closes_circle(&circle, "c", "a"));
    let line: BTreeSet<_> = [edge("a", "b"), edge("b", "c")].into();
    assert_eq!(find_circle(&line), None);
    assert!(!closes_circle(&line, "b", "c"));
    // A re-export resolves to where the item lives: api/authorized.rs
    // imports `crate::calendar::{Event, …}`.
    let files = scan::crate_files(&src());
    let api = files
        .iter()
        .find(|f| f.module.join("::") == "api::authorized")
        .expect("api/authorized.rs");
    let names: Vec<String> = api.names.iter().map(|n| n.join("::")).collect();
    assert!(
        names.contains(&"calendar::engine::source_info::SourceInfo".to_owned()),
        "{names:#?}"
    );
}
