//! Talking to a remote through libgit2's own transports — a path, `ssh://` (the user's
//! agent, then their default keys; the host checked against `~/.ssh/known_hosts`),
//! `http(s)://` (git's credential helpers) — and what a failure is called. A URL is
//! shown without its user name and password, and so is every message libgit2 gives.

use git2::{Cred, CredentialType, RemoteCallbacks};
use serde::Serialize;

use crate::names::RemoteName;
use crate::remote::RemoteError;

/// What went wrong talking to a remote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trouble {
    /// No connection: a host that does not answer, a path that is no repository.
    Unreachable,
    /// The remote refused every credential offered (or none was there to offer).
    Credentials,
    /// The server's host key (or certificate) is not one this machine trusts.
    HostKey,
    /// Anything else the transport reported.
    Failed,
}

impl std::fmt::Display for Trouble {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Trouble::Unreachable => "cannot reach it",
            Trouble::Credentials => "it refused the credentials",
            Trouble::HostKey => "its host key or certificate is not one this machine trusts",
            Trouble::Failed => "it failed",
        })
    }
}

/// A URL with any `user:password@` taken out.
pub fn shown_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    let mut rest = url;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| c == '/' || c.is_whitespace())
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        out.push_str(
            authority
                .rsplit_once('@')
                .map_or(authority, |(_, host)| host),
        );
        rest = &tail[end..];
    }
    out.push_str(rest);
    crate::names::one_line(&out)
}

/// A libgit2 failure talking to `remote`, named by what it was.
pub fn failure(remote: &RemoteName, url: &str, error: &git2::Error) -> RemoteError {
    use git2::{ErrorClass, ErrorCode};
    let what = match (error.code(), error.class()) {
        (ErrorCode::Certificate, _) => Trouble::HostKey,
        (_, ErrorClass::Ssh) if error.message().contains("hostkey") => Trouble::HostKey,
        (ErrorCode::Auth, _) => Trouble::Credentials,
        (_, ErrorClass::Ssh) if error.message().contains("authentication") => Trouble::Credentials,
        (_, ErrorClass::Net | ErrorClass::Os) => Trouble::Unreachable,
        (ErrorCode::NotFound, _) => Trouble::Unreachable,
        (_, ErrorClass::Repository) => Trouble::Unreachable,
        _ => Trouble::Failed,
    };
    RemoteError::Transport {
        remote: remote.to_string(),
        url: shown_url(url),
        what,
        message: shown_url(error.message()),
    }
}

/// Callbacks that offer credentials once each, in git's order: for ssh the agent, then
/// the default keys under `~/.ssh`; for http(s) git's credential helpers (with the
/// repository's configuration); then the platform's default. libgit2 asks again after a
/// refusal: what was offered is not offered twice, so a refusal ends the attempt.
pub fn callbacks<'a>(config: git2::Config) -> RemoteCallbacks<'a> {
    let mut callbacks = RemoteCallbacks::new();
    let mut agent_tried = false;
    let mut keys = default_keys().into_iter();
    let mut helper_tried = false;
    let mut default_tried = false;
    callbacks.credentials(move |url, username, allowed| {
        let user = username.unwrap_or("git");
        if allowed.contains(CredentialType::USERNAME) {
            return Cred::username(user);
        }
        if allowed.contains(CredentialType::SSH_KEY) {
            if !agent_tried {
                agent_tried = true;
                if std::env::var_os("SSH_AUTH_SOCK").is_some() {
                    return Cred::ssh_key_from_agent(user);
                }
            }
            if let Some(key) = keys.next() {
                return Cred::ssh_key(user, None, &key, None);
            }
        }
        if allowed.contains(CredentialType::USER_PASS_PLAINTEXT) && !helper_tried {
            helper_tried = true;
            if let Ok(cred) = Cred::credential_helper(&config, url, username) {
                return Ok(cred);
            }
        }
        if allowed.contains(CredentialType::DEFAULT) && !default_tried {
            default_tried = true;
            return Cred::default();
        }
        Err(git2::Error::new(
            git2::ErrorCode::Auth,
            git2::ErrorClass::Net,
            "no credential left to offer",
        ))
    });
    callbacks
}

/// The private keys ssh would try: `~/.ssh/id_ed25519`, `id_ecdsa`, `id_rsa`, those
/// that exist.
fn default_keys() -> Vec<std::path::PathBuf> {
    let Some(home) = std::env::var_os("HOME") else {
        return Vec::new();
    };
    let dir = std::path::Path::new(&home).join(".ssh");
    ["id_ed25519", "id_ecdsa", "id_rsa"]
        .iter()
        .map(|name| dir.join(name))
        .filter(|path| path.is_file())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_their_credentials() {
        assert_eq!(
            shown_url("https://alice:s3cret@git.example.com/masters.git"),
            "https://git.example.com/masters.git"
        );
        assert_eq!(
            shown_url("ssh://git@127.0.0.1:2222/srv/masters.git"),
            "ssh://127.0.0.1:2222/srv/masters.git"
        );
        assert_eq!(shown_url("/srv/masters.git"), "/srv/masters.git");
        assert_eq!(
            shown_url("failed to connect to https://u:p@h/x and http://v:q@i/y"),
            "failed to connect to https://h/x and http://i/y"
        );
        assert_eq!(shown_url("a\nb"), "a\\nb");
    }
}
