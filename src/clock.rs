//! Time is injected (docs/design.md §3): production reads the system clock,
//! tests advance a manual one instead of sleeping.

use chrono::{DateTime, Duration, SubsecRound, Utc};
use std::sync::{Arc, Mutex};

/// Every clock reads in whole microseconds, what PostgreSQL's
/// `timestamptz` stores: a time answered at once and the same time read
/// back from the log are then equal (docs/decisions/hardening.md, "Times":
/// `…16.700294384Z` in an answer was once `…16.700294Z` in the event feed).
pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now().trunc_subsecs(6)
    }
}

/// A clock that moves only when told to.
#[derive(Clone)]
pub struct ManualClock(Arc<Mutex<DateTime<Utc>>>);

impl ManualClock {
    pub fn new(start: DateTime<Utc>) -> Self {
        ManualClock(Arc::new(Mutex::new(start)))
    }
    pub fn advance(&self, by: Duration) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) += by;
    }
    pub fn set(&self, to: DateTime<Utc>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = to;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .trunc_subsecs(6)
    }
}
