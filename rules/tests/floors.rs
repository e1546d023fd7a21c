//! The rules crate keeps floors, as the service does (its
//! `tests/service/layers.rs`): each top-level module of `rules/src` imports
//! modules of its own floor or below, never above, and none import each
//! other round a circle. Lowest first: 0 `contract`, `grid`, `records`
//! (the `Game` trait, what games share, and the records each game
//! writes: the generic part and the `Records` trait); 1 the games; 2 what is built over them, `drawing` (a view as a picture draws it),
//! `engine` (with `engine::puzzles`, lines its search proves forced),
//! `listing`, `lessons`; 3 `dispatch`, the JSON face of every per-game call.
//! The crate root composes them: its `games!` generates `GameId` and
//! `MatchState`, whose calls go down through `dispatch`. Two modules name
//! those in their public signatures, leaning on the top, and are pinned so a
//! third shows: `engine::decide` (the service's way in takes a `GameId`) and
//! `lessons` (a step is played as a `MatchState`).
//!
//! Imports are read from `crate::` and `super::` paths outside comments and
//! `#[cfg(test)]`; a name the root re-exports is its module's (`crate::Seat`
//! is `contract`). Unlike the service's check, a `mod.rs`'s relative paths
//! down into its files are not read: in the one shape of a game (`lib.rs`),
//! `mod.rs` holds the `Config` and rule constants its files read, and
//! re-exports and calls them. Circles are counted between sibling files and
//! between top-level modules.

use std::collections::{BTreeMap, BTreeSet};

/// The floors, lowest first.
const FLOORS: [&str; 4] = [
    "contract grid records",
    "checkers flipchess janggi banqi four_player_chess",
    "engine listing lessons drawing",
    "dispatch",
];

/// The names the crate root defines itself (by `games!`), as a target.
const ROOT_NAMES: [&str; 2] = ["GameId", "MatchState"];
const ROOT: &str = "crate";

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The module path of every source file (`engine::puzzles`) with its code;
/// the root is `lib`.
fn modules(src: &std::path::Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for path in std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).unwrap().with_extension("");
                let mut parts: Vec<String> =
                    rel.iter().map(|p| p.to_string_lossy().into()).collect();
                if parts.last().is_some_and(|p| p == "mod") {
                    parts.pop();
                }
                out.insert(parts.join("::"), std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    out
}

/// The code without comments and test modules.
fn code(source: &str) -> String {
    let source = source.split("#[cfg(test)]").next().unwrap_or("");
    let lines = source.lines().map(|l| l.split("//").next().unwrap_or(""));
    lines.collect::<Vec<_>>().join("\n")
}

/// The paths following each `prefix` in `code`: `a::b` of `crate::a::b`,
/// and each member of a `crate::{a, b::c}` group.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let path_of = |text: &str| {
        let end = text.find(|c: char| !(c.is_alphanumeric() || "_:".contains(c)));
        text[..end.unwrap_or(text.len())]
            .trim_end_matches(':')
            .to_owned()
    };
    let mut out = Vec::new();
    for (i, _) in code.match_indices(prefix) {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(group.split(',').map(|p| path_of(p.trim())));
        } else {
            out.push(path_of(rest));
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

/// The longest module naming a prefix of `path`.
fn resolve(modules: &BTreeSet<String>, path: &str) -> Option<String> {
    let segments: Vec<&str> = path.split("::").collect();
    (1..=segments.len())
        .rev()
        .map(|n| segments[..n].join("::"))
        .find(|m| modules.contains(m))
}

/// What the root's `pub use`s name: `Seat` is `contract::Seat`, `puzzles`
/// is `engine::puzzles`.
fn reexports(root: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for used in code(root).split("pub use ").skip(1) {
        let used: String = used[..used.find(';').unwrap_or(0)]
            .split_whitespace()
            .collect();
        let (from, names) = match used.split_once("::{") {
            Some((from, group)) => (format!("{from}::"), group.trim_end_matches('}').to_owned()),
            None => (String::new(), used),
        };
        for name in names.split(',').filter(|n| !n.is_empty()) {
            let last = name.rsplit("::").next().unwrap();
            out.insert(last.to_owned(), format!("{from}{name}"));
        }
    }
    out
}

/// Who imports whom, file by file; the root's own names as [`ROOT`].
fn imports(sources: &BTreeMap<String, String>) -> Graph {
    let reexported = reexports(sources.get("lib").map_or("", String::as_str));
    let names: BTreeSet<String> = sources.keys().filter(|m| *m != "lib").cloned().collect();
    let mut graph = Graph::new();
    for module in &names {
        let code = code(&sources[module]);
        let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
        let up = paths_after(&code, "super::").into_iter();
        let up = up.map(|p| format!("{parent}::{p}").trim_start_matches(':').to_owned());
        let edges = graph.entry(module.clone()).or_default();
        for path in paths_after(&code, "crate::").into_iter().chain(up) {
            let (first, rest) = path.split_once("::").unwrap_or((&path, ""));
            if ROOT_NAMES.contains(&first) {
                edges.insert(ROOT.to_owned());
            }
            let path = match reexported.get(first) {
                Some(full) => format!("{full}::{rest}"),
                None => path.clone(),
            };
            edges.extend(resolve(&names, &path).filter(|t| t != module));
        }
    }
    graph
}

/// The same graph between top-level modules.
fn top_level(files: &Graph) -> Graph {
    let top = |m: &str| m.split("::").next().unwrap().to_owned();
    let mut graph = Graph::new();
    for (from, tos) in files {
        let edges = graph.entry(top(from)).or_default();
        edges.extend(tos.iter().map(|t| top(t)).filter(|t| *t != top(from)));
    }
    graph
}

/// Every circle of imports (strongly connected groups of two or more).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(m) = todo.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for (m, seen) in &reaches {
        if seen.contains(*m) && !out.iter().any(|c| c.contains(m)) {
            let circle = reaches
                .iter()
                .filter(|(o, r)| seen.contains(**o) && r.contains(*m));
            out.push(circle.map(|(o, _)| (*o).clone()).collect());
        }
    }
    out
}

