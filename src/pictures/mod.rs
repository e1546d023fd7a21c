//! Pictures of boards (issue #69 item 5, docs/pictures.md): a rules
//! [`Drawing`] — made from a view, so from what its reader may see and
//! nothing else (§H4) — painted as the web client draws it (its ground
//! colours, discs and inks) and encoded by the `image` crate as PNG. The
//! pieces' glyphs come from two fonts subset to the glyphs the boards use
//! (`pieces-cjk.otf` from Noto Sans CJK KR Bold, `pieces-chess.ttf` from
//! DejaVu Sans; both under free licences, docs/pictures.md), drawn by
//! `ab_glyph`. A picture is cached by what it draws and its size.

use ab_glyph::{Font, FontRef, PxScale};
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ImageEncoder, Rgb, RgbImage};
use posthorn_rules::drawing::{Drawing, Ground, Piece};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

static CJK: &[u8] = include_bytes!("pieces-cjk.otf");
static CHESS: &[u8] = include_bytes!("pieces-chess.ttf");

/// A link preview's size (Open Graph's 1.91:1).
pub const PREVIEW: (u32, u32) = (1200, 630);
/// A board on its own, as the match page offers it.
pub const BOARD: (u32, u32) = (640, 640);

/// Pictures kept, by what they draw and their size: the most a cache of
/// boards holds before it starts afresh (a few MB).
const KEPT: usize = 256;

fn fonts() -> &'static (FontRef<'static>, FontRef<'static>) {
    static FONTS: OnceLock<(FontRef<'static>, FontRef<'static>)> = OnceLock::new();
    FONTS.get_or_init(|| {
        let cjk = FontRef::try_from_slice(CJK).expect("the bundled CJK subset reads");
        let chess = FontRef::try_from_slice(CHESS).expect("the bundled chess subset reads");
        (cjk, chess)
    })
}

/// `drawing` as a PNG of `size`, from the cache when it was drawn before.
pub fn png(drawing: &Drawing, size: (u32, u32)) -> Arc<Vec<u8>> {
    static CACHE: OnceLock<Mutex<HashMap<u64, Arc<Vec<u8>>>>> = OnceLock::new();
    let mut key = std::collections::hash_map::DefaultHasher::new();
    (drawing, size).hash(&mut key);
    let key = key.finish();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(kept) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return kept.clone();
    }
    let bytes = Arc::new(render(drawing, size));
    let mut kept = cache.lock().unwrap_or_else(|e| e.into_inner());
    if kept.len() >= KEPT {
        kept.clear();
    }
    kept.insert(key, bytes.clone());
    bytes
}

/// `drawing` painted and encoded afresh (the cache's miss; the bench's
/// measure).
pub fn render(drawing: &Drawing, size: (u32, u32)) -> Vec<u8> {
    encode(&paint(drawing, size, false))
}

