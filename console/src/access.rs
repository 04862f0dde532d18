//! Who may do what. Three ways to know who asks: a planner on this machine (the console
//! bound to a loopback address, no users file: no login, commits authored by the git
//! identity), a users file (`--users FILE`: each user's name, email, role and the
//! SHA-256 of their token), or a studio's single sign-on proxy in front
//! (`--auth-header NAME --trusted-proxy IP,...`: the user is that header's value,
//! believed only from those addresses). No identity, no access. Roles are ordered:
//! a `viewer` reads, an `editor` also imports, translates and proposes merges, a
//! `maintainer` also rebases, merges and rolls back.

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Deserialize;
use sha2::{Digest, Sha256};

/// What a user may do; each role may do what the ones before it may.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Viewer,
    Editor,
    Maintainer,
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Role::Viewer => "viewer",
            Role::Editor => "editor",
            Role::Maintainer => "maintainer",
        })
    }
}

/// Who is asking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub email: String,
    pub role: Role,
}

/// Why the users file cannot be taken, or the console cannot start as asked.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    #[error("{path}: {message}")]
    UsersFile { path: String, message: String },
    #[error(
        "the console listens on {listen}, which other machines can reach: name who may use it (a users file, or a sign-in proxy and its addresses)"
    )]
    Unprotected { listen: String },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UsersFile {
    #[serde(default)]
    user: Vec<UserEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UserEntry {
    name: String,
    email: String,
    role: Role,
    /// The SHA-256 of the user's token, in hex (the token itself is never stored).
    token_sha256: String,
}

/// The users of a users file, by the SHA-256 of their token.
#[derive(Debug, Default)]
pub struct Users {
    by_token: HashMap<[u8; 32], Identity>,
}

/// The largest users file read.
const USERS_LIMIT: u64 = 1 << 20;

impl Users {
    /// Read a users file: `[[user]]` tables of `name`, `email`, `role` (`viewer`,
    /// `editor`, `maintainer`) and `token_sha256`.
    pub fn load(path: &Path) -> Result<Users, AccessError> {
        let shown = path.display().to_string();
        let bad = |message: String| AccessError::UsersFile {
            path: shown.clone(),
            message,
        };
        let bytes = std::fs::metadata(path)
            .map_err(|e| bad(e.to_string()))
            .and_then(|m| match m.len() > USERS_LIMIT {
                true => Err(bad("larger than 1 MiB: not a users file".into())),
                false => std::fs::read(path).map_err(|e| bad(e.to_string())),
            })?;
        let text = String::from_utf8(bytes).map_err(|_| bad("not UTF-8".into()))?;
        Users::parse(&text).map_err(bad)
    }

    /// A users file's text.
    pub fn parse(text: &str) -> Result<Users, String> {
        let file: UsersFile = toml::from_str(text).map_err(|e| e.message().to_string())?;
        let mut by_token = HashMap::new();
        for (index, user) in file.user.into_iter().enumerate() {
            let at = format!("user {} ({})", index + 1, one_word(&user.name));
            if !is_name(&user.name) || !is_name(&user.email) || !user.email.contains('@') {
                return Err(format!(
                    "{at}: a name and an email of printable characters, no `<`, `>` or line breaks"
                ));
            }
            let hash = hex32(&user.token_sha256)
                .ok_or_else(|| format!("{at}: token_sha256 is not 64 hexadecimal digits"))?;
            let identity = Identity {
                name: user.name,
                email: user.email,
                role: user.role,
            };
            if by_token.insert(hash, identity).is_some() {
                return Err(format!("{at}: two users hold the same token"));
            }
        }
        Ok(Users { by_token })
    }

    /// The user whose token this is.
    pub fn by_token(&self, token: &str) -> Option<&Identity> {
        let hash: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        self.by_token.get(&hash)
    }

    /// The user of this name (a proxy names users by name).
    pub fn by_name(&self, name: &str) -> Option<&Identity> {
        self.by_token.values().find(|u| u.name == name)
    }
}

/// A name or email git would accept in a commit's author line.
fn is_name(text: &str) -> bool {
    !text.trim().is_empty()
        && text.len() <= 200
        && !text
            .chars()
            .any(|c| c.is_control() || matches!(c, '<' | '>'))
}

/// Text quoted in a message, shortened and without control characters.
fn one_word(text: &str) -> String {
    text.chars()
        .take(40)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

fn hex32(text: &str) -> Option<[u8; 32]> {
    let text = text.trim();
    if text.len() != 64 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[i * 2..i * 2 + 2], 16).ok()?;
    }
    Some(out)
}

