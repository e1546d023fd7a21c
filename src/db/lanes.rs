//! The threads that run request handlers' transactions (docs/scaling.md, the
//! blocking hop): as many as the pool has connections, started with it
//! and kept, each taking the oldest waiting transaction in turn.
//!
//! Why not `web::block`: tokio's blocking pool spawns threads on demand
//! and lets them die after ten idle seconds, so under load an action's
//! transaction landed on one of some twenty threads, cold, through a
//! queue shared with every other blocking task. Here a fixed few threads
//! stay warm, and handing one a transaction costs one wake-up.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// Set when the last handle is dropped: the threads finish and end.
    closed: bool,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
}

/// A handle to the threads; they end when the last handle is dropped.
pub struct Lanes {
    shared: Arc<Shared>,
}

impl Lanes {
    /// Start `count` threads named `posthorn-db-N`.
    pub fn start(count: usize) -> std::io::Result<Lanes> {
        let shared = Arc::new(Shared::default());
        for n in 0..count.max(1) {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name(format!("posthorn-db-{n}"))
                .spawn(move || lane(&shared))?;
        }
        Ok(Lanes { shared })
    }

    /// Queue `job` behind those already waiting.
    pub fn submit(&self, job: impl FnOnce() + Send + 'static) {
        let mut queue = self
            .shared
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        queue.jobs.push_back(Box::new(job));
        drop(queue);
        self.shared.ready.notify_one();
    }
}

impl Drop for Lanes {
    fn drop(&mut self) {
        let mut queue = self
            .shared
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        queue.closed = true;
        drop(queue);
        self.shared.ready.notify_all();
    }
}

/// One thread: run jobs in arrival order until the handle is gone. A job
/// that panics ends only itself (its caller sees its answer dropped).
fn lane(shared: &Shared) {
    loop {
        let job = {
            let mut queue = shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
            loop {
                if let Some(job) = queue.jobs.pop_front() {
                    break job;
                }
                if queue.closed {
                    return;
                }
                queue = shared
                    .ready
                    .wait(queue)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        let _ = catch_unwind(AssertUnwindSafe(job));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn jobs_run_on_the_lanes_threads_and_a_panic_ends_only_its_job() {
        let lanes = Lanes::start(2).unwrap();
        let (tx, rx) = mpsc::channel();
        lanes.submit(|| panic!("a job that fails"));
        for n in 0..10 {
            let tx = tx.clone();
            lanes.submit(move || {
                let name = std::thread::current().name().map(str::to_owned);
                tx.send((n, name)).unwrap();
            });
        }
        let mut seen: Vec<(i32, Option<String>)> = (0..10).map(|_| rx.recv().unwrap()).collect();
        seen.sort();
        assert_eq!(
            seen.iter().map(|s| s.0).collect::<Vec<_>>(),
            (0..10).collect::<Vec<_>>()
        );
        assert!(seen.iter().all(|(_, name)| name
            .as_deref()
            .is_some_and(|n| n.starts_with("posthorn-db-"))));
    }

    #[test]
    fn jobs_queued_before_the_handle_is_dropped_still_run() {
        let lanes = Lanes::start(1).unwrap();
        let (tx, rx) = mpsc::channel();
        lanes.submit(|| std::thread::sleep(std::time::Duration::from_millis(50)));
        lanes.submit(move || tx.send("ran").unwrap());
        drop(lanes);
        assert_eq!(rx.recv(), Ok("ran"));
    }
}
