//! Delivering the outbox: claim due rows with `FOR UPDATE SKIP LOCKED` (so
//! two workers never send one row twice), send, and record the result;
//! failures retry with exponential backoff up to the configured attempts,
//! then stay recorded as failed.

use super::outbox::Row;
use super::recipients::Recipient;
use super::Courier;
use super::Kind;
use crate::config::Config;
use askama::Template;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart, SinglePart};
use lettre::{FileTransport, Message, SmtpTransport, Transport};
use serde_json::Value;

#[derive(Template)]
#[template(path = "email/message.txt")]
struct TextBody<'a> {
    greeting: &'a str,
    headline: &'a str,
    detail: &'a str,
    link_label: &'a str,
    link: &'a str,
    footer: &'a str,
    unsubscribe_label: &'a str,
    unsubscribe: &'a str,
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
}

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
}

fn game_name(id: &str) -> &'static str {
    posthorn_rules::GameId::parse(id).map_or("Posthorn", |g| g.about().name)
}

/// An RFC 3339 UTC time as mail shows it: `2030-01-09 09:00:00`.
fn mail_time(time: &Value) -> String {
    let text = time.as_str().unwrap_or_default().replace('T', " ");
    let whole_seconds = text.split('.').next().unwrap_or_default();
    whole_seconds.trim_end_matches('Z').to_owned()
}

/// The words of one notification, in English or Korean.
pub(super) fn words(kind: Kind, korean: bool, payload: &Value) -> Words {
    let game = game_name(payload["game"].as_str().unwrap_or_default());
    let deadline = mail_time(&payload["deadline_at"]) + " UTC";
    let reason = payload["result"]["reason"]
        .as_str()
        .unwrap_or("finished")
        .replace('_', " ");
    let w = |subject: String, headline: &str, detail: String| Words {
        subject,
        headline: headline.to_owned(),
        detail,
    };
    match (kind, korean) {
        (Kind::YourTurn, false) => w(
            format!("Your move in {game}"),
            "It's your turn.",
            format!("Make your move before {deadline}."),
        ),
        (Kind::YourTurn, true) => w(
            format!("{game}: 내 차례예요"),
            "내 차례예요.",
            format!("{deadline}까지 두세요."),
        ),
        (Kind::TimeoutNotice, false) => w(
            format!("Time is running out in {game}"),
            "Your time is half gone.",
            format!("Move before {deadline}, or the match is lost by abandonment."),
        ),
        (Kind::TimeoutNotice, true) => w(
            format!("{game}: 시간이 얼마 남지 않았어요"),
            "남은 시간이 절반이에요.",
            format!("{deadline}까지 두지 않으면 기권패가 돼요."),
        ),
        (Kind::MatchFinished, false) => w(
            format!("Your {game} match has ended"),
            "The match is over.",
            format!("It ended by {reason}."),
        ),
        (Kind::MatchFinished, true) => w(
            format!("{game} 대국이 끝났어요"),
            "대국이 끝났어요.",
            format!("종료 사유: {reason}"),
        ),
        (Kind::Invitation, false) => w(
            format!("You're invited to play {game}"),
            "A friend wants to play.",
            "Open the match to see it.".into(),
        ),
        (Kind::Invitation, true) => w(
            format!("{game} 대국 초대가 왔어요"),
            "친구가 대국을 신청했어요.",
            "대국을 열어 확인하세요.".into(),
        ),
        (Kind::InvitationAccepted, false) => w(
            format!("Your {game} invitation was accepted"),
            "Your opponent is here.",
            "The match has begun.".into(),
        ),
        (Kind::InvitationAccepted, true) => w(
            format!("{game} 초대를 상대가 수락했어요"),
            "상대가 들어왔어요.",
            "대국이 시작됐어요.".into(),
        ),
        (Kind::DrawOffered, false) => w(
            format!("Draw offered in {game}"),
            "Your opponent offers a draw.",
            format!("Answer before {deadline}."),
        ),
        (Kind::DrawOffered, true) => w(
            format!("{game}: 무승부 제안이 왔어요"),
            "상대가 무승부를 제안했어요.",
            format!("{deadline}까지 답하세요."),
        ),
        (Kind::FlipDecision, false) => w(
            format!("{game}: your king was taken"),
            "Flip the board or concede.",
            format!("Decide before {deadline}."),
        ),
        (Kind::PlayerEliminated, false) => w(
            format!("A player is out of your {game} match"),
            &format!("{} is out.", payload["army"].as_str().unwrap_or("A player")),
            format!(
                "Out by {}; play goes on for the others.",
                payload["reason"]
                    .as_str()
                    .unwrap_or("elimination")
                    .replace('_', " ")
            ),
        ),
        (Kind::PlayerEliminated, true) => w(
            format!("{game}: 탈락한 플레이어가 있어요"),
            &format!(
                "{} 진영이 탈락했어요.",
                payload["army"].as_str().unwrap_or("한")
            ),
            format!(
                "사유: {}. 남은 플레이어끼리 계속 둬요.",
                payload["reason"]
                    .as_str()
                    .unwrap_or("탈락")
                    .replace('_', " ")
            ),
        ),
        (Kind::MatchCancelled, false) => w(
            format!("Your {game} match was cancelled"),
            "The match will not be played.",
            match payload["reason"].as_str() {
                Some("declined") => "A challenged player declined.".to_owned(),
                Some("expired") => "A challenge went unanswered for 7 days.".to_owned(),
                _ => "Its creator withdrew it.".to_owned(),
            },
        ),
        (Kind::MatchCancelled, true) => w(
            format!("{game} 대국이 취소됐어요"),
            "대국이 열리지 않아요.",
            match payload["reason"].as_str() {
                Some("declined") => "도전받은 플레이어가 거절했어요.".to_owned(),
                Some("expired") => "7일 동안 답이 없었어요.".to_owned(),
                _ => "만든 사람이 취소했어요.".to_owned(),
            },
        ),
        (Kind::Digest, _) => digest_words(korean, payload),
        (Kind::FlipDecision, true) => w(
            format!("{game}: 킹이 잡혔어요"),
            "판 돌리기를 하거나 승복하세요.",
            format!("{deadline}까지 고르세요."),
        ),
    }
}

