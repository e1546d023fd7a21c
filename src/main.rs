//! `posthorn`: with no arguments, serve (README lists the environment).

use posthorn::{clock::SystemClock, config::Config, localdb::LocalPostgres};
use std::process::ExitCode;
use std::sync::Arc;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    match serve() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log::error!("{e}");
            eprintln!("posthorn: {e}");
            ExitCode::FAILURE
        }
    }
}

fn serve() -> Result<(), String> {
    let config = Config::from_env()?;
    // No DATABASE_URL: run a private PostgreSQL in the data folder.
    let (url, local) = match &config.database_url {
        Some(url) => (url.clone(), None),
        None => {
            let pg = LocalPostgres::start(&config.data_dir.join("postgres"), "posthorn")?;
            (pg.url("posthorn"), Some(pg))
        }
    };
    let result = run_server(config, &url);
    if let Some(pg) = local {
        log::info!("stopping the private PostgreSQL");
        pg.stop();
    }
    result
}

#[actix_web::main]
async fn run_server(config: Config, database_url: &str) -> Result<(), String> {
    let bind = config.bind.clone();
    let interval = std::time::Duration::from_secs(config.sweep_interval_seconds);
    let state = posthorn::app_state(config, database_url, Arc::new(SystemClock))?;
    let _sweeper = posthorn::jobs::start(state.clone(), interval).await?;
    log::info!("serving on http://{bind}; deadlines swept every {interval:?}");
    let listener =
        std::net::TcpListener::bind(&bind).map_err(|e| format!("cannot listen on {bind}: {e}"))?;
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    posthorn::http::edge::serve(state, listener, workers, true)
        .map_err(|e| format!("cannot serve on {bind}: {e}"))?
        .await
        .map_err(|e| e.to_string())
}
