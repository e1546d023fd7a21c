//! Pictures of boards (issue #69 item 5, docs/pictures.md): a stranger's
//! picture is made from the spectator's view only, so matches that differ
//! only in what is hidden (FlipChess's hands and deck, Banqi's face-down
//! pieces) draw the same bytes; the match page's picture and a share
//! link's preview are PNGs of their sizes.

use crate::records::played_then_resigned;
use crate::support::TestApp;
use posthorn_rules::{GameId, MatchState, SplitMix64, Viewer};
use serde_json::json;

/// The PNG a stranger gets of `game`'s opening dealt with `seed`, and the
/// state it was drawn from.
fn strangers_picture(game: GameId, seed: u64) -> (Vec<u8>, MatchState) {
    let mut random = SplitMix64::new(seed);
    let events = MatchState::setup(game, &json!({}), 2, &mut random).unwrap();
    let state = MatchState::replay(game, &events).unwrap();
    let drawing = game.drawing(&state.view(Viewer::Spectator)).unwrap();
    let png = posthorn::pictures::png(&drawing, posthorn::pictures::PREVIEW);
    (png.as_ref().clone(), state)
}

#[test]
fn states_differing_only_in_hidden_cards_or_face_down_pieces_draw_the_same_bytes_h4() {
    for game in [GameId::FlipChess, GameId::Banqi] {
        let (first, first_state) = strangers_picture(game, 1);
        for seed in 2..6 {
            let (other, other_state) = strangers_picture(game, seed);
            assert_ne!(first_state, other_state, "{game:?}: dealt otherwise");
            assert_eq!(first, other, "{game:?} seed {seed}: the same bytes");
        }
        let decoded = image::load_from_memory(&first).unwrap();
        assert_eq!(
            (decoded.width(), decoded.height()),
            posthorn::pictures::PREVIEW
        );
    }
    // The check bites: a face-up piece more is drawn.
    let open = MatchState::setup(
        GameId::Banqi,
        &json!({"position": "K???????/????????/????????/????????"}),
        2,
        &mut SplitMix64::new(1),
    );
    if let Ok(events) = open {
        let state = MatchState::replay(GameId::Banqi, &events).unwrap();
        let drawing = GameId::Banqi
            .drawing(&state.view(Viewer::Spectator))
            .unwrap();
        let png = posthorn::pictures::png(&drawing, posthorn::pictures::PREVIEW);
        assert_ne!(*png, strangers_picture(GameId::Banqi, 1).0);
    }
}

#[actix_web::test]
async fn the_match_page_picture_and_a_share_links_preview_are_pngs_of_their_size() {
    let app = TestApp::start().await;
    let ada = app.register("ada_p").await;
    let bob = app.register("bob").await;
    let stranger = app.register("cyrus").await;
    let path = played_then_resigned(&app, "janggi", [&ada, &bob], 4).await;
    let picture = app.get(&format!("{path}/picture"), &ada).await;
    assert_eq!(picture.status, 200, "{}", picture.body);
    assert_eq!(picture.header("content-type"), "image/png");
    let bytes = picture.raw.clone();
    let decoded = image::load_from_memory(&bytes).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (640, 640));
    let step = app.get(&format!("{path}/picture?seq=3"), &ada).await;
    assert_eq!(step.status, 200);
    assert_ne!(step.raw, bytes, "an earlier position draws otherwise");
    assert_eq!(
        app.get(&format!("{path}/picture"), &stranger).await.status,
        404
    );
    assert_eq!(
        app.get(&format!("{path}/picture?seq=0"), &ada).await.status,
        422
    );

    let token = app
        .post(&format!("{path}/share"), &bob, json!({}))
        .await
        .body["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let preview = app
        .request(
            "GET",
            &format!("/v1/shared/{token}/picture"),
            None,
            None,
            &[],
        )
        .await;
    assert_eq!(preview.status, 200);
    let decoded = image::load_from_memory(&preview.raw).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (1200, 630));
    // The game as a GIF: a frame before play and one a play, the first
    // whole, the rest only what changed.
    let gif = app
        .request(
            "GET",
            &format!("/v1/shared/{token}/game.gif"),
            None,
            None,
            &[],
        )
        .await;
    assert_eq!(gif.status, 200);
    assert_eq!(gif.header("content-type"), "image/gif");
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options.read_info(gif.raw.as_slice()).unwrap();
    let (mut frames, mut whole) = (0, 0);
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        frames += 1;
        whole += usize::from(frame.width == 640 && frame.height == 640);
    }
    assert_eq!((decoder.width(), decoder.height()), (640, 640));
    assert_eq!(frames, 5, "before play and after each of four plays");
    assert_eq!(whole, 1, "only the first frame is whole");
    if let Ok(dir) = std::env::var("PICTURES_OUT") {
        std::fs::write(format!("{dir}/janggi.gif"), &gif.raw).unwrap();
        std::fs::write(format!("{dir}/janggi.png"), &bytes).unwrap();
    }
    app.stop().await;
}

