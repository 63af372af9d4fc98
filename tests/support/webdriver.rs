//! A minimal W3C WebDriver client for driving the app's real window through
//! `tauri-driver` (which fronts `WebKitWebDriver` on Linux). Plain HTTP with
//! reqwest: the handful of endpoints the tests use.

use std::io::BufRead;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use super::instance::AppHarness;
use super::{PATIENCE, eventually, free_port, port_open};

/// The key W3C uses for element references.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Light or dark: the GTK theme variant, which WebKitGTK turns into
/// `prefers-color-scheme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    pub fn name(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    fn gtk_theme(self) -> &'static str {
        match self {
            Theme::Light => "Adwaita",
            Theme::Dark => "Adwaita:dark",
        }
    }
}

/// A WebDriver session on the app started with `--open <window>`. The app
/// must open a window at start for the session to attach to.
pub struct Session {
    http: reqwest::Client,
    url: String,
    driver: Child,
    /// The app's own X display (dropped after the driver: see [`Display`]).
    _display: Display,
    /// Where the driver's and the app's output goes.
    log: std::path::PathBuf,
}

impl Session {
    /// Starts `tauri-driver` on free ports with the instance's environment
    /// and a session that launches the app showing `window`.
    pub async fn start(instance: &AppHarness, window: &str, theme: Theme) -> Session {
        Self::start_with_env(instance, window, theme, &[]).await
    }

    /// Like [`Session::start`], with `extra` variables (e.g. `TZ`) set for
    /// the driver and so for the app it launches.
    pub async fn start_with_env(
        instance: &AppHarness,
        window: &str,
        theme: Theme,
        extra: &[(&str, &str)],
    ) -> Session {
        super::require_desktop_session();
        // A start can fail for reasons outside the app: WebKit picks the
        // app's remote-inspector port itself, and when that port is taken
        // the session never attaches. Start over, on fresh ports.
        const ATTEMPTS: usize = 3;
        for attempt in 1..=ATTEMPTS {
            match Self::try_start(instance, window, theme, extra).await {
                Ok(session) => return session,
                Err(report) if attempt < ATTEMPTS => {
                    eprintln!("WebDriver session attempt {attempt} failed, starting over: {report}")
                }
                Err(report) => panic!("no session after {ATTEMPTS} attempts: {report}"),
            }
        }
        unreachable!("the last attempt returns or panics")
    }

