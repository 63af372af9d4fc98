//! Black-box tests of the `almanac` binary in headless mode.

use std::process::Command;

#[test]
fn help_names_headless_mode() {
    let out = Command::new(env!("CARGO_BIN_EXE_almanac"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--headless"));
}

#[test]
fn unknown_argument_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_almanac"))
        .arg("--frobnicate")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown argument"));
}
