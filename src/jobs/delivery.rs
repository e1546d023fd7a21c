//! The outbox job: today's digests, the message notices due
//! (`talk::told`) and the daily puzzle's morning notices are queued, then every due
//! notification is delivered (`notify::worker`). Its own tick, so a slow
//! mail server never delays a deadline.

use crate::error::Error;
use crate::notify::worker::{self, Delivered};
use crate::notify::Courier;

/// Queue the digests whose local morning has come, then deliver every due
/// notification (blocking; run it off the executor).
pub fn deliver_due(courier: &Courier) -> Result<Delivered, Error> {
    let now = courier.clock.now();
    crate::db::transaction(&courier.pool, |c| super::digest::enqueue_due(c, now))?;
    crate::db::transaction(&courier.pool, |c| crate::talk::told::enqueue_due(c, now))?;
    crate::db::transaction(&courier.pool, |c| {
        crate::puzzles::morning::enqueue_due(c, now)
    })?;
    worker::deliver_due(courier)
}
