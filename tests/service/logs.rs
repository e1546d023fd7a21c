//! What the service logs, read by a test: a `tracing` subscriber for this
//! test binary that keeps the events naming an id a test watches, each
//! with the spans it sits in, outermost first (every other event is
//! dropped, so the other tests run as before). The `log` crate's lines
//! join through `tracing-log`, as they do in the binary.

use std::fmt::Debug;
use std::sync::{Mutex, Once};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Event, Subscriber};
use tracing_log::NormalizeEvent;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

static WATCHED: Mutex<Vec<(String, Vec<String>)>> = Mutex::new(Vec::new());

/// Fields as a line shows them, as the binary's formatter writes them:
/// `name=value` by `Debug` (a bare `&str` quoted, so an id recorded
/// without `%` would not read `request_id=<id>`), the message bare; the
/// `log` crate's own (`log.target`, …) left out.
#[derive(Default)]
struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.put(field, format!("{value:?}"));
    }
}

impl Fields {
    fn put(&mut self, field: &Field, value: String) {
        match field.name() {
            "message" => self.0.push_str(&format!("{value} ")),
            name if name.starts_with("log.") => {}
            name => self.0.push_str(&format!("{name}={value} ")),
        }
    }
}

/// A span as a line shows it: `job{request_id=… kind=…}`.
struct Shown(String);

struct Keeper;

impl<S> Layer<S> for Keeper
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        let shown = format!("{}{{{}}}", attrs.metadata().name(), fields.0.trim_end());
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(Shown(shown));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let normalized = event.normalized_metadata();
        let meta = normalized.as_ref().unwrap_or_else(|| event.metadata());
        if !meta.target().starts_with("posthorn") {
            return;
        }
        let mut watched = WATCHED.lock().unwrap();
        if watched.is_empty() {
            return;
        }
        let spans: Vec<String> = (ctx.event_scope(event).into_iter())
            .flat_map(|scope| scope.from_root())
            .filter_map(|span| span.extensions().get::<Shown>().map(|s| s.0.clone()))
            .collect();
        let mut fields = Fields::default();
        event.record(&mut fields);
        let line = format!(
            "{} {}: {}",
            meta.target(),
            spans.join(":"),
            fields.0.trim_end()
        );
        for (id, lines) in watched.iter_mut() {
            if line.contains(id.as_str()) {
                lines.push(line.clone());
            }
        }
    }
}

/// Keep the service's events naming `id` (in their own fields or their
/// spans') from now on.
pub fn watch(id: &str) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let subscriber = tracing_subscriber::registry().with(Keeper);
        if tracing::subscriber::set_global_default(subscriber).is_ok() {
            let _ = tracing_log::LogTracer::init();
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
