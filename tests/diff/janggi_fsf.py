#!/usr/bin/env python3
"""Dev-only differential check of Janggi move generation (issue #14)
against Fairy-Stockfish's `janggicasual` rules (GPL: used as a separate
program here, never a dependency; its code is not in this repository).

    cargo build --release -p posthorn-rules --examples
    FSF=/path/to/stockfish python3 tests/diff/janggi_fsf.py [games] [seed]

1. Random playouts from random setups (§J2): at every position the set of
   legal moves of `--example moves -- janggi <FEN>` must equal the engine's
   (its pass `e2e2` is our `pass`). Positions where the kings face are
   skipped: there our match is over (§J6 bikjang) and the engine plays on.
2. perft to depth 3 (PERFT_DEPTH) from three positions, counted with the engine's move
   lists and our §J6 leaf rules (a move that makes the kings face, or a
   second pass in a row, has no children), against our `--example perft`.
"""
import os, random, subprocess, sys

FSF = os.environ.get("FSF", "stockfish")
OURS = "target/release/examples"
SETUPS = {"MSMS": "NBNB", "SMSM": "BNBN", "MSSM": "NBBN", "SMMS": "BNNB"}


class Engine:
    def __init__(self):
        self.p = subprocess.Popen([FSF], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.until("uciok")
        self.send("setoption name UCI_Variant value janggicasual")

    def send(self, line):
        self.p.stdin.write(line + "\n")

    def until(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("the engine stopped")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    def moves_raw(self, fen):
        """The engine's legal moves, in its notation."""
        self.send(f"position fen {fen}")
        self.send("go perft 1")
        return [l.split(":")[0] for l in self.until("Nodes searched") if ": " in l and not l.startswith("Nodes")]

    def fen_after(self, fen, move):
        self.send(f"position fen {fen} moves {move}")
        self.send("d")
        for line in self.until("Checkers"):
            if line.startswith("Fen: "):
                return line[5:]
        sys.exit("no FEN from the engine")


def is_pass(mv):
    split = next(i for i in range(1, len(mv)) if mv[i].isalpha())
    return mv[:split] == mv[split:]


def ours(fen):
    out = subprocess.run([f"{OURS}/moves", "janggi", fen], capture_output=True, text=True, check=True).stdout
    return sorted(out.split())


def start_fen(cho, han):
    c = SETUPS[cho]
    h = SETUPS[han]
    cho_rank = f"R{c[0]}{c[1]}A1A{c[2]}{c[3]}R"
    han_rank = f"R{h[0]}{h[1]}A1A{h[2]}{h[3]}R"[::-1].lower()
    return f"{han_rank}/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/{cho_rank} w - - 0 1"


def kings_face(fen):
    rows = fen.split()[0].split("/")
    grid = []
    for row in rows:
        line = ""
        num = ""
        for ch in row:
            if ch.isdigit():
                num += ch
            else:
                line += "." * int(num or 0) + ch
                num = ""
        line += "." * int(num or 0)
        grid.append(line)
    cols = ["".join(r[f] for r in grid) for f in range(9)]
    for col in cols:
        pieces = col.replace(".", "")
        if "kK" in pieces or "Kk" in pieces:
            return True
    return False


def engine_move_name(engine_moves, ours_move):
    if ours_move != "pass":
        return ours_move
    return next(m for m in engine_moves if is_pass(m))


def perft(engine, fen, depth, passed):
    raw = engine.moves_raw(fen)
    if depth == 1:
        return len(raw)
    total = 0
    for mv in raw:
        after = engine.fen_after(fen, mv)
        if is_pass(mv) and passed or kings_face(after):
            continue
        total += perft(engine, after, depth - 1, is_pass(mv))
    return total


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 14)
    engine = Engine()
    checked = 0
    for _ in range(games):
        fen = start_fen(rng.choice(list(SETUPS)), rng.choice(list(SETUPS)))
        for _ in range(rng.randint(20, 160)):
            if kings_face(fen):
                break
            theirs = sorted("pass" if is_pass(m) else m for m in engine.moves_raw(fen))
            mine = ours(fen)
            checked += 1
            if theirs != mine:
                print(f"DIFFERENT at {fen}\n  only ours: {sorted(set(mine) - set(theirs))}\n  only engine: {sorted(set(theirs) - set(mine))}")
                sys.exit(1)
            if not mine:
                break
            mv = rng.choice(mine)
            fen = engine.fen_after(fen, engine_move_name(engine.moves_raw(fen), mv))
    print(f"{checked} positions: the same legal moves")
    depth = int(os.environ.get("PERFT_DEPTH", "3"))
    for fen in [start_fen("SMSM", "SMSM"),
                "1n1kaabn1/cr2N4/5C1c1/p1pNp3p/9/9/P1PbP1P1P/3r1p3/4A4/R1BA1KB1R b - - 0 1",
                "1Pbcka3/3nNn1c1/N2CaC3/1pB6/9/9/5P3/9/4K4/9 w - - 0 23"]:
        theirs = perft(engine, fen, depth, False)
        out = subprocess.run([f"{OURS}/perft", "janggi", str(depth), fen], capture_output=True, text=True, check=True).stdout
        mine = int(out.split("nodes ")[-1])
        print(f"perft {depth} {fen}: engine with our leaf rules {theirs}, ours {mine}")
        if theirs != mine:
            sys.exit(1)


if __name__ == "__main__":
    main()
