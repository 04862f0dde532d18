//! How requests reach a network store: one HTTP client per store that offers HTTP/2 by
//! ALPN (HTTP/1.1 where the server declines it, and always over plain `http://`), with
//! flow-control windows sized for whole objects at a distant store, and that keeps
//! count of the connections it opens and the protocol each response came in.
//!
//! object_store builds an HTTP/1.1-only client by default; its [`HttpConnector`] lets a
//! store be given this one instead.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpErrorKind, HttpRequest, HttpResponse, HttpService,
};
use object_store::{ClientConfigKey, ClientOptions};
use serde::Serialize;

/// A stream's flow-control window: a whole archive of a usual build moves without
/// waiting for the reader to open the window again. HTTP/2's default (64 KiB) moves
/// 1.3 MB/s per stream at a 50 ms round trip.
const STREAM_WINDOW: u32 = 8 << 20;
/// The connection's window, shared by every stream on it: a round trip's worth of data
/// at 640 MB/s with a 50 ms round trip.
const CONNECTION_WINDOW: u32 = 32 << 20;

/// Requests in flight at once on one HTTP/2 connection, unless asked otherwise: the
/// default cap of common servers (nginx's `http2_max_concurrent_streams`); a server that
/// allows fewer is honoured by the client, which queues the rest.
pub const STREAMS: usize = 128;
/// Requests in flight at once over HTTP/1.1 (each on a connection of its own, kept for
/// the next), and on a folder.
pub const CONNECTIONS: usize = 64;

/// The protocol responses came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Protocol {
    #[serde(rename = "HTTP/1.1")]
    Http1,
    #[serde(rename = "HTTP/2")]
    Http2,
}

impl Protocol {
    /// Requests to keep in flight over this protocol.
    pub fn concurrency(protocol: Option<Protocol>) -> usize {
        match protocol {
            Some(Protocol::Http2) => STREAMS,
            Some(Protocol::Http1) | None => CONNECTIONS,
        }
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Protocol::Http1 => "HTTP/1.1",
            Protocol::Http2 => "HTTP/2",
        })
    }
}

/// Connections opened and responses received so far, by protocol.
#[derive(Debug, Default)]
pub struct Counters {
    connections: AtomicUsize,
    http1: AtomicUsize,
    http2: AtomicUsize,
}

/// What [`Counters`] held at one moment; two of them subtract to what happened between.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub connections: usize,
    pub http1: usize,
    pub http2: usize,
}

impl Counters {
    pub fn tally(&self) -> Tally {
        Tally {
            connections: self.connections.load(Ordering::Relaxed),
            http1: self.http1.load(Ordering::Relaxed),
            http2: self.http2.load(Ordering::Relaxed),
        }
    }

    fn answered(&self, version: http::Version) {
        let counter = if version == http::Version::HTTP_2 {
            &self.http2
        } else {
            &self.http1
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

impl Tally {
    /// What happened after `earlier`.
    pub fn since(self, earlier: Tally) -> Tally {
        Tally {
            connections: self.connections.saturating_sub(earlier.connections),
            http1: self.http1.saturating_sub(earlier.http1),
            http2: self.http2.saturating_sub(earlier.http2),
        }
    }

    /// The protocol most responses came in, or `None` before any came.
    pub fn protocol(&self) -> Option<Protocol> {
        match (self.http1, self.http2) {
            (0, 0) => None,
            (http1, http2) if http2 >= http1 => Some(Protocol::Http2),
            _ => Some(Protocol::Http1),
        }
    }
}

/// The connections and protocol of some work against a network store, as reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Traffic {
    /// The protocol most responses came in.
    pub protocol: Option<Protocol>,
    /// Connections opened (each a TCP connection, with its TLS handshake over https).
    pub connections: usize,
    /// Responses received (every attempt, retries included).
    pub requests: usize,
}

impl From<Tally> for Traffic {
    fn from(tally: Tally) -> Traffic {
        Traffic {
            protocol: tally.protocol(),
            connections: tally.connections,
            requests: tally.http1 + tally.http2,
        }
    }
}

/// Gives object_store the client described above, counting into `counters`. The
/// timeouts are those of the options object_store connects with (the store's, or the
/// shorter ones of its client for cloud instance metadata), else these defaults.
#[derive(Debug)]
pub struct Connector {
    pub counters: Arc<Counters>,
    pub connect_timeout: Duration,
    pub timeout: Duration,
}

impl HttpConnector for Connector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let timeout = |key: ClientConfigKey, default: Duration| {
            options
                .get_config_value(&key)
                .and_then(|value| humantime::parse_duration(&value).ok())
                .unwrap_or(default)
        };
        let client = reqwest::Client::builder()
            .user_agent(concat!("masterctl/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(timeout(
                ClientConfigKey::ConnectTimeout,
                self.connect_timeout,
            ))
            .timeout(timeout(ClientConfigKey::Timeout, self.timeout))
            .pool_max_idle_per_host(CONNECTIONS)
            .http2_initial_stream_window_size(STREAM_WINDOW)
            .http2_initial_connection_window_size(CONNECTION_WINDOW)
            // An idle HTTP/2 connection a proxy dropped is found before a request is
            // lost on it.
            .http2_keep_alive_interval(Duration::from_secs(20))
            .http2_keep_alive_timeout(Duration::from_secs(10))
            .connector_layer(CountConnections(self.counters.clone()))
            // Objects are compressed by us and sized by their Content-Length: a body
            // decoded on the way would be neither.
            .no_gzip()
            .no_brotli()
            .no_zstd()
            .no_deflate()
            .build()
            .map_err(|e| object_store::Error::Generic {
                store: "HTTP",
                source: Box::new(e),
            })?;
        Ok(HttpClient::new(Watched {
            client,
            counters: self.counters.clone(),
        }))
    }
}

