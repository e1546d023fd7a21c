//! Every table holding a player's data has an owner that forgets and
//! exports it (docs/decisions/accounts-and-sessions.md, "Whose data is
//! whose"), found from the migrated database's own catalogue rather than
//! from a list someone must remember to extend.

use crate::support::{plays_on, TestApp};
use diesel::prelude::*;
use diesel::sql_types::Text;
use posthorn::deletion::owners;
use posthorn::personal::Exported;
use posthorn_rules::SplitMix64;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

#[derive(QueryableByName)]
struct Column {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
}

/// The tables that may hold a player's data, each with the columns that
/// name one: the account table itself; every column with a foreign key to
/// `users(id)`; every uuid column named like a person (`*_by`, `*user*`,
/// `*player*`, `author*`, `owner`), since some reference players by id
/// with no key (the raw-SQL `notices`, the jobs' owner).
fn personal_columns(conn: &mut PgConnection) -> BTreeMap<String, BTreeSet<String>> {
    let found: Vec<Column> = diesel::sql_query(
        "SELECT c.relname::text AS table_name, a.attname::text AS column_name \
           FROM pg_class c \
           JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public' \
           JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped \
          WHERE c.relkind = 'r' AND c.relname NOT LIKE '\\_\\_%' AND ( \
                (c.relname = 'users' AND a.attname = 'id') \
             OR EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid \
                          AND k.contype = 'f' AND k.confrelid = 'users'::regclass \
                          AND a.attnum = ANY (k.conkey)) \
             OR (a.atttypid = 'uuid'::regtype \
                 AND a.attname ~ '(_by$|user|player|^author|^owner$)'))",
    )
    .load(conn)
    .unwrap();
    let mut tables: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for c in found {
        tables
            .entry(c.table_name)
            .or_default()
            .insert(c.column_name);
    }
    tables
}

/// The personal tables no owner covers.
fn uncovered(tables: &BTreeMap<String, BTreeSet<String>>) -> Vec<&str> {
    (tables.keys())
        .filter(|t| !owners().any(|o| o.tables.contains(&t.as_str())))
        .map(String::as_str)
        .collect()
}

#[actix_web::test]
async fn every_table_holding_a_players_data_has_an_owner_and_a_toy_table_has_none() {
    let app = TestApp::start().await;
    let (found, all, toy) = app
        .blocking(|s| {
            let conn = &mut s.pool.get().unwrap();
            let found = personal_columns(conn);
            let all: Vec<String> = diesel::sql_query(
                "SELECT tablename::text AS table_name, '' AS column_name FROM pg_tables \
                  WHERE schemaname = 'public' AND tablename NOT LIKE '\\_\\_%'",
            )
            .load::<Column>(conn)
            .unwrap()
            .into_iter()
            .map(|c| c.table_name)
            .collect();
            diesel::sql_query(
                "CREATE TABLE toy_trophies (holder uuid NOT NULL REFERENCES users(id), name text)",
            )
            .execute(conn)
            .unwrap();
            let toy = personal_columns(conn);
            (found, all, toy)
        })
        .await;
    println!(
        "{} of the database's {} tables hold a player's data: {:?}",
        found.len(),
        all.len(),
        found
    );
    assert!(found.len() >= 30, "the catalogue was read: {found:?}");
    assert!(
        found["notices"].contains("user_id"),
        "a table written by raw SQL alone is found"
    );
    assert_eq!(uncovered(&found), Vec::<&str>::new(), "tables nobody owns");
    assert_eq!(uncovered(&toy), vec!["toy_trophies"], "the check bites");
    // Every table an owner names exists, and one owner answers for it.
    let mut named = BTreeMap::new();
    for owner in owners() {
        for table in owner.tables {
            assert!(all.iter().any(|t| t == table), "{}: {table}", owner.module);
            let first = named.insert(*table, owner.module);
            assert_eq!(first, None, "{table} has two owners");
        }
    }
    app.stop().await;
}

/// How many rows of each personal table name `user`, by table.
async fn rows_naming(app: &TestApp, user: uuid::Uuid) -> BTreeMap<String, i64> {
    app.blocking(move |s| {
        let conn = &mut s.pool.get().unwrap();
        let mut counts = BTreeMap::new();
        for (table, columns) in personal_columns(conn) {
            let naming: Vec<String> = columns.iter().map(|c| format!("{c} = $1")).collect();
            #[derive(QueryableByName)]
            struct N {
                #[diesel(sql_type = diesel::sql_types::BigInt)]
                n: i64,
            }
            let n: N = diesel::sql_query(format!(
                "SELECT count(*) AS n FROM {table} WHERE {}",
                naming.join(" OR ")
            ))
            .bind::<diesel::sql_types::Uuid, _>(user)
            .get_result(conn)
            .unwrap();
            counts.insert(table, n.n);
        }
        counts
    })
    .await
}

/// The values at `path` in `doc` ("matches/*/note": each match's note).
fn at<'a>(doc: &'a Value, path: &str) -> Vec<&'a Value> {
    let mut here = vec![doc];
    for key in path.split('/') {
        here = here
            .into_iter()
            .flat_map(|v| match key {
                "*" => v.as_array().map(|a| a.iter().collect()).unwrap_or_default(),
                _ => v.get(key).into_iter().collect::<Vec<_>>(),
            })
            .collect();
    }
    here
}

