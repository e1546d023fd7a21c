//! The words of every message, per key and locale, read from
//! `templates/words/{en,ko}.txt` (docs/decisions/notifications.md: a new
//! notification kind adds its words there, not in code). Both files hold
//! the same keys with the same `{placeholders}`; the tests below check it,
//! and that every kind has its subject, headline and detail.

use std::collections::HashMap;
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Locale {
    English,
    Korean,
}

impl Locale {
    /// The locale of an account's `locale` setting (`ko`, `ko-KR` → Korean;
    /// a language without words here → English).
    pub fn of(locale: &str) -> Locale {
        Locale::known(locale).unwrap_or(Locale::English)
    }

    /// The locale of a language tag whose language has words here, by its
    /// primary subtag in any case (`KO-kr` → Korean; `kok`, `ja` → none).
    pub fn known(tag: &str) -> Option<Locale> {
        let language = tag.split(['-', '_']).next().unwrap_or_default();
        [Locale::English, Locale::Korean]
            .into_iter()
            .find(|l| language.eq_ignore_ascii_case(l.tag()))
    }

    pub fn tag(self) -> &'static str {
        match self {
            Locale::English => "en",
            Locale::Korean => "ko",
        }
    }

    fn source(self) -> &'static str {
        match self {
            Locale::English => include_str!("../../templates/words/en.txt"),
            Locale::Korean => include_str!("../../templates/words/ko.txt"),
        }
    }

    fn book(self) -> &'static HashMap<&'static str, &'static str> {
        static BOOKS: [OnceLock<HashMap<&str, &str>>; 2] = [OnceLock::new(), OnceLock::new()];
        BOOKS[self as usize].get_or_init(|| parse(self.source()))
    }

    /// The words under `key`; an unknown key is shown as itself (the tests
    /// keep every key the code asks for in both files).
    pub fn word(self, key: &str) -> &'static str {
        self.book().get(key).copied().unwrap_or_else(|| {
            log::error!("no words for {key:?} in {}", self.tag());
            ""
        })
    }

    /// Every key, in order.
    pub fn keys(self) -> Vec<&'static str> {
        let mut keys: Vec<&'static str> = self.book().keys().copied().collect();
        keys.sort_unstable();
        keys
    }

    /// The words under `key`, if there are any (a game's, a piece's, a
    /// reason's: the caller has its own fallback).
    pub fn known_word(self, key: &str) -> Option<&'static str> {
        self.book().get(key).copied()
    }

    /// The words under `key` with each `{name}` replaced by its value.
    pub fn say(self, key: &str, values: &[(&str, &str)]) -> String {
        values
            .iter()
            .fold(self.word(key).to_owned(), |text, (name, value)| {
                text.replace(&format!("{{{name}}}"), value)
            })
    }
}

