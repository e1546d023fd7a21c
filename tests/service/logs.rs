//! What the service logs, read by a test: a logger for this test binary
//! that keeps the lines naming an id a test watches (every other line is
//! dropped, so the other tests run as before).

use std::sync::{Mutex, Once};

static WATCHED: Mutex<Vec<(String, Vec<String>)>> = Mutex::new(Vec::new());

struct Keeper;

impl log::Log for Keeper {
    fn enabled(&self, meta: &log::Metadata) -> bool {
        meta.target().starts_with("posthorn")
    }

    fn log(&self, record: &log::Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let mut watched = WATCHED.lock().unwrap();
        if watched.is_empty() {
            return;
        }
        let line = format!("{} {}", record.target(), record.args());
        for (id, lines) in watched.iter_mut() {
            if line.contains(id.as_str()) {
                lines.push(line.clone());
            }
        }
    }

    fn flush(&self) {}
}

/// Keep the service's log lines naming `id` from now on.
pub fn watch(id: &str) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        if log::set_boxed_logger(Box::new(Keeper)).is_ok() {
            log::set_max_level(log::LevelFilter::Debug);
        }
    });
    WATCHED.lock().unwrap().push((id.to_owned(), Vec::new()));
}

/// The lines kept for `id`, in the order they were logged.
pub fn lines(id: &str) -> Vec<String> {
    let watched = WATCHED.lock().unwrap();
    (watched.iter().find(|(w, _)| w == id))
        .map(|(_, lines)| lines.clone())
        .unwrap_or_default()
}
