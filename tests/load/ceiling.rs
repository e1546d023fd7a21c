//! The ceiling of the stack: `pgbench -N`'s own transaction served over
//! the same HTTP server, pool, queue and blocking threads as an action.
//!
//! An action can cost no less than this, whatever its tables and indexes:
//! it is the least durable write a request can make through actix-web,
//! `db::run` and diesel. Its ratio to `pgbench -N` is the most any action
//! could reach on the machine the load runs on (`LOAD_TARGET=ceiling`).

use actix_web::{web, App, HttpResponse, HttpServer};
use diesel::prelude::*;
use posthorn::db::{self, Pool};
use posthorn::http::error::ApiError;
use serde::Deserialize;

diesel::table! {
    pgbench_accounts (aid) {
        aid -> Integer,
        bid -> Integer,
        abalance -> Integer,
    }
}

// pgbench's history has no key; diesel wants one named, and only inserts.
diesel::table! {
    pgbench_history (aid) {
        tid -> Integer,
        bid -> Integer,
        aid -> Integer,
        delta -> Integer,
        mtime -> Timestamp,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transfer {
    pub aid: i32,
    pub bid: i32,
    pub tid: i32,
    pub delta: i32,
}

/// `pgbench -N`: update an account, read its balance, log the change.
async fn transfer(
    pool: web::Data<Pool>,
    body: web::Json<Transfer>,
) -> Result<HttpResponse, ApiError> {
    let t = body.into_inner();
    let balance: i32 = db::run(&pool, move |c| {
        use pgbench_accounts::dsl as a;
        diesel::update(a::pgbench_accounts.find(t.aid))
            .set(a::abalance.eq(a::abalance + t.delta))
            .execute(c)?;
        let balance = a::pgbench_accounts
            .find(t.aid)
            .select(a::abalance)
            .first(c)?;
        diesel::insert_into(pgbench_history::table)
            .values((
                pgbench_history::tid.eq(t.tid),
                pgbench_history::bid.eq(t.bid),
                pgbench_history::aid.eq(t.aid),
                pgbench_history::delta.eq(t.delta),
                pgbench_history::mtime.eq(diesel::dsl::now),
            ))
            .execute(c)?;
        Ok(balance)
    })
    .await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "abalance": balance })))
}

/// Serve `POST /transfer` on a loopback port with the service's worker
/// count; its address.
pub fn serve(pool: Pool) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(web::Data::new(pool.clone()))
            .route("/transfer", web::post().to(transfer))
    })
    .workers(2)
    .disable_signals()
    .listen(listener)
    .unwrap()
    .run();
    actix_rt::spawn(server);
    addr
}
