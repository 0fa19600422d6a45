#!/usr/bin/env python3
"""Steady-state CPU time, A/B against an earlier build (issue 42's yardstick).

For each scenario the runner is timed on a 1000-s and on a 1-s version of it, each as a whole
process, and its steady-state cost per simulated 100 s is (T(1000 s) - T(1 s)) × 100 / 999, where T
is the process's CPU time (user + system, from the kernel's rusage of the child): start-up, parsing
and output cancel out. The two builds are alternated run by run (A, B, B, A, ...),
so that a slow stretch of a shared machine hits both alike; each figure is a median. Beside it, the
median over rounds of the ratio of the two builds' whole 1000-s runs: on this noisy machine the
difference of two medians moves by ±15% between sittings, the ratio much less. "rounds q1 / median
/ q3": the quartiles over rounds of the steady-cost ratio of the two builds within a round (the same
for ns-2.35 against this checkout), which say how far one sitting's rounds spread. The paired
median is the sounder figure when a sitting's rounds fall in both of the host's regimes (below): a
difference of medians can then take its long and short runs from different regimes.

The host's regimes: on these shared VMs a process's CPU time sits in one of (at least) two levels
for minutes at a time, ~1.6x apart, and the programs do not move alike (measured 2026-11-29 over
514 rounds of Fig. 10 at 1%: this checkout 17.7 / 28.2 ms, 0172df5 27.5 / 48.2 ms, ns-2.35 179 /
254 ms per 1000-s run, fast / slow), so a sitting's ratios depend on which regime its rounds fell
in. `--regimes` splits the rounds (use many rounds).

  python3 bench/steady_ab.py                     # this checkout against 0172df5 (built once)
  python3 bench/steady_ab.py --base REV --rounds 15
  python3 bench/steady_ab.py --ns2               # also ns-2.35 on Fig. 10 (Debian ns2)
  python3 bench/steady_ab.py --pgo               # both builds profile-guided (bench/build_pgo.sh)
  python3 bench/steady_ab.py --ns2 --one-sample  # the runs record one sample, not a 100-ms series:
                                                 # the output ns-2.35's script records (equal work)
  python3 bench/steady_ab.py --ns2 --only fig10-1 --rounds 201 --regimes   # ~4 min

The baseline is built from a detached git worktree under target/ab/REV (release profile, the
`run_toml` example), this checkout's runner with `cargo build --release`. Results go to
bench/steady_ab.json (with --one-sample, bench/steady_ab_one_sample.json) and are printed as a
table.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

# bench/ is this script's folder, first on sys.path when it runs
from run_bench import fig10_toml

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
FIG10 = ROOT / "examples" / "jersey_fig10.toml"
DUMBBELL = ROOT / "bench" / "scenarios" / "dumbbell20.toml"
NS2_FIG10 = ROOT / "bench" / "ns2" / "fig10.tcl"


def build_runner(checkout: Path, target: Path) -> Path:
    """Builds `run_toml` (release) in `checkout` into `target` and returns its path."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "airtcp", "--example", "run_toml"],
        cwd=checkout,
        check=True,
        env=env,
    )
    return target / "release" / "examples" / "run_toml"


def pgo_runner(checkout: Path, target: Path) -> Path:
    """The profile-guided runner of `checkout`, built by its own `bench/build_pgo.sh` (trained on
    its own examples) into `target`; the script prints the runner's path last."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    out = subprocess.run(
        ["bash", "bench/build_pgo.sh"], cwd=checkout, check=True, env=env, capture_output=True, text=True
    )
    return Path(out.stdout.strip().splitlines()[-1])


def base_runner(rev: str, pgo: bool = False) -> Path:
    """The baseline's runner: a detached worktree of `rev` under target/ab, built once (with
    `pgo`, its profile-guided runner)."""
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, check=True, capture_output=True, text=True)
    sha = sha.stdout.strip()
    tree = TARGET / "ab" / sha
    if not tree.exists():
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(tree), sha], cwd=ROOT, check=True, capture_output=True
        )
    return pgo_runner(tree, tree / "target") if pgo else build_runner(tree, tree / "target")


def cpu_time(cmd: list[str]) -> float:
    """CPU seconds (user + system) of one whole process, from the kernel's accounting."""
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen(cmd, stdout=null, stderr=null)
        _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"error: {' '.join(cmd)} exited with {os.waitstatus_to_exitcode(status)}")
    return ru.ru_utime + ru.ru_stime