/// An invitation link pasted into a chat shows who invites to what and
/// the game's start as anyone sees it, in the reader's language; an
/// unknown code shows nothing of the kind.
#[actix_web::test]
async fn an_invitation_link_previews_the_game_and_who_invites() {
    let app = TestApp::start().await;
    let ada = app.register("ada_i").await;
    let open = app
        .post("/v1/matches", &ada, json!({"game": "janggi"}))
        .await
        .body;
    let code = open["invite"]["code"].as_str().unwrap().to_owned();
    let page = app
        .request(
            "GET",
            &format!("/invite/{code}"),
            None,
            None,
            &[("accept-language", "ko")],
        )
        .await;
    let html = page.body.as_str().unwrap().to_owned();
    assert!(html.contains("ada_i 님이 장기 한 판을 청해요"), "{html}");
    assert!(
        html.contains(&format!("/v1/invites/{code}/picture\"")),
        "{html}"
    );
    let picture = app
        .request(
            "GET",
            &format!("/v1/invites/{code}/picture"),
            None,
            None,
            &[],
        )
        .await;
    assert_eq!(picture.status, 200);
    let decoded = image::load_from_memory(&picture.raw).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (1200, 630));
    let unknown = app
        .request("GET", "/invite/NOSUCHCODE", None, None, &[])
        .await;
    assert_eq!(unknown.status, 200, "the page says so itself");
    assert!(!unknown.body.as_str().unwrap().contains("og:"));
    app.stop().await;
}

/// The PNG a mail shows inline (`Content-ID: <board>`), decoded from its
/// base64 part.
fn inline_board(mail: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    let part = mail.split("Content-ID: <board>").nth(1)?;
    let body = part.split("\r\n\r\n").nth(1)?;
    let encoded: String = (body.lines())
        .take_while(|l| !l.starts_with("--"))
        .collect();
    base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()
}

/// Issue #69 item 5: the "your turn" mail shows the board as its reader
/// may see it: the PNG inside the mail (not a link a client may block or
/// a forwarded mail may leak) is, byte for byte, that reader's picture of
/// the position the mail is about; other mails carry none.
#[actix_web::test]
async fn the_your_turn_mail_shows_the_board_its_reader_may_see() {
    use crate::notifications::{subject, to_address, unfolded};
    use crate::sessions::{app_with_smtp, deliver};
    let smtp = crate::smtp::SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let ada = app.register("ada_m").await;
    let bob = app.register("bob_m").await;
    let m = app
        .post(
            "/v1/matches",
            &ada,
            json!({"game": "banqi", "opponents": ["bob_m"]}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    deliver(&app).await;
    let first = app.get(&format!("/v1/matches/{id}"), &ada).await.body;
    let mover = if first["view"]["on_move"] == first["my_seats"][0] {
        (&ada, &bob, "ada_m", "bob_m")
    } else {
        (&bob, &ada, "bob_m", "ada_m")
    };
    let (mover, other, mover_name, other_name) = mover;
    let turn_mail = |name: &str| {
        (smtp.messages().into_iter())
            .filter(|mail| subject(mail) == "Your move in Banqi")
            .rfind(|mail| to_address(mail).contains(&format!("{name}@")))
    };
    let mail = turn_mail(mover_name).expect("the first mover's mail");
    assert!(unfolded(&mail).contains("src=\"cid:board\""), "{mail}");
    let board = inline_board(&mail).expect("a board inside the mail");
    let seq = first["seq"].as_i64().unwrap();
    let picture = app
        .get(&format!("/v1/matches/{id}/picture?seq={seq}"), mover)
        .await;
    assert_eq!(board, picture.raw, "the reader's own picture of that seq");
    let decoded = image::load_from_memory(&board).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (640, 640));

    // A piece turned up: the other player's mail shows it, face up.
    let reply = app
        .act(mover, &id, json!({"type": "turn_up", "square": "a1"}))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    deliver(&app).await;
    let mail = turn_mail(other_name).expect("the next mover's mail");
    let seq = reply.body["match"]["seq"].as_i64().unwrap();
    let picture = app
        .get(&format!("/v1/matches/{id}/picture?seq={seq}"), other)
        .await;
    let shown = inline_board(&mail).expect("a board inside the mail");
    assert_eq!(shown, picture.raw);
    assert_ne!(shown, board, "the turned-up piece is drawn");

    // The check bites on a mail of another kind: the end shows no board.
    let resigned = app.act(other, &id, json!({"type": "resign"})).await;
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    deliver(&app).await;
    let ended = (smtp.messages().into_iter())
        .find(|mail| subject(mail) == "Your Banqi match has ended")
        .expect("the end's mail");
    assert!(!ended.contains("cid:board") && inline_board(&ended).is_none());
    app.stop().await;
}
