//! Loading a table: from its row and log, or from a snapshot of its
//! state when one is fresh (`snapshots`), locked or not.

use super::*;

/// How the action's lock statement asks whether the actor is on vacation:
/// SQL around the actor's id, handed down by the owner of the vacations
/// (`vacation::OnVacation`), as talk hands the outbox its unread count, so
/// that an action pays no round trip of its own for it (docs/benchmarks.md,
/// "Winning back the action path"). Handed down as a type, not as text:
/// the statement then keeps one static id per fragment and diesel
/// prepares it once per connection, where text made diesel key the
/// statement by its SQL, built again on every action (docs/benchmarks.md,
/// "Every table one owner": 5–10 % of the actions).
pub trait AwaySql: Copy + Send + 'static {
    /// The SQL before the actor's id.
    const BEFORE: &'static str;
    /// The SQL after it.
    const AFTER: &'static str;
}

/// For an actor whose vacation acting does not end (a computer, a
/// resignation on leaving): false, since an actor's id is never null.
#[derive(Clone, Copy, Debug)]
pub struct NotAsked;

impl AwaySql for NotAsked {
    const BEFORE: &'static str = "(";
    const AFTER: &'static str = "::uuid IS NULL)";
}

/// [`AwaySql`] asked of one actor: a boolean expression the lock statement
/// selects. Written by hand because `diesel::dsl::sql`'s literal marks a
/// statement as never to be prepared again.
#[derive(Clone, Copy, Debug)]
pub struct AwayOf<A> {
    user: Uuid,
    away: std::marker::PhantomData<A>,
}

impl<A: AwaySql> Expression for AwayOf<A> {
    type SqlType = diesel::sql_types::Bool;
}

impl<A: AwaySql> diesel::query_builder::QueryFragment<diesel::pg::Pg> for AwayOf<A> {
    fn walk_ast<'b>(
        &'b self,
        mut out: diesel::query_builder::AstPass<'_, 'b, diesel::pg::Pg>,
    ) -> QueryResult<()> {
        out.push_sql(A::BEFORE);
        out.push_bind_param::<diesel::sql_types::Uuid, _>(&self.user)?;
        out.push_sql(A::AFTER);
        Ok(())
    }
}

impl<A: AwaySql> diesel::query_builder::QueryId for AwayOf<A> {
    type QueryId = AwayOf<A>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<A> diesel::expression::ValidGrouping<()> for AwayOf<A> {
    type IsAggregate = diesel::expression::is_aggregate::Never;
}

impl<A: AwaySql, QS> diesel::expression::AppearsOnTable<QS> for AwayOf<A> {}

impl<A: AwaySql, QS> diesel::expression::SelectableExpression<QS> for AwayOf<A> {}

impl Table {
    /// Load a match; with `lock`, hold its row until the transaction ends.
    pub fn load(conn: &mut PgConnection, id: Uuid, lock: bool) -> Result<Option<Table>, Error> {
        let query = matches::table.find(id).select(MatchRow::as_select());
        let row = if lock {
            query.for_update().first(conn).optional()?
        } else {
            query.first(conn).optional()?
        };
        row.map(|row| Table::of_row(conn, row)).transpose()
    }

    /// Load a match to act in as `user` (one of its players), its row
    /// locked; and whether `user` is on vacation, read in the same
    /// statement as `A` asks it. Acting ends a vacation
    /// (`vacation::end`).
    pub fn load_to_act<A: AwaySql>(
        conn: &mut PgConnection,
        id: Uuid,
        user: Uuid,
    ) -> Result<(Table, bool), Error> {
        let away = AwayOf::<A> {
            user,
            away: std::marker::PhantomData,
        };
        let found: Option<(MatchRow, bool)> = matches::table
            .find(id)
            .select((MatchRow::as_select(), away))
            .for_update()
            .first(conn)
            .optional()?;
        let Some((row, away)) = found else {
            return Err(Error::not_found("match"));
        };
        let table = Table::of_row(conn, row)?;
        Ok((Table::mine(conn, Some(table), user)?, away))
    }

    /// The table of `row` from its snapshot (same seq and roster).
    fn of_snapshot(row: MatchRow, snap: snapshots::Snapshot) -> Result<Table, Error> {
        Ok(Table {
            game: game_of(&row)?,
            row,
            seats: snap.seats,
            players: snap.players,
            state: snap.state,
            held: None,
            takeback: snap.takeback,
        })
    }

