"""Read Posthorn's game records with independent tools (issue #69,
docs/records.md): pydraughts for American, Brazilian, International and
Russian PDN, pyffish (Fairy-Stockfish) for Janggi's PGN. Each record is
replayed by the tool's own rules, every move checked legal there, and the
position it reaches compared with the one our rules reached (the `.end`
file beside each record). pydraughts has no Pool, Spanish or Thai
checkers, so those are read back by our own rules only
(rules/tests/records.rs).

Usage: python read.py DIR  (DIR as `RECORDS_OUT` of
`written_for_independent_readers` left it).
"""
import pathlib
import re
import sys

from draughts import Board, Move
from draughts.PDN import PDNReader
import pyffish

# PDN GameType → pydraughts' own variant name, for those it plays.
VARIANTS = {"21": "english", "26": "brazilian", "20": "standard", "25": "russian"}


def tags(text):
    return dict(re.findall(r'^\[(\w+) "(.*)"\]$', text, re.M))


def movetext(text):
    body = text.split("\n\n", 1)[1]
    words = [w for w in body.split() if not re.fullmatch(r"\d+\.|1-0|0-1|1/2-1/2|\*", w)]
    return words


def pieces(fen):
    """A PDN FEN as (turn, {(colour, square, king)}), whatever the order."""
    turn, *sides = fen.strip().rstrip(".").split(":")
    out = set()
    for side in sides:
        colour, squares = side[0], side[1:]
        for sq in filter(None, squares.split(",")):
            king = sq.startswith("K")
            out.add((colour, sq.lstrip("K"), king))
    return turn, out


def read_checkers(path):
    text = path.read_text()
    t = tags(text)
    variant = VARIANTS[t["GameType"].split(",")[0]]
    game = PDNReader(filename=str(path)).games[0]
    assert game.variant == variant, (path, game.variant, variant)
    board = Board(variant=variant, fen=t["FEN"])
    # pydraughts 0.6.7's reader splits a movetext whose FEN has Black to
    # move wrongly (it repeats the first move and drops the second), so
    # the words are split here; its board judges every one.
    words = movetext(text)
    for i, word in enumerate(words):
        # pydraughts reads the word itself (numbers, or Russian's and
        # Brazilian's squares by file and rank); its board's own moves
        # must hold it, by the whole route of a capture.
        try:
            route = Move(board, pdn_move=word).steps_move
        except (KeyError, ValueError, IndexError):
            route = None  # pydraughts knows no such move here
        legal = board.legal_moves()
        match = next((m for m in legal if route and list(m.steps_move) == list(route)), None)
        assert match is not None, f"{path.name}: move {i + 1} {word} is not legal there: {[m.pdn_move for m in legal]}"
        board.push(match)
    ours = pieces(path.with_suffix(".end").read_text())
    theirs = pieces(board.fen)
    assert ours == theirs, f"{path.name}: pydraughts ends at {board.fen}, ours at {ours}"
    return len(words)


def read_janggi(path):
    text = path.read_text()
    t = tags(text)
    assert t["Variant"] == "janggi", path
    start = t["FEN"]
    moves = []
    for i, word in enumerate(movetext(text)):
        legal = pyffish.legal_moves("janggi", start, moves)
        assert word in legal, f"{path.name}: move {i + 1} {word} is not legal for Fairy-Stockfish: {legal}"
        moves.append(word)
    theirs = pyffish.get_fen("janggi", start, moves).split()
    ours = path.with_suffix(".end").read_text().split()
    assert theirs[:2] == ours[:2], f"{path.name}: Fairy-Stockfish ends at {theirs}, ours at {ours}"
    return len(moves)


def main(folder):
    folder = pathlib.Path(folder)
    read = {}
    for path in sorted(folder.iterdir()):
        if path.suffix == ".pdn":
            read[path.name] = read_checkers(path)
        elif path.suffix == ".pgn":
            read[path.name] = read_janggi(path)
    names = {name.split("-")[0] for name in read}
    assert names == {"american", "brazilian", "international", "russian", "janggi"}, names
    for name, moves in read.items():
        print(f"{name}: {moves} moves legal and the same end")
    print(f"{len(read)} records read by pydraughts and pyffish")
    bites(folder)


def bites(folder):
    """The check bites: a record with its first two moves swapped is
    refused by each reader."""
    import tempfile
    for name, reader in (("american-1.pdn", read_checkers), ("janggi-1.pgn", read_janggi)):
        text = (folder / name).read_text()
        tags_part, body = text.split("\n\n", 1)
        words = movetext(text)
        body = body.replace(words[0], "@@", 1).replace(words[1], words[0], 1).replace("@@", words[1], 1)
        with tempfile.TemporaryDirectory() as tmp:
            bad = pathlib.Path(tmp) / name
            bad.write_text(tags_part + "\n\n" + body)
            bad.with_suffix(".end").write_text((folder / name).with_suffix(".end").read_text())
            try:
                reader(bad)
            except AssertionError:
                print(f"{name} with two moves swapped: refused")
                continue
            raise SystemExit(f"{name} with two moves swapped was read")


if __name__ == "__main__":
    main(sys.argv[1])
