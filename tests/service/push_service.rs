//! A local stand-in for a Web Push service: it records what it is sent and
//! answers 201, or 410 for the device named `gone`.

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use std::sync::{Arc, Mutex};

#[derive(Clone, Debug)]
pub struct Received {
    pub device: String,
    pub authorization: String,
    pub encoding: String,
    pub ttl: String,
    pub urgency: String,
    /// RFC 8030's `Topic`: what the message replaces while it waits.
    pub topic: String,
    pub body: Vec<u8>,
}

pub type Inbox = Arc<Mutex<Vec<Received>>>;

async fn push_service(req: HttpRequest, body: web::Bytes, inbox: web::Data<Inbox>) -> HttpResponse {
    let device = req
        .match_info()
        .get("device")
        .unwrap_or_default()
        .to_owned();
    if device == "gone" {
        return HttpResponse::Gone().finish();
    }
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    inbox.lock().unwrap().push(Received {
        device,
        authorization: header("authorization"),
        encoding: header("content-encoding"),
        ttl: header("ttl"),
        urgency: header("urgency"),
        topic: header("topic"),
        body: body.to_vec(),
    });
    HttpResponse::Created().finish()
}

pub async fn start_push_service() -> (String, Inbox) {
    let inbox: Inbox = Arc::default();
    let data = web::Data::new(inbox.clone());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .route("/push/{device}", web::post().to(push_service))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)
    .unwrap()
    .run();
    actix_rt::spawn(server);
    (base, inbox)
}
