//! Live match pages (issue #49 item 8; docs/architecture.md, "Live match
//! pages"): `GET /v1/matches/{id}/live` says the match's seq at once and
//! again at every change, from whichever instance made it; it says nothing
//! else of the match, and only to those who may read it; a lost listener
//! connects again and tells every page to look again.

use crate::support::{a_move, TestApp};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::time::Duration;

/// An open live stream, read event by event.
pub(crate) struct Live {
    response: awc::ClientResponse<
        actix_web::dev::Decompress<actix_http::Payload<actix_http::BoxedPayloadStream>>,
    >,
    buffer: String,
}

impl Live {
    pub(crate) async fn open(app: &TestApp, token: &str, id: &str) -> Live {
        let response = awc::Client::default()
            .get(format!("{}/v1/matches/{id}/live", app.base))
            .insert_header(("Authorization", format!("Bearer {token}")))
            .send()
            .await
            .expect("the stream opens");
        assert_eq!(response.status(), 200);
        let kind = response.headers().get("content-type").unwrap();
        assert_eq!(kind.to_str().unwrap(), "text/event-stream");
        Live {
            response,
            buffer: String::new(),
        }
    }

    /// The next event (a name and its data), comments skipped; `None` if
    /// none comes within `wait`.
    pub(crate) async fn next(&mut self, wait: Duration) -> Option<(String, Value)> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let field = |name: &str| {
                    block
                        .lines()
                        .find_map(|l| l.strip_prefix(name).map(str::to_owned))
                };
                if let (Some(event), Some(data)) = (field("event: "), field("data: ")) {
                    return Some((event, serde_json::from_str(&data).unwrap()));
                }
                continue;
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.next()).await;
            let bytes = chunk.ok()??.expect("the stream reads");
            self.buffer.push_str(std::str::from_utf8(&bytes).unwrap());
        }
    }
}

const SOON: Duration = Duration::from_secs(2);

/// A checkers match of alice and bob: its id, and the tokens in the order
/// of the seats' turns (the first on move first).
async fn checkers(app: &TestApp) -> (String, [String; 2]) {
    checkers_of(app, "alice", "bob").await
}