/// The client, counting the protocol of every response.
#[derive(Debug)]
struct Watched {
    client: reqwest::Client,
    counters: Arc<Counters>,
}

impl HttpService for Watched {
    fn call<'a, 'b>(
        &'a self,
        request: HttpRequest,
    ) -> Pin<Box<dyn Future<Output = Result<HttpResponse, HttpError>> + Send + 'b>>
    where
        'a: 'b,
        Self: 'b,
    {
        Box::pin(async move {
            let response = HttpService::call(&self.client, request)
                .await
                .map_err(final_when_untrusted)?;
            self.counters.answered(response.version());
            Ok(response)
        })
    }
}

/// A certificate this machine does not trust is refused again on every attempt: its
/// error gets a kind object_store does not retry ([`HttpErrorKind::Unknown`]; a failure
/// to connect is retried), so the command says so at once rather than after its
/// retries. Any other error is left as it is.
fn final_when_untrusted(error: HttpError) -> HttpError {
    if crate::causes::refused_certificate(&error).is_some() {
        HttpError::new(HttpErrorKind::Unknown, error)
    } else {
        error
    }
}

/// Wraps the client's connector: every connection it opens is counted.
#[derive(Debug, Clone)]
struct CountConnections(Arc<Counters>);

impl<S> tower_layer::Layer<S> for CountConnections {
    type Service = Counted<S>;

    fn layer(&self, inner: S) -> Counted<S> {
        Counted {
            inner,
            counters: self.0.clone(),
        }
    }
}

#[derive(Debug, Clone)]
struct Counted<S> {
    inner: S,
    counters: Arc<Counters>,
}

impl<S, R> tower_service::Service<R> for Counted<S>
where
    S: tower_service::Service<R>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        let (connecting, counters) = (self.inner.call(request), self.counters.clone());
        Box::pin(async move {
            let connection = connecting.await?;
            counters.connections.fetch_add(1, Ordering::Relaxed);
            Ok(connection)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_names_the_protocol_most_responses_came_in() {
        let none = Tally::default();
        assert_eq!(none.protocol(), None);
        let later = Tally {
            connections: 3,
            http1: 2,
            http2: 40,
        };
        assert_eq!(later.protocol(), Some(Protocol::Http2));
        let since = later.since(Tally {
            connections: 1,
            http1: 0,
            http2: 39,
        });
        assert_eq!(
            Traffic::from(since),
            Traffic {
                protocol: Some(Protocol::Http1),
                connections: 2,
                requests: 3
            }
        );
        assert_eq!(Protocol::concurrency(Some(Protocol::Http2)), STREAMS);
        assert_eq!(Protocol::concurrency(None), CONNECTIONS);
    }

    #[test]
    fn a_refused_certificate_is_not_retried_and_other_failures_are_as_they_were() {
        let handshake = |tls: rustls::Error| {
            let io = crate::causes::as_the_tls_stream_gives_it(tls);
            HttpError::new(HttpErrorKind::Connect, io)
        };
        let unknown = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let refused = final_when_untrusted(handshake(unknown));
        assert_eq!(refused.kind(), HttpErrorKind::Unknown);
        assert!(crate::causes::refused_certificate(&refused).is_some());
        // A failure to connect, and another TLS failure, keep their kind (retried).
        let refused_connection = HttpError::new(
            HttpErrorKind::Connect,
            std::io::Error::from(std::io::ErrorKind::ConnectionRefused),
        );
        assert_eq!(
            final_when_untrusted(refused_connection).kind(),
            HttpErrorKind::Connect
        );
        let garbled = final_when_untrusted(handshake(rustls::Error::DecryptError));
        assert_eq!(garbled.kind(), HttpErrorKind::Connect);
    }

    #[test]
    fn the_client_keeps_the_timeout_it_is_given_and_counts_its_connections() {
        // A server that takes connections and never answers.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let held: Vec<_> = listener.incoming().take(4).collect();
            std::thread::sleep(Duration::from_secs(60));
            drop(held);
        });
        let connector = Connector {
            counters: Arc::new(Counters::default()),
            connect_timeout: Duration::from_secs(3600),
            timeout: Duration::from_secs(3600),
        };
        let options = ClientOptions::new().with_timeout(Duration::from_millis(200));
        let client = connector.connect(&options).unwrap();
        let request = http::Request::get(format!("http://{address}/"))
            .body(object_store::client::HttpRequestBody::empty())
            .unwrap();
        let failed = crate::runtime().unwrap().block_on(async {
            // Only a guard: the client's own timeout ends the request long before.
            tokio::time::timeout(Duration::from_secs(60), client.execute(request)).await
        });
        let error = failed
            .expect("the client's timeout, not the guard's")
            .unwrap_err();
        assert_eq!(
            error.kind(),
            object_store::client::HttpErrorKind::Timeout,
            "{error}"
        );
        assert_eq!(connector.counters.tally().connections, 1);
        assert_eq!(
            connector.counters.tally().protocol(),
            None,
            "no response came"
        );
    }
}