/// Imports that reach a floor above their own, modules on no floor, and
/// modules naming the root's own types.
fn upward(top: &Graph) -> Vec<String> {
    let floor = |m: &str| FLOORS.iter().position(|f| f.split(' ').any(|n| n == m));
    let mut found = Vec::new();
    for (from, tos) in top {
        let Some(mine) = floor(from) else {
            found.push(format!("{from} is on no floor"));
            continue;
        };
        for to in tos {
            if to == ROOT {
                found.push(format!("{from} names the root's GameId or MatchState"));
            } else if floor(to).is_none_or(|theirs| theirs > mine) {
                found.push(format!("{from} imports {to}, above it"));
            }
        }
    }
    found
}

#[test]
fn the_rules_keep_their_floors_and_have_no_import_cycle() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = imports(&modules(&src));
    let top = top_level(&files);
    for (from, tos) in &top {
        let tos: Vec<&str> = tos.iter().map(String::as_str).collect();
        println!("{from} -> {}", tos.join(", "));
    }
    let (file_cycles, top_cycles, up) = (cycles(&files), cycles(&top), upward(&top));
    println!(
        "floors: {} files, {} modules; file cycles {file_cycles:?}, top-level cycles \
         {top_cycles:?}, upward {up:?}",
        files.len(),
        top.len(),
    );
    assert_eq!(file_cycles, Vec::<Vec<String>>::new(), "file cycles");
    assert_eq!(top_cycles, Vec::<Vec<String>>::new(), "top-level cycles");
    let leaning =
        ["engine", "lessons"].map(|m| format!("{m} names the root's GameId or MatchState"));
    assert_eq!(up, leaning, "imports above a floor");
}

/// Made-up sources, as the crate stood before its floors: FlipChess's
/// puzzle file reaches the puzzles through the root's re-export while the
/// engine reads the game, the engine reaches up to the dispatch, and two
/// sibling files import each other.
const TOY: &str = "
@lib pub use engine::puzzles;
    pub use contract::{Game,
        Seat};
@contract // crate::engine in a comment is no import
@dispatch
@engine use crate::{dispatch::view, GameId};
@engine::flipchess use crate::flipchess::State; use super::puzzles::Found;
@engine::puzzles use super::Search;
@lessons use crate::Seat; fn f() { crate::MatchState::empty(g) }
@flipchess use board::Board;
@flipchess::puzzle use crate::puzzles::Found;
@flipchess::board use super::{cards::Card, Config}; use crate::Game;
@flipchess::cards use super::board::Side;
    #[cfg(test)]
    mod tests { use crate::engine; }
";

/// The checks bite: the circles, the imports from below and the root's own
/// names in [`TOY`] are all found; a comment, a test module and a
/// `mod.rs`'s relative paths are no import.
#[test]
fn a_forbidden_import_and_a_circle_are_found() {
    let sources = TOY.split('@').skip(1).map(|file| {
        let (module, source) = file.split_once([' ', '\n']).unwrap();
        (module.to_owned(), source.to_owned())
    });
    let files = imports(&sources.collect());
    let top = top_level(&files);
    assert_eq!(cycles(&files), [["flipchess::board", "flipchess::cards"]]);
    assert_eq!(cycles(&top), [["engine", "flipchess"]]);
    let found = [
        "engine names the root's GameId or MatchState",
        "engine imports dispatch, above it",
        "flipchess imports engine, above it",
        "lessons names the root's GameId or MatchState",
    ];
    assert_eq!(upward(&top), found);
    let board = ["contract", "flipchess", "flipchess::cards"].map(String::from);
    assert_eq!(files["flipchess::board"], BTreeSet::from(board));
    assert_eq!(
        Vec::from_iter(&files["flipchess::puzzle"]),
        ["engine::puzzles"]
    );
    assert!(files["contract"].is_empty(), "comments are not imports");
    assert!(
        files["flipchess"].is_empty(),
        "a mod.rs's paths down are not read"
    );
    assert!(files["flipchess::cards"].len() == 1, "nor test modules");
}
