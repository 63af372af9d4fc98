//! A start-up that degrades, never dies: garbage written into a real sled
//! store (one record, or the whole database) is kept aside and reported by
//! `/doctor`, and the rest is served.

use crate::common;

use common::{TestDaemon, config, now_epoch, reminder};
use serde_json::{Value, json};

/// The `/doctor` check named `name`.
fn check<'a>(doctor: &'a Value, name: &str) -> &'a Value {
    doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["name"] == name)
        .unwrap_or_else(|| panic!("no check {name} in {doctor}"))
}

#[tokio::test]
async fn an_undecodable_record_is_quarantined_and_the_rest_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("reminders.sled");
    let now = now_epoch();
    let mut daemon = TestDaemon::start_with(config(&db_path)).await;
    daemon
        .sync(&[
            reminder("kept-1", now + 3600),
            reminder("kept-2", now + 7200),
        ])
        .await;
    daemon.stop().await;

    // Garbage into the real store, through sled itself: a synced bucket the
    // daemon does not use, and a snoozed reminder.
    {
        let db = sled::open(&db_path).unwrap();
        let used: Vec<Vec<u8>> = db
            .scan_prefix(b"b\0")
            .keys()
            .map(|key| key.unwrap().to_vec())
            .collect();
        let free_bucket = (0u16..256)
            .map(|bucket| {
                let [high, low] = bucket.to_be_bytes();
                vec![b'b', 0, high, low]
            })
            .find(|key| !used.contains(key))
            .unwrap();
        db.insert(free_bucket, &b"\x00\x01 not a bucket"[..])
            .unwrap();
        db.insert(b"z\0broken", &b"{\"id\": tru"[..]).unwrap();
        db.flush().unwrap();
    }

    let daemon = TestDaemon::start_with(config(&db_path)).await;
    assert_eq!(daemon.event_ids().await, ["kept-1", "kept-2"]);
    let (status, doctor) = daemon.get("/doctor").await;
    assert_eq!(status, 200);
    assert_eq!(doctor["quarantine"]["count"], 2, "{doctor}");
    let records = doctor["quarantine"]["records"].as_array().unwrap();
    assert!(
        records[0]["record"]
            .as_str()
            .unwrap()
            .starts_with("synced bucket "),
        "{records:?}"
    );
    assert_eq!(records[1]["record"], "snoozed reminder \"broken\"");
    assert_eq!(records[1]["value_bytes"], 10);
    for record in records {
        assert!(!record["reason"].as_str().unwrap().is_empty(), "{record}");
        assert!(record["quarantined_at_rfc3339"].is_string(), "{record}");
    }
    let readable = check(&doctor, "storage_records_readable");
    assert_eq!(readable["ok"], false);
    assert!(
        readable["detail"]
            .as_str()
            .unwrap()
            .contains("2 unreadable"),
        "{readable}"
    );

    // The daemon works on: a sync is stored, and the quarantine stays.
    let answer = daemon.sync(&[reminder("after", now + 600)]).await;
    assert_eq!(answer["scheduled"], 1);
    assert_eq!(daemon.event_ids().await, ["after"]);
}

#[tokio::test]
async fn an_unreadable_database_is_moved_aside_and_the_daemon_starts_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("reminders.sled");
    let mut daemon = TestDaemon::start_with(config(&db_path)).await;
    daemon.sync(&[reminder("lost", now_epoch() + 3600)]).await;
    daemon.stop().await;
    for file in ["conf", "db"] {
        let path = db_path.join(file);
        let len = std::fs::metadata(&path).unwrap().len() as usize;
        std::fs::write(&path, vec![0xA5; len.max(64)]).unwrap();
    }

    let daemon = TestDaemon::start_with(config(&db_path)).await;
    assert!(daemon.event_ids().await.is_empty());
    let (_, doctor) = daemon.get("/doctor").await;
    let records = doctor["quarantine"]["records"].as_array().unwrap();
    assert_eq!(records.len(), 1, "{doctor}");
    assert_eq!(records[0]["record"], "the whole database");
    let moved_to = records[0]["moved_to"].as_str().unwrap();
    assert!(
        std::path::Path::new(moved_to).join("db").is_file(),
        "{moved_to}"
    );
    assert_eq!(check(&doctor, "storage_records_readable")["ok"], false);
    let (status, _) = daemon
        .post("/sync", &json!([reminder("fresh", now_epoch() + 600)]))
        .await;
    assert_eq!(status, 200);
    assert_eq!(daemon.event_ids().await, ["fresh"]);
}
