//! Issue #32 over HTTP: computer opponents at every level in every game,
//! a person with three computers in four-player chess, takebacks, matches
//! that are never rated and never timed, and a computer that moves
//! exactly once when an instance dies mid-job.

use crate::support::TestApp;
use chrono::Duration;
use posthorn::clock::Clock;
use posthorn::computer::moves::Mover;
use posthorn::job_queue::{self, Work};
use posthorn::jobs::one_off::{run_due, Ran};
use serde_json::{json, Value};

/// Every game (with its mode where it has modes) a person plays the
/// computer in, one line each.
const GAMES: [&str; 5] = [
    "checkers",
    "janggi",
    "banqi",
    "flipchess",
    "four_player_chess/teams",
];

/// Run the due computer moves as any instance's job runner does.
async fn computers_move(app: &TestApp) -> Ran {
    computers_move_at(app, app.clock.now()).await
}

/// [`computers_move`] at `now` (an instance of another clock).
async fn computers_move_at(app: &TestApp, now: chrono::DateTime<chrono::Utc>) -> Ran {
    app.blocking(move |s| {
        let mover = Mover::new(s.dice.clone());
        run_due(&s.pool, &[&mover], now).unwrap()
    })
    .await
}

/// The match as `token` sees it.
async fn view(app: &TestApp, token: &str, id: &str) -> Value {
    app.get(&format!("/v1/matches/{id}"), token).await.body
}

/// Whether the person (seats `mine`) owes a duty now.
fn my_turn(m: &Value) -> bool {
    let mine = m["my_seats"].as_array().cloned().unwrap_or_default();
    (m["to_act"].as_array().into_iter().flatten()).any(|d| mine.contains(&d["seat"]))
}

/// Play `game` against computers at `level` (the person in seat 0, the
/// computers everywhere else): the person plays legal actions (the
/// `n`-th in turn, varied) and resigns after `moves` of them if the match
/// is not over; every computer reply must come from the job runner and
/// be legal (the service checks it). The finished match.
async fn play_out(app: &TestApp, token: &str, game: &str, level: &str, moves: usize) -> Value {
    let seats = if game.starts_with("four_player_chess") {
        3
    } else {
        1
    };
    let computers: Vec<Value> = (0..seats).map(|_| json!({"level": level})).collect();
    let created = app
        .post(
            "/v1/matches",
            token,
            json!({"game": game, "computers": computers, "seat": 0}),
        )
        .await;
    assert_eq!(created.status, 201, "{game}: {}", created.body);
    let id = created.body["id"].as_str().unwrap().to_owned();
    assert_eq!(
        created.body["status"], "active",
        "computers sit down at once"
    );
    assert_eq!(created.body["rated"], false);
    let mut played = 0;
    for step in 0..2000 {
        let m = view(app, token, &id).await;
        if m["status"] == "finished" {
            return m;
        }
        if !my_turn(&m) {
            let ran = computers_move(app).await;
            assert!(
                ran.done >= 1,
                "{game} {level}: a computer owes a move and makes it"
            );
            continue;
        }
        if played == moves {
            let resigned = app.act(token, &id, json!({"type": "resign"})).await;
            assert_eq!(resigned.status, 200, "{}", resigned.body);
            continue;
        }
        let legal = app
            .get(&format!("/v1/matches/{id}/legal-actions"), token)
            .await
            .body;
        let actions = legal["actions"].as_array().unwrap();
        // Not resigning or offering draws while there is a move to make.
        let moves_only: Vec<&Value> = (actions.iter())
            .filter(|a| !matches!(a["type"].as_str(), Some("resign" | "offer_draw")))
            .collect();
        let pick = moves_only[step % moves_only.len()].clone();
        let reply = app
            .post(
                &format!("/v1/matches/{id}/actions"),
                token,
                json!({"seq": legal["seq"], "action": pick}),
            )
            .await;
        assert_eq!(reply.status, 200, "{game}: {pick}: {}", reply.body);
        played += 1;
    }
    panic!("{game} {level}: the match did not end");
}

