//! One isolated Almanac instance: its own HOME, XDG config and data dirs,
//! vault and free ports, so tests run side by side without touching the
//! user's files or each other.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use almanac_core::clock::SystemClock;
use almanac_core::paths::Paths;
use almanac_core::tokens::{Expiry, KeyringSecretStore, NewToken, Scope, TokenStore};

use serde_json::{Value, json};

use super::free_port;

pub struct AppHarness {
    dir: tempfile::TempDir,
    pub rest_port: u16,
    pub daemon_port: u16,
}

impl AppHarness {
    /// A fresh instance whose settings put both servers on free ports; the
    /// REST server starts switched off, as on a first start.
    pub fn new() -> Self {
        Self::with_settings(json!({}))
    }

    /// Like [`AppHarness::new`], with `extra` merged into the settings file.
    pub fn with_settings(extra: Value) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let instance = AppHarness {
            dir,
            rest_port: free_port(),
            daemon_port: free_port(),
        };
        for sub in ["home", "config/almanac", "data", "vault/events"] {
            std::fs::create_dir_all(instance.root().join(sub)).unwrap();
        }
        let mut settings = json!({
            "restServerEnabled": false,
            "localServerPort": instance.rest_port,
            "vaultPath": instance.vault(),
            "displayTimezone": "UTC",
            // Not the machine locale's clock: the windows' times are the
            // same wherever the tests run.
            "timeFormat24h": false,
            "reminders": { "daemonPort": instance.daemon_port },
        });
        merge(&mut settings, extra);
        // The first-run question (start at login?) is answered, so it opens
        // no Settings window; tests/autostart.rs removes this to see it.
        std::fs::create_dir_all(instance.data_home().join("almanac")).unwrap();
        std::fs::write(
            instance.data_home().join("almanac/autostart-asked"),
            "asked\n",
        )
        .unwrap();
        std::fs::write(
            instance.root().join("config/almanac/settings.json"),
            serde_json::to_vec_pretty(&settings).unwrap(),
        )
        .unwrap();
        instance
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn vault(&self) -> PathBuf {
        self.root().join("vault")
    }

    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    pub fn config_home(&self) -> PathBuf {
        self.root().join("config")
    }

    pub fn data_home(&self) -> PathBuf {
        self.root().join("data")
    }

