//! The HTTP/2 client both native push services are spoken to with: APNs
//! takes only HTTP/2 over TLS (ALPN `h2`), and FCM's HTTP v1 takes it too,
//! so one connection per service carries every request in flight.
//!
//! It is hyper 0.14 (already here for Web Push) over native-tls (OpenSSL)
//! rather than the `a2` crate, which would bring a second HTTP stack
//! (hyper 1, rustls) to a two-core machine for the same wire protocol.

use hyper::body::{Bytes, HttpBody};
use hyper::client::HttpConnector;
use hyper::{Body, Request};
use hyper_tls::HttpsConnector;

/// An answer that is longer than this is not one either service gives.
const MAX_ANSWER: usize = 64 * 1024;
/// A send that takes longer is retried by the outbox.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// What a service answered.
pub struct Answer {
    pub status: u16,
    /// `Retry-After` in seconds from now (RFC 9110: seconds or a date).
    pub retry_after: Option<u64>,
    pub body: Bytes,
}

pub struct Client {
    /// Taken when dropped: a runtime may not be dropped where blocking is
    /// not allowed (the service's own executor, at its shutdown).
    runtime: Option<tokio::runtime::Runtime>,
    http: hyper::Client<HttpsConnector<HttpConnector>>,
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Client {
    /// `extra_root`: a PEM certificate trusted besides the system's (the
    /// tests' local peers, `POSTHORN_NATIVE_PUSH_CA_FILE`).
    pub fn new(extra_root: Option<&native_tls::Certificate>) -> Result<Client, String> {
        let mut tls = native_tls::TlsConnector::builder();
        tls.request_alpns(&["h2"]);
        if let Some(root) = extra_root {
            tls.add_root_certificate(root.clone());
        }
        let tls = tls.build().map_err(|e| e.to_string())?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("native-push")
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        let http = runtime.block_on(async {
            let mut plain = HttpConnector::new();
            plain.enforce_http(false);
            let connector =
                HttpsConnector::from((plain, tokio_native_tls::TlsConnector::from(tls)));
            hyper::Client::builder().http2_only(true).build(connector)
        });
        Ok(Client {
            runtime: Some(runtime),
            http,
        })
    }

    /// Send `request` and read its answer, within [`TIMEOUT`]; blocking
    /// (the outbox's senders are threads).
    pub fn call(&self, request: Request<Body>) -> Result<Answer, String> {
        let exchange = async {
            let response = self
                .http
                .request(request)
                .await
                .map_err(|e| e.to_string())?;
            let status = response.status().as_u16();
            let retry_after = response
                .headers()
                .get(hyper::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(retry_after);
            let mut body = response.into_body();
            let mut read = Vec::new();
            while let Some(chunk) = body.data().await {
                read.extend_from_slice(&chunk.map_err(|e| e.to_string())?);
                if read.len() > MAX_ANSWER {
                    return Err("the answer is too long".to_owned());
                }
            }
            Ok(Answer {
                status,
                retry_after,
                body: read.into(),
            })
        };
        let Some(runtime) = &self.runtime else {
            return Err("the push client is shutting down".into());
        };
        runtime
            .block_on(async { tokio::time::timeout(TIMEOUT, exchange).await })
            .unwrap_or_else(|_| Err("no answer in time".into()))
    }
}

/// `Retry-After` as seconds from now: a number of seconds, or an HTTP
/// date (a date gone by is now).
fn retry_after(value: &str) -> Option<u64> {
    retry_after_at(value, std::time::SystemTime::now())
}

/// [`retry_after`] read at `now`. A date is waited for to the second,
/// rounded up (docs/decisions/native-push.md, "Sending"): 1.1 s to go
/// is 2 s, never 1 s (which would come 0.1 s early).
fn retry_after_at(value: &str, now: std::time::SystemTime) -> Option<u64> {
    let value = value.trim();
    value.parse().ok().or_else(|| {
        let at = httpdate::parse_http_date(value).ok()?;
        Some(at.duration_since(now).map_or(0, |wait| {
            wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::{retry_after, retry_after_at};
    use std::time::{Duration, SystemTime};

    #[test]
    fn a_retry_after_date_is_never_met_early_issue_66() {
        let date = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let said = httpdate::fmt_http_date(date);
        for early in [1, 100, 900, 1_000, 1_100, 59_999] {
            let now = date - Duration::from_millis(early);
            let wait = retry_after_at(&said, now).unwrap();
            assert!(
                now + Duration::from_secs(wait) >= date,
                "{early} ms early: {wait} s"
            );
            assert!(
                Duration::from_secs(wait) < Duration::from_millis(early) + Duration::from_secs(1)
            );
        }
        assert_eq!(retry_after_at(&said, date), Some(0));
    }

    #[test]
    fn retry_after_is_read_as_seconds_or_as_an_http_date() {
        assert_eq!(retry_after(" 120 "), Some(120));
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(600));
        let read = retry_after(&later).unwrap();
        assert!((598..=600).contains(&read), "{read}");
        assert_eq!(retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), Some(0));
        assert_eq!(retry_after("soon"), None);
    }
}
