//! The preferences' expand step (migration `2026-12-16-000043`,
//! docs/decisions/accounts-and-sessions.md, "Whose data is whose"): while
//! the release before it runs beside this one, what either writes the
//! other reads. The previous release writes the old columns of `users`;
//! this one writes its owners' tables; triggers copy both ways.

use crate::support::TestApp;
use serde_json::json;

#[actix_web::test]
async fn the_previous_releases_preference_writes_and_this_ones_meet() {
    let app = TestApp::start().await;
    let minji = app.register("minji").await;
    let id = app.get("/v1/me", &minji).await.body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The previous release writes the account row, as it did.
    app.count(format!(
        "WITH w AS (UPDATE users SET auto_accept_friends = true, talk = 'friends', \
         auto_vacation = true, address = '198.51.100.9' WHERE id = '{id}' RETURNING 1) \
         SELECT count(*) AS n FROM w"
    ))
    .await;
    let settings = app.get("/v1/me/challenge-settings", &minji).await;
    assert_eq!(
        settings.body["auto_accept_friends"], true,
        "{}",
        settings.body
    );
    assert_eq!(
        app.get("/v1/me/talk-settings", &minji).await.body["who"],
        "friends"
    );
    assert_eq!(app.get("/v1/me/vacation", &minji).await.body["auto"], true);
    let address = format!("SELECT count(*) AS n FROM engine_addresses WHERE user_id = '{id}' AND address = '198.51.100.9'");
    assert_eq!(app.count(address).await, 1);
    // This release writes its owners' tables; the previous one reads them
    // on the row.
    let put = |path: &'static str, body: serde_json::Value| {
        let (app, token) = (&app, minji.clone());
        async move {
            app.request("PUT", path, Some(&token), Some(body), &[])
                .await
        }
    };
    assert_eq!(
        put(
            "/v1/me/challenge-settings",
            json!({"auto_accept_friends": false})
        )
        .await
        .status,
        200
    );
    assert_eq!(
        put("/v1/me/talk-settings", json!({"who": "nobody"}))
            .await
            .status,
        200
    );
    assert_eq!(
        put("/v1/me/vacation/auto", json!({"on": false}))
            .await
            .status,
        200
    );
    let started = app.post("/v1/me/vacation", &minji, json!({})).await;
    assert_eq!(started.status, 200, "{}", started.body);
    let row = format!(
        "SELECT count(*) AS n FROM users WHERE id = '{id}' AND NOT auto_accept_friends \
         AND talk = 'nobody' AND NOT auto_vacation AND vacation_since IS NOT NULL"
    );
    assert_eq!(
        app.count(row).await,
        1,
        "the row the previous release reads"
    );
    app.stop().await;
}
