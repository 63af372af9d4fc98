//! Real clients: the Python `caldav` library's scripted session, and a
//! two-way vdirsyncer sync with a folder, and khal reading what vdirsyncer
//! synced.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use almanac_core::calendar::EventFields;
use serde_json::json;

use crate::caldav::support::{CaldavHarness, PLANNING, client_script, run, venv};

#[tokio::test(flavor = "multi_thread")]
async fn the_caldav_library_discovers_queries_writes_and_syncs() {
    let venv = venv();
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let out = run(
        &venv,
        "python",
        vec![client_script("caldav_session.py"), app.base.clone(), token],
    )
    .await;
    assert!(out.contains("caldav session ok"), "{out}");

    // The edit is written back into the note: new title (renamed), the
    // location as frontmatter, the unknown keys and the body as they were.
    assert!(!app.vault().join(PLANNING).exists());
    let note = app.note("events/2026-01-12 Planning v2.md");
    assert!(note.starts_with("---\ntitle: Planning v2\n"), "{note}");
    assert!(
        note.contains("\nproject: apollo\ntags:\n  - work\n"),
        "{note}"
    );
    assert!(note.contains("\nlocation: Room 7\n"), "{note}");
    assert!(
        note.ends_with("---\nAgenda:\n- budget\n- hiring\n"),
        "{note}"
    );
    // Created and deleted again: no note left behind.
    assert!(
        !app.vault()
            .join("events/2026-01-14 Created by caldav.md")
            .exists()
    );
}

/// Every file of a folder and its contents.
fn files(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

fn find<'a>(files: &'a BTreeMap<String, String>, needle: &str) -> Option<(&'a String, &'a String)> {
    files.iter().find(|(_, text)| text.contains(needle))
}

/// vdirsyncer paired with a scratch folder (`local`) for the calendar
/// `local` of `app`, discovered and ready to sync.
struct Vdirsyncer {
    venv: PathBuf,
    config: PathBuf,
    local: PathBuf,
}

impl Vdirsyncer {
    async fn discover(app: &CaldavHarness) -> Self {
        let token = app.read_write_token().await;
        let work = app.dir.path().join("vdirsyncer");
        let local = work.join("local");
        std::fs::create_dir_all(&local).unwrap();
        let config = work.join("config");
        std::fs::write(
            &config,
            format!(
                "[general]\nstatus_path = \"{status}\"\n\n\
                 [pair almanac]\na = \"remote\"\nb = \"folder\"\ncollections = null\n\n\
                 [storage remote]\ntype = \"caldav\"\nurl = \"{base}/calendars/local/\"\n\
                 username = \"vdirsyncer\"\npassword = \"{token}\"\n\n\
                 [storage folder]\ntype = \"filesystem\"\npath = \"{local}\"\nfileext = \".ics\"\n",
                status = work.join("status").display(),
                base = app.base,
                local = local.display(),
            ),
        )
        .unwrap();
        let pair = Self {
            venv: venv(),
            config,
            local,
        };
        pair.run("discover").await;
        pair
    }

