//! How many coins, and why none (docs/rules/rewards.md): the amounts of
//! every source and the caps, pure, in one place, each citing its section.

use posthorn_rules::Departure;

/// Where coins come from, as the ledger names it (`source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A rated match between people, a friend's challenge included (§R1).
    Rated,
    /// An unrated match between people: a seek's or a friend's (§R1).
    Casual,
    /// A game of a tournament (§R1).
    Tournament,
    /// A match against the computer, by its level (§R1).
    Computer(Level),
    /// A daily puzzle solved (§R2).
    Puzzle,
    /// A streak of daily puzzles reaching a multiple of [`STREAK_EVERY`] days (§R2).
    Streak,
    /// A place on a tournament's podium (§R2).
    Place,
    /// A look bought (§R7).
    Shop,
}

/// The computer's levels, as `GET /v1/bots` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Easy,
    Normal,
    Hard,
}

impl Level {
    pub fn parse(level: &str) -> Level {
        match level {
            "hard" => Level::Hard,
            "normal" => Level::Normal,
            _ => Level::Easy,
        }
    }
}

/// A seat's result at the end of a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    Win,
    Draw,
    Loss,
}

impl Finish {
    /// A seat's result from the places of every seat (1 = best): the
    /// first place alone wins, a first place shared by all draws, any
    /// other place loses (§R6: four-player partners share the team's).
    pub fn of(places: &[usize], seat: usize) -> Finish {
        let best = places.iter().min().copied().unwrap_or(1);
        if places.iter().all(|p| *p == best) {
            Finish::Draw
        } else if places.get(seat) == Some(&best) {
            Finish::Win
        } else {
            Finish::Loss
        }
    }
}

/// Why an entry is what it is (`why` in the ledger).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    Win,
    Draw,
    Loss,
    /// §R3: resigned (or left by the menu) before round [`EARLY_BEFORE_ROUND`].
    ResignedEarly,
    /// §R3: lost by abandonment, whatever the round.
    Abandoned,
    /// §R4: guests earn nothing.
    Guest,
    /// §R4: a seat never moved; nobody is paid.
    Aborted,
    /// §R4: the seat had a move taken back.
    TookBack,
    /// §R5: the third paid match within a day with the same people.
    Pairing,
    /// §R5: the day's coins from this kind of play are all paid.
    DailyCap,
    Solved,
    Streak,
    Place,
    Bought,
}

impl Why {
    /// Every reason, as the web client words them (`coins_why_<why>`).
    pub const ALL: [Why; 14] = [
        Why::Win,
        Why::Draw,
        Why::Loss,
        Why::ResignedEarly,
        Why::Abandoned,
        Why::Guest,
        Why::Aborted,
        Why::TookBack,
        Why::Pairing,
        Why::DailyCap,
        Why::Solved,
        Why::Streak,
        Why::Place,
        Why::Bought,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Why::Win => "win",
            Why::Draw => "draw",
            Why::Loss => "loss",
            Why::ResignedEarly => "resigned_early",
            Why::Abandoned => "abandoned",
            Why::Guest => "guest",
            Why::Aborted => "aborted",
            Why::TookBack => "took_back",
            Why::Pairing => "pairing",
            Why::DailyCap => "daily_cap",
            Why::Solved => "solved",
            Why::Streak => "streak",
            Why::Place => "place",
            Why::Bought => "bought",
        }
    }
}

/// §R3: a resignation before this round pays no loss coins (the seed's
/// "3라운드 전에 항복").
pub const EARLY_BEFORE_ROUND: u32 = 3;
/// §R2: a daily puzzle solved.
pub const DAILY_PUZZLE: i32 = 10;
/// §R2: a streak pays [`STREAK`] on each day that makes it a multiple of this.
pub const STREAK_EVERY: u32 = 7;
pub const STREAK: i32 = 30;
/// §R2: first, second and third place of a tournament of at least
/// [`PLACES_FROM_PLAYERS`] players.
pub const PLACES: [i32; 3] = [60, 30, 15];
pub const PLACES_FROM_PLAYERS: usize = 4;
/// §R5: paid matches with the same people within a day paid in full;
/// later ones pay nothing.
pub const PAIRINGS_PAID: i64 = 2;
/// §R5: the most coins a day (the last 24 hours) from matches between
/// people, and from the computer.
pub const PEOPLE_CAP: i32 = 60;
pub const COMPUTER_CAP: i32 = 10;

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Rated => "rated",
            Source::Casual => "casual",
            Source::Tournament => "tournament",
            Source::Computer(_) => "computer",
            Source::Puzzle => "puzzle",
            Source::Streak => "streak",
            Source::Place => "place",
            Source::Shop => "shop",
        }
    }

    /// §R1: (win, draw, loss) of a match of this source.
    pub fn amounts(self) -> (i32, i32, i32) {
        match self {
            Source::Rated | Source::Tournament => (20, 10, 5),
            Source::Casual => (12, 6, 3),
            Source::Computer(Level::Easy) => (2, 1, 0),
            Source::Computer(Level::Normal) => (4, 2, 1),
            Source::Computer(Level::Hard) => (8, 4, 2),
            Source::Puzzle | Source::Streak | Source::Place | Source::Shop => (0, 0, 0),
        }
    }

    /// §R5: the sources sharing this one's daily cap, and the cap.
    pub fn cap(self) -> (&'static [&'static str], i32) {
        match self {
            Source::Computer(_) => (&["computer"], COMPUTER_CAP),
            _ => (&["rated", "casual", "tournament"], PEOPLE_CAP),
        }
    }
}

