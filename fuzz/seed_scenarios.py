#!/usr/bin/env python3
"""Writes the scenario target's seed inputs into fuzz/corpus/scenario/: every scenario of the
repository (examples/, tests/scenarios/, experiments/) shortened to a 2-second run (`duration`
2 s, `warmup` 0.5 s, `sample_interval` 100 ms) so that a fuzz execution stays in milliseconds.
Files without a top-level `duration` (sweeps, claims) are skipped; the known-bad scenarios of
tests/scenarios/bad/ are kept as they are (they seed the error paths).

Run from the repository root: `python3 fuzz/seed_scenarios.py` (then `cargo fuzz cmin scenario`).
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "fuzz" / "corpus" / "scenario"
SOURCES = ["examples", "tests/scenarios", "experiments"]
SHORTEN = [
    (re.compile(r'^duration\s*=\s*"[^"]*"', re.M), 'duration = "2s"'),
    (re.compile(r'^warmup\s*=\s*"[^"]*"', re.M), 'warmup = "0.5s"'),
    (re.compile(r'^sample_interval\s*=\s*"[^"]*"', re.M), 'sample_interval = "100ms"'),
]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    n = 0
    for source in SOURCES:
        for path in sorted((REPO / source).rglob("*.toml")):
            text = path.read_text()
            if not re.search(r"^duration\s*=", text, re.M):
                continue
            if "bad" not in path.parts:
                for pattern, repl in SHORTEN:
                    text = pattern.sub(repl, text)
            name = "seed-" + "-".join(path.relative_to(REPO).with_suffix("").parts)
            (OUT / name).write_text(text)
            n += 1
    print(f"{n} seeds in {OUT.relative_to(REPO)}")


if __name__ == "__main__":
    main()
