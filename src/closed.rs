//! Closed sets stored as text (a tournament's status, an entrant's
//! state, a puzzle's goal, an attempt's state): one list per set, written once through `text_enum!`, from which
//! its text, its parse and its diesel `ToSql`/`FromSql` are derived, so a
//! query names a variant, never a string. They sit on the lowest floor
//! because the lobby and the home summary filter by them too.

/// An enum stored as one of its texts.
macro_rules! text_enum {
    ($(#[$meta:meta])* $vis:vis enum $Name:ident {
        $($(#[$vmeta:meta])* $Variant:ident => $text:literal),+ $(,)?
    }) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq,
            diesel::expression::AsExpression, diesel::deserialize::FromSqlRow,
        )]
        #[diesel(sql_type = diesel::sql_types::Text)]
        $vis enum $Name {
            $($(#[$vmeta])* $Variant),+
        }

        impl $Name {
            pub const ALL: &'static [$Name] = &[$($Name::$Variant),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($Name::$Variant => $text),+
                }
            }

            pub fn parse(text: &str) -> Option<$Name> {
                Self::ALL.iter().copied().find(|v| v.as_str() == text)
            }
        }

        impl diesel::serialize::ToSql<diesel::sql_types::Text, diesel::pg::Pg> for $Name {
            fn to_sql<'b>(
                &'b self,
                out: &mut diesel::serialize::Output<'b, '_, diesel::pg::Pg>,
            ) -> diesel::serialize::Result {
                <str as diesel::serialize::ToSql<diesel::sql_types::Text, diesel::pg::Pg>>::to_sql(
                    self.as_str(),
                    out,
                )
            }
        }

        impl diesel::deserialize::FromSql<diesel::sql_types::Text, diesel::pg::Pg> for $Name {
            fn from_sql(bytes: diesel::pg::PgValue<'_>) -> diesel::deserialize::Result<Self> {
                let text = <String as diesel::deserialize::FromSql<
                    diesel::sql_types::Text,
                    diesel::pg::Pg,
                >>::from_sql(bytes)?;
                $Name::parse(&text).ok_or_else(|| {
                    format!(concat!("unknown ", stringify!($Name), " {:?}"), text).into()
                })
            }
        }
    };
}

text_enum! {
    /// Where a tournament stands.
    pub enum TournamentStatus {
        /// Taking players.
        Open => "open",
        Active => "active",
        Finished => "finished",
    }
}

text_enum! {
    /// A player's part in a tournament.
    pub enum EntrantState {
        Invited => "invited",
        Joined => "joined",
        Declined => "declined",
        Withdrawn => "withdrawn",
    }
}

text_enum! {
    /// How a tournament's players are seeded when it starts.
    pub enum Seeding {
        /// By their rating in its game, strongest first.
        Rating => "rating",
        Random => "random",
    }
}

text_enum! {
    /// What a puzzle asks of its solver (docs/puzzles.md).
    pub enum PuzzleGoal {
        /// The line wins the match.
        Win => "win",
        /// The line wins decisive material.
        Gain => "gain",
    }
}

impl From<posthorn_rules::puzzles::Goal> for PuzzleGoal {
    fn from(goal: posthorn_rules::puzzles::Goal) -> PuzzleGoal {
        match goal {
            posthorn_rules::puzzles::Goal::Win => PuzzleGoal::Win,
            posthorn_rules::puzzles::Goal::Gain => PuzzleGoal::Gain,
        }
    }
}

text_enum! {
    /// Where a player's attempt at a puzzle stands.
    pub enum AttemptState {
        Playing => "playing",
        Solved => "solved",
        /// The solution was asked for.
        GivenUp => "given_up",
    }
}
