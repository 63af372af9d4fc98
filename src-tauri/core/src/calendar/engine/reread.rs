//! Re-reading notes into the cache: a full rescan (at start, after a
//! settings change, or when the watcher lost track), and single paths (own
//! writes, watcher batches). Both serialize on `refresh_lock`, so an older
//! read never overwrites a newer one.

use std::path::PathBuf;
use std::time::Instant;

use super::scan;
use super::watcher::ChangeSink;
use crate::calendar::engine::{Inner, lock};

impl Inner {
    /// Re-reads every note of every note source.
    /// An unavailable vault is not read: its note sources end up empty.
    pub(in crate::calendar) fn rescan_notes(&self) {
        let _refresh = lock(&self.refresh_lock);
        let started = Instant::now();
        let (vault, configs, tz, usable) = {
            let state = self.read();
            let configs = state.cache.configs();
            let usable = state.vault_status.is_available();
            (state.vault.clone(), configs, state.cache.display_tz, usable)
        };
        let jobs: Vec<(usize, String)> = configs
            .iter()
            .enumerate()
            .filter(|_| usable)
            .flat_map(|(index, source)| {
                scan::note_paths(&vault, source, "")
                    .into_iter()
                    .map(move |path| (index, path))
            })
            .collect();
        let results = scan::read_notes(&vault, &configs, &jobs, tz);
        let mut state = self.write();
        for (index, source) in configs.iter().enumerate() {
            if source.dir().is_some() {
                state.cache.clear_source(index);
            }
        }
        for (index, path, parsed) in results {
            if let Some(parsed) = parsed {
                state.cache.put_note(index, &path, parsed);
            }
        }
        state.cache.last_scan = started.elapsed();
        drop(state);
        tracing::info!(
            notes = jobs.len(),
            millis = started.elapsed().as_millis() as u64,
            "vault indexed"
        );
        self.bump();
    }

    /// Re-reads vault-relative paths (notes or folders) for every source
    /// that owns them. Returns whether the cache changed.
    pub(in crate::calendar) fn refresh(&self, rels: &[String]) -> bool {
        let _refresh = lock(&self.refresh_lock);
        let (vault, configs, tz) = {
            let state = self.read();
            let configs = state.cache.configs();
            (state.vault.clone(), configs, state.cache.display_tz)
        };
        let mut reads = Vec::new();
        let mut gone = Vec::new();
        {
            let state = self.read();
            for (index, source) in configs.iter().enumerate() {
                if source.dir().is_none() {
                    continue;
                }
                for rel in rels {
                    match std::fs::symlink_metadata(vault.root().join(rel)) {
                        Ok(meta) if meta.is_file() => {
                            if source.owns(rel) {
                                reads.push((index, rel.clone()));
                            }
                        }
                        Ok(meta) if meta.is_dir() => {
                            // A folder appeared or moved here: read what is in
                            // it, forget what no longer is.
                            let present = scan::note_paths(&vault, source, rel);
                            for cached in state.cache.paths_under(index, rel) {
                                if !present.contains(&cached) {
                                    gone.push((index, cached));
                                }
                            }
                            reads.extend(present.into_iter().map(|p| (index, p)));
                        }
                        _ if state.cache.has_note(index, rel) => gone.push((index, rel.clone())),
                        // Gone and not a note: maybe a folder of notes.
                        _ => gone.extend(
                            state
                                .cache
                                .paths_under(index, rel)
                                .into_iter()
                                .map(|p| (index, p)),
                        ),
                    }
                }
            }
        }
        let results = if reads.len() > 64 {
            scan::read_notes(&vault, &configs, &reads, tz)
        } else {
            reads
                .into_iter()
                .map(|(index, path)| {
                    let parsed = scan::read_note(&vault, &configs[index], &path, tz);
                    (index, path, parsed)
                })
                .collect()
        };
        let mut changed = false;
        let mut state = self.write();
        for (index, path) in gone {
            changed |= state.cache.remove_note(index, &path);
        }
        for (index, path, parsed) in results {
            changed |= match parsed {
                Some(parsed) => state.cache.put_note(index, &path, parsed),
                None => state.cache.remove_note(index, &path),
            };
        }
        drop(state);
        if changed {
            self.bump();
        }
        changed
    }
}

/// A batch of changed paths larger than this is handled by a full rescan,
/// which is cheaper than many single re-reads.
const RESCAN_BATCH: usize = 2_000;

impl ChangeSink for Inner {
    fn paths_changed(&self, paths: &[PathBuf]) {
        if paths.len() > RESCAN_BATCH {
            return self.rescan_notes();
        }
        let rels: Vec<String> = {
            let state = self.read();
            paths
                .iter()
                .filter_map(|p| state.vault.relative(p))
                .collect()
        };
        self.refresh(&rels);
    }

    fn rescan(&self) {
        self.rescan_notes();
    }
}
