//! Delivering the outbox: claim due rows with `FOR UPDATE SKIP LOCKED` (so
//! two workers never send one row twice), send, and record the result;
//! failures retry with exponential backoff up to the configured attempts,
//! then stay recorded as failed.

use super::outbox::Row;
use super::reading::Reading;
use super::recipients::Recipients;
use super::when;
use super::Courier;
use super::Kind;
use crate::config::Config;
use askama::Template;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::{FileTransport, Message, SmtpTransport, Transport};
use serde_json::Value;

#[derive(Template)]
#[template(path = "email/message.txt")]
pub(super) struct TextBody<'a> {
    pub(super) greeting: &'a str,
    pub(super) headline: &'a str,
    pub(super) detail: &'a str,
    pub(super) link_label: &'a str,
    pub(super) link: &'a str,
    pub(super) footer: &'a str,
    pub(super) unsubscribe_label: &'a str,
    pub(super) unsubscribe: &'a str,
}

#[derive(Template)]
#[template(path = "email/message.html")]
struct HtmlBody<'a> {
    lang: &'a str,
    subject: &'a str,
    greeting: &'a str,
    headline: &'a str,
    detail: &'a str,
    link_label: &'a str,
    link: &'a str,
    footer: &'a str,
    unsubscribe_label: &'a str,
    unsubscribe: &'a str,
    /// The board's description when the mail shows one ([`BOARD_ID`]).
    board: Option<&'a str>,
}

/// The Content-ID of a mail's board: the HTML shows it from inside the
/// mail (`cid:`), not from a link a mail client may block or a forwarded
/// mail may leak (issue #69 item 5, docs/pictures.md).
const BOARD_ID: &str = "board";

enum Channel {
    Smtp(SmtpTransport),
    Files(FileTransport),
}

/// Sends in flight at once within a batch. A send mostly waits (an SMTP
/// message ~40 ms on lettre's two writes, a push on its service), so the
/// threads cost little CPU; the SMTP pool holds as many connections.
pub const SENDERS: usize = 64;
/// Sends email over SMTP, or into `.eml` files when no server is set.
pub struct Mailer {
    channel: Channel,
    pub(super) from: Mailbox,
}

impl Mailer {
    pub fn from_config(config: &Config) -> Result<Mailer, String> {
        let from: Mailbox = config
            .mail_from
            .parse()
            .map_err(|e| format!("POSTHORN_MAIL_FROM {:?}: {e}", config.mail_from))?;
        let channel = match &config.smtp_url {
            Some(url) => {
                // `tls=starttls` is our spelling of lettre's `tls=required`.
                let url = url.replace("tls=starttls", "tls=required");
                let transport = SmtpTransport::from_url(&url)
                    .map_err(|e| format!("POSTHORN_SMTP_URL: {e}"))?
                    .timeout(Some(std::time::Duration::from_secs(10)))
                    // One pooled connection per sender thread.
                    .pool_config(
                        lettre::transport::smtp::PoolConfig::new().max_size(SENDERS as u32),
                    )
                    .build();
                Channel::Smtp(transport)
            }
            None => {
                let dir = config.data_dir.join("mail");
                std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                Channel::Files(FileTransport::new(dir))
            }
        };
        Ok(Mailer { channel, from })
    }

    pub(super) fn send(&self, message: &Message) -> Result<(), String> {
        match &self.channel {
            Channel::Smtp(t) => t.send(message).map(|_| ()).map_err(|e| e.to_string()),
            Channel::Files(t) => t.send(message).map(|_| ()).map_err(|e| e.to_string()),
        }
    }
}

pub(super) struct Words {
    pub(super) subject: String,
    pub(super) headline: String,
    pub(super) detail: String,
    /// What the link says: fit for the kind ("퍼즐 풀기" for a puzzle).
    pub(super) link: String,
}