    /// The environment that points the app (and `xdg-open`) at this instance.
    pub fn env(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("HOME", self.home()),
            ("XDG_CONFIG_HOME", self.config_home()),
            ("XDG_DATA_HOME", self.data_home()),
        ]
    }

    /// Creates a token for this instance, as the Settings window does: its
    /// metadata in the instance's token file, its secret in the session's
    /// keyring (scripts/session.sh's gnome-keyring). Returns the secret. Call
    /// it while the app is not running: the app reads the file at start.
    pub fn mint_token(&self, scopes: &[Scope]) -> String {
        let paths = Paths::new(
            self.config_home().join("almanac"),
            self.data_home().join("almanac"),
        );
        let store = TokenStore::open(
            paths.tokens_file(),
            Arc::new(KeyringSecretStore::new()),
            Arc::new(SystemClock),
        )
        .unwrap();
        let created = store
            .create(NewToken {
                name: "black-box test".into(),
                scopes: scopes.iter().copied().collect(),
                expiry: Expiry::Never,
            })
            .expect("the session's keyring takes the secret");
        created.secret.expose().to_string()
    }

    /// Writes a Full Note event into the vault's `events` folder.
    pub fn write_note(&self, file_name: &str, frontmatter: &str) {
        std::fs::write(
            self.vault().join("events").join(file_name),
            format!("---\n{frontmatter}\n---\n"),
        )
        .unwrap();
    }

    /// Starts `almanac ARGS` in this instance, its output in `<root>/app.log`.
    pub fn spawn(&self, args: &[&str]) -> App {
        self.spawn_with_env(args, std::iter::empty::<(&str, &OsStr)>())
    }

    /// Like [`AppHarness::spawn`], with `extra` variables set (or overridden).
    pub fn spawn_with_env<K: AsRef<OsStr>, V: AsRef<OsStr>>(
        &self,
        args: &[&str],
        extra: impl IntoIterator<Item = (K, V)>,
    ) -> App {
        self.spawn_program(&super::app_binary(), args, extra)
    }

    /// A copy of the app binary in this instance, for tests that start the
    /// app more than once: every start runs the same build, even if the
    /// shared target directory's binary is rebuilt meanwhile.
    pub fn pinned_binary(&self) -> PathBuf {
        let copy = self.root().join("almanac");
        if !copy.exists() {
            // A hard link opens no file for writing; a copy's open write
            // handle, inherited by a process another test forks meanwhile,
            // makes exec fail with "Text file busy" (see `spawn_program`).
            std::fs::hard_link(super::app_binary(), &copy)
                .or_else(|_| std::fs::copy(super::app_binary(), &copy).map(drop))
                .unwrap();
        }
        copy
    }

    /// Starts `program` (the app binary, or a copy of it) in this instance.
    pub fn spawn_program<K: AsRef<OsStr>, V: AsRef<OsStr>>(
        &self,
        program: &Path,
        args: &[&str],
        extra: impl IntoIterator<Item = (K, V)>,
    ) -> App {
        let log = std::fs::File::create(self.root().join("app.log")).unwrap();
        let mut command = Command::new(program);
        command
            .args(args)
            .envs(self.env())
            .envs(extra)
            .env("ALMANAC_LOG", "info")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        // A freshly copied binary may be briefly "busy": a process forked by
        // another test thread while the copy was being written holds its
        // write handle until that process execs. It passes within moments.
        for _ in 0..50 {
            match command.spawn() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                started => return App(started.expect("start almanac")),
            }
        }
        App(command.spawn().expect("start almanac"))
    }

    /// What the app logged so far (for failure messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.root().join("app.log")).unwrap_or_default()
    }

    /// Registers a handler for `obsidian:` URLs in this instance's XDG dirs
    /// (what `xdg-open` consults): a script that appends the URL it is given
    /// to the returned file.
    pub fn register_url_handler(&self) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let opened = self.root().join("opened.txt");
        let script = self.root().join("record-url.sh");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n",
                opened.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let applications = self.data_home().join("applications");
        std::fs::create_dir_all(&applications).unwrap();
        std::fs::write(
            applications.join("almanac-test-opener.desktop"),
            format!(
                "[Desktop Entry]\nType=Application\nName=Almanac test opener\nExec={} %u\n\
                 MimeType=x-scheme-handler/obsidian;\nNoDisplay=true\n",
                script.display()
            ),
        )
        .unwrap();
        std::fs::write(
            self.config_home().join("mimeapps.list"),
            "[Default Applications]\nx-scheme-handler/obsidian=almanac-test-opener.desktop\n",
        )
        .unwrap();
        opened
    }

    /// Syncs `reminders` (a JSON array) to this instance's reminder daemon.
    pub async fn sync_reminders(&self, reminders: Value) {
        let response = reqwest::Client::new()
            .post(format!("http://127.0.0.1:{}/sync", self.daemon_port))
            .json(&reminders)
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "{}", response.status());
    }

    /// A token with `scopes`, put where the app finds tokens before it
    /// starts: its record in `tokens.json` and its secret in the session's
    /// real keyring (service `almanac-pat`, user = the token's id), as the
    /// settings window would. Returns the secret.
    pub fn seed_token(&self, name: &str, scopes: &[&str]) -> String {
        let id = format!("00000000-0000-4000-8000-{:012x}", rand_suffix());
        let secret = format!("ofc_pat_{:043}", rand_suffix());
        keyring_put(&id, name, &secret);
        let dir = self.data_home().join("almanac");
        std::fs::create_dir_all(&dir).unwrap();
        let record = json!({
            "id": id, "name": name, "scopes": scopes,
            "createdAt": "2026-01-01T00:00:00Z",
            "expiresAt": null, "lastUsedAt": null, "revokedAt": null,
        });
        std::fs::write(
            dir.join("tokens.json"),
            serde_json::to_vec(&json!({"version": 1, "tokens": [record]})).unwrap(),
        )
        .unwrap();
        secret
    }

    /// The `http://127.0.0.1:<rest port>/api/v1` base URL.
    pub fn api(&self) -> String {
        format!("http://127.0.0.1:{}/api/v1", self.rest_port)
    }

    /// Changes settings while the app runs, through `PUT /settings` with
    /// `secret` (a `system:full-access` token from [`AppHarness::mint_token`]
    /// and `restServerEnabled`). Windows other than Settings may not call
    /// `settings_update`, so tests change settings the way a script would.
    pub async fn update_settings(&self, secret: &str, patch: Value) {
        let reply = reqwest::Client::new()
            .put(format!("{}/settings", self.api()))
            .bearer_auth(secret)
            .json(&json!({ "settings": patch }))
            .send()
            .await
            .unwrap();
        assert!(
            reply.status().is_success(),
            "PUT /settings {patch}: {reply:?}"
        );
    }

    /// The status of `GET <api>/<path>` with `secret` as the bearer token.
    pub async fn api_status(&self, secret: &str, path: &str) -> reqwest::StatusCode {
        reqwest::Client::new()
            .get(format!("{}{path}", self.api()))
            .bearer_auth(secret)
            .send()
            .await
            .unwrap()
            .status()
    }
}

/// Puts `secret` in the session's real keyring as token `id`'s, where the
/// app looks for it (service `almanac-pat`, user = the id).
pub fn keyring_put(id: &str, label: &str, secret: &str) {
    use std::io::Write;
    let mut store = Command::new("secret-tool")
        .args(["store", "--label", label, "service", "almanac-pat"])
        .args(["username", id])
        .stdin(Stdio::piped())
        .spawn()
        .expect("secret-tool (libsecret-tools)");
    store
        .stdin
        .take()
        .unwrap()
        .write_all(secret.as_bytes())
        .unwrap();
    assert!(store.wait().unwrap().success(), "secret-tool store failed");
}

/// A number unlikely to repeat across tests and runs (they share one
/// keyring): the clock's nanoseconds mixed with the process id.
fn rand_suffix() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    (nanos ^ (u64::from(std::process::id()) << 40)) & 0xffff_ffff_ffff
}

/// Deep-merges `extra` into `base` (objects merge, everything else replaces).
fn merge(base: &mut Value, extra: Value) {
    match (base, extra) {
        (Value::Object(base), Value::Object(extra)) => {
            for (key, value) in extra {
                merge(base.entry(key).or_insert(Value::Null), value);
            }
        }
        (base, extra) => *base = extra,
    }
}

/// A running `almanac` process; killed if a test ends without stopping it.
pub struct App(Child);

impl App {
    pub fn pid(&self) -> u32 {
        self.0.id()
    }

    /// Sends SIGTERM, as a service manager or `kill` would.
    pub fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    pub fn is_running(&mut self) -> bool {
        matches!(self.0.try_wait(), Ok(None))
    }

    /// Waits for the process to exit and returns its status.
    pub async fn exited(&mut self) -> std::process::ExitStatus {
        let deadline = std::time::Instant::now() + super::PATIENCE;
        loop {
            if let Some(status) = self.0.try_wait().unwrap() {
                return status;
            }
            assert!(std::time::Instant::now() < deadline, "the app did not exit");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}
