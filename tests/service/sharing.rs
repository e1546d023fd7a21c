//! Share links (issue #69 item 6): a finished match opens for anyone with
//! its link, without an account, in the spectator's view (§H4): a Banqi
//! match's layout is not in it, where its players' record shows it. One
//! live link a match, revocable by either player; revoked, it opens
//! nothing; a stranger cannot make one; the link is in its maker's export
//! and goes with their account.

use crate::records::played_then_resigned;
use crate::support::TestApp;
use serde_json::json;

#[actix_web::test]
async fn a_finished_match_opens_by_its_link_for_anyone_as_a_spectator_sees_it() {
    let app = TestApp::start().await;
    let ada = app.register("ada_s").await;
    let bob = app.register("bob").await;
    let stranger = app.register("cyrus").await;
    let path = played_then_resigned(&app, "banqi", [&ada, &bob], 8).await;
    let share = format!("{path}/share");

    assert_eq!(app.post(&share, &stranger, json!({})).await.status, 404);
    let made = app.post(&share, &bob, json!({})).await;
    assert_eq!(made.status, 201, "{}", made.body);
    let token = made.body["token"].as_str().unwrap().to_owned();
    assert!(token.len() >= 22, "128 bits: {token}");
    assert!(made.body["url"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/shared/{token}")));
    let again = app.post(&share, &ada, json!({})).await;
    assert_eq!(again.status, 200, "one live link a match: {}", again.body);
    assert_eq!(again.body["token"], made.body["token"]);

    // Anyone: no account.
    let opened = app
        .request("GET", &format!("/v1/shared/{token}"), None, None, &[])
        .await;
    assert_eq!(opened.status, 200, "{}", opened.body);
    let doc = &opened.body;
    assert_eq!(doc["match"]["status"], "finished");
    assert_eq!(doc["match"]["my_seats"], json!([]));
    assert_eq!(doc["analysis"]["status"], "none");
    // §H4: the spectator's view. The players' record holds the layout;
    // the shared match holds no piece the players' view had face down.
    let record = app.get(&format!("{path}/record"), &ada).await;
    assert!(
        record.body.as_str().unwrap().contains("[Layout"),
        "the players' record"
    );
    let whole = app.get(&path, &ada).await.body["view"].clone();
    assert_eq!(doc["match"]["view"]["face_down"], whole["face_down"]);
    let text = doc.to_string();
    assert!(
        !text.contains("\"layout\""),
        "no layout in the shared match: {text}"
    );
    let seqs: Vec<i64> = (doc["events"].as_array().unwrap().iter())
        .map(|e| e["seq"].as_i64().unwrap())
        .collect();
    assert!(seqs.len() >= 9, "{seqs:?}");
    let step = app
        .request(
            "GET",
            &format!("/v1/shared/{token}/positions/{}", seqs[3]),
            None,
            None,
            &[],
        )
        .await;
    assert_eq!(step.status, 200, "{}", step.body);
    assert!(step.body["view"]["face_down"].is_array());
    assert_eq!(
        app.request(
            "GET",
            &format!("/v1/shared/{token}/positions/0"),
            None,
            None,
            &[]
        )
        .await
        .status,
        422
    );

    // A link pasted into a chat shows the board and who played, in the
    // reader's language; a match's own page shows nothing of it.
    let page = app
        .request(
            "GET",
            &format!("/shared/{token}"),
            None,
            None,
            &[("accept-language", "ko-KR,ko;q=0.9")],
        )
        .await;
    let html = page.body.as_str().unwrap().to_owned();
    assert!(
        html.contains(&format!("/v1/shared/{token}/picture\"")),
        "{html}"
    );
    assert!(
        html.contains("og:title\" content=\"반치 · bob · ada_s\"")
            || html.contains("og:title\" content=\"반치 · ada_s · bob\""),
        "{html}"
    );
    assert!(html.contains("bob 승"), "{html}");
    let english = app
        .request("GET", &format!("/shared/{token}"), None, None, &[])
        .await;
    // Seats are drawn (§B2), so either may be named first.
    let english = english.body.as_str().unwrap().to_owned();
    assert!(
        english.contains("og:title\" content=\"Banqi · "),
        "{english}"
    );
    assert!(english.contains("bob won"), "{english}");
    let own = app
        .request(
            "GET",
            &format!("/matches/{}", doc["match"]["id"].as_str().unwrap()),
            None,
            None,
            &[],
        )
        .await;
    assert!(
        !own.body.as_str().unwrap().contains("og:"),
        "a family's match page has no preview"
    );

    // In its maker's export.
    let export = app.get("/v1/me/export", &bob).await.body;
    let links = export["share_links"].as_array().unwrap();
    assert_eq!(links.len(), 1, "{export}");
    assert_eq!(links[0]["token"], made.body["token"]);

    // Revoked by the other player: it opens nothing; a new one may be made.
    let revoked = app.request("DELETE", &share, Some(&ada), None, &[]).await;
    assert_eq!(revoked.status, 204, "{}", revoked.body);
    assert_eq!(
        app.request("GET", &format!("/v1/shared/{token}"), None, None, &[])
            .await
            .status,
        404
    );
    assert_eq!(
        app.request("GET", "/v1/shared/not-a-token", None, None, &[])
            .await
            .status,
        404
    );
    let anew = app.post(&share, &ada, json!({})).await;
    assert_eq!(anew.status, 201);
    assert_ne!(anew.body["token"], made.body["token"]);
    app.stop().await;
}

/// §H4, §H5: a FlipChess match shared shows no hand, and its analysis,
/// read from the hands at every play, is its players' alone.
#[actix_web::test]
async fn a_shared_flipchess_match_shows_no_hand_and_withholds_its_analysis_h5() {
    let app = TestApp::start().await;
    let ada = app.register("ada_f").await;
    let bob = app.register("bob").await;
    let path = played_then_resigned(&app, "flipchess", [&ada, &bob], 6).await;
    assert_eq!(
        app.post(&format!("{path}/analysis"), &ada, json!({}))
            .await
            .status,
        202
    );
    app.blocking(|s| {
        let analyst = posthorn::computer::analysis::Analyst {
            effort: posthorn_rules::engine::analysis::Effort {
                nodes: 2_000,
                depth: 2,
                worlds: 2,
            },
        };
        posthorn::jobs::one_off::run_due(&s.pool, &[&analyst], s.clock.now()).unwrap()
    })
    .await;
    let mine = app.get(&format!("{path}/analysis"), &ada).await.body;
    assert_eq!(mine["status"], "done");
    assert!(
        !mine["analysis"]["plies"].as_array().unwrap().is_empty(),
        "{mine}"
    );
    let token = app
        .post(&format!("{path}/share"), &ada, json!({}))
        .await
        .body["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let doc = app
        .request("GET", &format!("/v1/shared/{token}"), None, None, &[])
        .await
        .body;
    assert!(doc["match"]["view"]["hand"].is_null(), "{doc}");
    // The view and the events are the spectator's: the rules redact them
    // (their harness checks every event against `secrets`).
    assert!(app.get(&path, &ada).await.body["view"]["hand"].is_array());
    assert_eq!(doc["analysis"]["withheld"], true, "{doc}");
    assert_eq!(doc["analysis"]["analysis"]["plies"], json!([]));
    assert_eq!(doc["analysis"]["analysis"]["players"], json!([]));
    app.stop().await;
}

#[actix_web::test]
async fn a_live_match_has_no_link_and_a_deleted_makers_link_opens_nothing() {
    let app = TestApp::start().await;
    let ada = app.register("ada_t").await;
    let bob = app.register("bob").await;
    let live = crate::records::live_match(&app, &ada, "checkers", "bob").await;
    let refused = (app.post(&format!("/v1/matches/{live}/share"), &ada, json!({}))).await;
    assert_eq!(refused.status, 409, "{}", refused.body);

    let path = played_then_resigned(&app, "checkers", [&ada, &bob], 2).await;
    let made = app.post(&format!("{path}/share"), &ada, json!({})).await;
    let token = made.body["token"].as_str().unwrap().to_owned();
    let deleted = app
        .request(
            "POST",
            "/v1/me/deletion",
            Some(&ada),
            Some(json!({"password": "a long password"})),
            &[],
        )
        .await;
    assert!(deleted.status.is_success(), "{}", deleted.body);
    assert_eq!(
        app.request("GET", &format!("/v1/shared/{token}"), None, None, &[])
            .await
            .status,
        404
    );
    app.stop().await;
}
