//! The banqi engine (issue #32): not written yet.

use super::Level;
use crate::{Random, RuleError, Seat};
use serde_json::Value;

pub fn decide(
    view: &Value,
    seat: Seat,
    level: Level,
    random: &mut dyn Random,
) -> Result<Value, RuleError> {
    let _ = (view, seat, level, random);
    Err(RuleError::malformed("no computer opponent plays banqi yet"))
}
