//! The database folder is the user's alone (`almanac_loopback::private_dir`,
//! applied when the store opens): checked on what sled really creates.

use std::os::unix::fs::PermissionsExt;

use super::SledStore;

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