/// The words of one notification in its reader's language and time, from
/// `templates/words/` (the payload fills the placeholders).
pub(super) fn words(kind: Kind, reading: &Reading, payload: &Value) -> Words {
    let locale = reading.locale;
    let name = kind.name();
    let link = locale.word(&format!("{name}.link")).to_owned();
    if kind == Kind::Digest {
        return digest_words(reading, payload, link);
    }
    // A tournament invitation names its variant among its terms, always;
    // elsewhere the game's name carries it where it is not the default.
    let terms = kind == Kind::TournamentInvited;
    let game = reading.game(
        payload["game"].as_str().unwrap_or_default(),
        payload["variant"].as_str().filter(|_| !terms),
    );
    let (deadline, left) = reading.deadline(&payload["deadline_at"]);
    let (result, rating) = match kind {
        Kind::MatchFinished => reading.result(payload),
        _ => Default::default(),
    };
    let reason = payload["reason"].as_str().unwrap_or_default();
    let reason = reading.word_or(&format!("reason_{reason}"), reason);
    let army = payload["army"].as_str().map_or_else(
        || locale.word("player_eliminated.someone").to_owned(),
        |side| reading.word_or(&format!("side_{side}"), side),
    );
    // "until …", when the vacation has an end date.
    let until = when::read(&payload["until"]).map_or(String::new(), |at| {
        let time = when::moment(locale, reading.zone, at);
        locale.say("opponent_on_vacation.until", &[("time", &time)])
    });
    let tournament = payload["tournament"].as_str().unwrap_or_default();
    let standings = payload["standings"].as_str().unwrap_or_default();
    // A tournament invitation's terms (docs/abuse.md, "Tournament
    // invitations"): seen before joining.
    let variant = payload["variant"]
        .as_str()
        .filter(|_| terms)
        .map_or(String::new(), |v| {
            format!(" ({})", reading.word_or(&format!("variant_{v}"), v))
        });
    let turn_hours = payload["turn_hours"].as_f64().map_or(String::new(), |h| {
        format!("{}", (h * 100.0).round() / 100.0)
    });
    let rated = locale.word(if payload["rated"] == true {
        "tournament_invited.rated"
    } else {
        "tournament_invited.unrated"
    });
    // New messages: a message notice's count, or the one folded into a
    // turn notice (docs/decisions/table-talk.md, "Hearing of a message").
    let n = payload["unread"]
        .as_i64()
        .or(payload["unread_messages"].as_i64())
        .unwrap_or(0)
        .to_string();
    let values = [
        ("n", n.as_str()),
        ("variant", variant.as_str()),
        ("turn_hours", turn_hours.as_str()),
        ("rated", rated),
        ("tournament", tournament),
        ("standings", standings),
        ("game", game.as_str()),
        ("deadline", deadline.as_str()),
        ("left", left.as_str()),
        ("reason", reason.as_str()),
        ("result", result.as_str()),
        ("army", army.as_str()),
        ("until", until.as_str()),
    ];
    // A cancellation says why: declined, expired, or (otherwise) withdrawn.
    let detail = match (kind, payload["reason"].as_str()) {
        (Kind::MatchCancelled, Some(why @ ("declined" | "expired"))) => format!("{name}.{why}"),
        (Kind::TakebackAnswered, _) if payload["accepted"] == false => format!("{name}.declined"),
        _ => format!("{name}.detail"),
    };
    let mut detail = rating.unwrap_or_else(|| locale.say(&detail, &values));
    if kind == Kind::YourTurn && payload["unread_messages"].as_i64() > Some(0) {
        detail = format!("{detail}\n{}", locale.say("your_turn.messages", &values));
    }
    let moved = (kind == Kind::YourTurn)
        .then(|| reading.last_move(&payload["last"]))
        .flatten();
    Words {
        subject: locale.say(&format!("{name}.subject"), &values),
        headline: moved.unwrap_or_else(|| locale.say(&format!("{name}.headline"), &values)),
        detail,
        link,
    }
}

