//! Names people show each other, and email addresses
//! (docs/decisions/accounts-and-sessions.md): a name is NFKC-normalised and
//! may hold no control, bidi-override, zero-width or other invisible
//! character; a nickname that only looks like a registered username
//! (`Аdmin` with a Cyrillic А for `admin`) is refused, compared by UTS #39
//! skeleton; an email address is read by an RFC 5322 parser and must be
//! plain ASCII (docs/decisions/hardening.md, "Text").

use crate::error::{Error, Rule};
use crate::schema::users;
use diesel::prelude::*;
use diesel::PgConnection;
use std::str::FromStr;
use unicode_normalization::UnicodeNormalization;
use uuid::Uuid;

/// A display name as stored: NFKC, trimmed, 1–24 characters, each one a
/// name may hold (`ink::in_names`: UTS #39 Allowed, Hangul, spaces). What
/// the document's pattern states (controls, invisible characters, other
/// blanks, the length) is its form, 400; a character it cannot state (a
/// symbol, an emoji, a format character) is refused for its meaning, 422.
pub fn display_name(raw: &str) -> Result<String, Error> {
    let said = "a nickname has 1–24 letters, digits or spaces (with - _ . ' as joiners), \
                no symbol, emoji or invisible character";
    let name = documented_form(raw, 24).ok_or_else(|| Error::validation(said))?;
    let held = (1..=24).contains(&name.chars().count())
        && name.chars().all(crate::ink::in_names)
        && crate::ink::shows_something(&name);
    held.then_some(name)
        .ok_or_else(|| Error::unacceptable(said))
}

/// `raw` as stored (NFKC, trimmed) if, as sent, it has the form the
/// document's nickname pattern states (`enforced::nickname`): spaces
/// around 1 to `most` characters, none outside the pattern
/// (`ink::outside_the_pattern`). What NFKC makes of it is judged after,
/// for its meaning.
fn documented_form(raw: &str, most: usize) -> Option<String> {
    let sent = raw.trim_matches(' ');
    let fits = (1..=most).contains(&sent.chars().count())
        && !sent.chars().any(crate::ink::outside_the_pattern);
    let text: String = sent.nfkc().collect();
    fits.then(|| text.trim().to_owned())
}

/// Text one player shows others (a nickname, a tournament's name), as
/// stored: NFKC, trimmed, one line of 1 to `most` characters, each a
/// plain space or one that shows (`ink::shows`: no control, format,
/// bidirectional, invisible or unassigned character), or the emoji
/// presentation selector U+FE0F — none if it is not that. The caller says
/// what was wrong in its own words.
pub fn display_text(raw: &str, most: usize) -> Option<String> {
    let text: String = raw.nfkc().collect();
    let text = text.trim();
    let fits = |c: char| c == ' ' || c == '\u{FE0F}' || crate::ink::shows(c);
    let good = text.chars().all(fits) && crate::ink::shows_something(text);
    (good && (1..=most).contains(&text.chars().count())).then(|| text.to_owned())
}

/// What a name looks like: its UTS #39 skeleton, case folded first, so
/// `ADMIN` meets `admin`.
pub fn skeleton(name: &str) -> String {
    let lower = name.nfkc().collect::<String>().to_lowercase();
    unicode_security::skeleton(&lower)
        .collect::<String>()
        .to_lowercase()
}

/// What a name looks like as written: its skeleton taken *before* case
/// folding (docs/abuse.md, "Names": folding first turned `maIIory`'s
/// capital I into an i, which no longer looks like the l of `mallory`). A
/// name is a look-alike of another when either skeleton matches. The folded
/// result is taken again, since lower-case letters have prototypes of their
/// own (`m` looks like `rn`).
pub fn skeleton_cased(name: &str) -> String {
    let nfkc: String = name.nfkc().collect();
    let seen: String = unicode_security::skeleton(&nfkc).collect();
    unicode_security::skeleton(&seen.to_lowercase())
        .collect::<String>()
        .to_lowercase()
}

/// The registered player whose name looks like `name`, if any: their
/// username, or the display name a guest kept on registering
/// (docs/abuse.md, "Names"; `민지` is as much a registered player's name as
/// `minji`). Holds the locks on both looks until the transaction ends
/// (always in the same order), so two look-alikes registering at once are
/// judged in turn.
///
/// A deleted account's username is held
/// (docs/decisions/accounts-and-sessions.md, "Deleting an account"): it
/// answers as taken, by its own name, so that nobody can take it to pass
/// for its player.
fn look_alike(
    conn: &mut PgConnection,
    name: &str,
    except: Option<Uuid>,
) -> Result<Option<String>, Error> {
    let (folded, cased) = (skeleton(name), skeleton_cased(name));
    crate::limits::serialize(conn, &format!("name-skeleton:{folded}"))?;
    crate::limits::serialize(conn, &format!("name-skeleton-cased:{cased}"))?;
    Ok(users::table
        .filter(users::guest.eq(false))
        .filter(users::id.ne(except.unwrap_or_else(Uuid::nil)))
        .filter(
            users::skeleton
                .eq(&folded)
                .or(users::skeleton_cased.eq(&cased))
                .or(users::display_skeleton.eq(&folded))
                .or(users::display_skeleton_cased.eq(&cased)),
        )
        .select((users::username, users::deleted_at.is_not_null()))
        .first::<(String, bool)>(conn)
        .optional()?
        .map(|(held, deleted)| if deleted { name.to_owned() } else { held }))
}

