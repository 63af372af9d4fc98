//! `almanac-server token …` and the server binary on a machine without an OS
//! keyring: the secret is shown once, on a terminal only; only its SHA-256 is
//! kept, in a 0600 file; the server accepts it, says where secrets are kept in
//! its log and `/doctor`, and maps no WebKit. No desktop session needed: the
//! D-Bus session address points at nothing, as on a bare server.

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Output};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use support::instance::AppHarness;
use support::{eventually, port_open};

const SERVER: &str = env!("CARGO_BIN_EXE_almanac-server");
const NO_KEYRING: (&str, &str) = ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus");

/// `almanac-server token ARGS` with its output piped (not a terminal).
fn token(instance: &AppHarness, args: &[&str]) -> Output {
    Command::new(SERVER)
        .arg("token")
        .args(args)
        .envs(instance.env())
        .env(NO_KEYRING.0, NO_KEYRING.1)
        .output()
        .unwrap()
}

/// `almanac-server token ARGS` on a pseudo-terminal (util-linux `script`).
fn token_on_terminal(instance: &AppHarness, args: &[&str]) -> Output {
    let command = std::iter::once(SERVER)
        .chain(std::iter::once("token"))
        .chain(args.iter().copied())
        .collect::<Vec<_>>()
        .join(" ");
    Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .envs(instance.env())
        .env(NO_KEYRING.0, NO_KEYRING.1)
        .output()
        .expect("script (util-linux)")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn without_a_keyring_a_terminal_minted_token_works_on_the_server() {
    let instance = AppHarness::with_settings(json!({ "restServerEnabled": true }));
    let data = instance.data_home().join("almanac");
    let hashes = data.join("token-hashes.json");

    // Not a terminal: refused before anything is made.
    let piped = token(&instance, &["create", "cron", "--scopes", "events:read"]);
    assert_eq!(piped.status.code(), Some(2), "{piped:?}");
    assert!(text(&piped.stderr).contains("terminal"), "{piped:?}");
    assert!(!hashes.exists() && !data.join("tokens.json").exists());

    let shown = token_on_terminal(&instance, &["create", "cron", "--scopes", "events:read"]);
    let out = text(&shown.stdout);
    assert!(shown.status.success(), "{out}");
    assert!(out.contains("keeping only the token's SHA-256"), "{out}");
    let secret = out
        .split_whitespace()
        .find(|word| word.starts_with("ofc_pat_"))
        .unwrap_or_else(|| panic!("no secret shown:\n{out}"))
        .to_string();
    let id = out
        .lines()
        .find(|line| line.contains("cron  [events:read]"))
        .and_then(|line| line.split_whitespace().next())
        .unwrap_or_else(|| panic!("no token line:\n{out}"))
        .to_string();

    // Only the hash, in a private file; the secret nowhere on disk.
    let stored = std::fs::read_to_string(&hashes).unwrap();
    let hex: String = Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert!(
        stored.contains(&hex) && !stored.contains(&secret),
        "{stored}"
    );
    let mode = std::fs::metadata(&hashes).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let metadata = std::fs::read_to_string(data.join("tokens.json")).unwrap();
    assert!(metadata.contains("cron") && !metadata.contains(&secret));

    let listed = token(&instance, &["list"]);
    let listed_text = text(&listed.stdout);
    assert!(listed.status.success(), "{listed:?}");
    assert!(listed_text.contains(&id) && listed_text.contains("active"));
    assert!(!listed_text.contains(&secret));

    // The server, without a keyring, accepts the token and says why it can.
    let mut app = instance.spawn_program(SERVER.as_ref(), &[], [NO_KEYRING]);
    for port in [instance.rest_port, instance.daemon_port] {
        eventually("both ports", || async { port_open(port).then_some(()) }).await;
    }
    assert_eq!(
        instance
            .api_status(&secret, "/events?start=2026-01-01&end=2026-01-02")
            .await,
        reqwest::StatusCode::OK,
        "log:\n{}",
        instance.log()
    );
    let doctor: Value = reqwest::get(format!("http://127.0.0.1:{}/doctor", instance.daemon_port))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let secrets = &doctor["host"]["tokens"]["secrets"];
    assert_eq!(secrets["store"], "hashFile", "{doctor}");
    assert_eq!(secrets["path"], hashes.display().to_string());
    assert!(
        instance.log().contains("no OS keyring in use"),
        "{}",
        instance.log()
    );

    // No WebKit or GTK in the server's address space.
    let maps = std::fs::read_to_string(format!("/proc/{}/maps", app.pid())).unwrap();
    assert!(
        maps.contains("libc.so") || maps.contains("libc-"),
        "maps read"
    );
    for library in ["libwebkit2gtk", "libjavascriptcoregtk", "libgtk-3"] {
        assert!(!maps.contains(library), "{library} is mapped");
    }

    // A running instance is a refusal, not a race.
    let busy = token(&instance, &["revoke", &id]);
    assert_eq!(busy.status.code(), Some(1));
    assert!(text(&busy.stderr).contains("is running"), "{busy:?}");

    app.terminate();
    assert!(app.exited().await.success());
    let revoked = token(&instance, &["revoke", &id]);
    assert!(revoked.status.success(), "{revoked:?}");
    assert!(text(&revoked.stdout).contains("revoked"));
    assert!(!std::fs::read_to_string(&hashes).unwrap().contains(&hex));
}
