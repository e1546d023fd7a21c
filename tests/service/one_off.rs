//! Issue #31: one-off work in the `jobs` table — queued once per key,
//! claimed by one instance at a time, taken again after a crash (the
//! lease runs out), fenced so a worker that lost its lease cannot close
//! the new attempt, retried with backoff and then recorded as failed.

use crate::support::TestApp;
use chrono::Duration;
use posthorn::clock::Clock;
use posthorn::db::Pool;
use posthorn::job_queue::Work;
use posthorn::job_queue::{self, Job, MAX_ATTEMPTS};
use posthorn::jobs::one_off::{run_due, Ran, LEASE_SECONDS};
use serde_json::json;
use std::sync::Mutex;

/// A worker that records what it was handed and fails while told to.
struct Recorder {
    ran: Mutex<Vec<serde_json::Value>>,
    fail: bool,
}

impl Work for Recorder {
    fn kind(&self) -> &'static str {
        "test.record"
    }
    fn run(&self, _: &Pool, job: &Job, _: chrono::DateTime<chrono::Utc>) -> Result<(), String> {
        self.ran.lock().unwrap().push(job.payload.clone());
        if self.fail {
            Err("told to fail".into())
        } else {
            Ok(())
        }
    }
}

fn recorder(fail: bool) -> Recorder {
    Recorder {
        ran: Mutex::new(Vec::new()),
        fail,
    }
}

#[actix_web::test]
async fn a_job_is_queued_once_per_key_and_run_once() {
    let app = TestApp::start().await;
    let now = app.clock.now();
    let added = app
        .blocking(move |s| {
            let mut c = s.pool.get().unwrap();
            let first = job_queue::enqueue(&mut c, "test.record", "k1", json!({"n": 1}), now, now);
            let again = job_queue::enqueue(&mut c, "test.record", "k1", json!({"n": 2}), now, now);
            (first.unwrap(), again.unwrap())
        })
        .await;
    assert_eq!(added, (true, false), "the same key queues once");
    let worker = std::sync::Arc::new(recorder(false));
    let w = worker.clone();
    let ran = app
        .blocking(move |s| run_due(&s.pool, &[w.as_ref()], now).unwrap())
        .await;
    assert_eq!(
        ran,
        Ran {
            done: 1,
            retried: 0
        }
    );
    let w = worker.clone();
    let later = now + Duration::hours(1);
    let again = app
        .blocking(move |s| run_due(&s.pool, &[w.as_ref()], later).unwrap())
        .await;
    assert_eq!(again, Ran::default(), "a done job is not run again");
    assert_eq!(*worker.ran.lock().unwrap(), [json!({"n": 1})]);
    // Kept a month (its key still queues nothing), then removed.
    let count = |at: chrono::DateTime<chrono::Utc>| {
        app.blocking(move |s| {
            let mut c = s.pool.get().unwrap();
            let purged = job_queue::purge_done(&mut c, at).unwrap();
            let requeued =
                job_queue::enqueue(&mut c, "test.record", "k1", json!({"n": 3}), at, at).unwrap();
            (purged, requeued)
        })
    };
    let days = job_queue::KEEP_DONE_DAYS;
    assert_eq!(count(now + Duration::days(days - 1)).await, (0, false));
    assert_eq!(count(now + Duration::days(days + 1)).await, (1, true));
    app.stop().await;
}

/// Claim (and never finish) every due job, as an instance that then dies.
async fn claim_all(app: &TestApp, now: chrono::DateTime<chrono::Utc>) -> Vec<Job> {
    let lease = Duration::seconds(LEASE_SECONDS);
    app.blocking(move |s| {
        let mut claimed = Vec::new();
        while let Some(job) = posthorn::db::transaction(&s.pool, |c| {
            job_queue::claim(
                c,
                &job_queue::Lane::ALL,
                now,
                lease,
                &posthorn::computer::budget::SPENT,
            )
        })
        .unwrap()
        {
            claimed.push(job);
        }
        claimed
    })
    .await
}

