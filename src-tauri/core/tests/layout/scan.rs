//! Reading the crate's module paths from its source: every `.rs` file under
//! `src/`, the module it is, and every `crate::…`, `super::…` and `self::…`
//! path it names (in `use` trees and in code), resolved to a path from the
//! crate root and through the `pub use` re-exports of the modules on the way.
//! Comments are left out: a doc link is not an import.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A module path from the crate root (`["calendar", "index", "cache"]`).
pub type ModPath = Vec<String>;

/// One source file: where it is, which module it is, the paths it names.
pub struct File {
    pub path: PathBuf,
    pub module: ModPath,
    pub names: Vec<ModPath>,
}

/// Every `.rs` file under `src`, with the paths it names resolved.
pub fn crate_files(src: &Path) -> Vec<File> {
    let mut paths = Vec::new();
    rust_files(src, &mut paths);
    paths.sort();
    let mut files: Vec<File> = paths
        .into_iter()
        .map(|path| {
            let module = module_of(path.strip_prefix(src).unwrap());
            let text = std::fs::read_to_string(&path).unwrap();
            let names = names_in(&module, &strip_comments(&text));
            File {
                path,
                module,
                names,
            }
        })
        .collect();
    let reexports = reexports(&files, src);
    for file in &mut files {
        for name in &mut file.names {
            *name = resolve(name, &reexports);
        }
    }
    files
}

/// Every `.rs` file under `dir`, into `into`.
pub fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

