//! The listener follows the settings at runtime: on, port changes, off, a
//! port already in use; and it is reachable on loopback only.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use almanac_core::rest::{RestServer, ServerState};
use almanac_core::settings::class::Actor;
use almanac_core::tokens::Scope;
use almanac_testkit::free_port;
use reqwest::StatusCode;
use serde_json::json;
use tokio::sync::watch;

use crate::rest::support::RestHarness;

async fn listening_on(state: &mut watch::Receiver<ServerState>, port: u16) -> SocketAddr {
    let state = state
        .wait_for(|s| matches!(s, ServerState::Listening(addr) if addr.port() == port))
        .await
        .unwrap();
    match *state {
        ServerState::Listening(addr) => addr,
        _ => unreachable!(),
    }
}

/// A free port that is not the reminder daemon's or the CalDAV server's
/// (the settings refuse a clash even while those are off, and the daemon's
/// default port lies in the ephemeral range `free_port` draws from).
fn port_of_its_own(settings: &almanac_core::settings::SettingsStore) -> u16 {
    let current = settings.get();
    let taken = [current.reminders.daemon_port, current.caldav_server.port];
    std::iter::repeat_with(free_port)
        .find(|port| !taken.contains(port))
        .expect("an endless supply of ports")
}

async fn refused(port: u16) -> bool {
    tokio::net::TcpStream::connect((Ipv4Addr::LOCALHOST, port))
        .await
        .is_err()
}

/// This machine's non-loopback IPv4 addresses.
fn other_interfaces() -> Vec<IpAddr> {
    let output = std::process::Command::new("hostname").arg("-I").output();
    let text = output
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    text.split_whitespace()
        .filter_map(|word| word.parse::<IpAddr>().ok())
        .filter(|ip| ip.is_ipv4() && !ip.is_loopback())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn starts_moves_stops_and_reports_a_busy_port() {
    let instance = RestHarness::start().await;
    // Moving the port is a privileged setting.
    let token = instance
        .token(&[Scope::EventsRead, Scope::SystemFullAccess])
        .await;
    let settings = instance.core.settings.clone();
    let server = RestServer::start(&instance.core);
    let mut state = server.subscribe();
    assert_eq!(server.state(), ServerState::Disabled);

    // On.
    let first = port_of_its_own(&settings);
    settings
        .update(
            Actor::User,
            &json!({"restServerEnabled": true, "localServerPort": first}),
        )
        .unwrap();
    let addr = listening_on(&mut state, first).await;
    assert_eq!(addr.ip(), IpAddr::V4(Ipv4Addr::LOCALHOST));
    let events = |port: u16| {
        let client = instance.client.clone();
        let token = token.clone();
        async move {
            client
                .get(format!("http://127.0.0.1:{port}/api/v1/events"))
                .bearer_auth(token)
                .send()
                .await
                .map(|r| r.status())
        }
    };
    assert_eq!(events(first).await.unwrap(), StatusCode::OK);

    // Loopback only: another interface of this machine does not answer.
    let others = other_interfaces();
    if others.is_empty() {
        eprintln!("NOTE: no non-loopback IPv4 address here; only the bound address was checked");
    }
    for ip in others {
        assert!(
            tokio::net::TcpStream::connect((ip, first)).await.is_err(),
            "reachable on {ip}"
        );
    }

    // A new port.
    let second = port_of_its_own(&settings);
    settings
        .update(Actor::User, &json!({"localServerPort": second}))
        .unwrap();
    listening_on(&mut state, second).await;
    assert!(refused(first).await, "the old port still accepts");
    assert_eq!(events(second).await.unwrap(), StatusCode::OK);

    // Moved by a client through PUT /settings: the answer still arrives.
    let third = port_of_its_own(&settings);
    let reply = instance
        .client
        .put(format!("http://127.0.0.1:{second}/api/v1/settings"))
        .bearer_auth(&token)
        .json(&json!({"settings": {"localServerPort": third}}))
        .send()
        .await
        .unwrap();
    let status = reply.status();
    assert_eq!(status, StatusCode::OK, "{}", reply.text().await.unwrap());
    listening_on(&mut state, third).await;
    assert!(refused(second).await);

    // Off.
    settings
        .update(Actor::User, &json!({"restServerEnabled": false}))
        .unwrap();
    state
        .wait_for(|s| *s == ServerState::Disabled)
        .await
        .unwrap();
    assert!(refused(third).await, "still accepting while disabled");

    // A port in use is reported, and the manager keeps going.
    let blocker = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let busy = blocker.local_addr().unwrap().port();
    settings
        .update(
            Actor::User,
            &json!({"restServerEnabled": true, "localServerPort": busy}),
        )
        .unwrap();
    let failed = state
        .wait_for(|s| matches!(s, ServerState::Failed(_)))
        .await
        .unwrap()
        .clone();
    let ServerState::Failed(reason) = failed else {
        unreachable!()
    };
    assert!(reason.contains(&busy.to_string()), "{reason}");
    let fourth = free_port();
    settings
        .update(Actor::User, &json!({"localServerPort": fourth}))
        .unwrap();
    listening_on(&mut state, fourth).await;
    assert_eq!(events(fourth).await.unwrap(), StatusCode::OK);

    server.shutdown().await;
    assert!(refused(fourth).await, "still accepting after shutdown");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restart_on_the_same_port_finds_it_free() {
    let instance = RestHarness::start().await;
    let settings = instance.core.settings.clone();
    let server = RestServer::start(&instance.core);
    let mut state = server.subscribe();
    let port = free_port();
    for _ in 0..5 {
        settings
            .update(
                Actor::User,
                &json!({"restServerEnabled": true, "localServerPort": port}),
            )
            .unwrap();
        listening_on(&mut state, port).await;
        settings
            .update(Actor::User, &json!({"restServerEnabled": false}))
            .unwrap();
        state
            .wait_for(|s| *s == ServerState::Disabled)
            .await
            .unwrap();
    }
    // Dropping the handle stops the server too.
    settings
        .update(Actor::User, &json!({"restServerEnabled": true}))
        .unwrap();
    listening_on(&mut state, port).await;
    drop(server);
    state
        .wait_for(|s| *s == ServerState::Disabled)
        .await
        .unwrap();
    assert!(refused(port).await);
}