def variants(src: str, tmp: Path, name: str, loss: float | None, one_sample: bool = False) -> tuple[Path, Path]:
    """The scenario at 1000 s and at 1 s (warm-up 0.5 s); given a loss, Fig. 10 at that loss (as
    `make bench` runs it, `run_bench.fig10_toml`) instead of `src`. With `one_sample`, its 100-ms
    time series becomes one sample at 0 (`sample_interval` past the run's end): the same summary,
    without the series."""
    if loss is not None:
        src = fig10_toml(loss)
    if one_sample:
        if 'sample_interval = "100ms"' not in src:
            sys.exit(f"error: --one-sample: {name} has no 100-ms sample interval to replace")
        src = src.replace('sample_interval = "100ms"', 'sample_interval = "2000s"', 1)
    out = []
    for secs in (1000, 1):
        text = src.replace('duration = "100s"', f'duration = "{secs}s"', 1)
        text = text.replace('warmup = "10s"', 'warmup = "0.5s"' if secs == 1 else 'warmup = "10s"', 1)
        p = tmp / f"{name}-{secs}s.toml"
        p.write_text(text)
        out.append(p)
    return out[0], out[1]


def ratios(t: dict[str, list[float]], num: str, den: str) -> list[float]:
    """The ratio of two programs' steady cost (1000-s run minus 1-s run) in each round."""
    return [
        (nl - ns) / (dl - ds)
        for nl, ns, dl, ds in zip(t[f"{num}_long"], t[f"{num}_short"], t[f"{den}_long"], t[f"{den}_short"])
        if dl > ds
    ]


def paired(t: dict[str, list[float]], num: str, den: str) -> tuple[float, float, float]:
    """Quartiles (25%, median, 75%) of `ratios` over the rounds: how far one sitting's rounds
    spread."""
    r = ratios(t, num, den)
    if len(r) < 2:
        return (float("nan"),) * 3
    q = statistics.quantiles(r, n=4)
    return (q[0], statistics.median(r), q[2])


