//! The golden table of every notice (issue #66 item 2): every kind, in
//! Korean for a reader in Seoul and in English for one in Vancouver (the
//! deadlines cross the change to daylight saving time there), on every
//! channel (mail, Web Push, APNs, FCM), rendered into one file per
//! language and channel under `docs/notices/`, checked in: a change of
//! wording is a diff a reviewer reads. Every game and variant name and
//! every result reason follows, in both languages.
//!
//! `cargo test -p posthorn --lib golden` compares; with
//! `POSTHORN_BLESS=1` it writes the files anew (then read the diff).
//!
//! Each fixture is a payload as the service writes it (`crate::notices`,
//! the digest's and the morning's own): a turn after a Janggi chariot's
//! move, a Banqi piece turned up, a FlipChess flip decision, a
//! four-player elimination, a rated resignation, a tournament round…

use super::deliver::{words, TextBody};
use super::native::{apns, fcm, Platform, Push};
use super::reading::Reading;
use super::words::Locale;
use super::Kind;
use askama::Template;
use chrono::{DateTime, TimeZone, Utc};
use serde_json::{json, Value};
use std::collections::HashMap;
use uuid::Uuid;

const READER: Uuid = Uuid::from_u128(0xA);
const OPPONENT: Uuid = Uuid::from_u128(0xB);
const THIRD: Uuid = Uuid::from_u128(0xC);
const GONE: Uuid = Uuid::from_u128(0xD);
const MATCH: Uuid = Uuid::from_u128(0x1234);
const BASE: &str = "https://posthorn.example";

/// Saturday 7 March 2026, noon in Vancouver (PST), Sunday 5 AM in Seoul;
/// the day's deadlines fall after Vancouver's clocks go forward.
fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 7, 20, 0, 0).unwrap()
}

fn names(locale: Locale) -> HashMap<Uuid, Option<String>> {
    let korean = locale == Locale::Korean;
    let name = |ko: &str, en: &str| Some(if korean { ko } else { en }.to_owned());
    HashMap::from([
        (READER, name("민준", "Minjun")),
        (OPPONENT, name("지우", "Jiwoo")),
        (THIRD, name("서연", "Seoyeon")),
        (GONE, None),
    ])
}

