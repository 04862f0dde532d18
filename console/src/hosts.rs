//! Which host names the console answers to: the defence against DNS rebinding.
//!
//! A page on `attacker.example` can make its name resolve to 127.0.0.1 and then talk to
//! a console on this machine as if it were its own site — the browser sends
//! `Host: attacker.example`, and a console without login would hand it a session. So a
//! console without users answers only to loopback names (`localhost`, `127.0.0.1`,
//! `[::1]`, with any port); one with users or a proxy also to the names given with
//! `--allowed-host` (and to any, when none is given: its users must sign in, and a
//! browser never sends their cookie to another name). A request without a host name
//! (no `Host`, no authority) is not a browser's, and is served.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::Console;
use crate::access::Policy;

/// The host names a console answers to besides the loopback ones.
#[derive(Debug, Clone, Default)]
pub struct AllowedHosts {
    names: Vec<String>,
}

impl AllowedHosts {
    /// Names as `--allowed-host` gives them (`console.example.com`, with or without a
    /// port); compared without case.
    pub fn new(names: &[String]) -> AllowedHosts {
        AllowedHosts {
            names: names
                .iter()
                .map(|n| host_name(n).to_ascii_lowercase())
                .collect(),
        }
    }

    /// Whether a request naming `host` (a `Host` header's value) is served under
    /// `policy`.
    pub fn allow(&self, policy: &Policy, host: &str) -> bool {
        let name = host_name(host).to_ascii_lowercase();
        if is_loopback(&name) {
            return true;
        }
        match policy {
            Policy::Local(_) => false,
            Policy::Users(_) | Policy::Proxy { .. } => {
                self.names.is_empty() || self.names.contains(&name)
            }
        }
    }
}

/// The middleware: a request for another host name is answered 421 (Misdirected
/// Request), before any session or page.
pub async fn check(State(console): State<Arc<Console>>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .map(|h| h.to_str().unwrap_or("\u{0}").to_string())
        .or_else(|| request.uri().authority().map(|a| a.as_str().to_string()));
    match host {
        Some(host) if !console.hosts.allow(&console.policy, &host) => (
            StatusCode::MISDIRECTED_REQUEST,
            "this console does not answer to that host name: open it by its own address (on this machine, http://127.0.0.1 or http://localhost); a console for a studio names its public names with --allowed-host\n",
        )
            .into_response(),
        _ => next.run(request).await,
    }
}

/// The host name of a `Host` value: without its port, an IPv6 literal without its
/// brackets' port (`[::1]:7878` is `[::1]`).
fn host_name(host: &str) -> &str {
    let host = host.trim();
    if host.starts_with('[') {
        return host.split_inclusive(']').next().unwrap_or(host);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// `localhost` (and its subdomains, which resolve to this machine by RFC 6761), or a
/// loopback address.
fn is_loopback(name: &str) -> bool {
    let name = name.trim_end_matches('.');
    if name == "localhost" || name.ends_with(".localhost") {
        return true;
    }
    let literal = name.trim_start_matches('[').trim_end_matches(']');
    literal.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::{Identity, Role};

    fn local() -> Policy {
        Policy::Local(Identity {
            name: "a".into(),
            email: "a@b".into(),
            role: Role::Maintainer,
        })
    }

    #[test]
    fn a_console_without_users_answers_to_loopback_names_only() {
        let hosts = AllowedHosts::default();
        for host in [
            "localhost",
            "localhost:7878",
            "LOCALHOST:7878",
            "127.0.0.1:7878",
            "127.0.0.2",
            "[::1]:7878",
            "[::1]",
            "app.localhost:1",
        ] {
            assert!(hosts.allow(&local(), host), "{host}");
        }
        for host in [
            "attacker.example",
            "attacker.example:7878",
            "localhost.attacker.example",
            "127.0.0.1.attacker.example",
            "10.0.0.5:7878",
            "[::2]:7878",
            "",
            "\u{0}",
        ] {
            assert!(!hosts.allow(&local(), host), "{host}");
        }
    }

    #[test]
    fn a_console_for_a_studio_answers_to_the_names_it_is_given() {
        let users = Policy::Users(crate::access::Users::default());
        assert!(AllowedHosts::default().allow(&users, "console.example.com"));
        let named = AllowedHosts::new(&["Console.Example.com:443".to_string()]);
        assert!(named.allow(&users, "console.example.com:8443"));
        assert!(named.allow(&users, "localhost:7878"));
        assert!(!named.allow(&users, "attacker.example"));
    }
}