/// A finished game as an animated GIF (lila-gif's technique): the whole
/// board once, then only the cells each play changed, painted alone, a
/// second a play and three on the last. The frames are painted without
/// anti-aliasing, so their colours are the boards' own few and make an
/// exact palette (no quantising).
pub fn gif(frames: &[Drawing], size: (u32, u32)) -> Vec<u8> {
    // Index 0 is transparent: the pixels a frame leaves as they were.
    let mut palette: Vec<[u8; 3]> = vec![UNCHANGED.0];
    let mut index: HashMap<[u8; 3], u8> = HashMap::from([(UNCHANGED.0, 0)]);
    // Runs of one colour are most of a board: the last colour's index is
    // kept, so most pixels are found without hashing.
    let mut last = (UNCHANGED.0, 0u8);
    let mut indexed = |pixel: &Rgb<u8>| -> u8 {
        let rgb = [pixel[0], pixel[1], pixel[2]];
        if rgb == last.0 {
            return last.1;
        }
        let found = *index.entry(rgb).or_insert_with(|| {
            // More than 256 colours cannot happen when painted flat; the
            // last entry stands in for any beyond.
            if palette.len() < 256 {
                palette.push(rgb);
            }
            (palette.len() - 1) as u8
        });
        last = (rgb, found);
        found
    };
    let (w, h) = size;
    let mut parts: Vec<gif::Frame<'static>> = Vec::new();
    for (i, drawing) in frames.iter().enumerate() {
        let before = i.checked_sub(1).map(|b| &frames[b]);
        let region = match before {
            None => (0, 0, w, h),
            Some(b) => changed(b, drawing, size).unwrap_or((0, 0, 1, 1)),
        };
        let board_changed = before.is_some_and(|b| b.cells.len() != drawing.cells.len());
        let since = before.filter(|_| !board_changed);
        let image = paint_region(drawing, size, region, true, since);
        let buffer: Vec<u8> = image.pixels().map(&mut indexed).collect();
        parts.push(gif::Frame {
            left: region.0 as u16,
            top: region.1 as u16,
            width: image.width() as u16,
            height: image.height() as u16,
            delay: if i + 1 == frames.len() { 300 } else { 100 },
            transparent: Some(0),
            buffer: buffer.into(),
            ..gif::Frame::default()
        });
    }
    let mut flat: Vec<u8> = palette.iter().flatten().copied().collect();
    flat.resize(flat.len().max(6), 0);
    let mut out = Vec::new();
    {
        let mut encoder =
            gif::Encoder::new(&mut out, w as u16, h as u16, &flat).expect("a GIF in memory");
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .expect("a GIF in memory");
        for frame in &parts {
            encoder.write_frame(frame).expect("a GIF in memory");
        }
    }
    out
}

fn encode(image: &RgbImage) -> Vec<u8> {
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Sub)
        .write_image(
            image.as_raw(),
            image.width(),
            image.height(),
            image::ExtendedColorType::Rgb8,
        )
        .expect("a PNG is written to memory");
    out
}

const PAGE: Rgb<u8> = Rgb([0xf4, 0xf1, 0xec]);
const INK: Rgb<u8> = Rgb([0x1d, 0x2b, 0x33]);

fn rgb(hex: u32) -> Rgb<u8> {
    Rgb([(hex >> 16) as u8, (hex >> 8) as u8, hex as u8])
}

/// The web client's colours (src/web/app.css).
fn ground(g: Ground) -> Rgb<u8> {
    match g {
        Ground::Light => rgb(0xe9dcc0),
        Ground::Dark => rgb(0xa9825a),
        Ground::Plain => rgb(0xe8c88f),
    }
}

/// A piece's disc (fill, rim) and its glyph's colour.
fn inks(piece: &Piece) -> (Rgb<u8>, Rgb<u8>, Rgb<u8>) {
    let ivory = rgb(0xfbf3df);
    let rim = rgb(0x7a5a2c);
    match piece.ink {
        "white" if piece.disc => (rgb(0xf4efe4), INK, rgb(0x9b2c2c)),
        "black" if piece.disc && (piece.glyph.is_empty() || piece.glyph == "♛") => {
            (rgb(0x1a1a1a), rgb(0x3d3d3d), rgb(0xf2c14e))
        }
        "face_down" => (rgb(0x6d4c41), rgb(0xe8c88f), INK),
        "cho" => (ivory, rim, rgb(0x1f6b3a)),
        "han" | "red" if piece.disc => (ivory, rim, rgb(0xb3261e)),
        "black" if piece.disc => (ivory, rim, rgb(0x111111)),
        "white" => (PAGE, INK, rgb(0xffffff)),
        "red" => (PAGE, INK, rgb(0xc62828)),
        "green" => (PAGE, INK, rgb(0x2e7d32)),
        "blue" => (PAGE, INK, rgb(0x1565c0)),
        "gray" => (PAGE, INK, rgb(0x555555)),
        _ => (PAGE, INK, rgb(0x111111)),
    }
}