/// Every notice a reader may get: (what it shows, kind, payload).
fn fixtures() -> Vec<(&'static str, Kind, Value)> {
    let deadline = "2026-03-08T20:00:00Z";
    let turn =
        |game: &str, last: Value| json!({"game": game, "deadline_at": deadline, "last": last});
    let finished = |game: &str, result: Value, players: Value| json!({"game": game, "result": result, "players": players});
    vec![
        (
            "a Janggi chariot moved",
            Kind::YourTurn,
            turn(
                "janggi",
                json!({"by": OPPONENT, "piece": "piece_janggi_chariot", "from": "e2", "to": "e7"}),
            ),
        ),
        (
            "a checkers jump, Russian rules",
            Kind::YourTurn,
            json!({"game": "checkers",
            "variant": "russian", "deadline_at": deadline,
            "last": {"by": OPPONENT, "piece": "piece_checkers_man", "from": "c3", "to": "e5"}}),
        ),
        (
            "a Banqi piece turned up",
            Kind::YourTurn,
            turn(
                "banqi",
                json!({"by": OPPONENT, "piece": "piece_banqi_cannon", "at": "b3"}),
            ),
        ),
        (
            "a FlipChess knight, with messages waiting",
            Kind::YourTurn,
            json!({"game": "flipchess",
            "deadline_at": deadline, "unread_messages": 2,
            "last": {"by": OPPONENT, "piece": "piece_chess_n", "from": "g1", "to": "f3"}}),
        ),
        (
            "a four-player chess move by a deleted player",
            Kind::YourTurn,
            turn(
                "four_player_chess",
                json!({"by": GONE, "piece": "piece_chess_q", "from": "d1", "to": "h5"}),
            ),
        ),
        (
            "a turn with no move before it",
            Kind::YourTurn,
            json!({"game": "checkers", "deadline_at": deadline}),
        ),
        (
            "half the time gone",
            Kind::TimeoutNotice,
            json!({"game": "janggi", "deadline_at": "2026-03-08T08:00:00Z"}),
        ),
        (
            "a rated resignation",
            Kind::MatchFinished,
            finished(
                "janggi",
                json!({"winners": [0], "reason": "resigned", "ratings": [
                {"seat": 0, "before": 1500, "after": 1512, "change": 12},
                {"seat": 1, "before": 1520, "after": 1508, "change": -12}]}),
                json!([READER, OPPONENT]),
            ),
        ),
        (
            "lost by abandonment",
            Kind::MatchFinished,
            finished(
                "checkers",
                json!({"winners": [1], "reason": "abandoned"}),
                json!([READER, OPPONENT]),
            ),
        ),
        (
            "checkmate",
            Kind::MatchFinished,
            finished(
                "flipchess",
                json!({"winners": [1], "reason": "king_captured"}),
                json!([READER, OPPONENT]),
            ),
        ),
        (
            "a draw by repetition",
            Kind::MatchFinished,
            finished(
                "janggi",
                json!({"winners": [], "reason": "threefold_repetition"}),
                json!([READER, OPPONENT]),
            ),
        ),
        (
            "a four-player team win on points",
            Kind::MatchFinished,
            finished(
                "four_player_chess",
                json!({"winners": [0, 2], "reason": "round_limit", "scores": [40, 12, 33, 8]}),
                json!([READER, OPPONENT, THIRD, GONE]),
            ),
        ),
        ("a challenge", Kind::Invitation, json!({"game": "banqi"})),
        (
            "a challenge accepted",
            Kind::InvitationAccepted,
            json!({"game": "janggi"}),
        ),
        (
            "a draw offered",
            Kind::DrawOffered,
            json!({"game": "checkers", "deadline_at": deadline}),
        ),
        (
            "FlipChess: the king taken",
            Kind::FlipDecision,
            json!({"game": "flipchess", "deadline_at": deadline}),
        ),
        (
            "four-player chess: Red checkmated",
            Kind::PlayerEliminated,
            json!({"game": "four_player_chess", "army": "red", "reason": "checkmate"}),
        ),
        (
            "four-player chess: Gray abandoned",
            Kind::PlayerEliminated,
            json!({"game": "four_player_chess", "army": "gray", "reason": "abandoned"}),
        ),
        (
            "withdrawn",
            Kind::MatchCancelled,
            json!({"game": "janggi", "reason": "withdrawn"}),
        ),
        (
            "declined",
            Kind::MatchCancelled,
            json!({"game": "janggi", "reason": "declined"}),
        ),
        (
            "expired",
            Kind::MatchCancelled,
            json!({"game": "janggi", "reason": "expired"}),
        ),
        (
            "a takeback asked",
            Kind::TakebackRequested,
            json!({"game": "checkers"}),
        ),
        (
            "a takeback granted",
            Kind::TakebackAnswered,
            json!({"game": "checkers", "accepted": true}),
        ),
        (
            "a takeback declined",
            Kind::TakebackAnswered,
            json!({"game": "checkers", "accepted": false}),
        ),
        (
            "away until a date",
            Kind::OpponentOnVacation,
            json!({"game": "janggi", "until": "2026-03-14T15:00:00Z"}),
        ),
        (
            "away",
            Kind::OpponentOnVacation,
            json!({"game": "janggi", "until": null}),
        ),
        ("back", Kind::OpponentBack, json!({"game": "janggi"})),
        (
            "a stored reply played",
            Kind::ConditionalPlayed,
            json!({"game": "checkers"}),
        ),
        (
            "invited to a tournament",
            Kind::TournamentInvited,
            json!({"game": "checkers",
            "tournament": "봄 리그", "variant": "brazilian", "turn_hours": 48, "rated": true}),
        ),
        (
            "a tournament started",
            Kind::TournamentStarted,
            json!({"game": "janggi", "tournament": "봄 리그"}),
        ),
        (
            "a knockout's next round",
            Kind::TournamentRound,
            json!({"game": "janggi", "tournament": "봄 리그"}),
        ),
        (
            "a tournament over",
            Kind::TournamentFinished,
            json!({"game": "janggi", "tournament": "봄 리그",
            "standings": "1. 지우 3 · 2. 민준 2 · 3. 서연 1"}),
        ),
        (
            "new messages",
            Kind::Message,
            json!({"game": "banqi", "unread": 3}),
        ),
        (
            "the morning digest",
            Kind::Digest,
            json!({"matches": [
            {"game": "janggi", "deadline_at": "2026-03-08T08:00:00Z"},
            {"game": "checkers", "variant": "pool", "deadline_at": "2026-03-09T20:00:00Z"}],
            "messages": [{"game": "banqi", "unread": 1}]}),
        ),
        ("the morning's puzzles", Kind::DailyPuzzle, json!({})),
    ]
}