#[actix_web::test]
async fn bots_lists_every_level_of_every_game_with_its_rating_and_names() {
    let app = TestApp::start().await;
    let bots = app.request("GET", "/v1/bots", None, None, &[]).await;
    assert_eq!(bots.status, 200);
    let games = bots.body.as_array().unwrap();
    assert_eq!(games.len(), posthorn_rules::GameId::ALL.len());
    for game in games {
        let levels: Vec<(Value, Value)> = (game["bots"].as_array().unwrap().iter())
            .map(|b| (b["level"].clone(), b["rating"].clone()))
            .collect();
        assert_eq!(
            levels,
            [
                (json!("easy"), json!(900)),
                (json!("normal"), json!(1300)),
                (json!("hard"), json!(1600))
            ]
        );
        for bot in game["bots"].as_array().unwrap() {
            assert_eq!(bot["player"]["computer"], bot["level"]);
            assert!(!bot["name_ko"].as_str().unwrap().is_empty());
        }
    }
    app.stop().await;
}

#[actix_web::test]
async fn a_whole_match_against_each_level_in_every_game() {
    let app = TestApp::start_seeded(32).await;
    let mina = app.register("mina").await;
    for game in GAMES {
        // Easy is played out to the end (or 150 moves and a resignation);
        // normal and hard for a dozen moves each, then the person resigns.
        for (level, moves) in [("easy", 150), ("normal", 12), ("hard", 6)] {
            let m = play_out(&app, &mina, game, level, moves).await;
            assert_eq!(m["status"], "finished", "{game} {level}");
            assert_eq!(m["rated"], false);
            let computers = (m["seats"].as_array().unwrap().iter())
                .filter(|s| s["user"]["computer"] == level)
                .count();
            assert!(computers >= 1, "{game}: the computer is labelled");
        }
    }
    app.stop().await;
}

