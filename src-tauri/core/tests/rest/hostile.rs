//! Hostile input on every route: traversal ids, NUL bytes, invalid UTF-8,
//! huge numbers, wrong types, deep JSON, oversized bodies. Whatever arrives,
//! the answer is a well-formed status (never 5xx but the UI's 503), errors
//! keep the JSON shape, a refused request changes nothing in the vault, and
//! nothing outside the vault ever changes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use almanac_core::tokens::Scope;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};

use crate::rest::support::{RawReply, RestHarness};

/// Every file of the instance except the data dir (token last-used times and
/// the ICS cache change there on their own), by path, with its contents.
pub fn snapshot(instance: &RestHarness) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, skip: &Path, files: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path == skip {
                continue;
            }
            if path.is_dir() {
                walk(&path, skip, files);
            } else {
                files.insert(path.clone(), std::fs::read(&path).unwrap_or_default());
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(
        instance.dir.path(),
        instance.core.paths.data_dir(),
        &mut files,
    );
    files
}

fn outside_vault(
    snapshot: &BTreeMap<PathBuf, Vec<u8>>,
    vault: &Path,
) -> BTreeMap<PathBuf, Vec<u8>> {
    snapshot
        .iter()
        .filter(|(path, _)| !path.starts_with(vault))
        .map(|(path, bytes)| (path.clone(), bytes.clone()))
        .collect()
}

const ALLOWED: [u16; 9] = [200, 201, 400, 403, 404, 405, 409, 413, 503];

/// Sends one raw request and checks the invariants of the module docs.
async fn probe(
    instance: &RestHarness,
    method: &str,
    target: &[u8],
    token: &str,
    body: &[u8],
) -> RawReply {
    let before = snapshot(instance);
    let reply = instance
        .raw(&instance.raw_request(method, target, Some(token), body))
        .await;
    let what = format!(
        "{method} {} ({} body bytes)",
        String::from_utf8_lossy(target),
        body.len()
    );
    assert!(ALLOWED.contains(&reply.status), "{what}: {reply:?}");
    reply.assert_well_formed();
    let after = snapshot(instance);
    let vault = instance.vault();
    assert_eq!(
        outside_vault(&after, &vault),
        outside_vault(&before, &vault),
        "{what} wrote outside the vault"
    );
    if reply.status >= 400 {
        assert_eq!(
            after, before,
            "{what} was refused ({}) but changed files",
            reply.status
        );
    }
    reply
}

