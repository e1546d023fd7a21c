//! The periodic work of the service, one file per job
//! (docs/architecture.md): the deadline sweep (`deadlines`), the outbox
//! delivery with the daily digest (`delivery`, `digest`), one-off work from
//! the `jobs` table (`one_off`), and the reading of sessions other
//! instances ended. Each runs on a tick of its own, off the async executor,
//! with the narrow context it needs.

pub mod deadlines;
pub mod delivery;
pub mod one_off;
pub mod threads;

use crate::error::Error;
use crate::job_queue::Lane;
use crate::state::AppState;

/// How often finished matches are searched for puzzles.
pub const MINE_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// How often due one-off work is looked for.
pub const ONE_OFF_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// Start the periodic work on tokio-cron-scheduler, each on a tick of its
/// own so that a slow peer never delays another: the deadline sweep and
/// the outbox delivery every `interval` (a slow mail server no longer holds
/// up deadlines), and the reading of sessions other instances ended every
/// [`crate::revoked::REFRESH_EVERY`]. A tick that finds its job's previous
/// run still going is skipped rather than piled up.
pub async fn start(
    state: AppState,
    interval: std::time::Duration,
) -> Result<tokio_cron_scheduler::JobScheduler, String> {
    use tokio_cron_scheduler::JobScheduler;
    let scheduler = JobScheduler::new().await.map_err(|e| e.to_string())?;
    // Each job's narrow context, taken from the state once
    // (docs/architecture.md, "The service's floors").
    let sweeper = deadlines::Sweeper::of(&state);
    let courier = state.courier();
    let one_off = std::sync::Arc::new(one_off::Runner::of(&state));
    let sessions = EndedSessions {
        pool: state.pool.clone(),
        clock: state.clock.clone(),
        revoked: state.revoked.clone(),
        lifetime: state.config.access_token_seconds,
    };
    let (mine_pool, mine_clock, keep) = (
        state.pool.clone(),
        state.clock.clone(),
        state.config.puzzle_pool,
    );
    drop(state);
    let jobs = [
        every(interval, "sweep", move || match sweeper.sweep() {
            Ok(done) if done.matches > 0 => log::info!("sweep: {done:?}"),
            Ok(_) => {}
            Err(e) => log::warn!("sweep failed: {e}"),
        })?,
        every(interval, "outbox", move || {
            match delivery::deliver_due(&courier) {
                Ok(done) if done != Default::default() => log::info!("outbox: {done:?}"),
                Ok(_) => {}
                Err(e) => log::warn!("outbox delivery failed: {e}"),
            }
        })?,
        // One-off work (`job_queue`), every second: a computer opponent's
        // reply should not wait for the sweep's interval (docs/bots.md, "In
        // the service"); each lane on a tick of its own, so a backlog of
        // searches never holds up a lobby job or a quicker search
        // (docs/abuse.md, "Engine time").
        lane(&one_off, Lane::Quick, "one-off work (quick)")?,
        lane(&one_off, Lane::Light, "one-off work (light searches)")?,
        lane(&one_off, Lane::Heavy, "one-off work (hard searches)")?,
        // Puzzles (docs/puzzles.md): while a game is short of puzzles,
        // this minute's engines' match is queued, once across instances;
        // the spare lane plays it.
        every(MINE_EVERY, "puzzles", move || {
            let now = mine_clock.now();
            let queued = crate::db::transaction(&mine_pool, |c| {
                crate::puzzles::mining::queue_self_play(c, keep, now)
            });
            if let Err(e) = queued {
                log::warn!("queueing an engines' match failed: {e}");
            }
        })?,
        every(crate::revoked::REFRESH_EVERY, "ended sessions", move || {
            if let Err(e) = sessions.read() {
                log::warn!("reading ended sessions failed: {e}");
            }
        })?,
    ];
    for job in jobs {
        scheduler.add(job).await.map_err(|e| e.to_string())?;
    }
    scheduler.start().await.map_err(|e| e.to_string())?;
    Ok(scheduler)
}

/// What reading the sessions other instances ended needs (docs/abuse.md,
/// "Sessions that end").
struct EndedSessions {
    pool: crate::db::Pool,
    clock: std::sync::Arc<dyn crate::clock::Clock>,
    revoked: std::sync::Arc<crate::revoked::Revoked>,
    lifetime: i64,
}

use crate::accounts::ended_since;

impl EndedSessions {
    fn read(&self) -> Result<usize, Error> {
        let mut conn = self.pool.get()?;
        self.revoked
            .refresh(&mut conn, self.clock.now(), self.lifetime, ended_since)
    }
}

/// The tick of one lane of one-off work.
fn lane(
    runner: &std::sync::Arc<one_off::Runner>,
    lane: Lane,
    name: &'static str,
) -> Result<tokio_cron_scheduler::Job, String> {
    let runner = runner.clone();
    every(ONE_OFF_EVERY, name, move || match runner.run(lane) {
        Ok(ran) if ran != Default::default() => log::info!("{name}: {ran:?}"),
        Ok(_) => {}
        Err(e) => log::warn!("{name} failed: {e}"),
    })
}

/// A job running blocking `work` off the executor every `interval`,
/// skipping a tick while its previous run is still going.
fn every(
    interval: std::time::Duration,
    name: &'static str,
    work: impl Fn() + Send + Sync + 'static,
) -> Result<tokio_cron_scheduler::Job, String> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let work = std::sync::Arc::new(work);
    let busy = std::sync::Arc::new(AtomicBool::new(false));
    tokio_cron_scheduler::Job::new_repeated_async(interval, move |_id, _scheduler| {
        let (work, busy) = (work.clone(), busy.clone());
        Box::pin(async move {
            if busy.swap(true, Ordering::AcqRel) {
                return;
            }
            let ran = tokio::task::spawn_blocking(move || work()).await;
            busy.store(false, Ordering::Release);
            if let Err(e) = ran {
                log::error!("{name} panicked: {e}");
            }
        })
    })
    .map_err(|e| e.to_string())
}
