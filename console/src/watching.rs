//! A watcher's status over HTTP (`masterctl watch --listen ADDR`): `GET /status` its
//! [`Status`](masterctl_delivery::status::Status) as JSON, `GET /metrics` in
//! Prometheus's text format — read-only, nothing else answered, connections bounded as
//! the console's are.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use masterctl_delivery::keeping::Watched;

use crate::connections::{Limits, Open, serve};

/// Serve `watched` at `address` (`127.0.0.1:9464`; port 0 for any free one) on a task
/// of its own, until the process stops: the address bound.
pub async fn listen(address: &str, watched: Arc<Watched>) -> std::io::Result<std::net::SocketAddr> {
    let listener = tokio::net::TcpListener::bind(address).await?;
    let bound = listener.local_addr()?;
    tokio::spawn(serve_status(listener, watched));
    Ok(bound)
}

/// Serve `watched` on `listener` until the process stops.
async fn serve_status(listener: tokio::net::TcpListener, watched: Arc<Watched>) {
    let app = Router::new()
        .route("/status", get(status))
        .route("/metrics", get(metrics))
        .with_state(watched);
    let limits = Limits {
        per_address: 16,
        total: 256,
        ..Limits::default()
    };
    serve(listener, app, Open::new(limits, Vec::new())).await;
}

async fn status(State(watched): State<Arc<Watched>>) -> impl IntoResponse {
    let (status, _) = watched.now();
    axum::Json(status)
}

async fn metrics(State(watched): State<Arc<Watched>>) -> impl IntoResponse {
    let (status, age) = watched.now();
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        status.to_prometheus(age),
    )
}
