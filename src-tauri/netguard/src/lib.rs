//! Keeping outbound fetches off this machine and its networks.
//!
//! Used by the core for ICS feeds and by the reminder daemon for the update
//! feed, so it sits in a crate of its own that both can depend on. A feed
//! URL comes from the settings, which a token with `system:full-access` can
//! change. Without a guard, such a script could make Almanac request
//! anything this machine can reach: the reminder daemon on loopback, the
//! router's admin page, a cloud metadata endpoint. So a feed, unless its
//! source carries `allowPrivateNetwork` (which only the user can set), may
//! only reach public addresses:
//!
//! - a host written as an IP address is checked before the request, and on
//!   every redirect (the redirect policy);
//! - a host name goes through [`GuardedResolver`], which resolves it, refuses
//!   the name if any address it resolves to is not public, and hands the
//!   checked addresses to the connector. The connection goes to exactly the
//!   addresses checked, so a DNS answer that changes between check and
//!   connect (rebinding) cannot slip through. Redirects to a name are
//!   resolved, and so checked, the same way.
//!
//! Proxies from the environment are not used for guarded fetches: a proxy
//! resolves names where Almanac cannot check them.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::{Url, redirect};

/// Redirects followed before a fetch gives up (reqwest's default).
pub const MAX_REDIRECTS: usize = 10;

/// Decides whether a feed may be fetched from an address: `None` when it may,
/// or what kind of address it is when it may not.
pub type AddressRule = fn(IpAddr) -> Option<&'static str>;

/// A fetch stopped because the host is not public.
#[derive(Debug, thiserror::Error)]
#[error(
    "refused to fetch from `{host}`: {ip} is a {kind} address, and only public \
     addresses are fetched (a calendar source can allow the private network in its settings)"
)]
pub struct Refused {
    host: String,
    ip: IpAddr,
    kind: &'static str,
}

/// The production rule: every address that is not public on the Internet is
/// refused.
pub fn public_only(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(ip) => v4_kind(ip),
        IpAddr::V6(ip) => v6_kind(ip),
    }
}

fn v4_kind(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (0, ..) => "\"this network\" (0.0.0.0/8)",
        (127, ..) => "loopback",
        (10, ..) | (172, 16..=31, _) | (192, 168, _) => "private",
        (100, 64..=127, _) => "shared (carrier-grade NAT)",
        (169, 254, _) => "link-local",
        (192, 0, 0) => "IETF protocol",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation",
        (198, 18..=19, _) => "benchmarking",
        (224..=239, ..) => "multicast",
        (240..=255, ..) => "reserved or broadcast",
        _ => return None,
    })
}

fn v6_kind(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return v4_kind(v4);
    }
    let s = ip.segments();
    let embedded_v4 = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    Some(match s {
        [0, 0, 0, 0, 0, 0, 0, 0] => "unspecified",
        [0, 0, 0, 0, 0, 0, 0, 1] => "loopback",
        // IPv4-compatible (deprecated): the embedded address decides.
        [0, 0, 0, 0, 0, 0, hi, lo] => v4_kind(embedded_v4(hi, lo)).unwrap_or("IPv4-compatible"),
        // NAT64 reaches the embedded IPv4 address.
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => return v4_kind(embedded_v4(hi, lo)),
        [0x64, 0xff9b, 1, ..] => "local-use NAT64",
        // 6to4 reaches the IPv4 address in bits 16-48.
        [0x2002, hi, lo, ..] => return v4_kind(embedded_v4(hi, lo)),
        [0x2001, 0, ..] => "Teredo",
        [0x2001, 0xdb8, ..] => "documentation",
        [0x100, 0, 0, 0, ..] => "discard-only",
        [first, ..] if first & 0xfe00 == 0xfc00 => "unique local (private)",
        [first, ..] if first & 0xffc0 == 0xfe80 => "link-local",
        [first, ..] if first & 0xffc0 == 0xfec0 => "site-local",
        [first, ..] if first & 0xff00 == 0xff00 => "multicast",
        _ => return None,
    })
}