/// Words a computer seat is shown with (docs/abuse.md, "Names"): the web
/// client writes "computer · hard" and "컴퓨터 · 어려움" (src/web/words.js), the
/// service names its players "Computer (hard)" and `computer:hard`
/// (src/computer/mod.rs).
const COMPUTER: [&str; 2] = ["computer", "컴퓨터"];

/// What is left of a name to compare it by: its look (both skeletons) with
/// everything but letters and digits dropped, so `Computer · Hard`,
/// `computer_hard` and `COMPUTER(hard)` are one name.
fn bare(name: &str) -> [String; 2] {
    let letters = |s: String| s.chars().filter(|c| c.is_alphanumeric()).collect();
    [letters(skeleton(name)), letters(skeleton_cased(name))]
}

/// Whether `name` reads as a computer seat: "computer" in either language,
/// alone or with a level in either language before or after it, whatever
/// the case, spacing, punctuation or look-alike letters (`Cornputer`,
/// `СOMPUTER` with a Cyrillic С). A person named so would pass for the
/// service's opponent at a table.
pub fn reads_as_computer(name: &str) -> bool {
    let levels = posthorn_rules::engine::Level::ALL.iter().flat_map(|level| {
        let (english, korean) = level.names();
        [english, korean]
    });
    let forms = COMPUTER.iter().flat_map(|computer| {
        let with_level = levels
            .clone()
            .flat_map(move |level| [format!("{computer}{level}"), format!("{level}{computer}")]);
        std::iter::once(computer.to_string()).chain(with_level)
    });
    let [folded, cased] = bare(name);
    forms
        .map(|form| bare(&form))
        .any(|[f, c]| f == folded || c == cased)
}

fn check_not_a_computer(name: &str, what: &str) -> Result<(), Error> {
    if reads_as_computer(name) {
        return Err(Error::unacceptable(format!(
            "that {what} reads as a computer player's name; choose another"
        )));
    }
    Ok(())
}

/// Refuse a nickname (the request's `field`) that looks like a registered
/// user's name (other than `except`'s own: a player may show their own
/// username's look) or reads as a computer's: 422, the name has the
/// documented form and is refused for whom it resembles.
pub fn check_not_confusable(
    conn: &mut PgConnection,
    name: &str,
    field: &'static str,
    except: Option<Uuid>,
) -> Result<(), Error> {
    check_not_a_computer(name, "nickname").map_err(|e| e.in_field(field, Rule::Reserved))?;
    match look_alike(conn, name, except)? {
        Some(_) => Err(Error::unacceptable(
            "that nickname looks like the name of a registered player; choose another",
        )
        .in_field(field, Rule::LookAlike)),
        None => Ok(()),
    }
}

/// Refuse a username that is taken (409) or only looks like one that is
/// (`rnallory`, `ma11ory` and `maIIory` beside `mallory`: 422).
pub fn check_registrable(conn: &mut PgConnection, username: &str) -> Result<(), Error> {
    check_not_a_computer(username, "username")
        .map_err(|e| e.in_field("username", Rule::Reserved))?;
    match look_alike(conn, username, None)? {
        Some(held) if held.eq_ignore_ascii_case(username) => {
            Err(Error::conflict("that username is already registered")
                .in_field("username", Rule::Taken))
        }
        Some(_) => Err(Error::unacceptable(
            "that username looks like the name of a registered player; choose another",
        )
        .in_field("username", Rule::LookAlike)),
        None => Ok(()),
    }
}