/// A player who solved the daily puzzle, finished a first step, asked for
/// the morning notice and is in the middle of a rated match deletes the
/// account: the export before held all of it; after, no row of an owner
/// that keeps nothing names them, the opponent won the match and their
/// rating moved.
#[actix_web::test]
async fn a_deleted_player_leaves_no_puzzle_lesson_or_morning_and_the_opponent_keeps_the_win() {
    let app = TestApp::start().await;
    crate::puzzles::seed(&app, 20).await;
    let pat = app.register("pat").await;
    let opal = app.register("opal").await;
    let me = app.get("/v1/me", &pat).await.body;
    let pat_id: uuid::Uuid = me["id"].as_str().unwrap().parse().unwrap();
    // The daily puzzle, solved.
    crate::puzzles::solve_daily(&app, pat.clone()).await;
    // A first step, completed.
    let game = posthorn_rules::GameId::Checkers;
    let lesson = posthorn_rules::lessons::lessons(game).remove(0);
    let path = format!("/v1/lessons/{}/{}/moves", game.id(), lesson.key);
    let done = app.post(&path, &pat, json!({"actions": lesson.line})).await;
    assert_eq!(done.body["verdict"], "done", "{}", done.body);
    // The morning notice, asked for and told once.
    let asked = app
        .request(
            "PUT",
            "/v1/me/notification-settings",
            Some(&pat),
            Some(json!({"daily_puzzle": true})),
            &[],
        )
        .await;
    assert_eq!(asked.status, 200, "{}", asked.body);
    let now = posthorn::clock::Clock::now(&app.clock);
    let told = app
        .blocking(move |s| posthorn::puzzles::morning::enqueue_due(&mut s.pool.get().unwrap(), now))
        .await
        .unwrap();
    assert!(told >= 1, "the morning notice was queued");
    // A rated match in play, both having moved.
    let m = app
        .post(
            "/v1/matches",
            &pat,
            json!({"game": "checkers", "opponents": ["opal"], "rated": true}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    let mut random = SplitMix64::new(3);
    let playing = app
        .play_moves(&[&pat, &opal], &id, &mut random, 4, plays_on)
        .await;
    assert_eq!(playing["status"], "active");

    let before = rows_naming(&app, pat_id).await;
    for table in [
        "puzzle_attempts",
        "puzzle_ratings",
        "lessons_done",
        "puzzle_mornings",
    ] {
        assert!(
            before[table] > 0,
            "{table} holds pat's row before: {before:?}"
        );
    }
    let export = app.get("/v1/me/export", &pat).await;
    assert_eq!(export.status, 200, "{}", export.body);
    let doc = app
        .request("GET", "/v1/openapi.json", None, None, &[])
        .await
        .body;
    let schema = crate::schemas::component(&doc, "Export");
    crate::schemas::assert_valid(&schema, "Export", &export.body);
    let export = export.body;
    let attempts = &export["puzzles"]["attempts"];
    assert_eq!(attempts[0]["state"], "solved", "{attempts}");
    assert!(attempts[0]["daily"].is_string());
    assert_eq!(export["puzzles"]["ratings"][0]["game"], "checkers");
    assert_eq!(export["puzzles"]["mornings"].as_array().unwrap().len(), 1);
    assert_eq!(export["lessons"][0]["step"], lesson.key);
    assert_eq!(export["settings"]["notifications"]["daily_puzzle"], true);
    assert!(export["matches"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["match"]["id"] == id.as_str()));
    // Every place an owner says its rows are exported is in the document.
    for owner in owners() {
        if let Exported::In(paths) = owner.exported {
            for path in paths {
                assert!(!at(&export, path).is_empty(), "{}: {path}", owner.module);
            }
        }
    }

    let gone = app
        .request(
            "POST",
            "/v1/me/deletion",
            Some(&pat),
            Some(json!({"password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!(gone.status, 204, "{}", gone.body);
    let after = rows_naming(&app, pat_id).await;
    for owner in owners().filter(|o| o.kept.is_empty()) {
        for table in owner.tables {
            assert_eq!(
                after.get(*table),
                Some(&0),
                "{}: {table} {after:?}",
                owner.module
            );
        }
    }
    // The match ended as pat's resignation: opal won, and opal's rating
    // change is written.
    let ended = app.get(&format!("/v1/matches/{id}"), &opal).await.body;
    assert_eq!(ended["status"], "finished");
    let opal_seat = ended["my_seats"][0].clone();
    assert_eq!(
        ended["result"]["winners"],
        json!([opal_seat]),
        "{}",
        ended["result"]
    );
    let changes = ended["result"]["ratings"].as_array().expect("rated");
    assert!(changes
        .iter()
        .any(|c| c["seat"] == opal_seat && c["change"].as_f64().unwrap() > 0.0));
    let opal_id = app.get("/v1/me", &opal).await.body["id"].clone();
    let opal_id: uuid::Uuid = opal_id.as_str().unwrap().parse().unwrap();
    let opal_rows = rows_naming(&app, opal_id).await;
    assert_eq!(opal_rows["rating_changes"], 1);
    app.stop().await;
}