/// Percent-encodes every byte but unreserved ASCII.
fn encode(raw: &[u8]) -> String {
    raw.iter()
        .map(|&b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Ids built from traversal pieces, NULs, odd characters and long names.
fn hostile_id() -> impl Strategy<Value = Vec<u8>> {
    let prefix = prop::sample::select(vec![
        "fullnote:",
        "dailynote:",
        "ical:",
        "",
        "fullnote:/",
        "fullnote:C:\\",
    ]);
    let piece = prop::sample::select(vec![
        "..",
        ".",
        "events",
        "config",
        "settings.json",
        "vault",
        "2026-01-05 Standup.md",
        "\0",
        "a\0b.md",
        "%00",
        "%2e%2e",
        "é",
        "🗓",
        "con",
        "x.md",
        "::",
        "\\..\\..",
        " ",
        "",
    ]);
    (
        prefix,
        prop::collection::vec(piece, 0..8),
        0usize..3,
        any::<Vec<u8>>(),
    )
        .prop_map(|(prefix, pieces, long, noise)| {
            let mut id = prefix.as_bytes().to_vec();
            id.extend_from_slice(pieces.join("/").as_bytes());
            id.extend(std::iter::repeat_n(b'x', [0, 300, 5000][long]));
            if noise.len() % 3 == 0 {
                id.extend(noise); // arbitrary bytes, usually not UTF-8
            }
            id
        })
}

/// Arbitrary JSON, a few levels deep, with extreme numbers and odd strings.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::from)),
        ".*".prop_map(Value::from),
        prop::sample::select(vec![
            "2026-01-05",
            "09:00",
            "25:61",
            "local",
            "holidays",
            "timeGridWeek",
            "\0",
            "../x"
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "calendarId",
                    "event",
                    "options",
                    "title",
                    "date",
                    "endDate",
                    "startTime",
                    "endTime",
                    "allDay",
                    "viewName",
                    "settings",
                    "force",
                    "silent",
                    "instanceDate",
                    "localServerPort",
                    "firstDay",
                    "type",
                    "completed",
                    "x",
                ])
                .prop_map(String::from),
                inner,
                0..6,
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

fn start() -> (tokio::runtime::Runtime, RestHarness, String) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let instance = runtime.block_on(RestHarness::start());
    let token = runtime.block_on(instance.token(&[Scope::SystemFullAccess]));
    (runtime, instance, token)
}

#[test]
fn hostile_ids_on_every_id_route() {
    let (runtime, instance, token) = start();
    runner(300)
        .run(
            &(hostile_id(), 0usize..4, any::<bool>()),
            |(id, method, raw_form)| {
                let method = ["GET", "PUT", "DELETE", "POST"][method];
                let mut target = b"/api/v1/events/".to_vec();
                if raw_form {
                    // Unencoded wherever a URI path allows it (RFC 3986 `pchar`
                    // and `/`). Bytes no request-target may hold are encoded:
                    // hyper refuses such a request line itself, with an empty 400,
                    // before there is a request to answer.
                    target.extend(id.iter().flat_map(|&b| match b {
                        b'!' | b'$' | b'&'..=b'/' | b':' | b';' | b'=' | b'@' => vec![b],
                        _ => encode(&[b]).into_bytes(),
                    }));
                } else {
                    target.extend(encode(&id).into_bytes());
                }
                let body = json!({"event": {"title": "Hacked"}}).to_string();
                runtime.block_on(probe(&instance, method, &target, &token, body.as_bytes()));
                Ok(())
            },
        )
        .unwrap();
    // The note every traversal tried to reach is still there, untouched.
    assert!(
        instance
            .vault()
            .join("events/2026-01-05 Standup.md")
            .exists()
    );
    assert!(instance.core.paths.settings_file().exists());
}

#[test]
fn arbitrary_json_bodies_on_every_body_route() {
    let (runtime, instance, token) = start();
    let routes = [
        ("POST", "/api/v1/events"),
        (
            "PUT",
            "/api/v1/events/fullnote%3Aevents%2F2026-01-05%20Standup.md",
        ),
        ("DELETE", "/api/v1/events/fullnote%3Aevents%2Fnot-there.md"),
        ("POST", "/api/v1/providers/revalidate"),
        ("POST", "/api/v1/ui/change-view"),
        ("PUT", "/api/v1/settings"),
    ];
    runner(400)
        .run(&(any_json(), 0..routes.len()), |(body, route)| {
            let (method, path) = routes[route];
            let reply = runtime.block_on(probe(
                &instance,
                method,
                path.as_bytes(),
                &token,
                body.to_string().as_bytes(),
            ));
            // Only the UI may be "unavailable", and only the UI route says so.
            prop_assert!(reply.status != 503 || path.contains("/ui/"));
            Ok(())
        })
        .unwrap();
}

#[test]
fn arbitrary_query_strings_on_get_events() {
    let (runtime, instance, token) = start();
    let param = prop::sample::select(vec![
        "calendar",
        "query",
        "isTask",
        "isCompleted",
        "start",
        "end",
        "x",
    ]);
    let value = prop_oneof![
        ".*",
        any::<i64>().prop_map(|n| n.to_string()),
        Just("1e400".to_string()),
        Just("99999999999999999999999".to_string()),
        Just("2026-01-05T25:00:00Z".to_string()),
        Just("true".to_string()),
    ];
    runner(300)
        .run(&prop::collection::vec((param, value), 0..5), |pairs| {
            let query: String = pairs
                .iter()
                .map(|(k, v)| format!("{k}={}", encode(v.as_bytes())))
                .collect::<Vec<_>>()
                .join("&");
            let target = format!("/api/v1/events?{query}");
            let reply = runtime.block_on(probe(&instance, "GET", target.as_bytes(), &token, b""));
            prop_assert!([200, 400].contains(&reply.status), "{target}: {reply:?}");
            Ok(())
        })
        .unwrap();
}

#[tokio::test]
async fn malformed_bodies_are_400_naming_the_problem() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::SystemFullAccess]).await;
    let deep = format!(
        "{{\"settings\": {}{}}}",
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    let cases: Vec<(&str, &str, Vec<u8>)> = vec![
        ("POST", "/api/v1/events", b"{".to_vec()),
        ("POST", "/api/v1/events", b"not json".to_vec()),
        ("POST", "/api/v1/events", b"[]".to_vec()),
        ("POST", "/api/v1/events", b"\xff\xfe{\"calendarId\": \"\xc3\x28\"}".to_vec()),
        ("POST", "/api/v1/events", br#"{"calendarId": "local", "event": {"title": "x", "date": 1e400}}"#.to_vec()),
        ("POST", "/api/v1/events", br#"{"calendarId": "local\u0000", "event": {"title": "\u0000", "date": "2026-01-01", "allDay": true}}"#.to_vec()),
        ("PUT", "/api/v1/settings", br#"{"settings": {"localServerPort": 99999999999999999999}}"#.to_vec()),
        ("PUT", "/api/v1/settings", br#"{"settings": {"firstDay": -1}}"#.to_vec()),
        ("PUT", "/api/v1/settings", deep.into_bytes()),
        ("POST", "/api/v1/ui/change-view", br#"{"viewName": null}"#.to_vec()),
    ];
    for (method, path, body) in cases {
        let reply = probe(&instance, method, path.as_bytes(), &token, &body).await;
        assert_eq!(
            reply.status,
            400,
            "{method} {path} {:?}: {reply:?}",
            String::from_utf8_lossy(&body)
        );
    }
    // Traversal out of the vault, to the settings file and beyond.
    for id in [
        "fullnote:../../x",
        "fullnote:../config/settings.json",
        "fullnote:/etc/passwd",
        "fullnote:events/../../config/settings.json",
    ] {
        let target = format!("/api/v1/events/{}", encode(id.as_bytes()));
        for method in ["GET", "PUT", "DELETE"] {
            let body = br#"{"event": {"title": "Pwned"}}"#;
            let reply = probe(&instance, method, target.as_bytes(), &token, body).await;
            assert!(
                [400, 404].contains(&reply.status),
                "{method} {id}: {reply:?}"
            );
        }
    }
    assert!(instance.core.paths.settings_file().exists());
    // A NUL or invalid UTF-8 in the path.
    for target in [
        &b"/api/v1/events/fullnote%3Aa%00b.md"[..],
        b"/api/v1/events/%FF%FE",
    ] {
        let reply = probe(&instance, "GET", target, &token, b"").await;
        assert_eq!(reply.status, 400, "{reply:?}");
    }
}

#[tokio::test]
async fn bodies_over_one_mib_are_413() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::SystemFullAccess]).await;
    let mut huge = br#"{"calendarId": "local", "event": {"title": ""#.to_vec();
    huge.extend(std::iter::repeat_n(b'x', 1024 * 1024));
    huge.extend_from_slice(br#""}}"#);
    for (method, path) in [
        ("POST", "/api/v1/events"),
        ("PUT", "/api/v1/settings"),
        ("GET", "/api/v1/calendars"),
        ("POST", "/api/v1/ui/open-calendar"),
    ] {
        let reply = probe(&instance, method, path.as_bytes(), &token, &huge).await;
        assert_eq!(reply.status, 413, "{method} {path}");
        let body: Value = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(body["error"], "Payload Too Large");
    }

    // Without a Content-Length (chunked), the limit cuts in while reading.
    let mut request = format!(
        "POST /api/v1/events HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        instance.server.local_addr()
    )
    .into_bytes();
    for chunk in huge.chunks(64 * 1024) {
        request.extend(format!("{:x}\r\n", chunk.len()).into_bytes());
        request.extend_from_slice(chunk);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"0\r\n\r\n");
    let reply = instance.raw(&request).await;
    assert_eq!(reply.status, 413, "{reply:?}");
    reply.assert_well_formed();

    // Just under the limit is read (and refused for its content, not its size).
    let fits = vec![b' '; 1024 * 1024 - 2];
    let reply = probe(
        &instance,
        "POST",
        b"/api/v1/events",
        &token,
        &[b"{}".as_slice(), &fits].concat(),
    )
    .await;
    assert_eq!(reply.status, 400);
}
