//! Prometheus text metrics, counted in atomics (no registry needed), served
//! only to the operator's scraper ([`may_read`]).

use sha2::{Digest, Sha256};
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Upper bounds of the request-latency histogram, in seconds.
const BUCKETS: [f64; 10] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0];

#[derive(Default)]
pub struct Metrics {
    /// Responses by status class: index 1 = 1xx … 5 = 5xx.
    responses: [AtomicU64; 6],
    latency_buckets: [AtomicU64; BUCKETS.len()],
    latency_count: AtomicU64,
    latency_micros: AtomicU64,
    pub actions_applied: AtomicU64,
}

/// Events written to match logs by this process, by every path (actions,
/// creation, joins, the sweep); counted where the log is written, so a
/// transaction rolled back after its append (rare) is counted too.
pub static EVENTS_APPENDED: AtomicU64 = AtomicU64::new(0);

impl Metrics {
    pub fn observe(&self, status: u16, seconds: f64) {
        self.responses[(status / 100).min(5) as usize].fetch_add(1, Relaxed);
        for (i, bound) in BUCKETS.iter().enumerate() {
            if seconds <= *bound {
                self.latency_buckets[i].fetch_add(1, Relaxed);
            }
        }
        self.latency_count.fetch_add(1, Relaxed);
        self.latency_micros
            .fetch_add((seconds * 1e6) as u64, Relaxed);
    }

    /// The text of every metric; `live_pages` is the number of live match
    /// pages open on this instance (`Live::pages`).
    pub fn render(&self, pool: &crate::db::Pool, live_pages: usize) -> String {
        let mut out = String::new();
        out.push_str("# TYPE posthorn_http_responses_total counter\n");
        for class in 1..=5 {
            let n = self.responses[class].load(Relaxed);
            let _ = writeln!(
                out,
                "posthorn_http_responses_total{{class=\"{class}xx\"}} {n}"
            );
        }
        out.push_str("# TYPE posthorn_http_request_duration_seconds histogram\n");
        for (i, bound) in BUCKETS.iter().enumerate() {
            let n = self.latency_buckets[i].load(Relaxed);
            let _ = writeln!(
                out,
                "posthorn_http_request_duration_seconds_bucket{{le=\"{bound}\"}} {n}"
            );
        }
        let count = self.latency_count.load(Relaxed);
        let _ = writeln!(
            out,
            "posthorn_http_request_duration_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let sum = self.latency_micros.load(Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "posthorn_http_request_duration_seconds_sum {sum}");
        let _ = writeln!(out, "posthorn_http_request_duration_seconds_count {count}");
        let counters = [
            ("posthorn_actions_applied_total", &self.actions_applied),
            ("posthorn_events_appended_total", &EVENTS_APPENDED),
            // The database's failovers and the pool's recovery
            // (docs/operations.md, "The database: failover, replicas,
            // backups").
            (
                "posthorn_db_failovers_noticed_total",
                &crate::db::replica::FAILOVERS_NOTICED,
            ),
            ("posthorn_db_reconnects_total", &crate::db::RECONNECTS),
            (
                "posthorn_db_replica_reads_total",
                &crate::db::replica::REPLICA_READS,
            ),
            (
                "posthorn_db_replica_fallbacks_total",
                &crate::db::replica::REPLICA_FALLBACKS,
            ),
        ];
        for (name, value) in counters {
            let _ = writeln!(out, "# TYPE {name} counter\n{name} {}", value.load(Relaxed));
        }
        let pool_state = pool.state();
        let _ = writeln!(
            out,
            "# TYPE posthorn_db_connections gauge\nposthorn_db_connections{{state=\"idle\"}} {}\nposthorn_db_connections{{state=\"busy\"}} {}",
            pool_state.idle_connections,
            pool_state.connections - pool_state.idle_connections
        );
        let _ = writeln!(
            out,
            "# TYPE posthorn_live_pages gauge\nposthorn_live_pages {live_pages}"
        );
        out.push_str("# TYPE posthorn_limits_refused_total counter\n");
        for (rule, n) in crate::limits::refusals() {
            let _ = writeln!(out, "posthorn_limits_refused_total{{rule=\"{rule}\"}} {n}");
        }
        out
    }
}

/// May a request with this `Authorization` header read the metrics? Only
/// with `Bearer <POSTHORN_METRICS_TOKEN>`, and never when no token is
/// configured. Both sides are hashed first so that the comparison takes
/// the same time whatever the token's length and wherever a guess first
/// differs.
pub fn may_read(token: Option<&str>, authorization: Option<&str>) -> bool {
    use subtle::ConstantTimeEq;
    let (Some(token), Some(given)) = (token, authorization) else {
        return false;
    };
    let Some(given) = given.strip_prefix("Bearer ") else {
        return false;
    };
    let (want, got) = (Sha256::digest(token), Sha256::digest(given.trim()));
    want.as_slice().ct_eq(got.as_slice()).into()
}

#[cfg(test)]
mod tests {
    use super::may_read;

    #[test]
    fn only_the_configured_bearer_token_reads_the_metrics() {
        let token = Some("s3cret-scraper-token");
        assert!(may_read(token, Some("Bearer s3cret-scraper-token")));
        for refused in [
            None,
            Some(""),
            Some("Bearer "),
            Some("Bearer s3cret-scraper-toke"),
            Some("Bearer s3cret-scraper-token2"),
            Some("Basic s3cret-scraper-token"),
            Some("s3cret-scraper-token"),
        ] {
            assert!(!may_read(token, refused), "{refused:?}");
        }
        // Not configured: nobody, whatever they send.
        assert!(!may_read(None, Some("Bearer ")));
        assert!(!may_read(None, Some("Bearer s3cret-scraper-token")));
    }
}
