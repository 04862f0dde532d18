//! Who a request comes from, resolved once per request by [`identify`] (a middleware):
//! the planner on this machine, a session cookie, a bearer token, or a trusted proxy's
//! header. A request from nobody gets 401 (and the sign-in page, where there is one);
//! a browser without a session gets one, so that its forms carry a CSRF token.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use cookie::{Cookie, SameSite};

use crate::Console;
use crate::access::{Identity, Policy, Role, Session, same_token};
use crate::failed::ConsoleError;

/// The name of the session cookie.
pub const COOKIE: &str = "masterctl_session";

/// Who asks, as the handlers see it.
#[derive(Debug, Clone)]
pub struct Visitor {
    pub identity: Identity,
    /// The browser session (`None`: a bearer token, no cookie).
    pub session: Option<(String, String)>,
    /// The language pages speak to them in.
    pub lang: crate::i18n::Lang,
}

impl Visitor {
    /// The words of `id` in the visitor's language.
    pub fn t(&self, id: &str) -> String {
        self.lang.say(id, &[])
    }

    /// `Name (role)`, in the visitor's language.
    pub fn signed_in(&self) -> String {
        let role = self.t(&format!("role-{}", self.identity.role));
        self.lang.say(
            "signed-in-as",
            &[("name", &self.identity.name), ("role", &role)],
        )
    }

    /// The word for `name` of a kind of things (`kind`, `table`: `kind-table`).
    pub fn named(&self, kind: &str, name: &str) -> String {
        self.t(&format!("{kind}-{name}"))
    }

    /// The words of `id` with `$name` put in.
    pub fn t1(&self, id: &str, name: &str, value: impl ToString) -> String {
        self.lang.say(id, &[(name, &value.to_string())])
    }

    /// The words of `id` with `$a` and `$b` put in.
    pub fn t2(&self, id: &str, a: &str, x: impl ToString, b: &str, y: impl ToString) -> String {
        self.lang
            .say(id, &[(a, &x.to_string()), (b, &y.to_string())])
    }

    /// The words of `id` with `$a`, `$b` and `$c` put in.
    #[allow(clippy::too_many_arguments)]
    pub fn t3(
        &self,
        id: &str,
        a: &str,
        x: impl ToString,
        b: &str,
        y: impl ToString,
        c: &str,
        z: impl ToString,
    ) -> String {
        let (x, y, z) = (x.to_string(), y.to_string(), z.to_string());
        self.lang.say(id, &[(a, &x), (b, &y), (c, &z)])
    }

    /// `Name <email>`, as a commit, a release or a webhook names who.
    pub fn signature(&self) -> String {
        masterctl_store::names::one_line(&format!(
            "{} <{}>",
            self.identity.name, self.identity.email
        ))
    }

    /// The token this visitor's forms carry (empty without a session: nothing to forge).
    pub fn csrf(&self) -> &str {
        self.session.as_ref().map_or("", |(_, csrf)| csrf.as_str())
    }

    /// Whether a form's `csrf` field is this session's token. A request without a
    /// session carries its credentials itself (a bearer token), which another site
    /// cannot make a browser send: no token is needed there. (A proxy's users have
    /// sessions: their browser sends the proxy's own cookie to any site's form.)
    fn form_is_ours(&self, csrf: Option<&str>) -> bool {
        match &self.session {
            Some((_, ours)) => csrf.is_some_and(|given| same_token(given, ours)),
            None => true,
        }
    }

    /// `repo`, to be written by this visitor (the author of what they commit).
    pub fn writing(
        &self,
        repo: masterctl_store::MasterRepo,
    ) -> Result<masterctl_store::MasterRepo, ConsoleError> {
        Ok(repo.write_as(&self.identity.name, &self.identity.email)?)
    }

    /// Refused (403) unless the visitor's role is at least `role`.
    pub fn may(&self, role: Role) -> Result<(), ConsoleError> {
        if self.identity.role >= role {
            return Ok(());
        }
        let (has, needs) = (self.identity.role.to_string(), role.to_string());
        let name = &self.identity.name;
        Err(ConsoleError::saying(
            masterctl_app::ErrorKind::Forbidden,
            "needs-role",
            &[("who", name), ("has", &has), ("needs", &needs)],
        ))
    }

    /// A form that changes something: its session's token, and a role of at least
    /// `role` (403 otherwise).
    pub fn may_post(&self, role: Role, csrf: Option<&str>) -> Result<(), ConsoleError> {
        self.posted_here(csrf)?;
        self.may(role)
    }

