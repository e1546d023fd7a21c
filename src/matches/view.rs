//! A table as a reader sees it: the match view and its events, each
//! redacted by the rules for the reader's seat (§H).

use super::*;

impl Table {
    /// Load the seated players not yet in `players`.
    pub fn seat_players(&mut self, conn: &mut PgConnection) -> Result<(), Error> {
        let missing: Vec<Uuid> = self
            .seats
            .iter()
            .flatten()
            .filter(|u| !self.players.contains_key(u))
            .copied()
            .collect();
        if !missing.is_empty() {
            let found = crate::players::load(conn, missing)?;
            self.players.extend(found);
        }
        Ok(())
    }

    /// How `user` sees this match.
    pub fn view_for(&mut self, conn: &mut PgConnection, user: Uuid) -> Result<MatchView, Error> {
        self.seat_players(conn)?;
        let mut view = self.view_with(&self.players, user)?;
        if self.row.status == MatchStatus::Waiting {
            view.challenges = challenged::pending(conn, self.row.id)?;
        }
        if self.row.status == MatchStatus::Active {
            view.takeback_asked_by = self.takeback_asked(conn)?.map(|(seat, _)| seat.0);
        }
        if self.row.status == MatchStatus::Finished && self.row.rematch_id.is_none() {
            view.rematch_asked_by = self.rematch_asked_by(conn)?;
        }
        Ok(view)
    }

    /// The takeback asked and not yet answered, if any: `(seat that
    /// asked, to_seq)`; read from the log once, then kept.
    pub fn takeback_asked(
        &mut self,
        conn: &mut PgConnection,
    ) -> Result<Option<(Seat, i32)>, Error> {
        if let Some(known) = self.takeback {
            return Ok(known);
        }
        let asked = takeback::pending(conn, self)?;
        self.takeback = Some(asked);
        Ok(asked)
    }

    /// The seats of the players who asked for a rematch (`lobby::rematch`).
    fn rematch_asked_by(&self, conn: &mut PgConnection) -> Result<Vec<u8>, Error> {
        let asked = super::rematch_offers::asked(conn, self.row.id)?;
        let seats = self.seats.iter().enumerate();
        Ok(seats
            .filter(|(_, user)| user.is_some_and(|u| asked.contains(&u)))
            .map(|(seat, _)| seat as u8)
            .collect())
    }

    pub fn viewer(&self, user: Uuid) -> Viewer {
        self.seats_of(user)
            .first()
            .map_or(Viewer::Spectator, |s| Viewer::Seat(*s))
    }

    pub fn view_with(
        &self,
        players: &HashMap<Uuid, Player>,
        user: Uuid,
    ) -> Result<MatchView, Error> {
        let r = &self.row;
        Ok(MatchView {
            id: r.id,
            game: r.game.clone(),
            variant: r.variant.clone(),
            mode: r.mode.clone(),
            status: r.status,
            seq: r.seq,
            rated: r.rated,
            options: r.options.clone(),
            turn_hours: r.turn_seconds as f64 / 3600.0,
            seats: (0..self.seats.len())
                .map(|i| SeatView {
                    seat: i as u8,
                    user: self.seats[i].and_then(|u| players.get(&u).cloned()),
                })
                .collect(),
            my_seats: self.seats_of(user).iter().map(|s| s.0).collect(),
            to_act: self.duties()?,
            round: self.state.round(),
            view: self.state.view(self.viewer(user)),
            result: r.result.clone(),
            created_at: r.created_at,
            updated_at: r.updated_at,
            invite: None,
            invites: Vec::new(),
            challenges: Vec::new(),
            rematch_of: r.rematch_of,
            rematch: r.rematch_id,
            tournament: r.tournament_id,
            takeback_asked_by: None,
            rematch_asked_by: Vec::new(),
            unread_messages: 0,
        })
    }

    /// The whole log as `viewer` may see it (a share link's reader: the
    /// spectator).
    pub fn events_as(
        &self,
        conn: &mut PgConnection,
        viewer: Viewer,
    ) -> Result<Vec<EventView>, Error> {
        let rows: Vec<EventRow> = match_events::table
            .filter(match_events::match_id.eq(self.row.id))
            .order(match_events::seq)
            .select(EventRow::as_select())
            .load(conn)?;
        (rows.iter())
            .map(|e| event_view(self.game, e, viewer).map_err(Error::internal))
            .collect()
    }

    /// A stored event as `user` may see it.
    pub fn event_view(&self, event: &EventRow, user: Uuid) -> Result<EventView, Error> {
        event_view(self.game, event, self.viewer(user)).map_err(Error::internal)
    }
}

/// A stored event of a `game` match as `viewer` may see it: the rules'
/// facts redacted, with the event's place in the log.
pub fn event_view(
    game: GameId,
    event: &EventRow,
    viewer: Viewer,
) -> Result<EventView, posthorn_rules::RuleError> {
    let body = if event.rules {
        MatchState::redact(game, &event.body, viewer)?
    } else {
        event.body.clone()
    };
    // The game's own fields first: its `seat` says whom the fact is
    // about (the drawer of a draw), which the acting seat stored with
    // the row only stands in for when the fact names none.
    let mut out = match body {
        Value::Object(fields) => fields,
        _ => Map::new(),
    };
    out.insert("seq".into(), event.seq.into());
    out.insert(
        "at".into(),
        serde_json::to_value(event.at).unwrap_or_default(),
    );
    if let Some(seat) = event.seat {
        out.entry("seat").or_insert(seat.into());
    }
    Ok(Value::Object(out))
}
