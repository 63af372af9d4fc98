//! The cached test virtualenvs on a fresh machine: tests run side by side,
//! so several ask for the same venv at once on an empty cache. Each must be
//! made once, by whoever asks first, and every asker must get the same,
//! finished venv (the bug: two `python3 -m venv` into one folder, "File
//! exists", and a venv used before pip was in it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(name)
}

/// Starts `scripts/<name>` with `cache` as its XDG cache, output piped.
fn start(name: &str, cache: &Path) -> std::process::Child {
    Command::new(script(name))
        .env("XDG_CACHE_HOME", cache)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{name} cannot run: {e}"))
}

fn printed_venv(name: &str, output: &Output) -> PathBuf {
    assert!(
        output.status.success(),
        "{name} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    PathBuf::from(String::from_utf8(output.stdout.clone()).unwrap().trim())
}

/// Python of `venv` imports `module`: the venv is whole, its packages in.
fn imports(venv: &Path, module: &str) -> bool {
    Command::new(venv.join("bin/python"))
        .args(["-c", &format!("import {module}")])
        .status()
        .is_ok_and(|s| s.success())
}

/// Waits until `cache` holds the folder of a venv named `name` being made:
/// the first asker is mid-build.
fn wait_for_build_under_way(cache: &Path, name: &str) {
    let deadline = std::time::Instant::now() + almanac_testkit::PATIENCE;
    let prefix = format!("{name}-venv-");
    loop {
        let started = std::fs::read_dir(cache.join("almanac")).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().is_dir() && e.file_name().to_string_lossy().starts_with(&prefix))
        });
        if started {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no {name} venv was started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn venv_scripts_run_concurrently_on_an_empty_cache_make_each_venv_once() {
    let cache = tempfile::tempdir().unwrap();
    let asks = [
        ("radicale-venv.sh", "radicale", "radicale"),
        ("ics-oracle-venv.sh", "ics-oracle", "recurring_ical_events"),
    ];
    // The first asker of each venv starts on the empty cache; the second
    // asks while the first is mid-build (the unlucky moment, every time).
    let firsts: Vec<_> = asks
        .iter()
        .map(|(script, _, _)| start(script, cache.path()))
        .collect();
    let seconds: Vec<_> = asks
        .iter()
        .map(|(script, name, _)| {
            wait_for_build_under_way(cache.path(), name);
            start(script, cache.path())
        })
        .collect();

    let printed = |children: Vec<std::process::Child>| -> Vec<PathBuf> {
        children
            .into_iter()
            .zip(asks)
            .map(|(child, (script, _, _))| printed_venv(script, &child.wait_with_output().unwrap()))
            .collect()
    };
    let (firsts, seconds) = (printed(firsts), printed(seconds));
    assert_eq!(firsts, seconds, "both askers of each venv get the same one");
    assert_ne!(firsts[0], firsts[1]);
    for (venv, (script, _, module)) in firsts.iter().zip(asks) {
        assert!(
            venv.starts_with(cache.path()),
            "{script}: {}",
            venv.display()
        );
        assert!(venv.join(".complete").is_file(), "{script}: finished");
        assert!(imports(venv, module), "{script}: {module} is installed");
    }
    assert!(
        firsts[0].join("bin/radicale").is_file(),
        "its scripts are in"
    );
}

/// A venv whose making was cut short (no `.complete`) is never used: the
/// next asker makes it again.
#[test]
fn a_half_made_venv_is_made_again() {
    let cache = tempfile::tempdir().unwrap();
    let first = printed_venv(
        "radicale-venv.sh",
        &start("radicale-venv.sh", cache.path())
            .wait_with_output()
            .unwrap(),
    );
    // As a killed build leaves it: the marker missing, packages half there.
    std::fs::remove_file(first.join(".complete")).unwrap();
    std::fs::remove_dir_all(first.join("bin")).unwrap();

    let again = printed_venv(
        "radicale-venv.sh",
        &start("radicale-venv.sh", cache.path())
            .wait_with_output()
            .unwrap(),
    );
    assert_eq!(again, first);
    assert!(again.join(".complete").is_file());
    assert!(imports(&again, "radicale"));
}
