//! Which characters show (docs/decisions/hardening.md, "Text"): one rule
//! for names and for what players write, so that nothing said at a table
//! or worn as a name can be made of characters that draw nothing.
//!
//! A character *shows* when it is not White_Space, not a
//! Default_Ignorable_Code_Point, not of the general categories Cc, Cf, Cn,
//! Co or Cs (controls, format characters, unassigned, private use,
//! surrogates), and not one of the few assigned glyphs that are drawn
//! empty ([`INKLESS`]). A message must hold one such character; a name
//! must be made only of characters a name may hold ([`in_names`]).

use unicode_general_category::{get_general_category, GeneralCategory};
use unicode_security::GeneralSecurityProfile;

/// Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties.txt), as
/// inclusive ranges: drawn as nothing when not understood. Most are
/// format characters too; the Hangul fillers and the variation selectors
/// are not.
pub const DEFAULT_IGNORABLE: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
];

/// Assigned characters, neither space nor default-ignorable, that fonts
/// draw empty: the braille blank and the musical null notehead. (The
/// Hangul fillers, U+115F, U+1160, U+3164 and U+FFA0, are
/// default-ignorable already.)
pub const INKLESS: [char; 2] = ['\u{2800}', '\u{1D159}'];

/// White_Space other than the space and the controls: a name's only
/// blank is the plain space.
pub const BLANKS: &[(u32, u32)] = &[
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
];

/// What the OpenAPI document's nickname pattern refuses
/// (`enforced::nickname`), which is all a regex in every dialect can
/// state: controls, [`BLANKS`], and the default-ignorable characters of
/// the Basic Multilingual Plane. A name breaking it is malformed (400);
/// one the pattern lets through but [`in_names`] refuses is refused for
/// its meaning (422).
pub fn outside_the_pattern(c: char) -> bool {
    let n = c as u32;
    let bmp_ignorable = DEFAULT_IGNORABLE
        .iter()
        .filter(|(start, _)| *start <= 0xFFFF)
        .any(|(start, end)| (*start..=*end).contains(&n));
    matches!(n, 0x00..=0x1F | 0x7F..=0x9F)
        || BLANKS
            .iter()
            .any(|(start, end)| (*start..=*end).contains(&n))
        || bmp_ignorable
}

/// Whether `c` is a Default_Ignorable_Code_Point.
pub fn default_ignorable(c: char) -> bool {
    let c = c as u32;
    DEFAULT_IGNORABLE
        .iter()
        .any(|(start, end)| (*start..=*end).contains(&c))
}

/// Whether `c` draws something (see the module's comment).
pub fn shows(c: char) -> bool {
    use GeneralCategory::*;
    let category = get_general_category(c);
    !c.is_whitespace()
        && !default_ignorable(c)
        && !matches!(
            category,
            Control | Format | Unassigned | PrivateUse | Surrogate
        )
        && !INKLESS.contains(&c)
}

/// Whether `text` holds at least one character that shows.
pub fn shows_something(text: &str) -> bool {
    text.chars().any(shows)
}

/// Whether a name may hold `c`: a plain space, or a character that shows
/// and is UTS #39 `Identifier_Status=Allowed` or Hangul (its jamo, as
/// NFKC leaves them, are not all Allowed). Nothing else: no symbol, no
/// emoji, no character of a script kept for scholars, so that a name
/// cannot hide a mark that looks like nothing or like someone else.
pub fn in_names(c: char) -> bool {
    c == ' ' || (shows(c) && (c.identifier_allowed() || hangul(c)))
}

/// Hangul: its jamo, compatibility jamo, extended jamo, syllables and
/// halfwidth forms.
fn hangul(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF | 0x3131..=0x318E | 0xA960..=0xA97C | 0xAC00..=0xD7A3
        | 0xD7B0..=0xD7FB | 0xFFA1..=0xFFDC)
}

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_security::general_security_profile::IdentifierType;

    #[test]
    fn the_default_ignorable_list_holds_every_character_the_security_data_calls_so() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            if c.identifier_type() == Some(IdentifierType::Default_Ignorable) {
                assert!(default_ignorable(c), "U+{:04X}", c as u32);
            }
        }
    }

    #[test]
    fn letters_hangul_and_emoji_show_and_blanks_do_not() {
        for c in ['a', '가', 'ㅋ', '😀', '!', '漢'] {
            assert!(shows(c), "{c:?}");
        }
        for c in [
            ' ',
            '\u{3000}',
            '\u{115F}',
            '\u{1160}',
            '\u{FFA0}',
            '\u{3164}',
            '\u{2800}',
            '\u{00AD}',
            '\u{034F}',
            '\u{180E}',
            '\u{2061}',
            '\u{E0041}',
            '\u{1D159}',
            '\u{0600}',
            '\u{110BD}',
            '\u{13437}',
            '\u{E000}',
        ] {
            assert!(!shows(c), "U+{:04X}", c as u32);
        }
        assert!(in_names('민') && in_names('ㅋ') && in_names('a') && in_names(' '));
        assert!(!in_names('😀') && !in_names('\u{1D159}'));
    }
}
