//! Issue #31: the service names no game. Game facts reach it only through
//! the rules contract (`Game::ABOUT`, placements, teams, own moves), so
//! no code under `src/` may spell a game's id or a field of a game's view
//! as a string; comments, schema examples and the catalogue's example
//! builder (which plays each game through the contract) aside.

/// Strings only a game may know.
const GAME_WORDS: [&str; 8] = [
    "\"checkers\"",
    "\"janggi\"",
    "\"banqi\"",
    "\"flipchess\"",
    "\"four_player_chess\"",
    "\"armies\"",
    "\"points\"",
    "\"teams\"",
];

/// The lines of `source` that spell a game word in code.
fn game_words(source: &str) -> Vec<String> {
    source
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && !l.contains("example ="))
        .filter(|l| GAME_WORDS.iter().any(|w| l.contains(w)))
        .map(str::to_owned)
        .collect()
}

fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_service_names_no_game() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let examples = ["game_examples.rs", "game_schemas.rs"];
    let mut found = Vec::new();
    for file in files {
        if examples.iter().any(|e| file.ends_with(e)) {
            continue;
        }
        for line in game_words(&std::fs::read_to_string(&file).unwrap()) {
            found.push(format!("{}: {line}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "game knowledge in the service:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_bites() {
    let leaky = "let x = 1;\nif view[\"armies\"].is_array() {}\n/// \"janggi\" in a comment\n";
    assert_eq!(game_words(leaky), ["if view[\"armies\"].is_array() {}"]);
}
