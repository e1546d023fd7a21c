//! One move followed in the logs (docs/operations.md, "Following one
//! move"): the request's id is on every line of what it causes, from the
//! request through the database thread and the append to the push that
//! tells the opponent, and through a computer's reply run as a job on a
//! later tick; the rows it leaves for later keep it.

use crate::logs;
use crate::native_peers::{self, apns_peer};
use crate::native_push::{config, deliver, ios_token, register_device};
use crate::support::TestApp;
use posthorn::computer::moves::Mover;
use posthorn::jobs::one_off::run_due;
use serde_json::{json, Value};

/// The lines of `id` from `target`.
fn from<'a>(lines: &'a [String], target: &str) -> Vec<&'a String> {
    lines
        .iter()
        .filter(|l| l.starts_with(&format!("{target} ")))
        .collect()
}

async fn act_as(app: &TestApp, token: &str, id: &str, request_id: &str) -> Value {
    let legal = app
        .get(&format!("/v1/matches/{id}/legal-actions"), token)
        .await
        .body;
    let action = (legal["actions"].as_array().unwrap().iter())
        .find(|a| a["type"] == "move")
        .unwrap()
        .clone();
    let acted = app
        .request(
            "POST",
            &format!("/v1/matches/{id}/actions"),
            Some(token),
            Some(json!({"seq": legal["seq"], "action": action})),
            &[("x-request-id", request_id)],
        )
        .await;
    assert_eq!(acted.status, 200, "{}", acted.body);
    acted.body
}

#[actix_web::test]
async fn a_move_is_followed_from_its_request_to_the_push_by_its_request_id() {
    let tls = native_peers::tls();
    let apns = apns_peer(&tls);
    let app = TestApp::start_with(config(&tls, Some(&apns), None)).await;
    let (alice, bob) = (app.register("alice").await, app.register("bob").await);
    let phone = json!({"platform": "ios", "token": ios_token(3)});
    assert_eq!(register_device(&app, &alice, phone).await.status, 201);
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    let alice_id = app.get("/v1/me", &alice).await.body["id"].clone();
    let on_move = m["to_act"][0]["seat"].as_u64().unwrap() as usize;
    // Bob's move tells Alice, on her phone, that it is her turn.
    if m["seats"][on_move]["user"]["id"] == alice_id {
        act_as(&app, &alice, &id, "before-bob").await;
    }
    deliver(&app).await;
    let pushed_before = apns.log.lock().unwrap().received.len();
    let request_id = "follow-one-move-7f3a";
    logs::watch(request_id);
    act_as(&app, &bob, &id, request_id).await;
    deliver(&app).await;
    assert_eq!(
        apns.log.lock().unwrap().received.len(),
        pushed_before + 1,
        "one push"
    );
    let lines = logs::lines(request_id);
    let kept = |target: &str| from(&lines, target).len();
    assert_eq!(kept("posthorn::request"), 1, "{lines:#?}");
    // The spans: the request's, its database thread's within it, the
    // append within that; the delivery's on a later tick, named by it.
    let request = format!("request{{request_id={request_id} ");
    assert!(
        (from(&lines, "posthorn::db").iter())
            .any(|l| l.contains(&request) && l.contains("}:db{}:")),
        "the database thread's span within the request's: {lines:#?}"
    );
    let append = from(&lines, "posthorn::append");
    assert!(
        append.iter().any(|l| l.contains(&request)
            && l.contains("}:db{}:")
            && l.contains(&format!("match_id={id}"))),
        "the append within them: {lines:#?}"
    );
    let delivery = from(&lines, "posthorn::delivery");
    assert!(
        (delivery.iter()).any(
            |l| l.contains(&format!("delivery{{request_id={request_id} "))
                && l.contains("kind=your_turn")
                && l.contains("channel=app:")
                && l.contains("sent=true")
        ),
        "the push to Alice's phone, in its delivery's span: {lines:#?}"
    );
    let kept_rows = app
        .count(format!(
            "SELECT count(*) AS n FROM notifications WHERE request_id = '{request_id}' AND status = 'sent'"
        ))
        .await;
    assert!(kept_rows >= 1);

    // A computer's reply runs as a job on a later tick: its job, its
    // append and its notices keep the request that asked for it.
    let game = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "computers": [{"level": "easy"}], "side": 0}),
        )
        .await
        .body;
    let vs = game["id"].as_str().unwrap().to_owned();
    let asked = "follow-the-computer-91c2";
    logs::watch(asked);
    act_as(&app, &alice, &vs, asked).await;
    let queued = app
        .count(format!(
            "SELECT count(*) AS n FROM jobs WHERE request_id = '{asked}'"
        ))
        .await;
    assert_eq!(queued, 1, "the computer's job keeps the request");
    app.blocking(move |s| {
        let mover = Mover::new(s.dice.clone());
        run_due(&s.pool, &[&mover], s.clock.now()).unwrap()
    })
    .await;
    let lines = logs::lines(asked);
    assert!(
        from(&lines, "posthorn::job")
            .iter()
            .any(|l| l.contains(&format!("job{{request_id={asked} "))
                && l.contains("kind=computer.move")
                && l.contains("ok=true")),
        "{lines:#?}"
    );
    assert!(
        from(&lines, "posthorn::append")
            .iter()
            .filter(|l| l.contains(&format!("match_id={vs}")))
            .count()
            >= 2,
        "Alice's move and the computer's reply: {lines:#?}"
    );
    app.stop().await;
}