    async fn run(&self, command: &str) {
        run(
            &self.venv,
            "vdirsyncer",
            vec![
                "-c".into(),
                self.config.display().to_string(),
                command.into(),
            ],
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn vdirsyncer_syncs_both_ways_with_a_folder() {
    let app = CaldavHarness::start().await;
    let pair = Vdirsyncer::discover(&app).await;
    let local = pair.local.clone();
    let vdirsyncer = |command: &'static str| pair.run(command);

    // Pull: every event of the calendar becomes a file.
    vdirsyncer("sync").await;
    let pulled = files(&local);
    assert_eq!(pulled.len(), 4, "{:?}", pulled.keys());
    let (standup_file, standup) = find(&pulled, "SUMMARY:Standup").unwrap();
    assert!(find(&pulled, "SUMMARY:Gym").is_some());

    // Change each side: in the folder, edit one event and add one; in
    // Almanac, edit one and delete one.
    std::fs::write(
        local.join(standup_file),
        standup.replace("SUMMARY:Standup", "SUMMARY:Standup moved"),
    )
    .unwrap();
    std::fs::write(
        local.join("vdir-new-1.ics"),
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:vdir-new-1\r\n\
         DTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20260122\r\nDTEND;VALUE=DATE:20260123\r\n\
         SUMMARY:Made in the folder\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
    )
    .unwrap();
    let calendar = app.core.calendar.clone();
    tokio::task::spawn_blocking(move || {
        let fields: EventFields =
            serde_json::from_value(json!({"description": "Bring boots"})).unwrap();
        calendar
            .update("fullnote:events/2026-01-20 Offsite.md", fields)
            .unwrap();
        calendar
            .delete("fullnote:events/2026-01-05 Gym.md", None)
            .unwrap();
    })
    .await
    .unwrap();

    vdirsyncer("sync").await;
    // Almanac has the folder's changes, as notes.
    let moved = app.note("events/2026-01-05 Standup moved.md");
    assert!(moved.contains("title: Standup moved\n"), "{moved}");
    let made = app.note("events/2026-01-22 Made in the folder.md");
    assert!(
        made.contains("uid: vdir-new-1\n") && made.contains("allDay: true\n"),
        "{made}"
    );
    // The folder has Almanac's.
    let synced = files(&local);
    assert_eq!(synced.len(), 4, "{:?}", synced.keys());
    assert!(
        find(&synced, "SUMMARY:Gym").is_none(),
        "the deletion came through"
    );
    assert!(find(&synced, "DESCRIPTION:Bring boots").is_some());
    assert!(find(&synced, "SUMMARY:Standup moved").is_some());

    // Settled: another sync changes nothing on either side.
    let notes_before = files(&app.vault().join("events"));
    vdirsyncer("sync").await;
    assert_eq!(files(&local), synced);
    assert_eq!(files(&app.vault().join("events")), notes_before);
}

/// khal (Debian's, as a user runs it) lists what vdirsyncer pulled, at the
/// right times: the vault is in Europe/Berlin, khal shows New York time.
#[tokio::test(flavor = "multi_thread")]
async fn khal_lists_the_events_vdirsyncer_synced() {
    let app = CaldavHarness::start().await;
    let pair = Vdirsyncer::discover(&app).await;
    pair.run("sync").await;
    let config = app.dir.path().join("khal.conf");
    std::fs::write(
        &config,
        format!(
            "[calendars]\n[[almanac]]\npath = {local}\ntype = calendar\n\n\
             [locale]\ntimeformat = %H:%M\ndateformat = %Y-%m-%d\n\
             longdateformat = %Y-%m-%d\ndatetimeformat = %Y-%m-%d %H:%M\n\
             longdatetimeformat = %Y-%m-%d %H:%M\n\
             local_timezone = America/New_York\ndefault_timezone = America/New_York\n\n\
             [sqlite]\npath = {db}\n",
            local = pair.local.display(),
            db = app.dir.path().join("khal.db").display(),
        ),
    )
    .unwrap();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("khal")
            .arg("-c")
            .arg(&config)
            .args(["list", "--day-format", ""])
            .args(["--format", "{start} | {end} | {title}"])
            .args(["2026-01-05", "2026-01-21"])
            .output()
    })
    .await
    .unwrap()
    .expect("khal runs (scripts/setup.sh installs Debian's khal)");
    let listed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{listed}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rows: Vec<&str> = listed.lines().filter(|l| !l.trim().is_empty()).collect();
    // 09:00 in Berlin is 03:00 in New York; the Gym series (Mondays and
    // Thursdays at 07:00 Berlin) skips 8 January; the Offsite is all day
    // on the 20th and 21st.
    for expected in [
        "2026-01-05 03:00 | 2026-01-05 03:15 | Standup",
        "2026-01-05 01:00 | 2026-01-05 02:00 | Gym",
        "2026-01-12 01:00 | 2026-01-12 02:00 | Gym",
        "2026-01-15 01:00 | 2026-01-15 02:00 | Gym",
        "2026-01-20 | 2026-01-21 | Offsite",
    ] {
        assert!(rows.contains(&expected), "{expected:?} not in {rows:#?}");
    }
    assert!(
        !rows
            .iter()
            .any(|r| r.starts_with("2026-01-08") && r.ends_with("| Gym")),
        "the skipped date is skipped: {rows:#?}"
    );
}