/// One reader: their language and where they live.
fn readers() -> [(Locale, chrono_tz::Tz); 2] {
    [
        (Locale::Korean, chrono_tz::Asia::Seoul),
        (Locale::English, chrono_tz::America::Vancouver),
    ]
}

const CHANNELS: [&str; 4] = ["mail", "webpush", "apns", "fcm"];

/// The file of one language and channel, as it is checked in.
fn render(locale: Locale, zone: chrono_tz::Tz, channel: &str) -> String {
    let names = names(locale);
    let reading = Reading {
        locale,
        zone,
        now: now(),
        user: READER,
        names: &names,
    };
    let mut out = format!(
        "# {} notices, {channel}, for a reader in {} at {} (generated by src/notify/golden.rs)\n",
        locale.tag(),
        zone.name(),
        super::when::moment(locale, zone, now()),
    );
    for (what, kind, payload) in fixtures() {
        let words = words(kind, &reading, &payload);
        let link = kind.link(BASE, MATCH);
        out += &format!("\n## {} — {what}\n", kind.name());
        out += &match channel {
            "mail" => mail(locale, &words, &link),
            "webpush" => fields(
                &super::worker::web_push_payload(kind, MATCH, &words, &link),
                &["title", "body", "url", "tag"],
            ),
            _ => native(channel, kind, &words, &link),
        };
    }
    out += "\n## names\n";
    for key in locale.keys() {
        if ["game_", "variant_", "mode_", "reason_", "side_", "piece_"]
            .iter()
            .any(|p| key.starts_with(p))
        {
            out += &format!("{key}: {}\n", locale.word(key));
        }
    }
    out
}

fn mail(locale: Locale, words: &super::deliver::Words, link: &str) -> String {
    let greeting = locale.say(
        "mail.greeting",
        &[("name", &names(locale)[&READER].clone().unwrap())],
    );
    let body = TextBody {
        greeting: &greeting,
        headline: &words.headline,
        detail: &words.detail,
        link_label: &words.link,
        link,
        footer: locale.word("mail.footer"),
        unsubscribe_label: locale.word("mail.unsubscribe"),
        unsubscribe: &format!("{BASE}/v1/unsubscribe?token=…"),
    }
    .render()
    .unwrap();
    let body: String = body.lines().map(|l| format!("| {l}\n")).collect();
    format!("subject: {}\n{body}", words.subject)
}

fn native(channel: &str, kind: Kind, words: &super::deliver::Words, link: &str) -> String {
    let push = Push {
        platform: if channel == "apns" {
            Platform::Ios
        } else {
            Platform::Android
        },
        token: "device".into(),
        kind,
        about: MATCH,
        collapse: super::collapse_id(MATCH, kind),
        notification: Uuid::nil(),
        title: words.subject.clone(),
        body: format!("{}\n{}", words.headline, words.detail),
        url: link.to_owned(),
        badge: 1,
        urgent: kind.urgent(),
        expires: now(),
    };
    if channel == "apns" {
        let payload = apns::payload(&push);
        let alert = fields(&payload["aps"]["alert"], &["title", "body"]);
        format!(
            "{alert}apns-collapse-id: {}\napns-priority: {}\n",
            push.collapse,
            if push.urgent { 10 } else { 5 }
        )
    } else {
        let message = fcm::message(&push);
        let m = &message["message"];
        let notification = fields(&m["notification"], &["title", "body"]);
        format!(
            "{notification}collapse_key: {}\nchannel_id: {}\npriority: {}\n",
            m["android"]["collapse_key"].as_str().unwrap_or_default(),
            m["android"]["notification"]["channel_id"]
                .as_str()
                .unwrap_or_default(),
            m["android"]["priority"].as_str().unwrap_or_default(),
        )
    }
}

