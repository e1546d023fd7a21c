//! The outbox job: the notices that come by the clock (the notices
//! policy's `notices::TIMED`: today's digests, the message notices due, the
//! daily puzzle's morning notices) are queued, then every due notification
//! is delivered (`notify::worker`). Its own tick, so a slow mail server
//! never delays a deadline.

use crate::error::Error;
use crate::notify::worker::{self, Delivered};
use crate::notify::Courier;

/// Queue the timed notices that are due, then deliver every due
/// notification (blocking; run it off the executor).
pub fn deliver_due(courier: &Courier) -> Result<Delivered, Error> {
    let now = courier.clock.now();
    for source in &crate::notices::TIMED {
        let queued = crate::db::transaction(&courier.pool, |c| (source.queue_due)(c, now))?;
        if queued > 0 {
            log::debug!(target: "posthorn::delivery", "{}: {queued} queued", source.name);
        }
    }
    worker::deliver_due(courier)
}