/// `calendar/index/mod.rs` is `calendar::index`, `calendar/vault.rs` is
/// `calendar::vault`, `lib.rs` the crate root.
fn module_of(relative: &Path) -> ModPath {
    let mut parts: ModPath = relative
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The text with `//` comments (doc comments included) blanked out.
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The absolute paths a file names. Its `mod tests { … }` (the usual last
/// item) sits one module deeper, which `super::` there accounts for.
fn names_in(module: &ModPath, text: &str) -> Vec<ModPath> {
    let (outer, tests) = match text.find("\nmod tests {") {
        Some(at) => text.split_at(at),
        None => (text, ""),
    };
    let mut tests_module = module.clone();
    tests_module.push("tests".into());
    let mut names = Vec::new();
    for (part, inside) in [(outer, module), (tests, &tests_module)] {
        let (trees, code) = use_trees(part);
        for (tree, _) in trees {
            for path in expand(&tree) {
                names.extend(absolute(inside, &path));
            }
        }
        for path in inline_paths(&code) {
            names.extend(absolute(inside, &path));
        }
    }
    names
}

/// The `use` statements' trees (whitespace and `as` aliases removed), each
/// with whether it is a `pub use` (of any visibility), and the rest of the
/// text.
fn use_trees(text: &str) -> (Vec<(String, bool)>, String) {
    let mut trees = Vec::new();
    let mut code = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        let line_end = rest.find('\n').map_or(rest.len(), |at| at + 1);
        let line = rest[..line_end].trim_start();
        let after_visibility = match line.strip_prefix("pub") {
            Some(tail) if tail.starts_with('(') => {
                tail.find(')').map(|at| tail[at + 1..].trim_start())
            }
            Some(tail) => Some(tail.trim_start()),
            None => Some(line),
        };
        match after_visibility.and_then(|l| l.strip_prefix("use ")) {
            Some(_) => {
                let start = rest.find("use ").unwrap() + 4;
                let end = rest[start..].find(';').map_or(rest.len(), |at| start + at);
                trees.push((without_aliases(&rest[start..end]), line.starts_with("pub")));
                rest = &rest[(end + 1).min(rest.len())..];
            }
            None => {
                code.push_str(&rest[..line_end]);
                rest = &rest[line_end..];
            }
        }
    }
    (trees, code)
}

/// A `use` tree's text without whitespace and without its `as` aliases
/// (`{self as write, B}` is `{self,B}`).
fn without_aliases(tree: &str) -> String {
    let mut out = String::new();
    let mut words = tree.split_whitespace();
    while let Some(word) = words.next() {
        if word == "as" {
            let alias = words.next().unwrap_or("");
            out.push_str(alias.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_'));
        } else {
            out.push_str(word);
        }
    }
    out
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e` (segments).
fn expand(tree: &str) -> Vec<ModPath> {
    let Some(open) = tree.find('{') else {
        return vec![segments(tree)];
    };
    let head = segments(&tree[..open]);
    let body = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (at, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.extend(expand_under(&head, &body[start..at]));
                start = at + 1;
            }
            _ => {}
        }
    }
    out.extend(expand_under(&head, &body[start..]));
    out
}

fn expand_under(head: &ModPath, tree: &str) -> Vec<ModPath> {
    if tree.is_empty() {
        return Vec::new();
    }
    expand(tree)
        .into_iter()
        .map(|tail| {
            let tail = tail.into_iter().filter(|s| s != "self");
            head.iter().cloned().chain(tail).collect()
        })
        .collect()
}

/// A path's segments; a glob and a `self` leaf (`a::{self}`) left out.
fn segments(path: &str) -> ModPath {
    path.split("::")
        .enumerate()
        .filter(|(at, s)| !s.is_empty() && *s != "*" && (*at == 0 || *s != "self"))
        .map(|(_, s)| s.to_owned())
        .collect()
}

/// `crate::…`, `super::…` and `self::…` paths written in code.
fn inline_paths(code: &str) -> Vec<ModPath> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"]
        .iter()
        .flat_map(|head| code.match_indices(head).map(|(at, _)| at))
    {
        if start > 0
            && (bytes[start - 1].is_ascii_alphanumeric() || b"_:".contains(&bytes[start - 1]))
        {
            continue;
        }
        let end = code[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .map_or(code.len(), |at| start + at);
        out.push(segments(&code[start..end]));
    }
    out
}

/// `path` from the crate root, if it starts at the crate, `super` or `self`.
fn absolute(module: &ModPath, path: &ModPath) -> Option<ModPath> {
    let first = path.first()?;
    let mut base = match first.as_str() {
        "crate" => return Some(path[1..].to_vec()),
        "self" => module.clone(),
        "super" => module.clone(),
        _ => return None,
    };
    let mut rest = &path[1..];
    if first == "super" {
        base.pop()?;
        while rest.first().is_some_and(|s| s == "super") {
            base.pop()?;
            rest = &rest[1..];
        }
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// Per module, what its `pub use` (any visibility) re-exports: the name it
/// is seen by, and the path it stands for.
fn reexports(files: &[File], src: &Path) -> BTreeMap<ModPath, BTreeMap<String, ModPath>> {
    let mut out: BTreeMap<ModPath, BTreeMap<String, ModPath>> = BTreeMap::new();
    for file in files {
        let text = strip_comments(&std::fs::read_to_string(&file.path).unwrap());
        let (trees, _) = use_trees(&text);
        for (tree, _) in trees.into_iter().filter(|(_, public)| *public) {
            for path in expand(&tree) {
                let relative: ModPath = match path.first().map(String::as_str) {
                    Some("crate" | "super" | "self") => match absolute(&file.module, &path) {
                        Some(p) => p,
                        None => continue,
                    },
                    Some(child) if is_child(src, &file.module, child) => file
                        .module
                        .iter()
                        .cloned()
                        .chain(path.iter().cloned())
                        .collect(),
                    _ => continue,
                };
                if let Some(name) = relative.last() {
                    out.entry(file.module.clone())
                        .or_default()
                        .insert(name.clone(), relative.clone());
                }
            }
        }
    }
    out
}

/// Whether `module` has a child module file or folder named `child`.
fn is_child(src: &Path, module: &ModPath, child: &str) -> bool {
    let dir = module
        .iter()
        .fold(src.to_path_buf(), |dir, part| dir.join(part));
    dir.join(format!("{child}.rs")).exists() || dir.join(child).is_dir()
}

/// `path` with each re-exported segment replaced by what it stands for.
fn resolve(path: &ModPath, reexports: &BTreeMap<ModPath, BTreeMap<String, ModPath>>) -> ModPath {
    let mut path = path.clone();
    for _ in 0..8 {
        let found = (0..path.len()).find_map(|at| {
            let target = reexports.get(&path[..at])?.get(&path[at])?;
            (target != &path[..=at]).then(|| (at, target.clone()))
        });
        match found {
            Some((at, target)) => {
                path = target
                    .into_iter()
                    .chain(path[at + 1..].iter().cloned())
                    .collect();
            }
            None => break,
        }
    }
    path
}
