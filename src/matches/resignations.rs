//! A player leaving play (deleted or suspended; docs/decisions/
//! accounts-and-sessions.md): each seat of theirs still playing resigns
//! through [`play::act`], so results, ratings, notices and tournament
//! advances follow as for any resignation. The seats stay: finished
//! matches and opponents' rating changes point at them.

use super::{play, reads, MatchStatus, Table};
use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner, Phase};
use diesel::PgConnection;
use serde_json::json;

pub const PERSONAL: Owner = Owner {
    module: "matches",
    tables: &["matches", "match_seats"],
    phase: Phase::LeavePlay,
    forget: resign_all,
    exported: Exported::In(&["matches"]),
    kept: "the seats of the matches played and who created them: the \
           opponents' results and rating changes point at them, shown as a \
           deleted player",
};

/// Every seat of the player's still playing resigns (one already out of
/// a four-player match has nothing to resign); the matches are locked in
/// id order, as a tournament withdrawal locks them.
fn resign_all(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    let user = leaving.user;
    for reads::Open {
        id,
        status,
        mut seq,
    } in reads::lock_open_of(conn, user)?
    {
        if status != MatchStatus::Active {
            continue;
        }
        let Some(table) = Table::load(conn, id, true)? else {
            continue;
        };
        let playing: Vec<u8> = (table.seats_of(user).into_iter())
            .filter(|s| (table.state.legal_actions(*s).iter()).any(|a| a["type"] == "resign"))
            .map(|s| s.0)
            .collect();
        for seat in playing {
            let resign = play::ActionRequest {
                seq,
                seat: Some(seat),
                action: json!({"type": "resign"}),
            };
            let acted = play::act(
                conn,
                id,
                play::Actor::not_asking(user),
                resign,
                None,
                leaving.now,
                leaving.random,
            )?;
            seq = acted.answer.match_view.seq;
        }
    }
    Ok(())
}