def regimes(t: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """The rounds split by the host's speed regime. On the shared VMs this project runs on, the
    same process takes one of (at least) two CPU times for minutes at a time, ~1.6x apart, and the
    programs do not slow down alike: a round is 'fast' when this checkout's 1000-s run took at most
    1.2x the fastest tenth of its runs, 'slow' otherwise. For each regime: the rounds, this
    checkout's median 1000-s run, and the medians of the paired steady ratios (base / this, ns-2 /
    this) of its rounds."""
    longs = t["new_long"]
    if len(longs) < 10:
        return {}
    p10 = statistics.quantiles(longs, n=10)[0]
    out = {}
    for reg, keep in (("fast", lambda x: x <= 1.2 * p10), ("slow", lambda x: x > 1.2 * p10)):
        idx = [i for i, x in enumerate(longs) if keep(x)]
        if len(idx) < 2:
            continue

        sub = {k: [v[i] for i in idx] for k, v in t.items() if v}

        def ratio(who: str, sub: dict[str, list[float]] = sub) -> float:
            return statistics.median(ratios(sub, who, "new"))

        v = {
            "rounds": len(idx),
            "new_long_ms": statistics.median(longs[i] for i in idx) * 1e3,
            "old_over_new": ratio("old"),
        }
        if t["ns2_long"]:
            v["ns2_over_new"] = ratio("ns2")
        out[reg] = v
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="0172df5", help="the earlier build's git revision (default 0172df5)")
    ap.add_argument("--rounds", type=int, default=11, help="A/B rounds per scenario and length (default 11)")
    ap.add_argument("--ns2", action="store_true", help="also time ns-2.35 on Fig. 10 (0%% and 1%%)")
    ap.add_argument(
        "--pgo",
        action="store_true",
        help="build both runners profile-guided (bench/build_pgo.sh; needs llvm-profdata of rustc's LLVM)",
    )
    ap.add_argument(
        "--only",
        choices=("fig10-0", "fig10-1", "dumbbell"),
        action="append",
        help="time only this scenario (repeatable; default all three)",
    )
    ap.add_argument(
        "--regimes",
        action="store_true",
        help="also split the rounds by the host's speed regime (see the module's notes); use many rounds",
    )
    ap.add_argument(
        "--one-sample",
        action="store_true",
        help="airtcp's runs record one sample instead of a 100-ms series (the output ns-2.35's script records)",
    )
    a = ap.parse_args()
    if a.rounds < 1:
        sys.exit("error: --rounds must be at least 1")
    if a.ns2 and shutil.which("ns") is None:
        sys.exit("error: --ns2 needs ns-2.35's `ns` on PATH (Debian: apt-get install ns2)")
    new = pgo_runner(ROOT, TARGET) if a.pgo else build_runner(ROOT, TARGET)
    old = base_runner(a.base, a.pgo)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        cases = [
            ("fig10 0%", variants(FIG10.read_text(), tmp, "fig10-0", 0.0, a.one_sample), 0.0),
            ("fig10 1%", variants(FIG10.read_text(), tmp, "fig10-1", 0.01, a.one_sample), 0.01),
            ("dumbbell 20", variants(DUMBBELL.read_text(), tmp, "dumbbell", None, a.one_sample), None),
        ]
        keys = {"fig10 0%": "fig10-0", "fig10 1%": "fig10-1", "dumbbell 20": "dumbbell"}
        cases = [c for c in cases if not a.only or keys[c[0]] in a.only]
        for name, (long, short), loss in cases:
            t: dict[str, list[float]] = {
                k: [] for k in ("new_long", "new_short", "old_long", "old_short", "ns2_long", "ns2_short")
            }
            whole = []
            for r in range(a.rounds):
                # ABBA: the build that runs first alternates, so a drift within a round hits both.
                order = (("new", new), ("old", old)) if r % 2 == 0 else (("old", old), ("new", new))
                for who, exe in order:
                    t[f"{who}_long"].append(cpu_time([str(exe), str(long), "1"]))
                    t[f"{who}_short"].append(cpu_time([str(exe), str(short), "1"]))
                whole.append(t["old_long"][-1] / t["new_long"][-1])
                if a.ns2 and loss is not None:
                    t["ns2_long"].append(cpu_time(["ns", str(NS2_FIG10), str(loss), "1000", "1"]))
                    t["ns2_short"].append(cpu_time(["ns", str(NS2_FIG10), str(loss), "1", "1"]))
            med = {k: statistics.median(v) for k, v in t.items() if v}

            def steady(who: str, med: dict[str, float] = med) -> float:
                return (med[f"{who}_long"] - med[f"{who}_short"]) / 999 * 100

            row = {
                "scenario": name,
                "rounds": a.rounds,
                "medians_s": med,
                "new_per_100s": steady("new"),
                "old_per_100s": steady("old"),
            }
            row["speedup_vs_base"] = row["old_per_100s"] / row["new_per_100s"]
            row["speedup_vs_base_rounds_q1_med_q3"] = paired(t, "old", "new")
            # The steadier figure on a noisy machine: the median of the rounds' ratios of whole
            # 1000-s runs (start-up included, a few ms of some 50-300 ms), not a difference of
            # two medians.
            row["whole_run_speedup"] = statistics.median(whole)
            if "ns2_long" in med:
                row["ns2_per_100s"] = steady("ns2")
                row["ns2_over_new"] = row["ns2_per_100s"] / row["new_per_100s"]
                row["ns2_over_new_rounds_q1_med_q3"] = paired(t, "ns2", "new")
            rows.append(row)
            extra = (
                f"  ns-2 {row['ns2_per_100s'] * 1e3:7.2f} ms ({row['ns2_over_new']:.1f}x;"
                " rounds {:.1f} / {:.1f} / {:.1f}x)".format(*row["ns2_over_new_rounds_q1_med_q3"])
                if "ns2_per_100s" in row
                else ""
            )
            print(
                f"{name:12} steady CPU per 100 s: this {row['new_per_100s'] * 1e3:7.2f} ms, "
                f"{a.base} {row['old_per_100s'] * 1e3:7.2f} ms, speed-up {row['speedup_vs_base']:.2f}x"
                " (rounds {:.2f} / {:.2f} / {:.2f}x;".format(*row["speedup_vs_base_rounds_q1_med_q3"])
                + f" whole 1000-s runs {row['whole_run_speedup']:.2f}x){extra}",
                flush=True,
            )
            if a.regimes:
                row["regimes"] = regimes(t)
                for reg, v in row["regimes"].items():
                    ns2 = f", ns-2.35 / this {v['ns2_over_new']:.2f}x" if "ns2_over_new" in v else ""
                    print(
                        f"  {reg:4} regime: {v['rounds']:3} rounds, this {v['new_long_ms']:6.2f} ms per 1000-s run, "
                        f"{a.base} / this {v['old_over_new']:.2f}x{ns2}  (medians of the rounds' paired steady ratios)"
                    )
    (ROOT / "bench" / ("steady_ab_one_sample.json" if a.one_sample else "steady_ab.json")).write_text(
        json.dumps({"base": a.base, "pgo": a.pgo, "one_sample": a.one_sample, "rows": rows}, indent=2) + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