#[actix_web::test]
async fn two_instances_claim_each_job_once_and_a_crashed_claim_is_taken_over() {
    let app = TestApp::start().await;
    let other = app.sibling().await;
    let now = app.clock.now();
    app.blocking(move |s| {
        let mut c = s.pool.get().unwrap();
        for n in 0..20 {
            job_queue::enqueue(&mut c, "test.record", &format!("j{n}"), json!(n), now, now)
                .unwrap();
        }
    })
    .await;
    // Both instances claim at once: every job goes to exactly one of them.
    let (mine, theirs) =
        futures_util::future::join(claim_all(&app, now), claim_all(&other, now)).await;
    let mut ids: Vec<i64> = mine.iter().chain(&theirs).map(|j| j.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!((ids.len(), mine.len() + theirs.len()), (20, 20));
    // Nobody finished them (a crash): the leases run out and the jobs are
    // taken again, once each, as a second attempt.
    let held = mine[0].clone();
    let lease = Duration::seconds(LEASE_SECONDS);
    let after = now + lease + Duration::seconds(1);
    let retaken = app
        .blocking(move |s| {
            posthorn::db::transaction(&s.pool, |c| {
                job_queue::claim(
                    c,
                    &job_queue::Lane::ALL,
                    after,
                    lease,
                    &posthorn::computer::budget::SPENT,
                )
            })
            .unwrap()
        })
        .await
        .expect("a job whose lease ran out is claimed again");
    assert_eq!(retaken.attempts, 2);
    // The first claim of that job can no longer close it; the new one can.
    let (stale, fresh) = (
        Job {
            id: retaken.id,
            attempts: 1,
            ..retaken.clone()
        },
        retaken.clone(),
    );
    let closed = app
        .blocking(move |s| {
            let mut c = s.pool.get().unwrap();
            let stale = job_queue::finish(&mut c, &stale, after).unwrap();
            let fresh = job_queue::finish(&mut c, &fresh, after).unwrap();
            (stale, fresh)
        })
        .await;
    assert_eq!(closed, (false, true));
    assert_eq!(held.attempts, 1);
    other.stop().await;
    app.stop().await;
}

#[actix_web::test]
async fn a_failing_job_is_retried_with_backoff_then_recorded_as_failed() {
    use diesel::prelude::*;
    use posthorn::schema::jobs;
    let app = TestApp::start().await;
    let now = app.clock.now();
    app.blocking(move |s| {
        let mut c = s.pool.get().unwrap();
        job_queue::enqueue(&mut c, "test.record", "f", json!("f"), now, now).unwrap();
        job_queue::enqueue(&mut c, "test.unknown", "u", json!("u"), now, now).unwrap();
    })
    .await;
    let worker = std::sync::Arc::new(recorder(true));
    let mut at = now;
    for attempt in 1..=MAX_ATTEMPTS {
        let w = worker.clone();
        let ran = app
            .blocking(move |s| run_due(&s.pool, &[w.as_ref()], at).unwrap())
            .await;
        assert_eq!(ran.retried, 2, "attempt {attempt}: both jobs fail");
        // Not due again before its backoff (30 s, doubling).
        let w = worker.clone();
        let wait = Duration::seconds(30 << (attempt - 1));
        let early = at + wait - Duration::seconds(1);
        let none = app
            .blocking(move |s| run_due(&s.pool, &[w.as_ref()], early).unwrap())
            .await;
        assert_eq!(none, Ran::default(), "attempt {attempt}: waits its backoff");
        at += wait;
    }
    assert_eq!(worker.ran.lock().unwrap().len(), MAX_ATTEMPTS as usize);
    let failed: Vec<(String, Option<String>)> = app
        .blocking(|s| {
            let mut c = s.pool.get().unwrap();
            jobs::table
                .filter(jobs::failed_at.is_not_null())
                .order(jobs::key)
                .select((jobs::key, jobs::last_error))
                .load(&mut c)
                .unwrap()
        })
        .await;
    assert_eq!(
        failed,
        [
            ("f".to_owned(), Some("told to fail".to_owned())),
            (
                "u".to_owned(),
                Some("no worker for jobs of kind test.unknown".to_owned())
            )
        ]
    );
    app.stop().await;
}

/// A worker that panics.
struct Panics;

impl Work for Panics {
    fn kind(&self) -> &'static str {
        "test.panic"
    }
    fn run(&self, _: &Pool, _: &Job, _: chrono::DateTime<chrono::Utc>) -> Result<(), String> {
        panic!("a bug in a worker");
    }
}

/// A panic is a failed attempt (retried, then failed), and a job whose
/// last attempt's lease ran out is failed, not claimed for ever.
#[actix_web::test]
async fn a_panicking_worker_fails_its_attempts_and_a_dead_last_attempt_fails_the_job() {
    use diesel::prelude::*;
    use posthorn::schema::jobs;
    let app = TestApp::start().await;
    let now = app.clock.now();
    app.blocking(move |s| {
        let mut c = s.pool.get().unwrap();
        job_queue::enqueue(&mut c, "test.panic", "p", json!(null), now, now).unwrap();
        job_queue::enqueue(&mut c, "test.record", "d", json!(null), now, now).unwrap();
    })
    .await;
    let ran = app
        .blocking(move |s| run_due(&s.pool, &[&Panics], now).unwrap())
        .await;
    assert_eq!(
        ran.retried, 2,
        "the panic is an attempt; the other has no worker here"
    );
    // The second job's later attempts are all claimed and never finished.
    let lease = Duration::seconds(LEASE_SECONDS);
    let mut at = now + Duration::hours(1);
    for _ in 1..MAX_ATTEMPTS {
        let claimed = app
            .blocking(move |s| {
                posthorn::db::transaction(&s.pool, |c| {
                    let mut all = Vec::new();
                    while let Some(job) = job_queue::claim(
                        c,
                        &job_queue::Lane::ALL,
                        at,
                        lease,
                        &posthorn::computer::budget::SPENT,
                    )? {
                        all.push(job.id);
                    }
                    Ok(all)
                })
                .unwrap()
            })
            .await;
        assert!(!claimed.is_empty());
        at += Duration::hours(1);
    }
    let failed: Vec<(String, Option<String>)> = app
        .blocking(move |s| {
            // The runner's next run fails what no claim may take again.
            run_due(&s.pool, &[], at).unwrap();
            let mut c = s.pool.get().unwrap();
            jobs::table
                .filter(jobs::failed_at.is_not_null())
                .order(jobs::key)
                .select((jobs::key, jobs::last_error))
                .load(&mut c)
                .unwrap()
        })
        .await;
    assert_eq!(failed.len(), 2, "{failed:?}");
    app.stop().await;
}