    /// One start: a driver on fresh ports and a session on it, or why not
    /// (with the driver's log), everything it started already stopped.
    async fn try_start(
        instance: &AppHarness,
        window: &str,
        theme: Theme,
        extra: &[(&str, &str)],
    ) -> Result<Session, String> {
        let (port, native_port) = (free_port(), free_port());
        let log_path = instance.root().join(format!("driver-{port}.log"));
        let log = std::fs::File::create(&log_path).unwrap();
        let mut display = Display::start(&log);
        let mut driver = Command::new("tauri-driver")
            .args([
                "--port",
                &port.to_string(),
                "--native-port",
                &native_port.to_string(),
            ])
            .envs(instance.env())
            .envs(extra.iter().copied())
            .env("DISPLAY", &display.name)
            .env("GTK_THEME", theme.gtk_theme())
            .env("ALMANAC_LOG", "info")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            // Its own process group: WebKitWebDriver and the app join it, so
            // ending the group ends all three whatever state the test is in.
            .process_group(0)
            .spawn()
            .expect("tauri-driver is installed (scripts/setup.sh installs it)");
        eventually("tauri-driver to listen", || async {
            port_open(port).then_some(())
        })
        .await;

        // No WebDriver call may hang a test run: a stuck one fails instead.
        let http = reqwest::Client::builder()
            .timeout(2 * PATIENCE)
            .build()
            .unwrap();
        let capabilities = json!({
            "capabilities": { "alwaysMatch": {
                "browserName": "wry",
                "tauri:options": {
                    "application": super::app_binary(),
                    "args": ["--open", window],
                },
            }}
        });
        let base = format!("http://127.0.0.1:{port}");
        // Under load tauri-driver occasionally drops the first connection
        // while its WebKitWebDriver child is still starting; ask again. A
        // request that times out means the session will not attach.
        let mut created = Value::Null;
        for _ in 0..3 {
            match http
                .post(format!("{base}/session"))
                .timeout(PATIENCE)
                .json(&capabilities)
                .send()
                .await
            {
                Ok(response) => {
                    created = response.json().await.unwrap_or(Value::Null);
                    if created["value"]["sessionId"].is_string() {
                        break;
                    }
                }
                Err(error) => {
                    created = json!({ "error": error.to_string() });
                    if error.is_timeout() {
                        break;
                    }
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        }
        let Some(id) = created["value"]["sessionId"].as_str() else {
            stop_group(&mut driver);
            display.stop();
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            return Err(format!("{created}\n{log}"));
        };
        let session = Session {
            http,
            url: format!("{base}/session/{id}"),
            driver,
            _display: display,
            log: log_path,
        };
        session
            .wait_for("document.body && document.body.dataset.ready === 'true'")
            .await;
        Ok(session)
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        match self.try_call(method, path, body).await {
            Ok(value) => value,
            Err((error, message)) => self.failed(path, &error, &message),
        }
    }

    /// A command's value, or its W3C error code and message.
    async fn try_call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, (Value, Value)> {
        let mut request = self.http.request(method, format!("{}{path}", self.url));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response: Value = request
            .send()
            .await
            .expect("WebDriver request")
            .json()
            .await
            .unwrap();
        match response["value"].get("error") {
            Some(error) => Err((error.clone(), response["value"]["message"].clone())),
            None => Ok(response["value"].clone()),
        }
    }

    /// Runs `script` (a function body; `arguments` holds `args`) in the page.
    pub async fn execute(&self, script: &str, args: Value) -> Value {
        self.call(
            reqwest::Method::POST,
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
        .await
    }

    /// Runs `script` asynchronously: it calls `arguments[arguments.length - 1]`
    /// with its result.
    pub async fn execute_async(&self, script: &str) -> Value {
        self.call(
            reqwest::Method::POST,
            "/execute/async",
            Some(json!({ "script": script, "args": [] })),
        )
        .await
    }

    /// The handles of the app's open windows.
    pub async fn window_handles(&self) -> Vec<Value> {
        let handles = self
            .call(reqwest::Method::GET, "/window/handles", None)
            .await;
        handles.as_array().unwrap().clone()
    }

    /// The handle of the window commands go to.
    pub async fn window_handle(&self) -> Value {
        self.call(reqwest::Method::GET, "/window", None).await
    }

    /// Sends the following commands to the window `handle`.
    pub async fn switch_to_window(&self, handle: &Value) {
        self.call(
            reqwest::Method::POST,
            "/window",
            Some(json!({ "handle": handle })),
        )
        .await;
    }

    /// Switches to window `handle` and returns the path of its page, or
    /// `None` if the window is gone (or going).
    pub async fn page_in(&self, handle: &Value) -> Option<String> {
        self.try_call(
            reqwest::Method::POST,
            "/window",
            Some(json!({ "handle": handle })),
        )
        .await
        .ok()?;
        let page = self
            .try_call(
                reqwest::Method::POST,
                "/execute/sync",
                Some(json!({ "script": "return location.pathname", "args": [] })),
            )
            .await
            .ok()?;
        page.as_str().map(str::to_string)
    }

    /// Panics with a command's error and the end of the session's log. The
    /// unknown error "Could not parse script result" is WebKit getting no
    /// JSON back: the web process went away before answering (an empty
    /// reply; the app's log says why), or the script's promise was rejected
    /// with a plain value instead of an `Error`.
    fn failed(&self, path: &str, error: &Value, message: &Value) -> ! {
        let log = self.log();
        let tail: Vec<&str> = log.lines().rev().take(40).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        panic!(
            "WebDriver {path}: {error} — {message}\nthe session's log ends:\n{}",
            tail.join("\n")
        )
    }

    /// What the driver and the app logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until the JavaScript expression `condition` is truthy and
    /// returns its value.
    pub async fn wait_for(&self, condition: &str) -> Value {
        let script = format!("return ({condition}) || null;");
        eventually(condition, || async {
            let body = json!({ "script": script, "args": [] });
            match self
                .try_call(reqwest::Method::POST, "/execute/sync", Some(body))
                .await
            {
                Ok(value) => (!value.is_null()).then_some(value),
                // An element the condition returned was redrawn (a refetch)
                // before WebDriver could hand it over: not there yet.
                Err((error, _)) if error == "stale element reference" => None,
                Err((error, message)) => self.failed("/execute/sync", &error, &message),
            }
        })
        .await
    }

    /// The element matching `css` (panics if none).
    pub async fn find(&self, css: &str) -> String {
        let found = self
            .call(
                reqwest::Method::POST,
                "/element",
                Some(json!({ "using": "css selector", "value": css })),
            )
            .await;
        found[ELEMENT].as_str().unwrap().to_string()
    }

    /// Clicks the element matching `css`, as a user would.
    pub async fn click(&self, css: &str) {
        let element = self.find(css).await;
        self.call(
            reqwest::Method::POST,
            &format!("/element/{element}/click"),
            Some(json!({})),
        )
        .await;
    }

    /// Clicks a button that closes its own window (a dialog's answer): the
    /// driver may report the window gone before it reports the click done.
    pub async fn click_closing_window(&self, css: &str) {
        let element = self.find(css).await;
        let clicked = self
            .try_call(
                reqwest::Method::POST,
                &format!("/element/{element}/click"),
                Some(json!({})),
            )
            .await;
        if let Err((error, message)) = clicked {
            assert_eq!(error, "no such window", "click {css}: {message}");
        }
    }

    /// Types `text` into the element matching `css`.
    pub async fn type_into(&self, css: &str, text: &str) {
        let element = self.find(css).await;
        self.call(
            reqwest::Method::POST,
            &format!("/element/{element}/value"),
            Some(json!({ "text": text })),
        )
        .await;
    }

    /// Replaces the text of the input matching `css` by typing `text`, as a
    /// user would after selecting the old text.
    pub async fn retype(&self, css: &str, text: &str) {
        self.execute(
            "const input = document.querySelector(arguments[0]); input.value = ''; input.focus(); \
             input.dispatchEvent(new Event('input'));",
            json!([css]),
        )
        .await;
        self.type_into(css, text).await;
    }

    /// Presses keys on the keyboard (W3C actions): each `char` is one key;
    /// WebDriver's private-use code points name Tab (`\u{E004}`), Enter
    /// (`\u{E007}`), Space (`\u{E00D}`) and so on.
    pub async fn press(&self, keys: &str) {
        self.call(reqwest::Method::POST, "/actions", Some(key_presses(keys)))
            .await;
    }

    /// Presses `key` while holding `modifier` (WebDriver's code points:
    /// Shift `\u{E008}`, Control `\u{E009}`, Alt `\u{E00A}`).
    pub async fn press_with(&self, modifier: char, key: char) {
        self.press_chord(&[modifier], key).await;
    }

    /// Presses `key` while holding every one of `modifiers` (Ctrl+Shift+Z).
    pub async fn press_chord(&self, modifiers: &[char], key: char) {
        let down = |c: &char| json!({ "type": "keyDown", "value": c.to_string() });
        let up = |c: &char| json!({ "type": "keyUp", "value": c.to_string() });
        let actions: Vec<Value> = modifiers
            .iter()
            .map(down)
            .chain([down(&key), up(&key)])
            .chain(modifiers.iter().rev().map(up))
            .collect();
        self.call(
            reqwest::Method::POST,
            "/actions",
            Some(json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": actions }] })),
        )
        .await;
    }

    /// Presses keys that make their own window close (a dialog's answer):
    /// the driver may report the window gone before the keys are done.
    pub async fn press_closing_window(&self, keys: &str) {
        let pressed = self
            .try_call(reqwest::Method::POST, "/actions", Some(key_presses(keys)))
            .await;
        if let Err((error, message)) = pressed {
            assert_eq!(error, "no such window", "press {keys:?}: {message}");
        }
    }

    /// Drags the mouse from viewport point `from` to `to` (CSS pixels) with
    /// real pointer input (W3C actions): press, move in steps, release.
    pub async fn drag(&self, from: (f64, f64), to: (f64, f64)) {
        let at = |(x, y): (f64, f64)| json!({ "type": "pointerMove", "duration": 100, "origin": "viewport", "x": x.round() as i64, "y": y.round() as i64 });
        let mid = ((from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0);
        // Jump to `from` (a gliding move may still be under way when the
        // button goes down, pressing somewhere on the path).
        let mut jump = at(from);
        jump["duration"] = json!(0);
        let actions = json!([
            jump,
            { "type": "pause", "duration": 100 },
            { "type": "pointerDown", "button": 0 },
            { "type": "pause", "duration": 150 },
            at((from.0 + 3.0, from.1 + 3.0)),
            at(mid),
            at(to),
            { "type": "pause", "duration": 150 },
            { "type": "pointerUp", "button": 0 },
        ]);
        self.call(
            reqwest::Method::POST,
            "/actions",
            Some(json!({ "actions": [{ "type": "pointer", "id": "mouse",
                "parameters": { "pointerType": "mouse" }, "actions": actions }] })),
        )
        .await;
        self.call(reqwest::Method::DELETE, "/actions", None).await;
    }

    /// Focuses the calendar event `css` and presses `key` on it until the
    /// event dialog opens: a refetch (the watcher seeing a note the window
    /// just wrote) may redraw the event, and its focus with it, between the
    /// focus and the key.
    pub async fn key_on_event(&self, css: &str, key: &str) {
        let focused_and_open = "const el = document.querySelector(arguments[0]);
             if (document.getElementById('event-dialog').open) return 'open';
             if (!el) return false;
             el.focus();
             return document.activeElement === el;";
        eventually(&format!("the dialog opened from {css}"), || async {
            match self.execute(focused_and_open, json!([css])).await {
                Value::String(_) => Some(()),
                Value::Bool(true) => {
                    self.press(key).await;
                    None
                }
                _ => None,
            }
        })
        .await;
    }

    /// The id of the focused element.
    pub async fn focused_id(&self) -> String {
        let id = self
            .execute(
                "return document.activeElement && document.activeElement.id",
                json!([]),
            )
            .await;
        id.as_str().unwrap_or_default().to_string()
    }

    /// The rendered text of the element matching `css`.
    pub async fn text(&self, css: &str) -> String {
        let element = self.find(css).await;
        let text = self
            .call(
                reqwest::Method::GET,
                &format!("/element/{element}/text"),
                None,
            )
            .await;
        text.as_str().unwrap().to_string()
    }

    pub async fn title(&self) -> String {
        self.call(reqwest::Method::GET, "/title", None)
            .await
            .as_str()
            .unwrap()
            .to_string()
    }

    /// The window's position and size (`x`, `y`, `width`, `height`).
    pub async fn window_rect(&self) -> Value {
        self.call(reqwest::Method::GET, "/window/rect", None).await
    }

    /// Saves a PNG of the window to `path`, once the page has painted what
    /// the test just saw in the DOM: a shot taken right after an assertion
    /// can otherwise catch the window before its first paint (empty).
    pub async fn screenshot(&self, path: &Path) {
        use base64::Engine as _;
        self.painted().await;
        // Where WebKitGTK draws without compositing (the calendar window on a
        // machine without a GPU, src-tauri/src/desktop/drawing.rs, as under
        // Xvfb) a snapshot waits for the page's next frame, which a page that
        // does not change never draws: a dot nobody sees keeps frames coming
        // until the shot is taken.
        self.execute(
            "const dot = document.createElement('div');
             dot.id = 'almanac-test-frames';
             dot.style.cssText = 'position:fixed;left:0;top:0;width:1px;height:1px;opacity:0.01;pointer-events:none';
             document.body.append(dot);
             const tick = (n) => { if (!dot.isConnected) return;
               dot.style.background = n % 2 ? '#000' : '#fff';
               requestAnimationFrame(() => tick(n + 1)); };
             tick(0);
             return true;",
            json!([]),
        )
        .await;
        let png = self.call(reqwest::Method::GET, "/screenshot", None).await;
        self.execute(
            "document.getElementById('almanac-test-frames')?.remove(); return true;",
            json!([]),
        )
        .await;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap())
            .unwrap();
        assert!(bytes.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    /// Waits for two animation frames: the first runs before the next paint,
    /// the second only after that paint has happened.
    pub async fn painted(&self) {
        self.execute_async(
            "const done = arguments[arguments.length - 1];
             requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
        )
        .await;
    }

    /// Ends the session (which closes the app) and stops the driver.
    pub async fn end(self) {
        let _ = self.http.delete(&self.url).send().await;
        // Dropping terminates the process group.
    }
}

impl Drop for Session {
    /// Terminates tauri-driver, WebKitWebDriver and the app (SIGTERM: the
    /// app shuts its servers down cleanly), also when a test failed.
    fn drop(&mut self) {
        stop_group(&mut self.driver);
    }
}

/// A JavaScript expression: the instant `millis` as the windows show a date
/// and time (`Intl`, medium date, short time) in `zone`.
pub fn shown_in_zone(millis: i64, zone: &str) -> String {
    format!(
        "new Intl.DateTimeFormat(undefined, {{ dateStyle: 'medium', timeStyle: 'short', timeZone: '{zone}' }}).format({millis})"
    )
}

/// The W3C actions pressing and releasing each `char` of `keys` in turn.
fn key_presses(keys: &str) -> Value {
    let actions: Vec<Value> = keys
        .chars()
        .flat_map(|key| {
            let key = key.to_string();
            [
                json!({ "type": "keyDown", "value": key }),
                json!({ "type": "keyUp", "value": key }),
            ]
        })
        .collect();
    json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": actions }] })
}

/// An X server (Xvfb) for one session's app alone. Sessions run side by
/// side, and on a shared display one app's windows would take the focus
/// from, or cover, another's: a consent dialog regaining the focus or coming
/// back into view re-arms its Allow delay (as it must), so a test's click
/// could land in a delay another test started.
struct Display {
    server: Child,
    /// `:N`, for `DISPLAY`.
    name: String,
}

impl Display {
    /// Starts a server on a free display number, returning once it accepts
    /// clients. With `-terminate` it exits by itself when its last client
    /// (the app) disconnects, so an app shutting down never loses its
    /// display first.
    fn start(log: &std::fs::File) -> Display {
        let mut server = Command::new("Xvfb")
            .args(["-displayfd", "1", "-terminate", "-nolisten", "tcp"])
            .args(["-screen", "0", "1280x800x24"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log.try_clone().unwrap())
            .process_group(0)
            .spawn()
            .expect("Xvfb is installed (scripts/setup.sh installs it)");
        // Xvfb writes the display number once it is ready for clients.
        let mut number = String::new();
        std::io::BufReader::new(server.stdout.take().unwrap())
            .read_line(&mut number)
            .unwrap();
        assert!(
            !number.trim().is_empty(),
            "Xvfb did not start (see the session log)"
        );
        Display {
            server,
            name: format!(":{}", number.trim()),
        }
    }
}

impl Display {
    /// Ends the server now, whoever is still using it.
    fn stop(&mut self) {
        let _ = self.server.kill();
    }
}

impl Drop for Display {
    /// Waits for the server to exit with its last client (the app ending),
    /// and ends it if that does not come, e.g. when the app never started.
    fn drop(&mut self) {
        let deadline = std::time::Instant::now() + PATIENCE;
        while std::time::Instant::now() < deadline {
            if !matches!(self.server.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// Ends `driver` and its process group (WebKitWebDriver and the app with
/// it) with SIGTERM, and reaps it.
fn stop_group(driver: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", "--", &format!("-{}", driver.id())])
        .status();
    let _ = driver.wait();
}
