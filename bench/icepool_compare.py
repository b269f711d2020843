#!/usr/bin/env python3
"""sandtable exact against icepool: the same questions, the same fractions,
and both timings.

    pip install icepool
    cargo build --release
    python3 bench/icepool_compare.py            # from the project folder
    python3 bench/icepool_compare.py --threads 1 --repeat 5

Each question is asked twice: of icepool (a dice-probability library that
works on multisets, like sandtable's enumeration) and of `sandtable exact
<script> --json`. Every probability of every metric must be the same reduced
fraction; the script exits 1 if any differs. Timings: icepool's is the
computation in this process (best of --repeat, after the import); sandtable's
is the wall clock of the whole command (best of --repeat), process start,
Luau start, ruleset and scenario loading included.

This is a benchmark, not a test: `cargo test` never runs Python.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from fractions import Fraction

try:
    import icepool
    from icepool import Die, d6
except ImportError:  # pragma: no cover
    sys.exit("icepool is not installed: pip install icepool")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "sandtable")


def pool_map(die, n, f):
    """The distribution of f(sorted faces) over n dice, by multisets."""
    return die.pool(n).expand().map(f)


def counts6(faces):
    return [faces.count(k) for k in range(1, 7)]


# ---------------------------------------------------------------- questions

def four_d6_six():
    return {"value": pool_map(d6, 4, lambda t: int(6 in t))}


def crater_odds():
    def crater(t):
        return int(max(counts6(t)) >= 3)

    def on_target(t):
        return sum(c for c in counts6(t) if c >= 2)

    def most_alike(t):
        return max(counts6(t))

    return {
        "crater": pool_map(d6, 4, crater),
        "on_target": pool_map(d6, 4, on_target),
        "most_alike": pool_map(d6, 4, most_alike),
    }


BATTLE_CC = Die(["infantry", "infantry", "cavalry", "artillery", "sabre", "flag"])


def battle_dice():
    hits = BATTLE_CC.map(lambda f: int(f in ("infantry", "sabre")))
    flags = BATTLE_CC.map(lambda f: int(f == "flag"))
    total = 3 @ hits
    return {"hits": total, "flags": 3 @ flags, "eliminated": total.map(lambda h: int(h >= 3))}


def exploding_six():
    return {"value": d6.map(lambda x: (x + 2 @ d6) if x == 6 else x)}


def drop_lowest():
    return {"value": d6.pool(4).highest(3).sum()}


# The Great War battle die (rulesets/great_war/ruleset.yaml).
BATTLE_GW = Die(["soldier", "soldier", "burst", "deadly", "hq", "flag"])


def reserve_artillery(protection, crater_at, strength=4, on_target_at=2):
    """The reserve artillery (4 targeting dice, Artillery Bombard by the
    allies) on a lone central infantry unit (scripts/analysis/lone_target.yaml).

    Dice on a number rolled on_target_at+ times are on target; crater_at+
    alike make a crater, which strips the on-target hex's protection. On
    target, each burst and deadly side hits; soldiers hit after protection
    cancels that many. Then the template hexes 1..6 are shelled in order, but
    only a hex holding a unit is rolled: the unit itself, if one flag made it
    retreat one hex towards its baseline (north-west first: template hex 6,
    the last one resolved). There bursts and soldiers hit (the open: no
    protection). Two or more flags take it out of the template."""

    def resolve(t, what):
        c = counts6(t)
        n_on = sum(x for x in c if x >= on_target_at)
        crater = any(x >= crater_at for x in c)
        if what == "crater":
            return int(crater)
        if n_on == 0:
            return 0
        prot = 0 if crater else protection
        in_hex6 = c[5]  # targeting dice showing 6 shell template hex 6

        def value(lost):
            return int(lost >= strength) if what == "eliminated" else lost

        def on_target(sym):
            sure = sym.count("burst") + sym.count("deadly")
            hits = min(strength, sure + max(0, sym.count("soldier") - prot))
            left = strength - hits
            if left == 0 or sym.count("flag") != 1 or in_hex6 == 0:
                return value(hits)

            def hex6(sym2):
                return value(hits + min(left, sym2.count("burst") + sym2.count("soldier")))

            return pool_map(BATTLE_GW, in_hex6, hex6)

        return pool_map(BATTLE_GW, n_on, on_target)

    return {w: pool_map(d6, 4, lambda t, w=w: resolve(t, w)) for w in ("figures_lost", "eliminated", "crater")}


QUESTIONS = [
    ("P(at least one 6 in 4d6)", four_d6_six, ["scripts/analysis/four_d6_six.lua"]),
    ("4 targeting dice: crater, on target, most alike", crater_odds, ["scripts/analysis/crater_odds.lua"]),
    ("3 C&C battle dice (symbol die): hits, flags", battle_dice, ["scripts/analysis/battle_dice.lua"]),
    ("1d6, +2d6 on a 6", exploding_six, ["scripts/analysis/exploding_six.lua"]),
    ("4d6 drop the lowest", drop_lowest, ["scripts/analysis/drop_lowest.lua"]),
    ("reserve artillery on infantry in the open", lambda: reserve_artillery(0, 3), ["scripts/analysis/ra_open.lua"]),
    ("reserve artillery on infantry in woods", lambda: reserve_artillery(1, 3), ["scripts/analysis/ra_woods.lua"]),
    (
        "reserve artillery in woods, crater_at=4",
        lambda: reserve_artillery(1, 4),
        ["scripts/analysis/ra_woods.lua", "--set", "reserve_artillery.crater_at=4"],
    ),
]


def frac_str(f):
    f = Fraction(f)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def die_fractions(die):
    den = die.denominator()
    return {str(o): frac_str(Fraction(q, den)) for o, q in die.items() if q}


def best_time(repeat, f):
    best, out = None, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        d = time.perf_counter() - t
        best = d if best is None or d < best else best
    return best, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None, help="sandtable --threads (default: every core)")
    ap.add_argument("--json", action="store_true", help="print the table as JSON")
    args = ap.parse_args()
    if not os.path.exists(BIN):
        sys.exit(f"{BIN} is missing: cargo build --release")

    rows, failures = [], 0
    for title, question, argv in QUESTIONS:
        # icepool caches; clear it so every repeat computes afresh.
        def ask():
            if hasattr(icepool, "clear_cache"):
                icepool.clear_cache()
            return {k: die_fractions(v) for k, v in question().items()}

        t_ice, want = best_time(args.repeat, ask)
        cmd = [BIN, "exact", *argv, "--json"]
        if args.threads:
            cmd += ["--threads", str(args.threads)]

        def run():
            p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
            return json.loads(p.stdout)

        t_st, got = best_time(args.repeat, run)
        same = True
        for metric, dist in want.items():
            mine = got["metrics"].get(metric, {}).get("distribution", {})
            if mine != dist:
                same = False
                print(f"MISMATCH {title} / {metric}:\n  icepool   {dist}\n  sandtable {mine}", file=sys.stderr)
        failures += not same
        means = {m: got["metrics"][m]["mean"] for m in want if m in got["metrics"]}
        rows.append(
            {
                "question": title,
                "command": "sandtable exact " + " ".join(argv),
                "leaves": got["leaves"],
                "same": same,
                "icepool_s": t_ice,
                "sandtable_s": t_st,
                "means": means,
            }
        )

    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"icepool {icepool.__version__}; times are the best of {args.repeat}\n")
        print(f"{'question':50} {'same':>5} {'leaves':>7} {'icepool':>10} {'sandtable':>10}  means (sandtable = icepool)")
        for r in rows:
            means = ", ".join(f"{k} {v}" for k, v in r["means"].items())
            print(
                f"{r['question']:50} {'yes' if r['same'] else 'NO':>5} {r['leaves']:>7} "
                f"{r['icepool_s'] * 1e3:>8.1f}ms {r['sandtable_s'] * 1e3:>8.1f}ms  {means}"
            )
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