/// `key = text` lines; blank lines and `#` comments are skipped.
fn parse(source: &'static str) -> HashMap<&'static str, &'static str> {
    source
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .filter_map(|line| line.split_once('='))
        .map(|(key, text)| (key.trim(), text.trim()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notify::Kind;
    use std::collections::BTreeSet;

    const BOTH: [Locale; 2] = [Locale::English, Locale::Korean];

    #[test]
    fn a_language_is_known_by_its_primary_subtag_in_any_case() {
        assert_eq!(Locale::known("KO-kr"), Some(Locale::Korean));
        assert_eq!(Locale::known("ko"), Some(Locale::Korean));
        assert_eq!(Locale::known("en-GB"), Some(Locale::English));
        for other in ["kok", "kos", "ja-JP", "fr", ""] {
            assert_eq!(Locale::known(other), None, "{other}");
        }
        assert_eq!(Locale::of("ja"), Locale::English);
    }

    fn placeholders(text: &str) -> BTreeSet<&str> {
        text.split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
            .collect()
    }

    #[test]
    fn both_locales_hold_the_same_keys_with_the_same_placeholders() {
        let [en, ko] = BOTH.map(Locale::book);
        let keys = |book: &HashMap<&'static str, &'static str>| {
            book.keys().copied().collect::<BTreeSet<&str>>()
        };
        assert_eq!(keys(en), keys(ko));
        for (key, text) in en {
            assert_eq!(placeholders(text), placeholders(ko[key]), "{key}");
        }
        assert!(en.len() > 40, "the file was read: {} keys", en.len());
    }

    #[test]
    fn every_notification_kind_has_its_words_in_every_locale() {
        for locale in BOTH {
            for kind in Kind::ALL {
                for part in ["subject", "headline", "detail"] {
                    let key = format!("{}.{part}", kind.name());
                    assert!(!locale.word(&key).is_empty(), "{key} in {locale:?}");
                }
            }
        }
    }

    /// A tournament invitation reaches people who did not ask for it
    /// (docs/abuse.md, "Tournament invitations"); its subject, what an
    /// inbox shows, carries none of the creator's words (the name is in the
    /// body, checked, in quotes).
    #[test]
    fn a_tournament_invitations_subject_carries_no_creators_text() {
        for locale in BOTH {
            let subject = locale.word("tournament_invited.subject");
            assert!(!subject.contains("{tournament}"), "{locale:?}: {subject}");
            let said = locale.say(
                "tournament_invited.detail",
                &[
                    ("game", "Janggi"),
                    ("variant", ""),
                    ("turn_hours", "24"),
                    ("rated", "x"),
                ],
            );
            assert!(said.contains("24"), "{said}");
        }
    }

    #[test]
    fn placeholders_are_filled_and_an_unknown_key_says_nothing() {
        let said = Locale::Korean.say("your_turn.subject", &[("game", "장기")]);
        assert_eq!(said, "장기: 내 차례예요");
        assert_eq!(Locale::English.word("no.such.key"), "");
        assert_eq!(Locale::of("ko-KR"), Locale::Korean);
        assert_eq!(Locale::of("en"), Locale::English);
    }

    /// `key: "text"` pairs of one locale's block of `src/web/words.js`
    /// (a key bare or quoted; `\"` inside a text).
    fn web_words(block: &str) -> HashMap<String, String> {
        let mut words = HashMap::new();
        for (at, _) in block.match_indices(": \"") {
            let key = block[..at]
                .rsplit(|c: char| c.is_whitespace() || c == '{' || c == ',')
                .next()
                .unwrap_or_default()
                .trim_matches('"');
            let rest = &block[at + 3..];
            let mut text = String::new();
            let mut chars = rest.chars();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => text.extend(chars.next()),
                    '"' => break,
                    c => text.push(c),
                }
            }
            words.insert(key.to_owned(), text);
        }
        words
    }

    /// A game, a variant, a piece, a side or a result reason is said the
    /// same in a notice as on the board (docs/decisions/notifications.md,
    /// "The lock screen"): a key both the service's words and the web
    /// client's hold says the same thing.
    #[test]
    fn the_words_shared_with_the_web_client_say_the_same() {
        let web = include_str!("../web/words.js");
        let korean_block = web.find("\n  ko: {").expect("the Korean block");
        let (en, ko) = web.split_at(korean_block);
        for (locale, block) in [(Locale::English, en), (Locale::Korean, ko)] {
            let web = web_words(block);
            let mut shared = 0;
            for (key, text) in locale.book() {
                if let Some(said) = web.get(*key) {
                    assert_eq!(said, text, "{key} in {locale:?}");
                    shared += 1;
                }
            }
            assert!(shared >= 60, "{locale:?}: only {shared} shared keys");
        }
        // The check bites: a word that differs is seen as different.
        let toy = web_words(
            "  ko: {\n    game_janggi: \"장기판\", \"card_wild-draw4\": \"와일드 \\\"4\\\"\",",
        );
        assert_eq!(toy["game_janggi"], "장기판");
        assert_eq!(toy["card_wild-draw4"], "와일드 \"4\"");
        assert_ne!(toy["game_janggi"], Locale::Korean.word("game_janggi"));
    }
}
