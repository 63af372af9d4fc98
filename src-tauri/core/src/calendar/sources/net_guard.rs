//! Keeping feed fetches off this machine and its networks: the guard of
//! the `almanac-netguard` crate (shared with the reminder daemon's update
//! check), installed on the core's blocking clients. See that crate for
//! the rules.

pub use almanac_netguard::{
    AddressRule, GuardedResolver, MAX_REDIRECTS, Refused, check_url, public_only, refusal,
};
use reqwest::blocking::ClientBuilder;

/// `builder` with the guard installed: names resolved by [`GuardedResolver`],
/// every redirect target checked, no proxy.
pub fn guard(builder: ClientBuilder, rule: AddressRule) -> ClientBuilder {
    builder
        .no_proxy()
        .dns_resolver(almanac_netguard::resolver(rule))
        .redirect(almanac_netguard::redirect_policy(rule))
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr, SocketAddr};

    use super::*;

    /// A server on `addr` answering every request with `response`.
    fn serve(addr: &str, response: String) -> SocketAddr {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind(addr).unwrap();
        let bound = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                    line.clear();
                }
                let _ = stream.write_all(response.as_bytes());
            }
        });
        bound
    }

    fn redirect_to(location: &str) -> String {
        format!(
            "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
    }

    /// The test's stand-in for "the Internet": 127.0.0.1 counts as public,
    /// every other address is judged as in production. The fetch itself is
    /// real HTTP through the guarded client.
    fn loopback_one_is_public(ip: IpAddr) -> Option<&'static str> {
        if ip == IpAddr::V4(Ipv4Addr::LOCALHOST) {
            None
        } else {
            public_only(ip)
        }
    }

    fn get(url: &str) -> Result<reqwest::blocking::Response, reqwest::Error> {
        guard(reqwest::blocking::Client::builder(), loopback_one_is_public)
            .build()
            .unwrap()
            .get(url)
            .send()
    }

    #[test]
    fn every_redirect_hop_is_checked() {
        let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".to_string();
        // The private target really answers, so only the guard can stop it.
        let private = serve("127.0.0.2:0", ok.clone());
        let public = serve("127.0.0.1:0", ok);
        let to_public = serve("127.0.0.1:0", redirect_to(&format!("http://{public}/")));
        let reply = get(&format!("http://{to_public}/")).unwrap();
        assert_eq!(reply.text().unwrap(), "ok", "a public redirect is followed");

        let to_private = serve("127.0.0.1:0", redirect_to(&format!("http://{private}/")));
        let hop = serve("127.0.0.1:0", redirect_to(&format!("http://{to_private}/")));
        let error = get(&format!("http://{hop}/")).unwrap_err();
        let refused = refusal(&error).unwrap_or_else(|| panic!("not refused: {error:?}"));
        assert!(refused.to_string().contains("127.0.0.2"), "{refused}");
        // Sanity: the private server does answer when asked directly.
        assert!(
            reqwest::blocking::get(format!("http://{private}/"))
                .unwrap()
                .status()
                .is_success()
        );
    }

    #[test]
    fn names_are_refused_by_what_they_resolve_to() {
        let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".to_string();
        let server = serve("127.0.0.1:0", ok);
        // `localhost` resolves to 127.0.0.1 (allowed here) and, on most
        // machines, ::1 (refused): a name with any refused address is
        // refused. Without ::1 it is allowed; both outcomes are checked.
        let outcome = get(&format!("http://localhost:{}/", server.port()));
        let has_v6 = std::net::ToSocketAddrs::to_socket_addrs(&("localhost", 0))
            .unwrap()
            .any(|a| a.is_ipv6());
        match outcome {
            Err(error) => {
                assert!(has_v6, "refused without a reason: {error:?}");
                assert!(refusal(&error).unwrap().to_string().contains("::1"));
            }
            Ok(reply) => assert!(!has_v6, "::1 slipped through: {}", reply.status()),
        }
        // With the production rule, localhost is always refused.
        let error = guard(reqwest::blocking::Client::builder(), public_only)
            .build()
            .unwrap()
            .get(format!("http://localhost:{}/", server.port()))
            .send()
            .unwrap_err();
        assert!(refusal(&error).is_some(), "{error:?}");
    }
}
