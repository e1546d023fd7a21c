//! Every document a comment, test or doc cites is in the repository (issue
//! #31): a path `docs/….md` exists, and a rule clause `§X7` is a clause of
//! the section file `docs/rules/` keeps for the letter X.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The text files under `dirs` whose names end in one of `exts`.
fn sources(dirs: &[&str], exts: &[&str]) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = dirs.iter().map(|d| root().join(d)).collect();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.ends_with("node_modules") || path.ends_with("target") {
                continue;
            } else if path.is_dir() {
                stack.push(path);
            } else if exts.iter().any(|e| path.to_string_lossy().ends_with(e)) {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    out.push((path, text));
                }
            }
        }
    }
    out
}

/// The `docs/….md` paths cited in `text` (a trailing `/` names a folder).
fn cited_docs(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("docs/") {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || "/._-".contains(c)))
            .unwrap_or(tail.len());
        let path = tail[..end].trim_end_matches('.');
        if path.ends_with(".md") || path.ends_with('/') {
            found.push(path.to_owned());
        }
        rest = &tail[end.max(5)..];
    }
    found
}

/// The rule clauses `§X7` (letter, number) cited in `text`.
fn cited_clauses(text: &str) -> Vec<(char, String)> {
    let mut found = Vec::new();
    for (i, _) in text.match_indices('§') {
        let after = &text[i + '§'.len_utf8()..];
        let mut chars = after.chars();
        let (Some(letter), digits) = (chars.next(), chars.as_str()) else {
            continue;
        };
        let number: String = digits.chars().take_while(char::is_ascii_digit).collect();
        if letter.is_ascii_uppercase() && !number.is_empty() {
            found.push((letter, number));
        }
    }
    found
}

fn rule_file(letter: char) -> Option<&'static str> {
    Some(match letter {
        'T' => "timing.md",
        'F' => "flipchess.md",
        'C' => "checkers.md",
        'J' => "janggi.md",
        'B' => "banqi.md",
        'Q' => "four-player-chess.md",
        'H' => "hidden-information.md",
        _ => return None,
    })
}

/// Whether the rules file for `letter` states clause `number` (as `- X7 `,
/// `### X7 ` or `X7.`).
fn states(rules: &str, letter: char, number: &str) -> bool {
    let clause = format!("{letter}{number}");
    rules.lines().any(|line| {
        let line = line.trim_start_matches(['-', '#', ' ', '*']);
        line.strip_prefix(&clause)
            .is_some_and(|rest| rest.starts_with([' ', '.', ':', ')']) || rest.is_empty())
    })
}

#[test]
fn every_cited_document_and_rule_clause_is_in_the_repository() {
    let files = sources(
        &["src", "rules", "tests", "docs", ".ci", "templates"],
        &[".rs", ".md", ".js", ".cjs", ".py", ".tsv", ".html", ".txt"],
    );
    let mut files = files;
    files.push((root().join("README.md"), read(&root().join("README.md"))));
    assert!(files.len() > 100, "the walk found the sources");
    let mut missing = Vec::new();
    // This file's own toy citations are meant to be missing.
    files.retain(|(path, _)| !path.ends_with("tests/service/citations.rs"));
    for (path, text) in &files {
        let here = path.strip_prefix(root()).unwrap_or(path).display();
        for doc in cited_docs(text) {
            if !root().join(&doc).exists() {
                missing.push(format!("{here}: {doc}"));
            }
        }
        for (letter, number) in cited_clauses(text) {
            let Some(file) = rule_file(letter) else {
                continue; // §3 of the design, §Errors of the API, …
            };
            let rules = read(&root().join("docs/rules").join(file));
            if !states(&rules, letter, &number) {
                missing.push(format!("{here}: §{letter}{number}"));
            }
        }
    }
    assert_eq!(missing, Vec::<String>::new(), "cited but not in the repo");
}

#[test]
fn a_citation_of_a_missing_document_or_clause_is_found() {
    assert_eq!(
        cited_docs("see docs/rules/janggi.md §J5, and DESIGN.md, docs/gone.md."),
        ["docs/rules/janggi.md", "docs/gone.md"]
    );
    assert_eq!(
        cited_clauses("§J5 and §F10a, §3, §Errors"),
        [('J', "5".into()), ('F', "10".into())]
    );
    let rules = "- J5 A side in check …\n### J6 Passing\n- J7. Ends\n";
    assert!(states(rules, 'J', "5") && states(rules, 'J', "6") && states(rules, 'J', "7"));
    assert!(!states(rules, 'J', "50") && !states(rules, 'J', "8"));
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}
