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
    /// The SHA-256 of the user's token, in hex (the token itself is never stored); a
    /// roles file has none.
    #[serde(default)]
    token_sha256: Option<String>,
}

/// The users of a users file, by the SHA-256 of their token; or of a roles file (the
/// same form without tokens), by name only.
#[derive(Debug, Default)]
pub struct Users {
    by_token: HashMap<[u8; 32], Identity>,
    by_name: HashMap<String, Identity>,
}

/// What a file of users is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsersOf {
    /// `--users`: each user signs in with a token, so each has a `token_sha256`.
    Tokens,
    /// `--roles`: a proxy names the users, whose roles are looked up by name; tokens
    /// are not needed (and are passed over when the users file itself is given).
    Names,
}

/// The largest users file read.
const USERS_LIMIT: u64 = 1 << 20;

impl Users {
    /// Read a users file: `[[user]]` tables of `name`, `email`, `role` (`viewer`,
    /// `editor`, `maintainer`) and `token_sha256`.
    pub fn load(path: &Path) -> Result<Users, AccessError> {
        Users::load_for(path, UsersOf::Tokens)
    }

    /// Read a roles file: a users file's form, `token_sha256` not needed.
    pub fn load_roles(path: &Path) -> Result<Users, AccessError> {
        Users::load_for(path, UsersOf::Names)
    }

    fn load_for(path: &Path, of: UsersOf) -> Result<Users, AccessError> {
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
        Users::parse_for(&text, of).map_err(bad)
    }

    /// A users file's text.
    pub fn parse(text: &str) -> Result<Users, String> {
        Users::parse_for(text, UsersOf::Tokens)
    }

    /// A users or roles file's text.
    pub fn parse_for(text: &str, of: UsersOf) -> Result<Users, String> {
        let file: UsersFile = toml::from_str(text).map_err(|e| e.message().to_string())?;
        let mut by_token = HashMap::new();
        let mut by_name: HashMap<String, Identity> = HashMap::new();
        for (index, user) in file.user.into_iter().enumerate() {
            let at = format!("user {} ({})", index + 1, one_word(&user.name));
            if !is_name(&user.name) || !is_name(&user.email) || !user.email.contains('@') {
                return Err(format!(
                    "{at}: a name and an email of printable characters, no `<`, `>` or line breaks"
                ));
            }
            let identity = Identity {
                name: user.name,
                email: user.email,
                role: user.role,
            };
            match (of, &user.token_sha256) {
                (UsersOf::Tokens, None) => {
                    return Err(format!(
                        "{at}: no token_sha256 (a users file gives each user the SHA-256 of their token; a file of roles for a sign-on proxy needs none)"
                    ));
                }
                (UsersOf::Tokens, Some(token)) => {
                    let hash = hex32(token).ok_or_else(|| {
                        format!("{at}: token_sha256 is not 64 hexadecimal digits")
                    })?;
                    if by_token.insert(hash, identity.clone()).is_some() {
                        return Err(format!("{at}: two users hold the same token"));
                    }
                }
                (UsersOf::Names, _) => {
                    if by_name.contains_key(&identity.name) {
                        return Err(format!("{at}: two users of that name"));
                    }
                }
            }
            by_name.entry(identity.name.clone()).or_insert(identity);
        }
        Ok(Users { by_token, by_name })
    }

    /// The user whose token this is.
    pub fn by_token(&self, token: &str) -> Option<&Identity> {
        let hash: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        self.by_token.get(&hash)
    }

    /// The user of this name (a proxy names users by name).
    pub fn by_name(&self, name: &str) -> Option<&Identity> {
        self.by_name.get(name)
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
    let mut out = [0u8; 32];
    hex::decode_to_slice(text.trim(), &mut out).ok()?;
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
    /// Made for a user whom every request names (this machine's planner, a proxy's
    /// user): one such session per user, which all their requests share.
    shared: bool,
}

/// How long a session lasts without use.
const SESSION_LIFE: Duration = Duration::from_secs(12 * 3600);
/// The most sessions kept in all: when that many live ones are other users', a new one
/// is not made (nobody else is signed out to make room).
const SESSIONS: usize = 10_000;
/// The most sessions one user keeps (signed in on that many browsers): the user's own
/// least recently used goes to make room, never another user's.
const PER_USER: usize = 8;

/// The sessions of signed-in browsers, in memory (a restart signs everyone out).
#[derive(Default)]
pub struct Sessions {
    by_id: Mutex<HashMap<String, Session>>,
}

impl Sessions {
    /// A new session for `identity` (a sign-in): its id (the cookie) and its CSRF token.
    /// `None` when the store is full of other users' live sessions.
    pub fn open(&self, identity: Identity) -> Option<(String, Session)> {
        self.made(identity, false)
    }