/// The digest lists each awaiting match, nearest deadline first.
fn digest_words(korean: bool, payload: &Value) -> Words {
    let items = payload["matches"].as_array().cloned().unwrap_or_default();
    let lines: Vec<String> = items
        .iter()
        .map(|m| {
            let game = game_name(m["game"].as_str().unwrap_or_default());
            let deadline = mail_time(&m["deadline_at"]);
            if korean {
                format!("{game} — {deadline} UTC까지")
            } else {
                format!("{game} — before {deadline} UTC")
            }
        })
        .collect();
    let n = items.len();
    Words {
        subject: if korean {
            format!("오늘 둘 대국 {n}개")
        } else {
            format!("{n} matches await your move")
        },
        headline: if korean {
            "내 차례인 대국이에요.".into()
        } else {
            "These matches await you:".into()
        },
        detail: lines.join("\n"),
    }
}

/// A mail's body: its plain text and its HTML, the reader's client picks.
pub(super) fn text_and_html(text: String, html: String) -> MultiPart {
    MultiPart::alternative()
        .singlepart(
            SinglePart::builder()
                .header(ContentType::TEXT_PLAIN)
                .body(text),
        )
        .singlepart(
            SinglePart::builder()
                .header(ContentType::TEXT_HTML)
                .body(html),
        )
}

pub(super) fn compose(
    courier: &Courier,
    mailer: &Mailer,
    to: Option<&Recipient>,
    row: &Row,
) -> Result<Option<Message>, String> {
    let Some((to, Some(email))) = to.map(|p| (p, &p.email)) else {
        return Ok(None); // no address any more: nothing to send
    };
    let name = &to.name;
    let kind = Kind::parse(&row.kind).ok_or("unknown notification kind")?;
    let korean = to.korean();
    let words = words(kind, korean, &row.payload);
    let base = courier.public_url.trim_end_matches('/');
    let link = if kind == Kind::Digest {
        format!("{base}/matches")
    } else {
        format!("{base}/matches/{}", row.match_id)
    };
    let unsubscribe = format!(
        "{base}/v1/unsubscribe?token={}",
        courier.keys.sign_unsubscribe(row.user_id, kind.name())
    );
    let (greeting, link_label, footer, unsubscribe_label) = if korean {
        (
            format!("{name}님, 안녕하세요."),
            "대국 열기",
            "Posthorn 알림입니다.",
            "이 알림 그만 받기",
        )
    } else {
        (
            format!("Hi {name},"),
            "Open the match",
            "You get this because of your Posthorn notification settings.",
            "Stop these emails",
        )
    };
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
        lang: if korean { "ko" } else { "en" },
        subject: &words.subject,
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
        .multipart(text_and_html(text, html))
        .map(Some)
        .map_err(|e| e.to_string())
}