/// An email address: one RFC 5322 address, ASCII only (no internationalised
/// addresses: their look-alikes are too easy), a dotted domain.
pub fn email(raw: &str) -> Result<String, Error> {
    let address = raw.trim();
    let refuse = || {
        Error::validation("that email address does not look right").in_field("email", Rule::Form)
    };
    if address.len() > 254 || !address.is_ascii() || address.chars().any(|c| c.is_ascii_control()) {
        return Err(refuse());
    }
    let parsed = email_address::EmailAddress::from_str(address).map_err(|_| refuse())?;
    let domain = parsed.domain();
    let hostname = domain.contains('.')
        && domain.split('.').all(|label| {
            !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
    if !hostname || parsed.local_part().starts_with('"') {
        return Err(refuse());
    }
    Ok(address.to_owned())
}

/// Fill the skeletons of users written before they were kept (start-up).
pub fn backfill_skeletons(conn: &mut PgConnection) -> Result<usize, Error> {
    let missing: Vec<(Uuid, String)> = users::table
        .filter(
            users::skeleton
                .is_null()
                .or(users::skeleton_cased.is_null()),
        )
        .select((users::id, users::display_name))
        .load(conn)?;
    for (id, name) in &missing {
        diesel::update(users::table.find(id))
            .set((
                users::skeleton.eq(skeleton(name)),
                users::skeleton_cased.eq(skeleton_cased(name)),
            ))
            .execute(conn)?;
    }
    Ok(missing.len())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn look_alike_and_invisible_names_are_told_apart() {
        for bad in [
            "Ad\u{200b}min",
            "\u{202e}nimdA",
            "\u{feff}Admin",
            "a\u{0}b",
            "\u{3164}",
            "  ",
        ] {
            assert!(display_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(display_name("Ａｄｍｉｎ").unwrap(), "Admin", "NFKC");
        assert_eq!(display_name(" 김철수 ").unwrap(), "김철수");
        assert_eq!(skeleton("Аdmin"), skeleton("admin"), "Cyrillic А");
        assert_eq!(skeleton("Ａｄｍｉｎ"), skeleton("ADMIN"));
        assert_ne!(skeleton("alice"), skeleton("bob"));
        // Look-alikes of a registered name (docs/abuse.md, "Names"), by one
        // skeleton or the other.
        let alike =
            |a: &str, b: &str| skeleton(a) == skeleton(b) || skeleton_cased(a) == skeleton_cased(b);
        for look_alike in ["rnallory", "ma11ory", "maIIory", "MaIlory", "MALLORY"] {
            assert!(alike(look_alike, "mallory"), "{look_alike}");
        }
        assert!(alike("ADMIN", "admin"));
        assert!(!alike("mailory", "mallory"));
    }

    /// Every code point a name may never hold: format, unassigned,
    /// private-use and surrogate categories, and every default-ignorable
    /// one (by the UTS #39 data, not `ink`'s own list).
    pub fn never_shown() -> impl Iterator<Item = char> {
        use unicode_general_category::{get_general_category, GeneralCategory::*};
        use unicode_security::general_security_profile::IdentifierType;
        use unicode_security::GeneralSecurityProfile;
        (0..=0x10FFFF).filter_map(char::from_u32).filter(|c| {
            matches!(
                get_general_category(*c),
                Format | Unassigned | PrivateUse | Surrogate
            ) || c.identifier_type() == Some(IdentifierType::Default_Ignorable)
        })
    }

    #[test]
    fn a_name_with_any_character_that_shows_nothing_is_refused_issue_65_item_6() {
        // The review's four: a null notehead, an Egyptian format control,
        // the Kaithi and the Arabic number signs, after a real name.
        for c in ['\u{1D159}', '\u{13437}', '\u{110BD}', '\u{0600}'] {
            assert!(
                display_name(&format!("mallory{c}")).is_err(),
                "U+{:04X}",
                c as u32
            );
        }
        let mut looped = 0;
        for c in never_shown() {
            looped += 1;
            // Refused, or (a few code points NFKC maps to letters) stored
            // without it.
            for name in [format!("mallory{c}"), format!("민{c}지"), c.to_string()] {
                let kept = display_name(&name).is_ok_and(|n| n.contains(c));
                assert!(!kept, "U+{:04X}", c as u32);
            }
        }
        assert!(
            looped > 900_000,
            "{looped}: the loop covers the unassigned planes"
        );
        // Hangul, letters of many scripts and the joiners still make names.
        for name in [
            "민지",
            "ㅋㅋ",
            "Grandma Kim",
            "Min-jun",
            "O'Neil",
            "Ｃａｒｏｌ",
            "Zoë",
            "Σοφία",
        ] {
            assert!(display_name(name).is_ok(), "{name}");
        }
        for symbol in ["Mina ★", "🦊", "a\u{2800}b"] {
            assert!(display_name(symbol).is_err(), "{symbol}");
        }
    }

    #[test]
    fn names_that_read_as_a_computer_seat_are_told_apart() {
        for computer in [
            "computer · hard",
            "Computer (hard)",
            "computer:hard",
            "computer_hard",
            "COMPUTER-EASY",
            "Normal Computer",
            "computer",
            " Computer! ",
            "컴퓨터 · 어려움",
            "컴퓨터",
            "어려움 컴퓨터",
            "컴퓨터 hard",
            "Cornputer hard",
            "\u{421}omputer",
            "Ｃｏｍｐｕｔｅｒ",
        ] {
            assert!(reads_as_computer(computer), "{computer:?}");
        }
        for person in [
            "Computer fan",
            "computers",
            "hard",
            "컴퓨터광",
            "Mina",
            "computer hardy",
            "superhard computer",
        ] {
            assert!(!reads_as_computer(person), "{person:?}");
        }
    }

    #[test]
    fn email_addresses_are_parsed_not_guessed() {
        for bad in [
            "аdmin@exаmple.com",
            "a@b@c.com",
            "a@b.c\u{202e}",
            "a@localhost",
            "a@",
            "@b.com",
            "a b@c.com",
        ] {
            assert!(email(bad).is_err(), "{bad:?}");
        }
        assert_eq!(email(" alice@example.com ").unwrap(), "alice@example.com");
        assert!(email("first.last+tag@sub.example.co.kr").is_ok());
    }
}