/// Where a drawing's board lies in a picture of `size`: its top left
/// corner and a cell's side. The board is centred, each cell square, and
/// no wider than three quarters of a wide picture (a link preview's room
/// for the board, and fewer pixels to encode).
fn place(drawing: &Drawing, (width, height): (u32, u32)) -> (u32, u32, u32) {
    let cols = u32::from(drawing.cols.max(1));
    let rows = u32::from(drawing.rows.max(1));
    let across = if width > height {
        width * 3 / 4
    } else {
        width * 94 / 100
    };
    let cell = (across / cols).min((height * 94 / 100) / rows).max(1);
    ((width - cell * cols) / 2, (height - cell * rows) / 2, cell)
}

/// The board centred on the page colour; `flat`: no anti-aliasing (a
/// GIF's frames).
pub fn paint(drawing: &Drawing, size: (u32, u32), flat: bool) -> RgbImage {
    paint_region(drawing, size, (0, 0, size.0, size.1), flat, None)
}

/// A colour no board uses: a GIF frame's pixels left as they were.
const UNCHANGED: Rgb<u8> = Rgb([1, 2, 3]);

/// The part `(x0, y0, x1, y1)` of [`paint`]'s picture, painting only the
/// cells that lie in it; with `since`, only the cells that differ from
/// that drawing's, the rest [`UNCHANGED`] (a GIF's later frames).
fn paint_region(
    drawing: &Drawing,
    size: (u32, u32),
    (x0, y0, x1, y1): (u32, u32, u32, u32),
    flat: bool,
    since: Option<&Drawing>,
) -> RgbImage {
    let back = if since.is_some() { UNCHANGED } else { PAGE };
    let mut image = RgbImage::from_pixel(x1 - x0, y1 - y0, back);
    let (left, top, cell) = place(drawing, size);
    for (i, c) in drawing.cells.iter().enumerate() {
        if since.is_some_and(|d| d.cells.get(i) == Some(c)) {
            continue;
        }
        let (x, y) = (
            left + u32::from(c.col) * cell,
            top + u32::from(c.row) * cell,
        );
        if x + cell <= x0 || x >= x1 || y + cell <= y0 || y >= y1 {
            continue;
        }
        let (x, y) = (x - x0, y - y0);
        fill(&mut image, x, y, cell, cell, ground(c.ground));
        if c.ground == Ground::Plain {
            frame(&mut image, x, y, cell, rgb(0x7a5a2c));
        }
        if let Some(piece) = &c.piece {
            draw_piece(&mut image, piece, (x, y, cell), flat);
        }
    }
    image
}

/// The rectangle of a picture of `size` holding every cell that differs
/// between two drawings of one board; `None` when none does, the whole
/// picture when the boards differ.
fn changed(a: &Drawing, b: &Drawing, size: (u32, u32)) -> Option<(u32, u32, u32, u32)> {
    if (a.cols, a.rows, a.cells.len()) != (b.cols, b.rows, b.cells.len()) {
        return Some((0, 0, size.0, size.1));
    }
    let (left, top, cell) = place(b, size);
    let moved = a.cells.iter().zip(&b.cells).filter(|(x, y)| x != y);
    moved
        .map(|(_, c)| (u32::from(c.col), u32::from(c.row)))
        .fold(None, |around, (col, row)| {
            let (x, y) = (left + col * cell, top + row * cell);
            Some(match around {
                None => (x, y, x + cell, y + cell),
                Some((x0, y0, x1, y1)) => {
                    (x0.min(x), y0.min(y), x1.max(x + cell), y1.max(y + cell))
                }
            })
        })
}

fn fill(image: &mut RgbImage, x: u32, y: u32, w: u32, h: u32, colour: Rgb<u8>) {
    for py in y..(y + h).min(image.height()) {
        for px in x..(x + w).min(image.width()) {
            image.put_pixel(px, py, colour);
        }
    }
}

fn frame(image: &mut RgbImage, x: u32, y: u32, size: u32, colour: Rgb<u8>) {
    let last = size.saturating_sub(1);
    for i in 0..size {
        for (px, py) in [(x + i, y), (x + i, y + last), (x, y + i), (x + last, y + i)] {
            if px < image.width() && py < image.height() {
                image.put_pixel(px, py, colour);
            }
        }
    }
}

