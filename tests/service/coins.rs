//! Coins (issue #70, docs/rules/rewards.md): every finished seat paid once
//! or told why not, the seed's exceptions in every game (§R3), guests,
//! takebacks and aborted matches (§R4), the day's limits (§R5), the daily
//! puzzle (§R2), and spending that never goes below zero (§R7, §R8).

use crate::support::{plays_on, TestApp};
use chrono::Duration;
use posthorn::coins::pay::{Source, Why};
use posthorn::coins::{credit, Entry};
use posthorn::jobs::deadlines::Sweeper;
use posthorn_rules::{Random, SplitMix64};
use serde_json::{json, Value};

/// A service whose access tokens outlive the days these tests skip.
async fn start(seed: u64) -> TestApp {
    let config = posthorn::config::Config {
        access_token_seconds: 90 * 24 * 3600,
        ..Default::default()
    };
    let dice = std::sync::Arc::new(posthorn::dice::SeededDice::new(seed));
    TestApp::start_with_dice(config, dice).await
}

/// What `seat` was paid, as the finished match's result says: (coins, why).
fn paid(m: &Value, seat: usize) -> (i64, String) {
    let line = (m["result"]["coins"].as_array().into_iter().flatten())
        .find(|l| l["seat"] == seat)
        .unwrap_or_else(|| panic!("no coins for seat {seat}: {}", m["result"]));
    (
        line["coins"].as_i64().unwrap(),
        line["why"].as_str().unwrap().to_owned(),
    )
}

/// Anything that plays on, a FlipChess concession aside (it would end the
/// match before the case under test).
fn playing(action: &Value) -> bool {
    plays_on(action) && action["type"] != "concede"
}

/// A match of `game` between `names` (registered here), started; the
/// tokens in seat order and its id.
async fn table(app: &TestApp, game: &str, names: &[String]) -> (Vec<String>, String) {
    let mut tokens = std::collections::HashMap::new();
    for name in names {
        tokens.insert(name.clone(), app.register(name).await);
    }
    let (game, mode) = game.split_once('/').unwrap_or((game, ""));
    let mut body = json!({"game": game, "opponents": names[1..]});
    if !mode.is_empty() {
        body["mode"] = json!(mode);
    }
    let created = app.post("/v1/matches", &tokens[&names[0]], body).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let seated = (created.body["seats"].as_array().unwrap().iter())
        .map(|s| tokens[s["user"]["username"].as_str().unwrap()].clone())
        .collect();
    (seated, created.body["id"].as_str().unwrap().to_owned())
}

/// Play on until the match is in `round`; the match then.
async fn play_to_round(app: &TestApp, tokens: &[String], id: &str, round: u64, seed: u64) -> Value {
    let mut random = SplitMix64::new(seed);
    let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
    let mut last = app.get(&format!("/v1/matches/{id}"), tokens[0]).await.body;
    while last["round"].as_u64().unwrap() < round {
        assert_eq!(
            last["status"], "active",
            "over before round {round}: {}",
            last["result"]
        );
        last = app.play_moves(&tokens, id, &mut random, 1, playing).await;
    }
    assert_eq!(last["status"], "active", "{}", last["result"]);
    last
}

/// `seat` resigns; the match as it then stands.
async fn resign(app: &TestApp, tokens: &[String], id: &str, seat: usize) -> Value {
    let reply = app.act(&tokens[seat], id, json!({"type": "resign"})).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    app.get(&format!("/v1/matches/{id}"), &tokens[0]).await.body
}