/// What a finished seat earns before the day's limits (§R1, §R4).
pub fn for_finish(source: Source, finish: Finish) -> (i32, Why) {
    let (win, draw, loss) = source.amounts();
    match finish {
        Finish::Win => (win, Why::Win),
        Finish::Draw => (draw, Why::Draw),
        Finish::Loss => (loss, Why::Loss),
    }
}

/// §R3: a departure that pays nothing, and why; `None` when the seat is
/// paid at the end as any loser is. A concession by the clock (a lapsed
/// §F7 decision) is an abandonment; one chosen is the king lost on the
/// board, a loss like a checkmate.
pub fn departure(how: Departure, round: u32, by_clock: bool) -> Option<Why> {
    match how {
        Departure::Abandoned => Some(Why::Abandoned),
        Departure::Conceded if by_clock => Some(Why::Abandoned),
        Departure::Conceded => None,
        Departure::Resigned if round < EARLY_BEFORE_ROUND => Some(Why::ResignedEarly),
        Departure::Resigned => None,
    }
}

/// §R5: `amount` after the day's limits: nothing from the third paid
/// match with the same people within a day, and no more than the cap
/// leaves of what the day already paid.
pub fn limited(amount: i32, why: Why, paired_before: i64, paid_today: i32, cap: i32) -> (i32, Why) {
    if amount <= 0 {
        return (0, why);
    }
    if paired_before >= PAIRINGS_PAID {
        return (0, Why::Pairing);
    }
    match amount.min(cap - paid_today) {
        left if left > 0 => (left, why),
        _ => (0, Why::DailyCap),
    }
}

/// §R2: what solving the daily puzzle pays on a streak of `days`
/// (today's included): the puzzle, and a streak's bonus on every
/// [`STREAK_EVERY`]th day.
pub fn daily_puzzle(days: u32) -> (i32, Option<i32>) {
    let bonus = (days > 0 && days.is_multiple_of(STREAK_EVERY)).then_some(STREAK);
    (DAILY_PUZZLE, bonus)
}

/// §R2: what a tournament place pays, for a tournament of `players`.
pub fn place(place: usize, players: usize) -> Option<i32> {
    if players < PLACES_FROM_PLAYERS {
        return None;
    }
    place.checked_sub(1).and_then(|i| PLACES.get(i)).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §R3, the seed's two exceptions and their counterparts.
    #[test]
    fn r3_early_resignations_and_abandonments_pay_no_loss_coins() {
        use Departure::*;
        assert_eq!(departure(Resigned, 1, false), Some(Why::ResignedEarly));
        assert_eq!(departure(Resigned, 2, false), Some(Why::ResignedEarly));
        assert_eq!(departure(Resigned, 3, false), None);
        assert_eq!(departure(Resigned, 40, false), None);
        for round in [1, 2, 3, 30] {
            assert_eq!(departure(Abandoned, round, true), Some(Why::Abandoned));
            assert_eq!(departure(Conceded, round, true), Some(Why::Abandoned));
            assert_eq!(departure(Conceded, round, false), None);
        }
    }

    /// §R1: less against the computer than against people, and every
    /// win above its draw above its loss.
    #[test]
    fn r1_amounts_are_ordered_and_smaller_against_the_computer() {
        let people = [Source::Rated, Source::Casual, Source::Tournament];
        let computer = [Level::Easy, Level::Normal, Level::Hard].map(Source::Computer);
        for s in people.iter().chain(&computer) {
            let (w, d, l) = s.amounts();
            assert!(w > d && d >= l && l >= 0, "{s:?}");
        }
        let least_people = people.iter().map(|s| s.amounts().0).min().unwrap();
        assert!(computer.iter().all(|s| s.amounts().0 < least_people));
    }

    #[test]
    fn r6_places_make_the_finish() {
        assert_eq!(Finish::of(&[1, 2], 0), Finish::Win);
        assert_eq!(Finish::of(&[1, 2], 1), Finish::Loss);
        assert_eq!(Finish::of(&[1, 1], 1), Finish::Draw);
        // Teams: both partners of the winning team win.
        assert_eq!(Finish::of(&[1, 2, 1, 2], 2), Finish::Win);
        assert_eq!(Finish::of(&[1, 2, 1, 2], 3), Finish::Loss);
        // Free-for-all: second of four loses; a shared first is a win for both.
        assert_eq!(Finish::of(&[3, 1, 2, 4], 2), Finish::Loss);
        assert_eq!(Finish::of(&[1, 1, 3, 4], 1), Finish::Win);
    }

    #[test]
    fn r5_pairings_and_the_cap_limit_the_day() {
        assert_eq!(limited(20, Why::Win, 0, 0, 60), (20, Why::Win));
        assert_eq!(limited(20, Why::Win, 1, 20, 60), (20, Why::Win));
        assert_eq!(limited(20, Why::Win, 2, 40, 60), (0, Why::Pairing));
        assert_eq!(limited(20, Why::Win, 0, 50, 60), (10, Why::Win));
        assert_eq!(limited(20, Why::Win, 0, 60, 60), (0, Why::DailyCap));
        assert_eq!(limited(0, Why::Loss, 5, 60, 60), (0, Why::Loss));
    }

    #[test]
    fn r2_streaks_places_and_puzzles() {
        assert_eq!(daily_puzzle(1), (DAILY_PUZZLE, None));
        assert_eq!(daily_puzzle(7), (DAILY_PUZZLE, Some(STREAK)));
        assert_eq!(daily_puzzle(8), (DAILY_PUZZLE, None));
        assert_eq!(daily_puzzle(14), (DAILY_PUZZLE, Some(STREAK)));
        assert_eq!(place(1, 4), Some(60));
        assert_eq!(place(3, 8), Some(15));
        assert_eq!(place(4, 8), None);
        assert_eq!(place(1, 3), None);
    }
}