/// `name: value` lines of a JSON object's text fields, a line break
/// shown as `⏎`.
fn fields(object: &Value, names: &[&str]) -> String {
    names
        .iter()
        .map(|n| {
            format!(
                "{n}: {}\n",
                object[n].as_str().unwrap_or_default().replace('\n', " ⏎ ")
            )
        })
        .collect()
}

fn path(locale: Locale, channel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/notices")
        .join(format!("{}.{channel}.txt", locale.tag()))
}

#[test]
fn the_golden_notices_are_what_the_service_says() {
    let bless = std::env::var_os("POSTHORN_BLESS").is_some();
    let mut stale = Vec::new();
    for (locale, zone) in readers() {
        for channel in CHANNELS {
            let made = render(locale, zone, channel);
            let path = path(locale, channel);
            if bless {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &made).unwrap();
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(made.as_str()) {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "the notices changed: run POSTHORN_BLESS=1 cargo test -p posthorn --lib golden and read the diff of {stale:?}"
    );
}

/// Every kind is in the table, on every channel.
#[test]
fn the_golden_table_holds_every_kind() {
    let kinds: Vec<Kind> = fixtures().iter().map(|f| f.1).collect();
    for kind in Kind::ALL {
        assert!(kinds.contains(&kind), "{kind:?} has no fixture");
    }
}

/// The Latin words of a Korean notice's line that are not allowed there:
/// all but names, square and move notation (`e2`, `b10`), and links. The
/// field names and technical fields are set aside.
fn stray_latin(line: &str) -> Vec<String> {
    const TECHNICAL: [&str; 7] = [
        "url",
        "tag",
        "apns-collapse-id",
        "collapse_key",
        "channel_id",
        "priority",
        "apns-priority",
    ];
    let value = match line.strip_prefix("| ") {
        Some(body) => body,
        None if line.starts_with('#') => return Vec::new(),
        None => match line.split_once(": ") {
            Some((field, _)) if TECHNICAL.contains(&field) => return Vec::new(),
            Some((_, value)) => value,
            None => line,
        },
    };
    let square = |word: &str| {
        let digits = word.trim_start_matches(|c: char| c.is_ascii_lowercase());
        let letters = word.len() - digits.len();
        (1..=2).contains(&letters)
            && !digits.is_empty()
            && digits.chars().all(|c| c.is_ascii_digit())
    };
    (value.split_whitespace())
        .filter(|w| !w.contains("://"))
        .flat_map(|w| w.split(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|w| w.chars().any(|c| c.is_ascii_alphabetic()))
        .filter(|w| !square(w) && !["Posthorn", "Google", "Apple"].contains(w))
        .map(str::to_owned)
        .collect()
}

#[test]
fn korean_notices_use_no_latin_words_but_names_squares_and_links() {
    let (locale, zone) = readers()[0];
    let mut latin = Vec::new();
    for channel in CHANNELS {
        for line in render(locale, zone, channel).lines() {
            latin.extend(
                stray_latin(line)
                    .into_iter()
                    .map(|w| format!("{channel}: {w} in {line}")),
            );
        }
    }
    assert!(latin.is_empty(), "{latin:#?}");
}

/// The check bites: an English word or a UTC in Korean is found; squares,
/// links and the service's name are not.
#[test]
fn the_korean_check_finds_an_english_word() {
    assert_eq!(stray_latin("body: 지우 resigned — e2→e7"), ["resigned"]);
    assert_eq!(stray_latin("| 12월 9일 16:00 UTC까지"), ["UTC"]);
    assert!(stray_latin("| 대국 열기: https://posthorn.example/matches/1 b10 Posthorn").is_empty());
    assert!(stray_latin("tag: 0000.turn").is_empty());
}