/// `over` laid on `under` at `alpha` (0–1); flat, all or nothing.
fn blend(under: Rgb<u8>, over: Rgb<u8>, alpha: f32, flat: bool) -> Rgb<u8> {
    let a = match flat {
        true if alpha >= 0.5 => 1.0,
        true => 0.0,
        false => alpha.clamp(0.0, 1.0),
    };
    let mix = |u: u8, o: u8| (f32::from(u) * (1.0 - a) + f32::from(o) * a).round() as u8;
    Rgb([
        mix(under[0], over[0]),
        mix(under[1], over[1]),
        mix(under[2], over[2]),
    ])
}

fn draw_piece(image: &mut RgbImage, piece: &Piece, (x, y, cell): (u32, u32, u32), flat: bool) {
    let (fill_ink, rim, glyph_ink) = inks(piece);
    let centre = (x as f32 + cell as f32 / 2.0, y as f32 + cell as f32 / 2.0);
    if piece.disc {
        let radius = cell as f32 * 0.42;
        let inner = radius - (cell as f32 * 0.05).max(1.0);
        disc(image, centre, radius, rim, flat);
        disc(image, centre, inner, fill_ink, flat);
    }
    if piece.glyph.is_empty() {
        return;
    }
    let scale = if piece.disc { 0.55 } else { 0.8 } * cell as f32;
    if !piece.disc {
        // A chess glyph outlined in ink, as the page's text shadow does.
        let step = (cell as f32 / 40.0).max(1.0);
        for (dx, dy) in [(-step, 0.0), (step, 0.0), (0.0, -step), (0.0, step)] {
            let at = (centre.0 + dx, centre.1 + dy);
            glyph(image, piece.glyph, at, (scale, rim), flat);
        }
    }
    glyph(image, piece.glyph, centre, (scale, glyph_ink), flat);
}

fn disc(image: &mut RgbImage, (cx, cy): (f32, f32), radius: f32, colour: Rgb<u8>, flat: bool) {
    let (x0, x1) = ((cx - radius).floor() as i64, (cx + radius).ceil() as i64);
    let (y0, y1) = ((cy - radius).floor() as i64, (cy + radius).ceil() as i64);
    for py in y0.max(0)..y1.min(i64::from(image.height())) {
        for px in x0.max(0)..x1.min(i64::from(image.width())) {
            let d = ((px as f32 + 0.5 - cx).powi(2) + (py as f32 + 0.5 - cy).powi(2)).sqrt();
            let cover = radius + 0.5 - d;
            if cover > 0.0 {
                let under = *image.get_pixel(px as u32, py as u32);
                image.put_pixel(px as u32, py as u32, blend(under, colour, cover, flat));
            }
        }
    }
}

/// `text` (one glyph) centred on `centre`, `size` pixels high.
fn glyph(
    image: &mut RgbImage,
    text: &str,
    centre: (f32, f32),
    (size, colour): (f32, Rgb<u8>),
    flat: bool,
) {
    let Some(c) = text.chars().next() else { return };
    let (cjk, chess) = fonts();
    let font = if (c as u32) >= 0x3000 { cjk } else { chess };
    let glyph = font.glyph_id(c).with_scale(PxScale::from(size));
    let Some(outline) = font.outline_glyph(glyph) else {
        return;
    };
    let bounds = outline.px_bounds();
    let left = centre.0 - bounds.width() / 2.0;
    let top = centre.1 - bounds.height() / 2.0;
    outline.draw(|gx, gy, cover| {
        let (px, py) = (left as i64 + i64::from(gx), top as i64 + i64::from(gy));
        if px >= 0 && py >= 0 && (px as u32) < image.width() && (py as u32) < image.height() {
            let under = *image.get_pixel(px as u32, py as u32);
            image.put_pixel(px as u32, py as u32, blend(under, colour, cover, flat));
        }
    });
}
