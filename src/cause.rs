//! The request an action came from (docs/operations.md, "Following one
//! move"): its id (`X-Request-Id`) is the current cause while the request
//! is handled, on the async task and on the database thread that runs its
//! work; what the work writes for later (notices, deliveries, jobs) keeps
//! it in a `request_id` column, and the job or delivery that runs on a
//! later tick, maybe on another instance, makes it the cause again. Each
//! of those steps is a `tracing` span (`request`, `db`, `job`, `delivery`)
//! whose `request_id` field names it, at debug level, so that with
//! `RUST_LOG=debug` every line within them carries the id and
//! `grep request_id=<id>` follows one move from its request to the push.
//! At the default level (`info`) the spans are never built.

use std::cell::RefCell;
use std::future::Future;

tokio::task_local! {
    static REQUEST: String;
}

thread_local! {
    static ON_THREAD: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Run `work` with request `id` as its cause (the request's middleware).
pub async fn scope<F: Future>(id: String, work: F) -> F::Output {
    REQUEST.scope(id, work).await
}

/// The cause of what runs now: the request handled on this thread (a
/// database thread, a job), else on this task.
pub fn current() -> Option<String> {
    ON_THREAD
        .with(|c| c.borrow().clone())
        .or_else(|| REQUEST.try_with(Clone::clone).ok())
}

/// Run `work` on this thread with `id` as its cause, and put the thread's
/// own back after.
pub fn on_thread<R>(id: Option<String>, work: impl FnOnce() -> R) -> R {
    let before = ON_THREAD.with(|c| c.replace(id));
    let out = work();
    ON_THREAD.with(|c| *c.borrow_mut() = before);
    out
}

/// The id as a log line writes it (`-` for none).
pub fn shown(id: &Option<String>) -> &str {
    id.as_deref().unwrap_or("-")
}

/// The binary's log: every span and event, and the `log` crate's lines
/// (through `tracing-log`), to stderr, filtered by `RUST_LOG` (default
/// `info`: the spans of a move, at debug, are off).
pub fn log_to_stderr() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colours on a terminal only: a log file gets plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_cause_wins_and_is_put_back() {
        assert_eq!(current(), None);
        let inner = on_thread(Some("a".into()), || {
            let nested = on_thread(Some("b".into()), current);
            (current(), nested)
        });
        assert_eq!(inner, (Some("a".into()), Some("b".into())));
        assert_eq!(current(), None);
    }

    #[test]
    fn a_task_cause_reaches_what_it_awaits() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let seen = rt.block_on(scope("r1".into(), async { current() }));
        assert_eq!(seen.as_deref(), Some("r1"));
    }
}