    /// The table of `row`: from the snapshot at its seq and roster, else
    /// read and folded.
    fn of_row(conn: &mut PgConnection, row: MatchRow) -> Result<Table, Error> {
        let id = row.id;
        if let Some(snap) = snapshots::get(id, row.seq, row.roster) {
            return Table::of_snapshot(row, snap);
        }
        let seat_rows: Vec<SeatRow> = match_seats::table
            .left_join(users::table)
            .filter(match_seats::match_id.eq(id))
            .order(match_seats::seat)
            .select((
                match_seats::match_id,
                match_seats::user_id,
                Option::<Player>::as_select(),
            ))
            .load(conn)?;
        let mut seat_rows = seat_rows;
        crate::players::dress(conn, seat_rows.iter_mut().filter_map(|r| r.2.as_mut()))?;
        // Only the events the row's seq covers, so the two agree.
        let bodies = fold::folded(conn, &HashMap::from([(id, row.seq)]))?
            .remove(&id)
            .unwrap_or_default();
        Table::assemble(conn, row, seat_rows, &bodies)
    }

    /// Tables for rows the caller has locked (the sweep's claimed batch):
    /// the seats and the rules' events of all of them in two queries, not
    /// two per match.
    pub fn load_claimed(conn: &mut PgConnection, rows: Vec<MatchRow>) -> Result<Vec<Table>, Error> {
        let mut tables = Vec::with_capacity(rows.len());
        let mut unknown = Vec::new();
        for row in rows {
            match snapshots::get(row.id, row.seq, row.roster) {
                Some(snap) => tables.push(Table::of_snapshot(row, snap)?),
                None => unknown.push(row),
            }
        }
        if unknown.is_empty() {
            return Ok(tables);
        }
        let ids: Vec<Uuid> = unknown.iter().map(|r| r.id).collect();
        let mut seats: HashMap<Uuid, Vec<SeatRow>> = HashMap::new();
        let seat_rows: Vec<SeatRow> = match_seats::table
            .left_join(users::table)
            .filter(match_seats::match_id.eq_any(&ids))
            .order((match_seats::match_id, match_seats::seat))
            .select((
                match_seats::match_id,
                match_seats::user_id,
                Option::<Player>::as_select(),
            ))
            .load(conn)?;
        let mut seat_rows = seat_rows;
        crate::players::dress(conn, seat_rows.iter_mut().filter_map(|r| r.2.as_mut()))?;
        for seat in seat_rows {
            seats.entry(seat.0).or_default().push(seat);
        }
        let upto: HashMap<Uuid, i32> = unknown.iter().map(|r| (r.id, r.seq)).collect();
        let mut bodies = fold::folded(conn, &upto)?;
        for row in unknown {
            let events = bodies.remove(&row.id).unwrap_or_default();
            let seat_rows = seats.remove(&row.id).unwrap_or_default();
            tables.push(Table::assemble(conn, row, seat_rows, &events)?);
        }
        Ok(tables)
    }

    /// A table from its row, its seats in order and its rules' events.
    fn assemble(
        conn: &mut PgConnection,
        row: MatchRow,
        seat_rows: Vec<SeatRow>,
        bodies: &[Value],
    ) -> Result<Table, Error> {
        let game = game_of(&row)?;
        let state = MatchState::replay(game, bodies).map_err(Error::internal)?;
        let players = seat_rows
            .iter()
            .filter_map(|(_, _, p)| p.clone())
            .map(|p| (p.id, p))
            .collect();
        let table = Table {
            row,
            game,
            seats: seat_rows.into_iter().map(|(_, u, _)| u).collect(),
            players,
            state,
            held: None,
            takeback: None,
        };
        // Read outside a transaction, from committed rows: safe to
        // remember now. Inside one, what was read may be this
        // transaction's own writes (a deletion moves the roster, then
        // resigns), which a rollback would make a phantom; the caller
        // remembers once it committed (`play::act`'s snapshot).
        if !in_transaction(conn) {
            table.snapshot().remember();
        }
        Ok(table)
    }

    /// This table's state, to remember once its transaction committed.
    pub fn snapshot(&self) -> snapshots::Snapshot {
        snapshots::Snapshot {
            id: self.row.id,
            seq: self.row.seq,
            roster: self.row.roster,
            state: self.state.clone(),
            seats: self.seats.clone(),
            players: self.players.clone(),
            takeback: self.takeback,
        }
    }

    /// Load a match `user` plays in. Others get 404 whether or not it
    /// exists, so ids leak nothing.
    pub fn load_mine(
        conn: &mut PgConnection,
        id: Uuid,
        user: Uuid,
        lock: bool,
    ) -> Result<Table, Error> {
        let table = Self::load(conn, id, lock)?;
        Self::mine(conn, table, user)
    }

    /// `table`, if `user` may read it.
    fn mine(conn: &mut PgConnection, table: Option<Table>, user: Uuid) -> Result<Table, Error> {
        match table {
            Some(t) if may_read(conn, t.row.id, user, t.seats.contains(&Some(user)))? => Ok(t),
            _ => Err(Error::not_found("match")),
        }
    }
}