/// Checks the host of `url` when it is an IP address. Names are checked when
/// they are resolved ([`GuardedResolver`]).
pub fn check_url(url: &Url, rule: AddressRule) -> Result<(), Refused> {
    let ip = match url.host() {
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip),
        _ => return Ok(()),
    };
    match rule(ip) {
        Some(kind) => Err(Refused {
            host: ip.to_string(),
            ip,
            kind,
        }),
        None => Ok(()),
    }
}

/// Resolves names with the system resolver and refuses those that lead to an
/// address `rule` refuses.
pub struct GuardedResolver {
    rule: AddressRule,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let rule = self.rule;
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if let Some((ip, kind)) = addrs
                .iter()
                .find_map(|addr| rule(addr.ip()).map(|kind| (addr.ip(), kind)))
            {
                return Err(Box::new(Refused { host, ip, kind }) as _);
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// The resolver that refuses names resolving to an address `rule` refuses.
pub fn resolver(rule: AddressRule) -> Arc<GuardedResolver> {
    Arc::new(GuardedResolver { rule })
}

/// The redirect policy that checks every hop's IP host with `rule` (names
/// are checked when [`resolver`] resolves them) and stops after
/// [`MAX_REDIRECTS`].
pub fn redirect_policy(rule: AddressRule) -> redirect::Policy {
    redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() >= MAX_REDIRECTS {
            return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
        }
        match check_url(attempt.url(), rule) {
            Ok(()) => attempt.follow(),
            Err(refused) => attempt.error(refused),
        }
    })
}

/// The async `builder` with the guard installed: names resolved by
/// [`GuardedResolver`], every redirect target checked, no proxy. (The
/// core's blocking clients install the same two parts.)
pub fn guard(builder: reqwest::ClientBuilder, rule: AddressRule) -> reqwest::ClientBuilder {
    builder
        .no_proxy()
        .dns_resolver(resolver(rule))
        .redirect(redirect_policy(rule))
}

/// The guard's refusal inside a reqwest error, if that is why it failed.
pub fn refusal<'e>(error: &'e (dyn std::error::Error + 'static)) -> Option<&'e Refused> {
    let mut source = Some(error);
    while let Some(error) = source {
        if let Some(refused) = error.downcast_ref::<Refused>() {
            return Some(refused);
        }
        source = error.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_public_addresses_are_refused() {
        for ip in [
            "0.0.0.0",
            "0.1.2.3",
            "127.0.0.1",
            "127.255.255.254",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "100.64.0.1",
            "100.127.255.255",
            "169.254.169.254",
            "192.0.0.8",
            "192.0.2.1",
            "198.18.0.1",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "::0.0.0.2",
            "64:ff9b::7f00:1",
            "64:ff9b:1::1",
            "2002:7f00:1::1",
            "2002:c0a8:101::1",
            "2001::1",
            "2001:db8::1",
            "100::1",
            "fc00::1",
            "fd12:3456:789a::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "ff0e::1",
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            assert!(public_only(ip).is_some(), "{ip} was allowed");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.255.255",
            "172.32.0.1",
            "192.167.1.1",
            "192.169.1.1",
            "169.253.1.1",
            "223.255.255.255",
            "2606:4700:4700::1111",
            "2a00:1450:4001:80b::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "fbff::1",
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            assert_eq!(public_only(ip), None, "{ip} was refused");
        }
    }

    #[test]
    fn ip_hosts_are_checked_in_every_spelling() {
        for url in [
            "http://127.0.0.1:45677/",
            "http://2130706433/",
            "http://0x7f.1/",
            "http://[::1]/",
            "http://[::ffff:7f00:1]/",
            "https://[fe80::1]:8443/a.ics",
            "http://0/",
        ] {
            let url = Url::parse(url).unwrap();
            assert!(check_url(&url, public_only).is_err(), "{url} passed");
        }
        let named = Url::parse("http://localhost/").unwrap();
        assert!(
            check_url(&named, public_only).is_ok(),
            "names are the resolver's to check"
        );
    }
}