/// The seat on move lets its deadline pass (§T3); the match then.
async fn abandon(app: &TestApp, tokens: &[String], id: &str) -> Value {
    app.clock.advance(Duration::hours(49));
    app.blocking(|s| Sweeper::of(s).sweep()).await.unwrap();
    app.get(&format!("/v1/matches/{id}"), &tokens[0]).await.body
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

/// §R3 in one two-seat game: a resignation in round 2 pays the resigner
/// nothing, one in round 3 pays loss coins, an abandonment in round 3
/// pays nothing; the winner is paid every time.
async fn seed_exceptions(game: &str, seed: u64) {
    let app = start(seed).await;
    let short = game
        .chars()
        .filter(char::is_ascii_alphabetic)
        .take(4)
        .collect::<String>();
    for (case, round) in [("early", 2), ("late", 3), ("gone", 3)] {
        let (tokens, id) = table(&app, game, &names(&format!("{short}{case}"), 2)).await;
        let before = play_to_round(&app, &tokens, &id, round, seed).await;
        let on_move = before["to_act"][0]["seat"].as_u64().unwrap() as usize;
        let m = match case {
            "gone" => abandon(&app, &tokens, &id).await,
            _ => resign(&app, &tokens, &id, on_move).await,
        };
        assert_eq!(m["status"], "finished", "{game} {case}");
        let (lost, why) = paid(&m, on_move);
        let expected = match case {
            "early" => (0, "resigned_early"),
            "late" => (lost, "loss"),
            _ => (0, "abandoned"),
        };
        assert_eq!(
            (lost, why.as_str()),
            expected,
            "{game} {case}: {}",
            m["result"]
        );
        if case == "late" {
            assert!(lost > 0, "{game}: a late resignation pays loss coins");
        }
        let (won, why) = paid(&m, 1 - on_move);
        assert!(
            won > lost && why == "win",
            "{game} {case}: the winner {won} {why}"
        );
        // The ledger holds exactly one entry a finished seat, and the
        // balance is the sum of the entries.
        for (seat, token) in tokens.iter().enumerate() {
            let ledger = app.get("/v1/me/coins", token).await.body;
            let lines: Vec<&Value> = (ledger["lines"].as_array().unwrap().iter())
                .filter(|l| l["match_id"] == json!(id))
                .collect();
            assert_eq!(lines.len(), 1, "{game} {case} seat {seat}: {ledger}");
            assert_eq!(lines[0]["amount"], paid(&m, seat).0);
            let sum: i64 = (ledger["lines"].as_array().unwrap().iter())
                .map(|l| l["amount"].as_i64().unwrap())
                .sum();
            assert_eq!(ledger["balance"], sum);
        }
    }
    app.stop().await;
}

#[actix_web::test]
async fn r3_flipchess_pays_no_loss_coins_before_round_3_or_for_abandonment() {
    seed_exceptions("flipchess", 21).await;
}

#[actix_web::test]
async fn r3_checkers_pays_no_loss_coins_before_round_3_or_for_abandonment() {
    seed_exceptions("checkers", 12).await;
}

#[actix_web::test]
async fn r3_janggi_pays_no_loss_coins_before_round_3_or_for_abandonment() {
    seed_exceptions("janggi", 13).await;
}

#[actix_web::test]
async fn r3_banqi_pays_no_loss_coins_before_round_3_or_for_abandonment() {
    seed_exceptions("banqi", 14).await;
}

/// §R3, §R6 in four-player chess, teams: the seat that resigns in round 1
/// earns nothing, its partner the team's loss, both winners the win.
#[actix_web::test]
async fn r6_four_player_teams_an_early_resignation_costs_only_the_resigner() {
    let app = start(15).await;
    let (tokens, id) = table(&app, "four_player_chess/teams", &names("team", 4)).await;
    let before = play_to_round(&app, &tokens, &id, 2, 15).await;
    let quitter = before["to_act"][0]["seat"].as_u64().unwrap() as usize;
    let m = resign(&app, &tokens, &id, quitter).await;
    assert_eq!(m["status"], "finished");
    assert_eq!(paid(&m, quitter), (0, "resigned_early".into()));
    // The teams as the result says them: the quitter's team lost.
    let winners: Vec<usize> = (m["result"]["winners"].as_array().unwrap().iter())
        .map(|w| w.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(winners.len(), 2, "{}", m["result"]);
    let partner = (0..4)
        .find(|s| *s != quitter && !winners.contains(s))
        .unwrap();
    let (lost, why) = paid(&m, partner);
    assert!(lost > 0 && why == "loss", "the partner: {lost} {why}");
    for winner in winners {
        assert_eq!(paid(&m, winner).1, "win");
    }
    app.stop().await;
}

/// §R3, §R6 in four-player chess, free-for-all of three: an early
/// resignation eliminates its seat with nothing (written as it leaves);
/// a later one pays the loss; the last one standing wins.
#[actix_web::test]
async fn r6_four_player_ffa_eliminated_seats_are_paid_as_they_left() {
    let app = start(16).await;
    let (tokens, id) = table(&app, "four_player_chess/ffa", &names("ffa", 3)).await;
    let first = play_to_round(&app, &tokens, &id, 2, 16).await;
    let early = first["to_act"][0]["seat"].as_u64().unwrap() as usize;
    let m = resign(&app, &tokens, &id, early).await;
    assert_eq!(m["status"], "active", "two players left play on");
    let left: Vec<String> = (0..3)
        .filter(|s| *s != early)
        .map(|s| tokens[s].clone())
        .collect();
    let before = play_to_round(&app, &left, &id, 3, 16).await;
    let late = before["to_act"][0]["seat"].as_u64().unwrap() as usize;
    let m = resign(&app, &tokens, &id, late).await;
    assert_eq!(m["status"], "finished");
    assert_eq!(paid(&m, early), (0, "resigned_early".into()));
    assert_eq!(paid(&m, late).1, "loss");
    assert!(paid(&m, late).0 > 0);
    let winner = 3 - early - late;
    assert_eq!(paid(&m, winner).1, "win");
    app.stop().await;
}

/// §R4: a guest earns nothing (recorded), the registered player is paid;
/// a match where a seat never moved pays nobody.
#[actix_web::test]
async fn r4_guests_earn_nothing_and_an_aborted_match_pays_nobody() {
    let app = start(17).await;
    let mina = app.register("mina").await;
    let guest = app.guest("visitor").await;
    let invite = app
        .post(
            "/v1/matches",
            &mina,
            json!({"game": "checkers", "open_seats": 1}),
        )
        .await;
    assert_eq!(invite.status, 201, "{}", invite.body);
    let id = invite.body["id"].as_str().unwrap().to_owned();
    let code = invite.body["invite"]["code"].as_str().unwrap().to_owned();
    let joined = app
        .post(&format!("/v1/invites/{code}/accept"), &guest, json!(null))
        .await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    let m = app.get(&format!("/v1/matches/{id}"), &mina).await.body;
    let tokens: Vec<String> = (m["seats"].as_array().unwrap().iter())
        .map(|s| {
            if s["user"]["guest"] == true {
                guest.clone()
            } else {
                mina.clone()
            }
        })
        .collect();
    play_to_round(&app, &tokens, &id, 3, 17).await;
    let guest_seat = tokens.iter().position(|t| *t == guest).unwrap();
    let m = resign(&app, &tokens, &id, guest_seat).await;
    assert_eq!(paid(&m, guest_seat), (0, "guest".into()));
    assert_eq!(paid(&m, 1 - guest_seat).1, "win");
    // Aborted: resigned before anyone moved. The resigner's zero was
    // written as it left (§R3); the other seat's says why.
    let (tokens, id) = table(&app, "checkers", &names("abort", 2)).await;
    let m = resign(&app, &tokens, &id, 1).await;
    assert_eq!(paid(&m, 0), (0, "aborted".into()));
    assert_eq!(paid(&m, 1), (0, "resigned_early".into()));
    // FlipChess too, though its rating counts the leaver's loss: the
    // winner of no game is paid nothing (§R4).
    let (tokens, id) = table(&app, "flipchess", &names("deal", 2)).await;
    let m = resign(&app, &tokens, &id, 1).await;
    assert_eq!(paid(&m, 0), (0, "aborted".into()));
    assert_eq!(paid(&m, 1), (0, "resigned_early".into()));
    app.stop().await;
}

/// §R4: against the computer a loss in round 3 pays less than between
/// people, and a seat that took a move back earns nothing.
#[actix_web::test]
async fn r4_a_takeback_against_the_computer_pays_nothing() {
    let app = start(18).await;
    let mina = app.register("mina").await;
    let mut outcomes = Vec::new();
    for take_back in [false, true] {
        let body = json!({"game": "checkers", "computers": [{"level": "hard"}], "side": 0});
        let created = app.post("/v1/matches", &mina, body).await;
        assert_eq!(created.status, 201, "{}", created.body);
        let id = created.body["id"].as_str().unwrap().to_owned();
        let path = format!("/v1/matches/{id}");
        let mut m = created.body.clone();
        let mut random = SplitMix64::new(18);
        let mut taken = false;
        while m["round"].as_u64() < Some(3) {
            let mine = app.get(&format!("{path}/legal-actions"), &mina).await.body;
            let moves: Vec<&Value> = mine["actions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|a| playing(a))
                .collect();
            let action = moves[random.below(moves.len() as u64) as usize].clone();
            let moved = app
                .post(
                    &format!("{path}/actions"),
                    &mina,
                    json!({"seq": mine["seq"], "action": action}),
                )
                .await;
            assert_eq!(moved.status, 200, "{}", moved.body);
            app.blocking(|s| {
                let mover = posthorn::computer::moves::Mover::new(s.dice.clone());
                posthorn::jobs::one_off::run_due(&s.pool, &[&mover], s.clock.now()).unwrap()
            })
            .await;
            m = app.get(&path, &mina).await.body;
            assert_eq!(m["status"], "active");
            if take_back && m["round"] == 2 && !taken {
                // The last move and the reply taken back, then played again.
                let back = app
                    .post(&format!("{path}/takeback"), &mina, json!({"seq": m["seq"]}))
                    .await;
                assert_eq!(back.status, 200, "{}", back.body);
                m = back.body;
                taken = true;
            }
        }
        assert_eq!(taken, take_back);
        let seat = m["my_seats"][0].as_u64().unwrap() as usize;
        let tokens = vec![mina.clone(), mina.clone()];
        let m = resign(&app, &tokens, &id, seat).await;
        outcomes.push(paid(&m, seat));
    }
    let (lost, why) = &outcomes[0];
    assert_eq!(why, "loss");
    assert!(
        *lost > 0 && *lost < Source::Casual.amounts().2 as i64,
        "{lost}"
    );
    assert_eq!(outcomes[1], (0, "took_back".into()));
    app.stop().await;
}

/// §R5: the third paid match with the same opponent within a day pays
/// nothing; the next day pays again.
#[actix_web::test]
async fn r5_the_third_match_of_a_pair_in_a_day_pays_nothing() {
    let app = start(19).await;
    let names = names("pair", 2);
    let mut tokens = Vec::new();
    for name in &names {
        tokens.push(app.register(name).await);
    }
    let mut paid_to_winner = Vec::new();
    for day_later in [false, false, false, true] {
        if day_later {
            app.clock.advance(Duration::hours(25));
        }
        let created = app
            .post(
                "/v1/matches",
                &tokens[0],
                json!({"game": "checkers", "opponents": [names[1]]}),
            )
            .await;
        let id = created.body["id"].as_str().unwrap().to_owned();
        let seated: Vec<String> = (created.body["seats"].as_array().unwrap().iter())
            .map(|s| {
                tokens[names
                    .iter()
                    .position(|n| s["user"]["username"] == json!(n))
                    .unwrap()]
                .clone()
            })
            .collect();
        play_to_round(&app, &seated, &id, 3, 19).await;
        let m = resign(&app, &seated, &id, 1).await;
        paid_to_winner.push(paid(&m, 0));
    }
    assert_eq!(paid_to_winner[0].1, "win");
    assert_eq!(paid_to_winner[1].1, "win");
    assert_eq!(paid_to_winner[2], (0, "pairing".into()));
    assert_eq!(paid_to_winner[3].1, "win", "a day later");
    app.stop().await;
}

/// Give `name` coins as an award would (a tournament's place).
async fn grant(app: &TestApp, token: &str, amount: i32) {
    let user: uuid::Uuid = app.get("/v1/me", token).await.body["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    app.blocking(move |s| {
        let conn = &mut s.pool.get().unwrap();
        let entry = Entry {
            user,
            cause: format!("tournament:{}", uuid::Uuid::new_v4()),
            amount,
            source: Source::Place,
            why: Why::Place,
            match_id: None,
            at: s.clock.now(),
        };
        assert!(credit(conn, &entry).unwrap());
        assert!(!credit(conn, &entry).unwrap(), "a cause pays once");
    })
    .await;
}

/// §R8: twenty purchases at once on a balance for exactly three: three
/// succeed, the balance ends at 0, never below; a retry with its key
/// pays once; a key reused for another look is refused.
#[actix_web::test]
async fn r8_twenty_purchases_at_once_on_a_balance_for_three() {
    let app = start(20).await;
    let mina = app.register("mina").await;
    let looks = app.get("/v1/me/looks", &mina).await.body;
    let items: Vec<(String, i64)> = (looks["items"].as_array().unwrap().iter())
        .filter(|l| l["price"].as_i64() > Some(0))
        .map(|l| {
            (
                l["id"].as_str().unwrap().to_owned(),
                l["price"].as_i64().unwrap(),
            )
        })
        .take(20)
        .collect();
    assert_eq!(items.len(), 20);
    let price = items[0].1;
    assert!(items.iter().all(|(_, p)| *p == price));
    grant(&app, &mina, 3 * price as i32).await;
    let buys = items.iter().enumerate().map(|(n, (item, _))| {
        let key = format!("buy-{n}");
        let mina = mina.clone();
        let app = &app;
        async move {
            app.request(
                "POST",
                "/v1/me/looks/purchases",
                Some(&mina),
                Some(json!({"item": item})),
                &[("Idempotency-Key", &key)],
            )
            .await
        }
    });
    let replies = futures_util::future::join_all(buys).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        3,
        "{statuses:?}"
    );
    assert!(replies
        .iter()
        .filter(|r| r.status != 201)
        .all(|r| r.code() == "not_enough_coins"));
    let ledger = app.get("/v1/me/coins", &mina).await.body;
    assert_eq!(ledger["balance"], 0);
    // The same purchase again with its key: the first answer, paid once.
    let (n, first) = replies
        .iter()
        .enumerate()
        .find(|(_, r)| r.status == 201)
        .unwrap();
    let again = app
        .request(
            "POST",
            "/v1/me/looks/purchases",
            Some(&mina),
            Some(json!({"item": items[n].0})),
            &[("Idempotency-Key", &format!("buy-{n}"))],
        )
        .await;
    assert_eq!(again.status, 201, "{}", again.body);
    assert_eq!(again.body["item"], first.body["item"]);
    let lines = app.get("/v1/me/coins", &mina).await.body["lines"].clone();
    let bought = (lines.as_array().unwrap().iter())
        .filter(|l| l["why"] == "bought")
        .count();
    assert_eq!(bought, 3, "the retry paid nothing more");
    let other = items.iter().find(|(i, _)| *i != items[n].0).unwrap();
    let reused = app
        .request(
            "POST",
            "/v1/me/looks/purchases",
            Some(&mina),
            Some(json!({"item": other.0})),
            &[("Idempotency-Key", &format!("buy-{n}"))],
        )
        .await;
    assert_eq!(
        (reused.status.as_u16(), reused.code()),
        (422, "idempotency_key_reused")
    );
    app.stop().await;
}

/// §R7: a look is worn once owned: a theme for one's own boards, an
/// emblem the opponent sees beside one's name; what is not owned is
/// refused and the free high-contrast theme needs no coins.
#[actix_web::test]
async fn r7_an_emblem_bought_and_worn_shows_to_the_opponent() {
    let app = start(21).await;
    let (tokens, id) = table(&app, "janggi", &names("look", 2)).await;
    let refused = app
        .request(
            "PUT",
            "/v1/me/looks",
            Some(&tokens[0]),
            Some(json!({"emblem": "star", "themes": {}})),
            &[],
        )
        .await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    let free = app
        .request(
            "PUT",
            "/v1/me/looks",
            Some(&tokens[0]),
            Some(json!({"emblem": null, "themes": {"janggi": "contrast"}})),
            &[],
        )
        .await;
    assert_eq!(free.status, 200, "{}", free.body);
    let poor = app
        .post(
            "/v1/me/looks/purchases",
            &tokens[0],
            json!({"item": "emblem.star"}),
        )
        .await;
    assert_eq!(
        (poor.status.as_u16(), poor.code()),
        (409, "not_enough_coins")
    );
    grant(&app, &tokens[0], 200).await;
    let bought = app
        .post(
            "/v1/me/looks/purchases",
            &tokens[0],
            json!({"item": "emblem.star"}),
        )
        .await;
    assert_eq!(bought.status, 201, "{}", bought.body);
    let again = app
        .post(
            "/v1/me/looks/purchases",
            &tokens[0],
            json!({"item": "emblem.star"}),
        )
        .await;
    assert_eq!(again.status, 409, "bought once");
    let worn = app
        .request(
            "PUT",
            "/v1/me/looks",
            Some(&tokens[0]),
            Some(json!({"emblem": "star", "themes": {"janggi": "contrast"}})),
            &[],
        )
        .await;
    assert_eq!(worn.status, 200, "{}", worn.body);
    let theirs = app.get(&format!("/v1/matches/{id}"), &tokens[1]).await.body;
    assert_eq!(
        theirs["seats"][0]["user"]["emblem"], "star",
        "{}",
        theirs["seats"]
    );
    assert!(theirs["seats"][1]["user"].get("emblem").is_none());
    let mine = app.get("/v1/me/looks", &tokens[0]).await.body;
    assert_eq!(mine["worn"]["themes"]["janggi"], "contrast");
    assert_eq!(mine["balance"], 0);
    // The export holds the ledger and the looks.
    let export = app.get("/v1/me/export", &tokens[0]).await.body;
    assert_eq!(export["coins"]["lines"].as_array().unwrap().len(), 2);
    assert_eq!(export["looks"]["emblem"], "star");
    app.stop().await;
}

/// §R2: the daily puzzle solved pays once a day, and a week's streak
/// pays its bonus on the seventh day.
#[actix_web::test]
async fn r2_the_daily_puzzle_pays_each_day_and_a_weeks_streak_more() {
    let app = start(22).await;
    crate::puzzles::seed(&app, 8).await;
    let ann = app.register("ann").await;
    for day in 1..=7 {
        crate::puzzles::solve_daily(&app, ann.clone()).await;
        let ledger = app.get("/v1/me/coins", &ann).await.body;
        let expected = 10 * day + if day == 7 { 30 } else { 0 };
        assert_eq!(ledger["balance"], expected, "day {day}: {ledger}");
        app.clock.advance(Duration::days(1));
    }
    let ledger = app.get("/v1/me/coins", &ann).await.body;
    let whys: Vec<&str> = (ledger["lines"].as_array().unwrap().iter())
        .map(|l| l["why"].as_str().unwrap())
        .collect();
    assert_eq!(whys.iter().filter(|w| **w == "solved").count(), 7);
    assert_eq!(whys.iter().filter(|w| **w == "streak").count(), 1);
    assert_eq!(whys[0], "streak", "newest first");
    app.stop().await;
}

/// One list each for the looks and the reasons: every emblem and theme of
/// `coins::looks` is drawn by the stylesheet (and an emblem's glyph is in
/// core.js), every look and every reason is worded in English and Korean.
#[test]
fn every_look_and_reason_is_drawn_and_worded_in_both_languages() {
    use posthorn::coins::looks::{EMBLEMS, FREE_THEME, THEMES};
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/web");
    let read = |f: &str| std::fs::read_to_string(web.join(f)).unwrap();
    let (css, core, words) = (read("app.css"), read("core.js"), read("words.js"));
    let twice = |key: String| {
        assert_eq!(
            words.matches(&format!("    {key}: ")).count(),
            2,
            "{key} in en and ko"
        )
    };
    for emblem in EMBLEMS {
        assert!(
            css.contains(&format!(".emblem-{emblem}::before")),
            "{emblem} drawn"
        );
        assert!(core.contains(&format!(" {emblem}: \"")), "{emblem}'s glyph");
        twice(format!("emblem_{emblem}"));
    }
    for theme in THEMES.iter().chain([&FREE_THEME]) {
        assert!(css.contains(&format!(".theme-{theme} {{")), "{theme} drawn");
        twice(format!("theme_{theme}"));
    }
    for why in Why::ALL {
        twice(format!("coins_why_{}", why.as_str()));
    }
}

/// §R5: matches between people pay at most the cap in a day: three rated
/// wins over three opponents pay 20 each, the fourth nothing.
#[actix_web::test]
async fn r5_the_days_coins_from_people_stop_at_the_cap() {
    let app = start(23).await;
    let mina = app.register("capmina").await;
    let mut paid_to_mina = Vec::new();
    for n in 0..4 {
        let name = format!("capfoe{n}");
        let foe = app.register(&name).await;
        let body = json!({"game": "checkers", "opponents": [name], "rated": true});
        let created = app.post("/v1/matches", &mina, body).await;
        assert_eq!(created.status, 201, "{}", created.body);
        let id = created.body["id"].as_str().unwrap().to_owned();
        let seated: Vec<String> = (created.body["seats"].as_array().unwrap().iter())
            .map(|s| {
                if s["user"]["username"] == "capmina" {
                    mina.clone()
                } else {
                    foe.clone()
                }
            })
            .collect();
        play_to_round(&app, &seated, &id, 3, 23).await;
        let foe_seat = seated.iter().position(|t| *t == foe).unwrap();
        let m = resign(&app, &seated, &id, foe_seat).await;
        paid_to_mina.push(paid(&m, 1 - foe_seat));
    }
    let win = Source::Rated.amounts().0 as i64;
    let expected = [(win, "win"), (win, "win"), (win, "win"), (0, "daily_cap")];
    let expected: Vec<(i64, String)> = expected.iter().map(|(c, w)| (*c, w.to_string())).collect();
    assert_eq!(paid_to_mina, expected);
    app.stop().await;
}

/// §R3, §R6 in four-player chess, teams: a seat lost by abandonment in
/// round 3 earns nothing, its partner the team's loss.
#[actix_web::test]
async fn r6_four_player_teams_an_abandonment_costs_only_the_absent_seat() {
    let app = start(24).await;
    let (tokens, id) = table(&app, "four_player_chess/teams", &names("gone", 4)).await;
    let before = play_to_round(&app, &tokens, &id, 3, 24).await;
    let absent = before["to_act"][0]["seat"].as_u64().unwrap() as usize;
    let m = abandon(&app, &tokens, &id).await;
    assert_eq!(m["status"], "finished", "{}", m["result"]);
    assert_eq!(paid(&m, absent), (0, "abandoned".into()));
    // The teams as the result says them: the absent seat's team lost.
    let winners: Vec<usize> = (m["result"]["winners"].as_array().unwrap().iter())
        .map(|w| w.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(winners.len(), 2, "{}", m["result"]);
    let partner = (0..4)
        .find(|s| *s != absent && !winners.contains(s))
        .unwrap();
    let (lost, why) = paid(&m, partner);
    assert!(lost > 0 && why == "loss", "the partner: {lost} {why}");
    for winner in winners {
        assert_eq!(paid(&m, winner).1, "win");
    }
    app.stop().await;
}