#[actix_web::test]
async fn a_person_and_three_computers_play_four_player_chess() {
    let app = TestApp::start_seeded(4).await;
    let mina = app.register("mina").await;
    let created = app
        .post(
            "/v1/matches",
            &mina,
            json!({
                "game": "four_player_chess/ffa",
                "seat": 2,
                "computers": [{"level": "easy", "seat": 0}, {"level": "normal"}, {"level": "hard"}],
            }),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.body["id"].as_str().unwrap().to_owned();
    assert_eq!(created.body["my_seats"], json!([2]), "the seat chosen");
    assert_eq!(created.body["seats"][0]["user"]["computer"], "easy");
    // The computers before the person move first, by themselves.
    computers_move(&app).await;
    let m = view(&app, &mina, &id).await;
    assert!(my_turn(&m), "{}", m["to_act"]);
    assert!(m["seq"].as_i64().unwrap() >= created.body["seq"].as_i64().unwrap() + 2);
    for _ in 0..3 {
        let legal = app
            .get(&format!("/v1/matches/{id}/legal-actions"), &mina)
            .await
            .body;
        let first = legal["actions"][0].clone();
        let seq = legal["seq"].clone();
        let reply = app
            .post(
                &format!("/v1/matches/{id}/actions"),
                &mina,
                json!({"seq": seq, "action": first}),
            )
            .await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        let ran = computers_move(&app).await;
        assert_eq!(
            ran,
            Ran {
                done: 3,
                retried: 0
            },
            "each computer answers once"
        );
        assert!(my_turn(&view(&app, &mina, &id).await));
    }
    // Out of the ffa (§Q9), the person's moves stand: no takeback revives
    // the army, though the computers play on.
    let resigned = app.act(&mina, &id, json!({"type": "resign"})).await;
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    let m = view(&app, &mina, &id).await;
    assert_eq!(m["status"], "active", "the others play on");
    let back = app
        .post(
            &format!("/v1/matches/{id}/takeback"),
            &mina,
            json!({"seq": m["seq"]}),
        )
        .await;
    assert_eq!(back.status, 409, "{}", back.body);
    assert_eq!(
        view(&app, &mina, &id).await["seq"],
        m["seq"],
        "nothing changed"
    );
    // Only the person hears of the match (the elimination): a computer
    // is told nothing.
    let told = crate::conditional::text_rows(
        &app,
        format!(
            "SELECT DISTINCT u.username AS t FROM notices n JOIN users u ON u.id = n.user_id \
             WHERE n.match_id = '{id}'"
        ),
    )
    .await;
    assert_eq!(told, ["mina"]);
    app.stop().await;
}

/// One player has at most `ACTIVE_PER_PLAYER` matches against the
/// computer going at once (each computer move is a search, and a
/// four-player match goes on after the person is out); a finished one
/// frees its place.
#[actix_web::test]
async fn a_player_has_a_bounded_number_of_computer_matches_going() {
    let app = TestApp::start_seeded(21).await;
    let mina = app.register("mina").await;
    let limit = posthorn::lobby::computers::ACTIVE_PER_PLAYER;
    let new = json!({"game": "checkers", "computers": [{"level": "easy"}], "side": 0});
    let mut ids = Vec::new();
    for _ in 0..limit {
        let m = app.post("/v1/matches", &mina, new.clone()).await;
        assert_eq!(m.status, 201, "{}", m.body);
        ids.push(m.body["id"].as_str().unwrap().to_owned());
    }
    let over = app.post("/v1/matches", &mina, new.clone()).await;
    assert_eq!(over.status, 429, "{}", over.body);
    assert!(over.body["detail"].as_str().unwrap().contains("at most"));
    let resigned = app.act(&mina, &ids[0], json!({"type": "resign"})).await;
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    let again = app.post("/v1/matches", &mina, new).await;
    assert_eq!(again.status, 201, "{}", again.body);
    app.stop().await;
}

#[actix_web::test]
async fn a_person_takes_back_their_move_and_the_reply_and_the_log_keeps_both() {
    let app = TestApp::start_seeded(7).await;
    let mina = app.register("mina").await;
    let created = app
        .post(
            "/v1/matches",
            &mina,
            json!({"game": "checkers", "computers": [{"level": "easy"}], "side": 0}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.body["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/matches/{id}");
    let before = app.get(&format!("{path}/legal-actions"), &mina).await.body;
    let first = before["actions"][0].clone();
    let moved = app
        .post(
            &format!("{path}/actions"),
            &mina,
            json!({"seq": before["seq"], "action": first}),
        )
        .await;
    assert_eq!(moved.status, 200);
    computers_move(&app).await;
    let after = view(&app, &mina, &id).await;
    assert_eq!(after["seq"].as_i64(), before["seq"].as_i64().map(|s| s + 2));
    // A stale seq is refused and changes nothing.
    let stale = app
        .post(
            &format!("{path}/takeback"),
            &mina,
            json!({"seq": before["seq"]}),
        )
        .await;
    assert_eq!((stale.status.as_u16(), stale.code()), (409, "stale_seq"));
    let taken = app
        .post(
            &format!("{path}/takeback"),
            &mina,
            json!({"seq": after["seq"]}),
        )
        .await;
    assert_eq!(taken.status, 200, "{}", taken.body);
    assert_eq!(taken.body["view"], created.body["view"], "the start again");
    assert!(my_turn(&taken.body));
    let again = app.get(&format!("{path}/legal-actions"), &mina).await.body;
    assert_eq!(again["actions"], before["actions"]);
    // The log keeps the move, the reply and the takeback.
    let events = app.get(&format!("{path}/events"), &mina).await.body;
    let kinds: Vec<&str> = (events["events"].as_array().unwrap().iter())
        .filter_map(|e| e["type"].as_str())
        .collect();
    assert_eq!(kinds.last(), Some(&"taken_back"));
    assert!(kinds.len() >= 3);
    // Nothing left to take back; no reply is due after a takeback.
    let seq = taken.body["seq"].clone();
    let none = app
        .post(&format!("{path}/takeback"), &mina, json!({"seq": seq}))
        .await;
    assert_eq!(none.status, 422, "{}", none.body);
    assert_eq!(computers_move(&app).await, Ran::default());
    // Play on after the takeback: the computer answers the new move.
    let legal = app.get(&format!("{path}/legal-actions"), &mina).await.body;
    let second = legal["actions"][1].clone();
    let moved = app
        .post(
            &format!("{path}/actions"),
            &mina,
            json!({"seq": legal["seq"], "action": second}),
        )
        .await;
    assert_eq!(moved.status, 200, "{}", moved.body);
    assert_eq!(
        computers_move(&app).await,
        Ran {
            done: 1,
            retried: 0
        }
    );
    // Where pieces or cards are hidden a takeback would show them.
    for hidden in ["banqi", "flipchess"] {
        let m = app
            .post(
                "/v1/matches",
                &mina,
                json!({"game": hidden, "computers": [{"level": "easy"}], "side": 0}),
            )
            .await
            .body;
        let hid = m["id"].as_str().unwrap().to_owned();
        let legal = app
            .get(&format!("/v1/matches/{hid}/legal-actions"), &mina)
            .await
            .body;
        if let Some(first) = legal["actions"].as_array().and_then(|a| a.first()).cloned() {
            app.post(
                &format!("/v1/matches/{hid}/actions"),
                &mina,
                json!({"seq": legal["seq"], "action": first}),
            )
            .await;
        }
        let seq = view(&app, &mina, &hid).await["seq"].clone();
        let refused = app
            .post(
                &format!("/v1/matches/{hid}/takeback"),
                &mina,
                json!({"seq": seq}),
            )
            .await;
        assert_eq!(refused.status, 422, "{hidden}: {}", refused.body);
        assert!(refused.body["detail"].as_str().unwrap().contains("hidden"));
    }
    // Between people, a player with no move of their own has nothing to
    // take back (takebacks by consent: tests/service/takebacks.rs).
    let bob = app.register("bob").await;
    let people = app
        .post(
            "/v1/matches",
            &mina,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await
        .body;
    let pid = people["id"].as_str().unwrap().to_owned();
    app.post(&format!("/v1/matches/{pid}/accept"), &bob, json!({}))
        .await;
    let seq = view(&app, &mina, &pid).await["seq"].clone();
    let refused = app
        .post(
            &format!("/v1/matches/{pid}/takeback"),
            &mina,
            json!({"seq": seq}),
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    app.stop().await;
}

#[actix_web::test]
async fn a_computer_match_is_never_rated_never_timed_and_never_on_a_board() {
    // Each refusal is of a well-formed request, for its meaning: 422
    // (issue #46).
    let app = TestApp::start_seeded(9).await;
    let mina = app.register("mina").await;
    let rated = app
        .post(
            "/v1/matches",
            &mina,
            json!({"game": "checkers", "computers": [{"level": "easy"}], "rated": true}),
        )
        .await;
    assert_eq!(
        (rated.status.as_u16(), rated.code()),
        (422, "validation_failed"),
        "{}",
        rated.body
    );
    let timed = app
        .post(
            "/v1/matches",
            &mina,
            json!({"game": "checkers", "computers": [{"level": "easy"}], "turn_hours": 24}),
        )
        .await;
    assert_eq!(
        (timed.status.as_u16(), timed.code()),
        (422, "validation_failed"),
        "{}",
        timed.body
    );
    let seat_alone = app
        .post("/v1/matches", &mina, json!({"game": "checkers", "seat": 0}))
        .await;
    assert_eq!(
        (seat_alone.status.as_u16(), seat_alone.code()),
        (422, "validation_failed"),
        "{}",
        seat_alone.body
    );
    let nobody = app
        .post(
            "/v1/matches",
            &mina,
            json!({"game": "checkers", "opponents": ["computer:easy"]}),
        )
        .await;
    // No player has that name: 422 since issue #46.
    assert_eq!(nobody.status, 422, "a computer is never challenged by name");
    let m = app
        .post(
            "/v1/matches",
            &mina,
            json!({"game": "checkers", "computers": [{"level": "easy"}], "side": 1}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    computers_move(&app).await;
    let m = view(&app, &mina, &id).await;
    let duty = &m["to_act"][0];
    assert!(my_turn(&m));
    assert!(
        duty.get("deadline_at").is_none() && duty.get("notice_at").is_none(),
        "{duty}"
    );
    // A hundred days later nothing has been swept: no notice, no loss.
    app.clock.advance(Duration::days(100));
    let swept = app
        .blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep().unwrap())
        .await;
    assert_eq!(swept.deadlines + swept.notices, 0);
    app.clock.advance(-Duration::days(100));
    let resigned = app.act(&mina, &id, json!({"type": "resign"})).await;
    assert_eq!(resigned.status, 200);
    let board = app.get("/v1/leaderboards/checkers/american", &mina).await;
    assert_eq!(
        board.body["entries"].as_array().map_or(0, Vec::len),
        0,
        "{}",
        board.body
    );
    // A provisional player is off the board even when rated, so the
    // board alone proves little: no rating, no rating change and no
    // count of the result was written for anyone.
    let written = app
        .blocking(|s| {
            use diesel::RunQueryDsl;
            #[derive(diesel::QueryableByName)]
            struct N {
                #[diesel(sql_type = diesel::sql_types::BigInt)]
                n: i64,
            }
            let mut c = s.pool.get().unwrap();
            ["ratings", "rating_changes", "rating_counts"].map(|table| {
                diesel::sql_query(format!("SELECT count(*) AS n FROM {table}"))
                    .get_result::<N>(&mut c)
                    .unwrap()
                    .n
            })
        })
        .await;
    assert_eq!(written, [0, 0, 0], "ratings, rating_changes, rating_counts");
    app.stop().await;
}

/// One instance claims the computer's move and dies mid-search (it never
/// finishes); when its lease runs out another instance plays the move;
/// the dead instance's late result is stale and moves nothing.
#[actix_web::test]
async fn a_computer_moves_exactly_once_when_an_instance_dies_mid_search() {
    let app = TestApp::start_seeded(11).await;
    let other = app.sibling().await;
    let mina = app.register("mina").await;
    let m = app
        .post(
            "/v1/matches",
            &mina,
            json!({"game": "checkers", "computers": [{"level": "hard"}], "side": 1}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    let seq0 = m["seq"].as_i64().unwrap();
    let now = app.clock.now();
    // The first instance claims the job, then dies before its move.
    let lease = Duration::seconds(posthorn::jobs::one_off::LEASE_SECONDS);
    let claimed = app
        .blocking(move |s| {
            posthorn::db::transaction(&s.pool, |c| {
                job_queue::claim(
                    c,
                    &job_queue::Lane::ALL,
                    now,
                    lease,
                    &posthorn::computer::budget::SPENT,
                )
            })
            .unwrap()
        })
        .await
        .expect("the computer's move is queued with the match");
    assert_eq!(claimed.kind, "computer.move");
    // While the lease holds, the other instance leaves it alone.
    assert_eq!(computers_move_at(&other, now).await, Ran::default());
    let ran = computers_move_at(&other, now + lease + Duration::seconds(1)).await;
    assert_eq!(ran.done, 1);
    let after = view(&app, &mina, &id).await;
    assert_eq!(after["seq"].as_i64(), Some(seq0 + 1), "one move");
    // The dead instance's search, finished late, meets a newer seq.
    let late = app
        .blocking(move |s| {
            let mover = Mover::new(s.dice.clone());
            let outcome = mover.run(&s.pool, &claimed, s.clock.now());
            let mut c = s.pool.get().unwrap();
            (
                outcome,
                job_queue::finish(&mut c, &claimed, s.clock.now()).unwrap(),
            )
        })
        .await;
    assert_eq!(
        late,
        (Ok(()), false),
        "stale: nothing moved, nothing closed"
    );
    assert_eq!(view(&app, &mina, &id).await["seq"].as_i64(), Some(seq0 + 1));
    other.stop().await;
    app.stop().await;
}

/// Run the due seek fallbacks at `now`, as the job runner does.
async fn fallbacks_run(app: &TestApp, now: chrono::DateTime<chrono::Utc>) -> Ran {
    app.blocking(move |s| {
        let fallback = posthorn::lobby::seek_fallback::Fallback {
            dice: s.dice.clone(),
            min_turn_seconds: s.config.min_turn_seconds,
            public_url: s.config.public_url.clone(),
        };
        run_due(&s.pool, &[&fallback], now).unwrap()
    })
    .await
}

#[actix_web::test]
async fn a_seek_that_finds_nobody_plays_the_computer_after_its_wait() {
    let app = TestApp::start_seeded(13).await;
    let mina = app.register("mina").await;
    let bob = app.register("bob").await;
    let now = app.clock.now();
    let rated = app
        .post(
            "/v1/seeks",
            &mina,
            json!({"game": "flipchess", "rated": true, "bot_after_seconds": 60}),
        )
        .await;
    // Well formed, refused for its meaning: 422 (issue #46).
    assert_eq!(
        rated.status, 422,
        "a rated seek cannot fall back: {}",
        rated.body
    );
    let posted = app
        .post(
            "/v1/seeks",
            &mina,
            json!({"game": "flipchess", "bot_after_seconds": 60}),
        )
        .await;
    assert_eq!(posted.status, 201, "{}", posted.body);
    assert!(posted.body["match"].is_null(), "nobody yet");
    // Not before its wait is over.
    assert_eq!(
        fallbacks_run(&app, now + Duration::seconds(59)).await,
        Ran::default()
    );
    assert_eq!(
        fallbacks_run(&app, now + Duration::seconds(61)).await.done,
        1
    );
    let mine = app.get("/v1/matches", &mina).await.body;
    let m = &mine["items"][0];
    assert_eq!(m["game"], "flipchess");
    assert_eq!(m["rated"], false);
    // The level nearest a newcomer's rating (1500): hard (1600).
    let levels: Vec<&Value> = (m["seats"].as_array().unwrap().iter())
        .map(|s| &s["user"]["computer"])
        .filter(|c| !c.is_null())
        .collect();
    assert_eq!(
        levels,
        [&json!("hard")],
        "the opponent is plainly the computer"
    );
    // The untimed match tells no turn, so the seeker, who may have walked
    // away, hears that the opponent is here; the computer hears nothing.
    let id = m["id"].as_str().unwrap();
    let told = crate::conditional::text_rows(
        &app,
        format!(
            "SELECT kind || ' ' || (payload->>'computer') AS t FROM notices \
             WHERE match_id = '{id}'"
        ),
    )
    .await;
    assert_eq!(told, ["invitation_accepted hard"]);
    // A seek a person takes in time never falls back.
    let again = app
        .post(
            "/v1/seeks",
            &mina,
            json!({"game": "janggi", "bot_after_seconds": 30}),
        )
        .await
        .body;
    assert!(again["match"].is_null());
    let taken = app.post("/v1/seeks", &bob, json!({"game": "janggi"})).await;
    assert_eq!(taken.status, 201);
    assert!(taken.body["match"].is_object(), "paired with mina");
    assert_eq!(
        fallbacks_run(&app, now + Duration::hours(1)).await.done,
        1,
        "nothing to do"
    );
    let items = app.get("/v1/matches", &mina).await.body["items"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(items, 2, "no computer match beside the paired one");
    app.stop().await;
}

/// The person picks their side by its order of play: American checkers'
/// Black (seat 0) or White, White first in the draughts variants (§C2),
/// Janggi's Cho or Han — whichever seat the rules draw Cho to (§J: the
/// `started` event names Cho's seat).
#[actix_web::test]
async fn the_person_picks_the_side_that_moves_first_or_second() {
    let app = TestApp::start_seeded(17).await;
    let mina = app.register("mina").await;
    for round in 0..4 {
        for (game, side) in [
            ("checkers", 0),
            ("checkers", 1),
            ("checkers/international", 0),
            ("checkers/russian", 1),
            ("janggi", 0),
            ("janggi", 1),
        ] {
            let (game, variant) = game.split_once('/').unwrap_or((game, "american"));
            let mut body = match game {
                "checkers" => json!({"game": game, "variant": variant}),
                _ => json!({"game": game}),
            };
            body["computers"] = json!([{"level": "easy"}]);
            body["side"] = json!(side);
            let m = app.post("/v1/matches", &mina, body).await;
            assert_eq!(m.status, 201, "{}", m.body);
            assert_eq!(
                my_turn(&m.body),
                side == 0,
                "{game}, round {round}: side {side} moves {}",
                if side == 0 { "first" } else { "second" }
            );
            // Out of the way of the limit on matches going at once.
            let id = m.body["id"].as_str().unwrap();
            let resigned = app.act(&mina, id, json!({"type": "resign"})).await;
            assert_eq!(resigned.status, 200, "{}", resigned.body);
        }
    }
    app.stop().await;
}

/// A broken engine: it never decides.
fn failing_engine(
    _: posthorn_rules::GameId,
    _: &Value,
    _: posthorn_rules::Seat,
    _: posthorn_rules::engine::Level,
    _: &mut dyn posthorn_rules::Random,
) -> Result<Value, posthorn_rules::RuleError> {
    Err(posthorn_rules::RuleError::illegal("a broken engine"))
}

/// A broken engine: its answer is no action of the game.
fn illegal_engine(
    _: posthorn_rules::GameId,
    _: &Value,
    _: posthorn_rules::Seat,
    _: posthorn_rules::engine::Level,
    _: &mut dyn posthorn_rules::Random,
) -> Result<Value, posthorn_rules::RuleError> {
    Ok(json!({"type": "move", "from": "a1", "to": "h8"}))
}

/// A broken engine: it panics.
fn panicking_engine(
    _: posthorn_rules::GameId,
    _: &Value,
    _: posthorn_rules::Seat,
    _: posthorn_rules::engine::Level,
    _: &mut dyn posthorn_rules::Random,
) -> Result<Value, posthorn_rules::RuleError> {
    panic!("a broken engine")
}

#[actix_web::test]
async fn a_computer_whose_engine_fails_still_plays_a_legal_move_never_resigning() {
    let app = TestApp::start_seeded(11).await;
    let mina = app.register("mina").await;
    for (round, broken) in [
        failing_engine as posthorn::computer::moves::Engine,
        illegal_engine,
        panicking_engine,
    ]
    .into_iter()
    .enumerate()
    {
        // The person takes the second side: the computer owes the first move.
        let created = app
            .post(
                "/v1/matches",
                &mina,
                json!({"game": "checkers", "computers": [{"level": "hard"}], "side": 1}),
            )
            .await;
        assert_eq!(created.status, 201, "{}", created.body);
        let id = created.body["id"].as_str().unwrap().to_owned();
        let seq0 = created.body["seq"].as_i64().unwrap();
        let ran = app
            .blocking(move |s| {
                let mover = Mover {
                    engine: broken,
                    ..Mover::new(s.dice.clone())
                };
                run_due(&s.pool, &[&mover], s.clock.now()).unwrap()
            })
            .await;
        assert_eq!((ran.done, ran.retried), (1, 0), "round {round}: {ran:?}");
        let after = view(&app, &mina, &id).await;
        assert_eq!(
            after["seq"].as_i64(),
            Some(seq0 + 1),
            "round {round}: one move"
        );
        assert_eq!(after["status"], "active", "round {round}: no resignation");
        assert!(my_turn(&after), "round {round}: the person's turn again");
    }
}

/// A computer's move that failed every attempt (the database away longer
/// than the retries last) is tried again while its match waits on it:
/// not at once, but after `REVIVE_AFTER_MINUTES`; the person is never
/// left waiting for good.
#[actix_web::test]
async fn a_computer_move_that_failed_every_attempt_is_tried_again_while_the_match_waits() {
    let app = TestApp::start_seeded(13).await;
    let mina = app.register("mina").await;
    let created = app
        .post(
            "/v1/matches",
            &mina,
            json!({"game": "checkers", "computers": [{"level": "easy"}], "side": 1}),
        )
        .await;
    let id = created.body["id"].as_str().unwrap().to_owned();
    let seq0 = created.body["seq"].as_i64().unwrap();
    let now = app.clock.now();
    let failed = app
        .blocking(move |s| {
            use diesel::RunQueryDsl;
            let mut c = s.pool.get().unwrap();
            diesel::sql_query(
                "UPDATE jobs SET attempts = 5, failed_at = $1, last_error = 'the database was away' \
                 WHERE kind = 'computer.move'",
            )
            .bind::<diesel::sql_types::Timestamptz, _>(now)
            .execute(&mut c)
            .unwrap()
        })
        .await;
    assert_eq!(failed, 1, "the computer's move was queued with the match");
    let soon = computers_move_at(&app, now + Duration::minutes(5)).await;
    assert_eq!(
        soon,
        Ran::default(),
        "a failed move waits before it is revived"
    );
    assert_eq!(view(&app, &mina, &id).await["seq"].as_i64(), Some(seq0));
    let later = computers_move_at(
        &app,
        now + Duration::minutes(posthorn::computer::REVIVE_AFTER_MINUTES + 1),
    )
    .await;
    assert_eq!(later.done, 1, "{later:?}");
    let after = view(&app, &mina, &id).await;
    assert_eq!(after["seq"].as_i64(), Some(seq0 + 1), "the computer moved");
    assert!(my_turn(&after));
    app.stop().await;
}