/// How the console knows who asks.
pub enum Policy {
    /// A planner on this machine: the console listens on a loopback address only.
    Local(Identity),
    /// Users from a users file, by token (a login sets a session).
    Users(Users),
    /// A single sign-on proxy names the user in `header`, believed only from `trusted`
    /// addresses; roles from `users` by name (a user it does not name is a viewer).
    Proxy {
        header: String,
        trusted: Vec<IpAddr>,
        users: Option<Users>,
    },
}

impl Policy {
    /// The policy for a console listening on `listen`: a non-loopback address needs
    /// users or a proxy.
    pub fn check(&self, listen: &std::net::SocketAddr) -> Result<(), AccessError> {
        match self {
            Policy::Local(_) if !listen.ip().is_loopback() => Err(AccessError::Unprotected {
                listen: listen.to_string(),
            }),
            _ => Ok(()),
        }
    }
}

/// A signed-in browser: who, and the token its forms must carry.
#[derive(Debug, Clone)]
pub struct Session {
    pub identity: Identity,
    pub csrf: String,
    expires: Instant,
}

/// How long a session lasts without use.
const SESSION_LIFE: Duration = Duration::from_secs(12 * 3600);
/// The most sessions kept (the oldest go first).
const SESSIONS: usize = 10_000;

/// The sessions of signed-in browsers, in memory (a restart signs everyone out).
#[derive(Default)]
pub struct Sessions {
    by_id: Mutex<HashMap<String, Session>>,
}

impl Sessions {
    /// A new session for `identity`: its id (the cookie) and its CSRF token.
    pub fn open(&self, identity: Identity) -> (String, Session) {
        let id = random_token();
        let session = Session {
            identity,
            csrf: random_token(),
            expires: Instant::now() + SESSION_LIFE,
        };
        let mut by_id = self.by_id.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        by_id.retain(|_, s| s.expires > now);
        if by_id.len() >= SESSIONS
            && let Some(oldest) = by_id
                .iter()
                .min_by_key(|(_, s)| s.expires)
                .map(|(k, _)| k.clone())
        {
            by_id.remove(&oldest);
        }
        by_id.insert(id.clone(), session.clone());
        (id, session)
    }

    /// The session of this id, if it is alive (its life starts again).
    pub fn get(&self, id: &str) -> Option<Session> {
        let mut by_id = self.by_id.lock().unwrap_or_else(|e| e.into_inner());
        let session = by_id.get_mut(id)?;
        if session.expires <= Instant::now() {
            by_id.remove(id);
            return None;
        }
        session.expires = Instant::now() + SESSION_LIFE;
        Some(session.clone())
    }

    /// End a session.
    pub fn close(&self, id: &str) {
        let mut by_id = self.by_id.lock().unwrap_or_else(|e| e.into_inner());
        by_id.remove(id);
    }
}

/// 32 random bytes from the OS, in hex.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    // The OS's random source failing is no state to serve pages in.
    getrandom::fill(&mut bytes).expect("the operating system's random source works");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Two tokens compared in time that does not depend on where they differ.
pub fn same_token(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(token: &str) -> String {
        Sha256::digest(token.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    #[test]
    fn a_users_file_gives_each_token_its_user_and_refuses_what_is_not_one() {
        let text = format!(
            "[[user]]\nname = \"Aiko\"\nemail = \"aiko@example.com\"\nrole = \"maintainer\"\ntoken_sha256 = \"{}\"\n",
            sha("s3cret")
        );
        let users = Users::parse(&text).unwrap();
        assert_eq!(users.by_token("s3cret").unwrap().role, Role::Maintainer);
        assert!(users.by_token("S3cret").is_none());
        assert_eq!(users.by_name("Aiko").unwrap().email, "aiko@example.com");
        for bad in [
            text.replace("maintainer", "admin"),
            text.replace(&sha("s3cret"), "abc"),
            text.replace("Aiko", "Ai\\nko"),
            text.replace("aiko@example.com", "a <b>"),
            format!("{text}password = \"x\"\n"),
            format!("{text}{text}"),
        ] {
            assert!(Users::parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn roles_are_ordered_and_tokens_compare_whole() {
        assert!(Role::Viewer < Role::Editor && Role::Editor < Role::Maintainer);
        assert!(same_token("abc", "abc"));
        assert!(!same_token("abc", "abd") && !same_token("abc", "ab"));
        assert_ne!(random_token(), random_token());
        assert_eq!(random_token().len(), 64);
    }
}
