//! Discovery (well-known → principal → home set → calendars) and the
//! password in the real OS keyring.

use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::calendar::sources::caldav::{DavClient, DavError, discover};

use crate::caldav_source::radicale::{PASSWORD, Radicale, USER};

#[test]
fn discovery_finds_the_calendar_from_the_server_root() {
    let server = Radicale::start();
    let client =
        DavClient::new(&url::Url::parse(&server.url("/")).unwrap(), USER, PASSWORD).unwrap();
    let found = discover::calendars(&client, &server.url("/")).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].url, server.calendar());
    assert_eq!(found[0].name, "Work");
    assert_eq!(found[0].color.as_deref(), Some("#3366ccff"));
}

#[test]
fn a_calendar_address_is_taken_as_it_is() {
    let server = Radicale::start();
    server.mkcalendar("home", "Home");
    let client =
        DavClient::new(&url::Url::parse(&server.url("/")).unwrap(), USER, PASSWORD).unwrap();
    let found = discover::calendars(&client, &server.url("/alice/home/")).unwrap();
    let urls: Vec<_> = found.iter().map(|c| c.url.as_str()).collect();
    assert_eq!(urls, [server.url("/alice/home/")]);
    // The home holding both: both are found.
    let found = discover::calendars(&client, &server.url("/alice/")).unwrap();
    assert_eq!(found.len(), 2, "{found:?}");
}

#[test]
fn discovery_with_a_wrong_password_is_unauthorized() {
    let server = Radicale::start();
    let client =
        DavClient::new(&url::Url::parse(&server.url("/")).unwrap(), USER, "wrong").unwrap();
    assert_eq!(
        discover::calendars(&client, &server.url("/")),
        Err(DavError::Unauthorized)
    );
}

#[test]
fn discovery_of_a_stopped_server_says_unreachable() {
    let mut server = Radicale::start();
    server.stop();
    let client =
        DavClient::new(&url::Url::parse(&server.url("/")).unwrap(), USER, PASSWORD).unwrap();
    let outcome = discover::calendars(&client, &server.url("/"));
    assert!(
        matches!(outcome, Err(DavError::Unreachable(_))),
        "{outcome:?}"
    );
}

#[test]
fn the_password_lives_in_the_os_keyring_under_the_source_id() {
    let passwords = Passwords::default();
    let id = format!("caldav-test-{}", std::process::id());
    passwords.set(&id, PASSWORD).unwrap();
    assert_eq!(passwords.get(&id).unwrap().as_deref(), Some(PASSWORD));
    passwords.delete(&id).unwrap();
    assert_eq!(passwords.get(&id).unwrap(), None);
}

#[test]
fn a_password_stored_with_secret_tool_is_the_one_almanac_uses() {
    use std::io::Write;
    // The documented headless way to store it (Settings does it otherwise).
    let id = format!("caldav-tool-{}", std::process::id());
    let mut tool = std::process::Command::new("secret-tool")
        .args([
            "store",
            "--label=Almanac CalDAV",
            "service",
            "almanac-caldav",
            "username",
            &id,
        ])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("secret-tool (libsecret-tools) is installed");
    tool.stdin
        .take()
        .unwrap()
        .write_all(PASSWORD.as_bytes())
        .unwrap();
    assert!(tool.wait().unwrap().success());
    let passwords = Passwords::default();
    assert_eq!(passwords.get(&id).unwrap().as_deref(), Some(PASSWORD));
    passwords.delete(&id).unwrap();
}