    /// Refused (403) unless a form carries its session's token ([`Visitor::form_is_ours`]).
    pub fn posted_here(&self, csrf: Option<&str>) -> Result<(), ConsoleError> {
        match self.form_is_ours(csrf) {
            true => Ok(()),
            false => Err(ConsoleError::saying(
                masterctl_app::ErrorKind::Forbidden,
                "form-not-ours",
                &[],
            )),
        }
    }
}

/// The session id a request's cookie names.
fn session_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|cookie| cookie.name() == COOKIE)
        .map(|cookie| cookie.value().to_string())
        .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// `Set-Cookie` for a session: HttpOnly, SameSite=Strict, for the whole console; Secure
/// when the browser came over TLS.
pub fn cookie_for(id: &str, secure: bool) -> HeaderValue {
    set_cookie(session(id).secure(secure).build())
}

/// `Set-Cookie` that ends the session cookie in the browser (signing out).
pub fn cookie_ended() -> HeaderValue {
    set_cookie(session("").max_age(cookie::time::Duration::ZERO).build())
}

/// The session cookie's attributes: the whole console, never to scripts, never sent
/// along from another site.
fn session(id: &str) -> cookie::CookieBuilder<'_> {
    Cookie::build((COOKIE, id))
        .path("/")
        .http_only(true)
        .same_site(SameSite::Strict)
}

fn set_cookie(cookie: Cookie<'_>) -> HeaderValue {
    // The id is hexadecimal and the name and attributes are ours: always a header value.
    HeaderValue::from_str(&cookie.to_string()).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// The middleware: resolve who asks, hand the handlers a [`Visitor`], or refuse.
pub async fn identify(
    State(console): State<Arc<Console>>,
    mut request: Request,
    next: Next,
) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| addr.ip());
    let headers = request.headers();
    let session = session_cookie(headers).and_then(|id| console.sessions.get(&id).map(|s| (id, s)));
    let signing_in = request.uri().path() == "/login";
    // Behind a proxy, the proxy names the user on every request (only the proxy may);
    // a session of another user than the one it names is not theirs.
    let proxied = proxied_identity(&console.policy, peer, headers);
    let session = match (&console.policy, session) {
        (Policy::Proxy { .. }, Some((_, s)))
            if proxied.as_ref().is_none_or(|p| p.name != s.identity.name) =>
        {
            None
        }
        (_, session) => session,
    };
    let secure = over_tls(&console.policy, peer, headers);
    let mut new_session = None;
    let visitor = match (&console.policy, session) {
        (_, Some((id, Session { identity, csrf, .. }))) => Some(Visitor {
            identity,
            session: Some((id, csrf)),
            lang: crate::i18n::Lang::En,
        }),
        // This machine's planner, or the user the proxy names: a session of their own,
        // whose forms carry its token (another site's form cannot).
        (Policy::Local(identity), None) => Some(identity.clone())
            .map(|identity| shared_session(&console, identity, &mut new_session)),
        (Policy::Proxy { .. }, None) => {
            proxied.map(|identity| shared_session(&console, identity, &mut new_session))
        }
        (Policy::Users(users), None) => bearer(headers)
            .and_then(|token| users.by_token(token))
            .map(|identity| Visitor {
                identity: identity.clone(),
                session: None,
                lang: crate::i18n::Lang::En,
            }),
    };
    let Some(mut visitor) = visitor else {
        if signing_in && matches!(console.policy, Policy::Users(_)) {
            return next.run(request).await;
        }
        return crate::shown::unauthorized(
            &console.policy,
            crate::i18n::language(request.headers()),
        );
    };
    visitor.lang = crate::i18n::language(request.headers());
    request.extensions_mut().insert(visitor);
    let mut response = next.run(request).await;
    if let Some(id) = new_session {
        response
            .headers_mut()
            .append(header::SET_COOKIE, cookie_for(&id, secure));
    }
    response
}

/// The visitor a request names (this machine's planner, a proxy's user), with the one
/// session all their requests share — set as the cookie when this request has none.
/// Without a session (the store is full of other users'), pages show but forms cannot
/// be sent.
fn shared_session(
    console: &Console,
    identity: crate::access::Identity,
    new_session: &mut Option<String>,
) -> Visitor {
    match console.sessions.shared(identity.clone()) {
        Some((id, session)) => {
            *new_session = Some(id.clone());
            Visitor {
                identity: session.identity,
                session: Some((id, session.csrf)),
                lang: crate::i18n::Lang::En,
            }
        }
        None => Visitor {
            identity,
            session: None,
            lang: crate::i18n::Lang::En,
        },
    }
}

