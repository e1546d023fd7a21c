//! The connection edge: how the service listens, and the answers actix
//! writes itself (docs/decisions/hardening.md).
//!
//! actix-http answers a request head it cannot read — 408 when it is not
//! complete in time, 431 when it is too large, 400 when it is malformed
//! (say, raw invalid UTF-8 in the path) — inside its connection dispatcher,
//! before any middleware runs, with an empty body. It offers no hook for
//! them, so each accepted connection is wrapped in [`ProblemEdge`], which
//! rewrites exactly those answers into problem documents as they are
//! written. They are recognised by a shape the service itself never sends:
//! a 4xx head with `content-length: 0` and `connection: close` and nothing
//! after it (every 4xx of the service carries a problem document).
//!
//! Serving through actix-server and actix-http directly (as `HttpServer`
//! does inside) is what lets the wrapper in; the stack is unchanged.

use super::error::{ApiError, Code};
use crate::state::AppState;
use actix_rt::net::TcpStream;
use actix_service::{fn_service, map_config, IntoServiceFactory, ServiceFactoryExt};
use actix_web::dev::{AppConfig, Server};
use actix_web::{middleware, App};
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How long a request head may take to arrive (actix's own default).
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);

/// Listen on `listener` with `workers` threads; `signals`: stop on
/// SIGINT/SIGTERM (the binary), or not (tests stop their servers).
pub fn serve(
    state: AppState,
    listener: std::net::TcpListener,
    workers: usize,
    signals: bool,
) -> io::Result<Server> {
    let addr = listener.local_addr()?;
    // Connections past the open-file limit's share wait in the listen
    // queue instead of failing `accept` (docs/operations.md, "Open files
    // and live streams").
    let capacity = crate::live::Capacity::here(state.config.pool_size);
    let mut builder = Server::build()
        .workers(workers)
        .max_concurrent_connections((capacity.connections / workers.max(1)).max(1))
        .shutdown_timeout(state.config.shutdown_seconds);
    if !signals {
        builder = builder.disable_signals();
    }
    builder
        .listen("posthorn", listener, move || {
            let app = App::new()
                .wrap_fn(super::speak::speak)
                .wrap(middleware::Compress::default())
                .wrap_fn(super::observe)
                .wrap_fn(super::headers::protect)
                .configure(super::configure(state.clone()))
                .into_factory()
                .map_err(|e: actix_web::Error| e.error_response());
            fn_service(|io: TcpStream| async move {
                let _ = io.set_nodelay(true);
                let peer = io.peer_addr().ok();
                Ok((ProblemEdge::new(io), peer))
            })
            .and_then(
                actix_http::HttpService::build()
                    .client_request_timeout(HEAD_TIMEOUT)
                    .client_disconnect_timeout(Duration::from_secs(1))
                    .local_addr(addr)
                    .h1(map_config(app, move |_| {
                        AppConfig::__priv_test_new(false, addr.to_string(), addr)
                    })),
            )
        })
        .map(|b| b.run())
}

/// A connection whose framework-written error answers become problem
/// documents; everything else passes through untouched.
pub struct ProblemEdge<T> {
    inner: T,
    /// A rewritten answer not yet fully written, and how much of it is.
    pending: Vec<u8>,
    written: usize,
}

impl<T> ProblemEdge<T> {
    pub fn new(inner: T) -> Self {
        ProblemEdge {
            inner,
            pending: Vec::new(),
            written: 0,
        }
    }
}

impl<T: AsyncWrite + Unpin> ProblemEdge<T> {
    /// Write out what is pending.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.pending.len() {
            let n =
                ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.pending.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

/// The problem document for a framework-written `head`, if it is one.
pub fn rewrite(head: &[u8]) -> Option<Vec<u8>> {
    let end = head.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    if end != head.len() {
        return None;
    }
    let original = std::str::from_utf8(head).ok()?;
    let text = original.to_ascii_lowercase();
    let status = text.strip_prefix("http/1.1 ")?.get(..3)?;
    if !status.starts_with('4')
        || !text.contains("\r\ncontent-length: 0\r\n")
        || !text.contains("\r\nconnection: close\r\n")
    {
        return None;
    }
    let problem = match status {
        "408" => ApiError::new(
            Code::RequestTimeout,
            format!(
                "the request head did not arrive within {} s",
                HEAD_TIMEOUT.as_secs()
            ),
        ),
        "431" => ApiError::new(
            Code::HeadersTooLarge,
            "the request head is larger than the service reads (96 header lines, about 100 KB)",
        ),
        _ => ApiError::validation("the request head could not be read as HTTP/1.1"),
    };
    let body = problem.body().to_string();
    // The status line and date as actix wrote them; our body.
    let mut lines = original.split("\r\n");
    let status_line = lines.next()?;
    let date = lines
        .find(|l| l.to_ascii_lowercase().starts_with("date: "))
        .map(|d| format!("{d}\r\n"))
        .unwrap_or_default();
    Some(
        format!(
            "{status_line}\r\ncontent-type: application/problem+json\r\ncontent-length: {}\r\nx-content-type-options: nosniff\r\nconnection: close\r\n{date}\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

impl<T: AsyncRead + Unpin> AsyncRead for ProblemEdge<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ProblemEdge<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        if let Some(problem) = rewrite(buf) {
            // Taken in place of `buf`: report `buf` as written and send
            // the problem as the socket takes it.
            this.pending = problem;
            if let Poll::Ready(Err(e)) = this.drain(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn only_the_frameworks_empty_error_heads_are_rewritten() {
        let framework = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\nconnection: close\r\ndate: Tue, 01 Dec 2026 04:35:32 GMT\r\n\r\n";
        let out = String::from_utf8(rewrite(framework).unwrap()).unwrap();
        assert!(out.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(out.contains("content-type: application/problem+json\r\n"));
        assert!(out.contains("x-content-type-options: nosniff\r\n"));
        assert!(out.contains("date: Tue, 01 Dec 2026 04:35:32 GMT\r\n"));
        let body = out.split("\r\n\r\n").nth(1).unwrap();
        let doc: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(
            (doc["status"].as_u64(), doc["code"].as_str()),
            (Some(431), Some("headers_too_large"))
        );
        assert!(out.contains(&format!("content-length: {}\r\n", body.len())));
        // The service's own answers pass untouched: a body, keep-alive, 2xx.
        for own in [
            &b"HTTP/1.1 404 Not Found\r\ncontent-length: 120\r\ncontent-type: application/problem+json\r\n\r\n{}"[..],
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\nHTTP/1.1",
        ] {
            assert!(rewrite(own).is_none(), "{}", String::from_utf8_lossy(own));
        }
    }
}
