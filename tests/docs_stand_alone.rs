//! The README and everything under docs/ must stand alone: a reader of the
//! repository has nothing outside it, so no document may point there (a
//! relative link climbing out of the repository, or a design or contract
//! file the repository does not hold), and every relative link must resolve.

use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("src-tauri has a parent")
        .to_path_buf()
}

/// README.md and every Markdown file in docs/.
fn documents() -> Vec<PathBuf> {
    let root = repository();
    let mut documents = vec![root.join("README.md"), root.join("BENCHMARKS.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/ exists") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            documents.push(path);
        }
    }
    documents
}

/// The targets of the Markdown links `[text](target)` in `text`.
fn link_targets(text: &str) -> Vec<&str> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            rest.find(')').map(|end| &rest[..end])
        })
        .collect()
}

#[test]
fn no_document_points_outside_the_repository() {
    let root = repository();
    let mut problems = Vec::new();
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        let name = document.strip_prefix(&root).unwrap().display().to_string();
        for outside in ["../shared", "shared/spec", "spec/000", "DESIGN.md"] {
            if text.contains(outside) {
                problems.push(format!("{name} mentions `{outside}`"));
            }
        }
        for target in link_targets(&text) {
            let target = target.split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let resolved = document.parent().unwrap().join(target);
            match resolved.canonicalize() {
                Ok(path) if path.starts_with(&root) => {}
                Ok(path) => problems.push(format!(
                    "{name} links to {target}, outside the repository ({})",
                    path.display()
                )),
                Err(_) => problems.push(format!("{name} links to {target}, which does not exist")),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
