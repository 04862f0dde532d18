//! How the console holds its connections, so that clients that never finish cannot
//! starve the planners: headers must arrive within a time, a body may not stall longer
//! than another, and connections are capped in all and per address (a sign-on proxy's
//! own addresses count only toward the total: every planner comes through them).
//!
//! axum::serve gives no such bounds (its hyper connection has no timer, so no header
//! timeout); the accept loop here is axum's, with hyper's builder given tokio's timer and
//! a header read timeout, and each accepted connection holding a [`Slot`] until it ends.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use tower::ServiceExt;

/// The bounds of a console's connections.
#[derive(Debug, Clone)]
pub struct Limits {
    /// A request's headers must arrive whole within this, from its first byte (and a
    /// kept-alive connection's next request likewise).
    pub header_timeout: Duration,
    /// A request body may go this long without a byte (an upload of 256 MiB over a slow
    /// link still arrives: the time is per wait, not per body).
    pub body_idle: Duration,
    /// Connections open at once from one address (a trusted proxy's are not counted).
    pub per_address: usize,
    /// Connections open at once in all.
    pub total: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_idle: Duration::from_secs(30),
            per_address: 64,
            total: 1024,
        }
    }
}

/// The connections open now.
pub struct Open {
    limits: Limits,
    /// Addresses not held to `per_address` (a sign-on proxy's).
    exempt: Vec<IpAddr>,
    counts: Mutex<Counts>,
}

#[derive(Default)]
struct Counts {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

/// One connection's place among the open ones, given back when dropped.
pub struct Slot {
    open: Arc<Open>,
    address: IpAddr,
}

impl Open {
    pub fn new(limits: Limits, exempt: Vec<IpAddr>) -> Arc<Open> {
        Arc::new(Open {
            limits,
            exempt,
            counts: Mutex::new(Counts::default()),
        })
    }

    /// A place for a connection from `address`, or `None` when it would pass a cap.
    pub fn take(self: &Arc<Open>, address: IpAddr) -> Option<Slot> {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let from_here = counts.by_address.get(&address).copied().unwrap_or(0);
        let capped = !self.exempt.contains(&address) && from_here >= self.limits.per_address;
        if counts.total >= self.limits.total || capped {
            return None;
        }
        counts.total += 1;
        *counts.by_address.entry(address).or_default() += 1;
        Some(Slot {
            open: self.clone(),
            address,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.open.counts.lock().unwrap_or_else(|e| e.into_inner());
        counts.total = counts.total.saturating_sub(1);
        if let Some(n) = counts.by_address.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                counts.by_address.remove(&self.address);
            }
        }
    }
}

/// Serve `app` on `listener` until the process stops, within `open`'s bounds. A
/// connection past a cap is closed at once, before a byte of it is read.
pub async fn serve(listener: tokio::net::TcpListener, app: Router, open: Arc<Open>) {
    let app = app.layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
        open.limits.body_idle,
    ));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of file descriptors, a connection reset before it was taken: axum's
            // loop waits a moment and goes on too.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(slot) = open.take(peer.ip()) else {
            drop(stream);
            continue;
        };
        let app = app.clone();
        let header_timeout = open.limits.header_timeout;
        tokio::spawn(async move {
            let _slot = slot;
            connection(stream, peer, app, header_timeout).await;
        });
    }
}

/// One connection, served until it closes or times out.
async fn connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    app: Router,
    header_timeout: Duration,
) {
    let service =
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let mut request = request.map(axum::body::Body::new);
            request.extensions_mut().insert(ConnectInfo(peer));
            app.clone().oneshot(request)
        });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(header_timeout);
    let io = hyper_util::rt::TokioIo::new(stream);
    let _ = builder.serve_connection(io, service).with_upgrades().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_hold_per_address_and_in_all_and_slots_come_back() {
        let limits = Limits {
            per_address: 2,
            total: 3,
            ..Limits::default()
        };
        let proxy: IpAddr = "10.0.0.2".parse().unwrap();
        let open = Open::new(limits, vec![proxy]);
        let a: IpAddr = "10.0.0.7".parse().unwrap();
        let first = open.take(a).unwrap();
        let _second = open.take(a).unwrap();
        assert!(open.take(a).is_none(), "a third from one address");
        let _proxied = open.take(proxy).unwrap();
        assert!(
            open.take(proxy).is_none(),
            "the total holds for a proxy too"
        );
        drop(first);
        assert!(open.take(a).is_some(), "a slot given back is taken again");
    }
}
