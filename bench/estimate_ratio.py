#!/usr/bin/env python3
"""How far a scheme's bandwidth estimate sits above what its flow actually gets, with many flows.

    python3 bench/estimate_ratio.py [--seed N]

For REPRODUCTION.md's `westwood-many-flows` and `njplus-cw-non-ect` paragraphs: runs, at 0% loss,
TCP-Jersey's Table I path (experiments/jersey/manyflows.toml, 20 flows) with Westwood (Jersey eq. 2
filter, the UCLA ns-2 module's filter, eq. 2 with timestamps) and Westwood+, and TCP NJ+'s ten-flow
path (experiments/njplus/tenflows.toml) with NJ+'s per-ACK estimator (its Fig. 2) and a per-RTT one.
Prints per variant: total goodput (Mb/s), the mean over flows of the time-averaged estimate
(`bwe_bps` of the time series, after the warm-up) divided by the flow's mean goodput, the timeouts
of all flows and the mean valid RTT samples per flow.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import airtcp  # noqa: E402
from airtcp.scenario import parse_duration_s  # noqa: E402
import polars as pl  # noqa: E402


def measure(path: Path, tweak: dict, seed: int) -> tuple[float, float, int, float]:
    doc = tomllib.loads(path.read_text())
    doc["links"][1]["channel"]["loss"] = 0.0
    doc["flows"][0].update(tweak)
    r = airtcp.run(doc, seed=seed, base_dir=path.parent)
    warm = parse_duration_s(doc.get("warmup", "0s"))
    est = r.flow_series.filter(pl.col("time_s") >= warm).group_by("flow").agg(pl.col("bwe_bps").mean())
    total = float(r.flows["goodput_bps"].sum())
    ratio = float(est["bwe_bps"].mean()) / (total / len(r.flows))
    return total / 1e6, ratio, int(r.flows["timeouts"].sum()), float(r.flows["rtt_samples"].mean())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    jersey = ROOT / "experiments" / "jersey" / "manyflows.toml"
    njplus = ROOT / "experiments" / "njplus" / "tenflows.toml"
    variants = [
        ("Table I, westwood (Jersey eq. 2)", jersey, {"cc": "westwood"}),
        ("Table I, westwood (UCLA ns-2 filter)", jersey, {"cc": "westwood", "cc_params": {"filter": "ucla-ns2"}}),
        ("Table I, westwood, timestamps", jersey, {"cc": "westwood", "timestamps": True}),
        ("Table I, westwood-plus", jersey, {"cc": "westwood-plus"}),
        ("NJ+ ten flows, nj+ (per-ACK, Fig. 2)", njplus, {}),
        ("NJ+ ten flows, nj+ with abe_update per-rtt", njplus, {"cc_params": {"abe_update": "per-rtt"}}),
    ]
    print(f"seed {a.seed}, 0% loss")
    print(f"{'variant':44} {'goodput Mb/s':>12} {'estimate/goodput':>17} {'timeouts':>9} {'RTT samples':>12}")
    for name, path, tweak in variants:
        g, ratio, to, samples = measure(path, tweak, a.seed)
        print(f"{name:44} {g:12.2f} {ratio:17.2f} {to:9d} {samples:12.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