/// The digest lists each awaiting match, nearest deadline first, then
/// the tables with new messages (docs/decisions/table-talk.md, "Hearing of
/// a message").
fn digest_words(reading: &Reading, payload: &Value, link: String) -> Words {
    let locale = reading.locale;
    let items = payload["matches"].as_array().cloned().unwrap_or_default();
    let talk = payload["messages"].as_array().cloned().unwrap_or_default();
    let game = |m: &Value| {
        reading.game(
            m["game"].as_str().unwrap_or_default(),
            m["variant"].as_str(),
        )
    };
    let awaiting = items.iter().map(|m| {
        let (deadline, left) = reading.deadline(&m["deadline_at"]);
        let values = [("game", game(m)), ("deadline", deadline), ("left", left)];
        let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
        locale.say("digest.detail", &values)
    });
    let new_messages = talk.iter().map(|m| {
        let n = m["unread"].as_i64().unwrap_or(0).to_string();
        locale.say("digest.messages", &[("game", &game(m)), ("n", &n)])
    });
    let (subject, headline) = match items.len() {
        0 => (
            locale.word("digest.subject_messages").to_owned(),
            locale.word("digest.headline_messages"),
        ),
        n => (
            locale.say("digest.subject", &[("n", &n.to_string())]),
            locale.word("digest.headline"),
        ),
    };
    Words {
        subject,
        headline: headline.to_owned(),
        detail: awaiting.chain(new_messages).collect::<Vec<_>>().join("\n"),
        link,
    }
}

/// A mail's body: its plain text and its HTML, the reader's client picks;
/// with a `board`, the HTML is related to the PNG it shows.
pub(super) fn text_and_html(text: String, html: String, board: Option<&[u8]>) -> MultiPart {
    let text = SinglePart::builder()
        .header(ContentType::TEXT_PLAIN)
        .body(text);
    let html = SinglePart::builder()
        .header(ContentType::TEXT_HTML)
        .body(html);
    let alternative = MultiPart::alternative().singlepart(text);
    match board {
        None => alternative.singlepart(html),
        Some(png) => {
            let png_type = ContentType::parse("image/png").expect("a well-formed type");
            let picture = Attachment::new_inline(BOARD_ID.into()).body(png.to_vec(), png_type);
            alternative.multipart(MultiPart::related().singlepart(html).singlepart(picture))
        }
    }
}

pub(super) fn compose(
    courier: &Courier,
    mailer: &Mailer,
    recipients: &Recipients,
    row: &Row,
) -> Result<Option<Message>, String> {
    let to = recipients.person(row.user_id);
    let Some((to, Some(email))) = to.map(|p| (p, &p.email)) else {
        return Ok(None); // no address any more: nothing to send
    };
    let name = &to.name;
    let kind = Kind::parse(&row.kind).ok_or("unknown notification kind")?;
    let locale = to.locale();
    let reading = recipients.reading(row, locale, courier.clock.now());
    let words = words(kind, &reading, &row.payload);
    let base = courier.public_url.trim_end_matches('/');
    let link = kind.link(base, row.match_id);
    let unsubscribe = format!(
        "{base}/v1/unsubscribe?token={}",
        courier.keys.sign_unsubscribe(row.user_id, kind.name())
    );
    let greeting = locale.say("mail.greeting", &[("name", name)]);
    let link_label = words.link.as_str();
    let footer = locale.word("mail.footer");
    let unsubscribe_label = locale.word("mail.unsubscribe");
    let board = recipients.board(row.id);
    let text = TextBody {
        greeting: &greeting,
        headline: &words.headline,
        detail: &words.detail,
        link_label,
        link: &link,
        footer,
        unsubscribe_label,
        unsubscribe: &unsubscribe,
    }
    .render()
    .map_err(|e| e.to_string())?;
    let html = HtmlBody {
        lang: locale.tag(),
        subject: &words.subject,
        greeting: &greeting,
        headline: &words.headline,
        detail: &words.detail,
        link_label,
        link: &link,
        footer,
        unsubscribe_label,
        unsubscribe: &unsubscribe,
        board: board.map(|_| locale.word("mail.board")),
    }
    .render()
    .map_err(|e| e.to_string())?;
    let to: Mailbox = format!("{name} <{email}>")
        .parse()
        .or_else(|_| email.parse())
        .map_err(|e| format!("address: {e}"))?;
    let header = |name: &'static str, value: String| {
        HeaderValue::new(HeaderName::new_from_ascii_str(name), value)
    };
    Message::builder()
        .from(mailer.from.clone())
        .to(to)
        .subject(words.subject)
        .raw_header(header("List-Unsubscribe", format!("<{unsubscribe}>")))
        .raw_header(header(
            "List-Unsubscribe-Post",
            "List-Unsubscribe=One-Click".into(),
        ))
        .multipart(text_and_html(text, html, board))
        .map(Some)
        .map_err(|e| e.to_string())
}