/// A checkers match of `a` against `b`, as [`checkers`].
pub(crate) async fn checkers_of(app: &TestApp, a: &str, b: &str) -> (String, [String; 2]) {
    let (ta, tb) = (app.register(a).await, app.register(b).await);
    let m = app
        .post(
            "/v1/matches",
            &ta,
            json!({"game": "checkers", "opponents": [b]}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    let first = if app.legal_actions(&ta, &id).await.iter().any(a_move) {
        [ta, tb]
    } else {
        [tb, ta]
    };
    (id, first)
}

pub(crate) async fn play_one(app: &TestApp, token: &str, id: &str) -> i64 {
    let action = app
        .legal_actions(token, id)
        .await
        .into_iter()
        .find(a_move)
        .unwrap();
    let reply = app.act(token, id, action).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body["match"]["seq"].as_i64().unwrap()
}

#[actix_web::test]
async fn a_move_reaches_the_other_players_open_page_with_its_seq_and_nothing_else() {
    let app = TestApp::start().await;
    let (id, [mover, waiter]) = checkers(&app).await;
    let seq = app.get(&format!("/v1/matches/{id}"), &waiter).await.body["seq"].clone();
    let mut live = Live::open(&app, &waiter, &id).await;
    assert_eq!(
        live.next(SOON).await,
        Some(("seq".into(), json!({ "seq": seq })))
    );

    // A move in another match says nothing here.
    let (other, [other_mover, _]) = checkers_of(&app, "carol", "dave").await;
    // Watched too, so that its change is read and told: this stream
    // lets it pass.
    let mut there = Live::open(&app, &other_mover, &other).await;
    there
        .next(SOON)
        .await
        .expect("the other match's seq at once");
    let moved = play_one(&app, &other_mover, &other).await;
    assert_eq!(
        there.next(SOON).await,
        Some(("seq".into(), json!({ "seq": moved })))
    );
    assert_eq!(
        live.next(Duration::from_millis(400)).await,
        None,
        "another match's move is not said here"
    );

    let after = play_one(&app, &mover, &id).await;
    let heard = live.next(SOON).await.expect("the move is heard");
    // The seq alone: no move, no view, nothing a hidden game could leak.
    assert_eq!(heard, ("seq".into(), json!({ "seq": after })));
}

/// A page that closes its stream releases its watch (the operator's
/// `posthorn_live_pages` gauge counts it out), so matches no page watches
/// are not read: within two beats, when writing to the closed connection
/// fails (`http::live::BEAT`).
#[actix_web::test]
async fn a_closed_stream_is_released() {
    const TOKEN: &str = "the scraper's token";
    let app = TestApp::start_with(posthorn::config::Config {
        metrics_token: Some(TOKEN.into()),
        ..Default::default()
    })
    .await;
    let pages = || async {
        let text = app.get("/metrics", TOKEN).await.body;
        let text = text.as_str().expect("metrics are text").to_owned();
        let line = text.lines().find(|l| l.starts_with("posthorn_live_pages "));
        line.and_then(|l| l[20..].trim().parse::<usize>().ok())
            .expect("the gauge is there")
    };
    let (id, [alice, bob]) = checkers(&app).await;
    assert_eq!(pages().await, 0);
    let mut first = Live::open(&app, &alice, &id).await;
    let mut second = Live::open(&app, &bob, &id).await;
    first.next(SOON).await.expect("its first seq");
    second.next(SOON).await.expect("its first seq");
    assert_eq!(pages().await, 2);
    drop(first);
    let mut left = pages().await;
    let most = posthorn::http::live::BEAT * 2 + Duration::from_secs(5);
    let since = std::time::Instant::now();
    while left != 1 && since.elapsed() < most {
        tokio::time::sleep(Duration::from_millis(100)).await;
        left = pages().await;
    }
    assert_eq!(left, 1, "the closed page is counted out within two beats");
    drop(second);
}

#[actix_web::test]
async fn a_move_through_another_instance_is_heard_here() {
    let app = TestApp::start().await;
    let sibling = app.sibling().await;
    let (id, [mover, waiter]) = checkers(&app).await;
    let mut live = Live::open(&app, &waiter, &id).await;
    live.next(SOON).await.expect("the seq at once");
    let after = play_one(&sibling, &mover, &id).await;
    assert_eq!(
        live.next(SOON).await,
        Some(("seq".into(), json!({ "seq": after })))
    );
    sibling.stop_instance().await;
}

#[actix_web::test]
async fn a_rematch_asked_for_is_heard_without_a_seq() {
    let app = TestApp::start().await;
    let (id, [mover, waiter]) = checkers(&app).await;
    let reply = app.act(&mover, &id, json!({"type": "resign"})).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let mut live = Live::open(&app, &waiter, &id).await;
    live.next(SOON).await.expect("the seq at once");
    let asked = app
        .request(
            "POST",
            &format!("/v1/matches/{id}/rematch"),
            Some(&mover),
            None,
            &[],
        )
        .await;
    assert_eq!(asked.status, 200, "{}", asked.body);
    assert_eq!(
        live.next(SOON).await,
        Some(("seq".into(), json!({ "seq": null })))
    );
}

/// A message at the table (issue #50) is no event: the page hears that
/// something changed without a seq, and reads the talk again.
#[actix_web::test]
async fn a_message_is_heard_without_a_seq() {
    let app = TestApp::start().await;
    let (id, [writer, reader]) = checkers(&app).await;
    let mut live = Live::open(&app, &reader, &id).await;
    let first = live.next(SOON).await.expect("the seq at once");
    let path = format!("/v1/matches/{id}/messages");
    let said = app
        .request(
            "POST",
            &path,
            Some(&writer),
            Some(json!({"text": "hi"})),
            &[],
        )
        .await;
    assert_eq!(said.status, 201, "{}", said.body);
    assert_eq!(
        live.next(SOON).await,
        Some(("seq".into(), json!({ "seq": null })))
    );
    let seq = app.get(&format!("/v1/matches/{id}"), &reader).await.body["seq"].clone();
    assert_eq!(first.1["seq"], seq, "the seq is unchanged");
}

/// Issue #50: a team's message is heard live by its team alone: the
/// other team's pages are not even told when the partners talk.
#[actix_web::test]
async fn a_team_message_is_heard_by_the_team_alone() {
    let app = TestApp::start().await;
    let mut tokens = Vec::new();
    for name in ["ann", "ben", "cat", "dan"] {
        tokens.push(app.register(name).await);
    }
    let body =
        json!({"game": "four_player_chess", "mode": "teams", "opponents": ["ben", "cat", "dan"]});
    let id = app.post("/v1/matches", &tokens[0], body).await.body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut pages = Vec::new();
    for token in &tokens[1..] {
        let mut live = Live::open(&app, token, &id).await;
        live.next(SOON).await.expect("the seq at once");
        pages.push(live);
    }
    // Past the watch's first read (which looks once at what stands).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let path = format!("/v1/matches/{id}/messages");
    let post = |text: &str, team: bool| {
        let body = json!({"text": text, "team": team});
        app.request("POST", &path, Some(&tokens[0]), Some(body), &[])
    };
    assert_eq!(post("push left", true).await.status, 201);
    let mut heard = Vec::new();
    for live in &mut pages {
        heard.push(live.next(SOON).await.is_some());
    }
    // Ann's partner is the one of the three who reads the team message.
    let mut partner = Vec::new();
    for token in &tokens[1..] {
        let page = app.get(&path, token).await.body.to_string();
        partner.push(page.contains("push left"));
    }
    assert_eq!(heard, partner, "heard live by the partner alone");
    assert_eq!(partner.iter().filter(|p| **p).count(), 1);
    assert_eq!(post("good game all", false).await.status, 201);
    for live in &mut pages {
        let said = live.next(SOON).await;
        assert_eq!(
            said,
            Some(("seq".into(), json!({ "seq": null }))),
            "everyone's, to all"
        );
    }
}

#[actix_web::test]
async fn only_those_who_may_read_the_match_may_listen() {
    let app = TestApp::start().await;
    let (id, _) = checkers(&app).await;
    let eve = app.register("eve").await;
    let refused = app.get(&format!("/v1/matches/{id}/live"), &eve).await;
    assert_eq!(refused.status, 404);
    assert_eq!(refused.code(), "not_found");
    let unknown = format!("/v1/matches/{}/live", uuid::Uuid::new_v4());
    assert_eq!(app.get(&unknown, &eve).await.status, 404);
    let anonymous = app
        .request("GET", &format!("/v1/matches/{id}/live"), None, None, &[])
        .await;
    assert_eq!(anonymous.status, 401);
}

#[actix_web::test]
async fn a_lost_listener_listens_again_and_every_page_looks_again() {
    let app = TestApp::start().await;
    let (id, [mover, waiter]) = checkers(&app).await;
    let mut live = Live::open(&app, &waiter, &id).await;
    live.next(SOON).await.expect("the seq at once");
    let ended = app
        .count(
            "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity \
             WHERE datname = current_database() AND application_name = 'posthorn-live'"
                .into(),
        )
        .await;
    assert_eq!(ended, 1, "one listener per instance");
    assert_eq!(
        live.next(Duration::from_secs(5)).await,
        Some(("resync".into(), json!({})))
    );
    assert!(app.state.live.reading(), "reading again");
    // Listening again: the next move is heard.
    let after = play_one(&app, &mover, &id).await;
    assert_eq!(
        live.next(SOON).await,
        Some(("seq".into(), json!({ "seq": after })))
    );
}
