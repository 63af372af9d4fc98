//! The database folder is the user's alone: it holds every reminder's title
//! and link. sled creates its files with the default modes, so the folder is
//! made 0700 before sled opens it and its files narrowed to 0600 after
//! (files sled makes later are inside the 0700 folder already).

use std::io;
use std::path::Path;

#[cfg(unix)]
pub fn prepare(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(e),
        _ => Ok(()),
    }
}

/// Narrows `path` and everything under it: folders 0700, files 0600;
/// symlinks are left alone (never chmod through one).
#[cfg(unix)]
pub fn narrow(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let metadata = std::fs::symlink_metadata(path)?;
    let mode = if metadata.is_dir() {
        for entry in std::fs::read_dir(path)? {
            narrow(&entry?.path())?;
        }
        0o700
    } else if metadata.is_file() {
        0o600
    } else {
        return Ok(());
    };
    if metadata.permissions().mode() & 0o777 != mode {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

/// Windows: the data folder is in the user's profile, which only they can read.
#[cfg(not(unix))]
pub fn prepare(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(not(unix))]
pub fn narrow(_path: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::super::SledStore;

    fn modes_under(path: &std::path::Path, found: &mut Vec<(String, u32)>) {
        let metadata = std::fs::symlink_metadata(path).unwrap();
        found.push((
            path.display().to_string(),
            metadata.permissions().mode() & 0o777,
        ));
        if metadata.is_dir() {
            for entry in std::fs::read_dir(path).unwrap() {
                modes_under(&entry.unwrap().path(), found);
            }
        }
    }

    #[test]
    fn the_database_is_the_owners_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("reminders.sled");
        drop(SledStore::open(&path).unwrap());
        // A database an older version left readable is narrowed on opening.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let store = SledStore::open(&path).unwrap();
        store.db.flush().unwrap();
        let mut found = Vec::new();
        modes_under(&path, &mut found);
        assert!(found.len() > 1, "sled made files: {found:?}");
        for (name, mode) in found {
            let dir = std::fs::metadata(&name).unwrap().is_dir();
            assert_eq!(mode, if dir { 0o700 } else { 0o600 }, "{name}");
        }
    }
}