    /// The one session of a user every request names (this machine's planner, a
    /// proxy's user): theirs if it is alive, else a new one. A client that never keeps
    /// cookies asks again and again, and gets the same session each time.
    pub fn shared(&self, identity: Identity) -> Option<(String, Session)> {
        {
            let mut by_id = self.by_id.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            if let Some((id, session)) = by_id
                .iter_mut()
                .find(|(_, s)| s.shared && s.expires > now && s.identity == identity)
            {
                session.expires = now + SESSION_LIFE;
                return Some((id.clone(), session.clone()));
            }
        }
        self.made(identity, true)
    }

    fn made(&self, identity: Identity, shared: bool) -> Option<(String, Session)> {
        let id = random_token();
        let session = Session {
            identity,
            csrf: random_token(),
            expires: Instant::now() + SESSION_LIFE,
            shared,
        };
        let mut by_id = self.by_id.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        by_id.retain(|_, s| s.expires > now);
        let theirs: Vec<(&String, Instant)> = by_id
            .iter()
            .filter(|(_, s)| s.identity.name == session.identity.name)
            .map(|(k, s)| (k, s.expires))
            .collect();
        if theirs.len() >= PER_USER {
            let oldest = theirs
                .iter()
                .min_by_key(|(_, e)| *e)
                .map(|(k, _)| (*k).clone());
            if let Some(oldest) = oldest {
                by_id.remove(&oldest);
            }
        } else if by_id.len() >= SESSIONS {
            return None;
        }
        by_id.insert(id.clone(), session.clone());
        Some((id, session))
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
    hex::encode(bytes)
}

/// Two tokens compared in time that does not depend on where they differ (`subtle`).
pub fn same_token(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(token: &str) -> String {
        hex::encode(Sha256::digest(token.as_bytes()))
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

    /// The users file the console guide shows, read from the guide itself.
    fn guide_users_file() -> String {
        let guide = include_str!("../../docs/guide/console.md");
        let block = guide
            .split("```toml\n")
            .skip(1)
            .filter_map(|rest| rest.split_once("```").map(|(block, _)| block))
            .find(|block| block.contains("[[user]]"))
            .expect("the guide shows a users file");
        block.to_string()
    }

    #[test]
    fn a_roles_file_is_the_users_files_form_without_tokens_as_the_guide_says() {
        let users = guide_users_file();
        let parsed = Users::parse(&users).unwrap();
        let aiko = parsed.by_name("Aiko").unwrap().clone();
        let roles: String = users
            .lines()
            .filter(|l| !l.starts_with("token_sha256"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_ne!(roles, users, "the guide's file has a token to leave out");
        let taken = Users::parse_for(&roles, UsersOf::Names).unwrap();
        assert_eq!(taken.by_name("Aiko"), Some(&aiko));
        // The users file itself serves as a roles file too.
        assert!(Users::parse_for(&users, UsersOf::Names).is_ok());
        // As a users file, the form without tokens says what is missing.
        let missing = Users::parse(&roles).unwrap_err();
        assert!(missing.contains("no token_sha256"), "{missing}");
        let twice = format!("{roles}{roles}");
        assert!(Users::parse_for(&twice, UsersOf::Names).is_err());
    }

    fn who(name: &str) -> Identity {
        Identity {
            name: name.into(),
            email: format!("{name}@example.com"),
            role: Role::Viewer,
        }
    }

    #[test]
    fn signing_in_again_and_again_signs_out_nobody_else() {
        let sessions = Sessions::default();
        let (aiko, _) = sessions.open(who("Aiko")).unwrap();
        let (shared, _) = sessions.shared(who("Ken")).unwrap();
        // A viewer signing in 10,000 times keeps at most PER_USER sessions of their own.
        let mut last = None;
        for _ in 0..SESSIONS {
            last = sessions.open(who("Mallory")).map(|(id, _)| id);
        }
        assert!(sessions.get(&aiko).is_some(), "Aiko still signed in");
        assert!(sessions.get(&shared).is_some(), "Ken still signed in");
        assert!(sessions.get(&last.unwrap()).is_some());
        let count = sessions.by_id.lock().unwrap().len();
        assert_eq!(count, 2 + PER_USER);
        // A user every request names shares one session, however often they ask.
        for _ in 0..100 {
            assert_eq!(sessions.shared(who("Ken")).unwrap().0, shared);
        }
        // A store full of other users' live sessions makes no room by signing them out.
        let full = Sessions::default();
        for n in 0..SESSIONS {
            full.open(who(&format!("user{n}"))).unwrap();
        }
        assert!(full.open(who("late")).is_none());
        assert_eq!(full.by_id.lock().unwrap().len(), SESSIONS);
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
