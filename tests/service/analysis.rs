//! A finished match's analysis over the API (issue #69, docs/analysis.md):
//! one of its players asks, once per match; the review lane's job judges
//! every play, charged to the asker's engine time, and the result is kept;
//! a live match has none, a stranger gets nothing; and the hard searches'
//! threads answer a computer's reply before any analysis.

use crate::records::played_then_resigned;
use crate::support::TestApp;
use posthorn::clock::Clock;
use posthorn::computer::analysis::Analyst;
use posthorn::computer::budget::SPENT;
use posthorn::job_queue::{claim, enqueue_work, Lane, Queued};
use posthorn::jobs::one_off::run_due;
use posthorn_rules::engine::analysis::Effort;
use serde_json::json;

/// A small effort: the test's analyses take milliseconds.
const SMALL: Effort = Effort {
    nodes: 3_000,
    depth: 3,
    worlds: 4,
};

#[actix_web::test]
async fn a_player_asks_once_and_the_engines_judge_every_play_charged_to_them() {
    let app = TestApp::start().await;
    let ada = app.register("ada_a").await;
    let bob = app.register("bob").await;
    let stranger = app.register("cyrus").await;
    let path = played_then_resigned(&app, "checkers", [&ada, &bob], 6).await;
    let analysis = format!("{path}/analysis");

    let none = app.get(&analysis, &bob).await;
    assert_eq!(none.body["status"], "none", "none asked yet: {}", none.body);
    let asked = app.post(&analysis, &bob, json!({})).await;
    assert_eq!(asked.status, 202, "{}", asked.body);
    assert_eq!(asked.body["status"], "queued");
    let again = app.post(&analysis, &ada, json!({})).await;
    assert_eq!(again.status, 200, "one a match: {}", again.body);
    assert_eq!(again.body["status"], "queued");
    assert_eq!(app.post(&analysis, &stranger, json!({})).await.status, 404);
    assert_eq!(app.get(&analysis, &stranger).await.status, 404);
    let jobs = app
        .count("SELECT count(*) AS n FROM jobs WHERE kind = 'computer.analysis'".into())
        .await;
    assert_eq!(jobs, 1, "queued once");

    let ran = app
        .blocking(|s| run_due(&s.pool, &[&Analyst { effort: SMALL }], s.clock.now()).unwrap())
        .await;
    assert_eq!(ran.done, 2, "six plays, judged four a job");
    let done = app.get(&analysis, &ada).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert_eq!(done.body["status"], "done");
    assert_eq!(done.body["withheld"], false);
    let a = &done.body["analysis"];
    // Every play judged, each at its event's seq in the match's log.
    let events = app.get(&format!("{path}/events"), &ada).await.body;
    let moves: Vec<i64> = (events["events"].as_array().unwrap().iter())
        .filter(|e| e["move"].is_string())
        .map(|e| e["seq"].as_i64().unwrap())
        .collect();
    let judged: Vec<i64> = (a["plies"].as_array().unwrap().iter())
        .map(|p| p["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(judged, moves, "{a}");
    for ply in a["plies"].as_array().unwrap() {
        assert!(ply["before"].as_u64() >= ply["after"].as_u64(), "{ply}");
        assert!(
            ply["best"]["type"] == "move" && ply["public"] == true,
            "{ply}"
        );
    }
    let players = a["players"].as_array().unwrap();
    assert_eq!(players.len(), 2, "{a}");
    assert!(players.iter().all(|p| p["plies"] == 3), "{a}");
    // Charged to the one who asked.
    let charged = app
        .count(
            "SELECT count(*) AS n FROM engine_time t JOIN users u ON u.id = t.owner \
             WHERE u.username = 'bob'"
                .into(),
        )
        .await;
    assert_eq!(charged, 2, "the asker's engine time, each job's");
    // Kept: asking again answers it, and queues nothing.
    let kept = app.post(&analysis, &ada, json!({})).await;
    assert_eq!(kept.status, 200);
    assert_eq!(kept.body["analysis"], *a);

    // Jobs that failed for good: said so, and asking again begins again.
    let path = played_then_resigned(&app, "checkers", [&ada, &bob], 2).await;
    let analysis = format!("{path}/analysis");
    assert_eq!(app.post(&analysis, &ada, json!({})).await.status, 202);
    app.count(
        "WITH f AS (UPDATE jobs SET failed_at = now() WHERE kind = 'computer.analysis' \
         AND done_at IS NULL RETURNING 1) SELECT count(*) AS n FROM f"
            .into(),
    )
    .await;
    assert_eq!(app.get(&analysis, &ada).await.body["status"], "failed");
    let again = app.post(&analysis, &bob, json!({})).await;
    assert_eq!(again.status, 202, "{}", again.body);
    assert_eq!(again.body["status"], "queued");
    app.blocking(|s| run_due(&s.pool, &[&Analyst { effort: SMALL }], s.clock.now()).unwrap())
        .await;
    assert_eq!(app.get(&analysis, &ada).await.body["status"], "done");

    // A live match has none.
    let live = crate::records::live_match(&app, &ada, "janggi", "bob").await;
    let refused = (app.post(&format!("/v1/matches/{live}/analysis"), &ada, json!({}))).await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    app.stop().await;
}

/// A computer's reply is due after an analysis was queued: the hard
/// searches' threads take the reply first; the analysis after it.
#[actix_web::test]
async fn the_hard_searches_threads_take_a_computers_reply_before_an_analysis() {
    let app = TestApp::start().await;
    let now = app.clock.now();
    let claimed = app
        .blocking(move |s| {
            let c = &mut s.pool.get().unwrap();
            let queue = |c: &mut diesel::PgConnection, kind, lane, at| {
                let work = Queued {
                    kind,
                    key: kind,
                    payload: json!({}),
                    lane,
                    owner: None,
                };
                enqueue_work(c, work, at, at).unwrap();
            };
            queue(c, "spare", Lane::Spare, now - chrono::Duration::minutes(20));
            queue(
                c,
                "review",
                Lane::Review,
                now - chrono::Duration::minutes(10),
            );
            queue(c, "reply", Lane::Heavy, now);
            let lease = chrono::Duration::seconds(60);
            (0..3)
                .map(|_| {
                    claim(c, Lane::Heavy.claims(), now, lease, &SPENT)
                        .unwrap()
                        .unwrap()
                        .kind
                })
                .collect::<Vec<_>>()
        })
        .await;
    assert_eq!(claimed, ["reply", "review", "spare"]);
    app.stop().await;
}