/// The user a trusted proxy names in its header (`None`: not a proxy's console, not
/// from the proxy, or no usable name).
fn proxied_identity(
    policy: &Policy,
    peer: Option<IpAddr>,
    headers: &HeaderMap,
) -> Option<Identity> {
    let Policy::Proxy {
        header,
        trusted,
        users,
    } = policy
    else {
        return None;
    };
    peer.filter(|ip| trusted.contains(ip))?;
    let name = proxied_name(headers.get(header.as_str())?.as_bytes())?;
    let name = name.as_str();
    Some(
        users
            .as_ref()
            .and_then(|u| u.by_name(name))
            .cloned()
            .unwrap_or(Identity {
                name: name.to_string(),
                email: String::new(),
                role: Role::Viewer,
            }),
    )
}

/// The user name a proxy's header gives: UTF-8 as it is (`青木`), percent-encoded
/// (`%E9%9D%92%E6%9C%A8`), or in RFC 8187's form (`UTF-8''%E9%9D%92%E6%9C%A8`); `None`
/// for one that is empty, longer than 200 bytes, holds a control character, `<` or `>`
/// (a commit's author could not carry it), or is not UTF-8 once decoded.
fn proxied_name(value: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(value).ok()?.trim();
    let encoded = text
        .strip_prefix("UTF-8''")
        .or_else(|| text.strip_prefix("utf-8''"));
    let decoded = match encoded {
        Some(rest) => percent_encoding::percent_decode_str(rest)
            .decode_utf8()
            .ok()?
            .into_owned(),
        None if text.contains('%') => percent_encoding::percent_decode_str(text)
            .decode_utf8()
            .ok()?
            .into_owned(),
        None => text.to_string(),
    };
    let name = decoded.trim_matches(' ');
    let bad = name.is_empty()
        || name.len() > 200
        || name
            .chars()
            .any(|c| c.is_control() || matches!(c, '<' | '>'));
    (!bad).then(|| name.to_string())
}

/// Whether the browser reached the console over TLS: a trusted proxy says so
/// (`X-Forwarded-Proto: https`); the console itself serves plain HTTP.
pub fn over_tls(policy: &Policy, peer: Option<IpAddr>, headers: &HeaderMap) -> bool {
    let Policy::Proxy { trusted, .. } = policy else {
        return false;
    };
    peer.is_some_and(|ip| trusted.contains(&ip))
        && headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|proto| proto.eq_ignore_ascii_case("https"))
}

/// The token of an `Authorization: Bearer …` header.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
}

#[cfg(test)]
mod proxied {
    use super::proxied_name;

    #[test]
    fn a_proxys_user_name_is_read_as_utf8_percent_or_rfc_8187_encoded() {
        for written in [
            "青木".as_bytes(),
            b"%E9%9D%92%E6%9C%A8",
            b"UTF-8''%E9%9D%92%E6%9C%A8",
            b"  \xE9\x9D\x92\xE6\x9C\xA8 ",
        ] {
            assert_eq!(
                proxied_name(written).as_deref(),
                Some("青木"),
                "{written:?}"
            );
        }
        assert_eq!(proxied_name(b"aiko").as_deref(), Some("aiko"));
        for refused in [
            &b""[..],
            b"%0Aroot",
            b"a<b>",
            b"\xFF\xFE",
            b"%FF",
            b"UTF-8''%0D",
        ] {
            assert_eq!(proxied_name(refused), None, "{refused:?}");
        }
    }
}

#[cfg(test)]
mod session_cookie {
    use super::*;

    #[test]
    fn the_session_cookie_is_strict_and_read_back_among_others() {
        let id = "ab".repeat(32);
        let set = cookie_for(&id, true);
        let set = set.to_str().unwrap();
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Secure"] {
            assert!(set.contains(attribute), "{set}");
        }
        assert!(!cookie_for(&id, false).to_str().unwrap().contains("Secure"));
        let mut headers = HeaderMap::new();
        let sent = format!("theme=dark; {COOKIE}={id}; other=1");
        headers.insert(header::COOKIE, HeaderValue::from_str(&sent).unwrap());
        assert_eq!(session_cookie(&headers), Some(id));
        // Anything but a session id of ours is no session.
        headers.insert(
            header::COOKIE,
            HeaderValue::from_str(&format!("{COOKIE}=../etc")).unwrap(),
        );
        assert_eq!(session_cookie(&headers), None);
        let ended = cookie_ended();
        assert!(ended.to_str().unwrap().contains("Max-Age=0"), "{ended:?}");
    }
}
