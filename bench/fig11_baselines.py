#!/usr/bin/env python3
"""Cross-check of the Reno family against ns-2.35 on TCP-Jersey's Fig. 10/11 scenario.

For each packet loss rate of Fig. 11's axis and each of Tahoe, Reno, NewReno and SACK, runs the
scenario in airtcp and in ns-2 (bench/ns2/fig10.tcl, Debian's `ns2`) with 10 seeds and prints a
Markdown table of the mean goodput (sender's view from cumulative ACKs over [0, 100 s], as the
Jersey paper measures) with 95% confidence intervals. Usage: python3 bench/fig11_baselines.py [SEEDS]
"""

import math
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import airtcp
from airtcp.scenario import apply_overrides, dumps, load

ROOT = Path(__file__).resolve().parent.parent
LOSSES = [0.00001, 0.0001, 0.001, 0.01, 0.03, 0.1]
# (label, airtcp recovery, extra --set overrides, ns-2 agent)
VARIANTS = [
    ("tahoe", "tahoe", [], "tahoe"),
    ("reno", "reno", [], "reno"),
    ("newreno (impatient, RFC 6582)", "newreno", [], "newreno"),
    ("newreno (slow-but-steady)", "newreno", ["flows.0.partial_ack_timer=slow-but-steady"], "newreno"),
    ("sack", "sack", ["flows.0.sack=true"], "sack"),
]
T95 = {5: 2.776, 10: 2.262, 20: 2.093}


def ci(xs):
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, 0.0
    return m, T95.get(len(xs), 1.96) * statistics.stdev(xs) / math.sqrt(len(xs))


def ns2(loss, variant, seed):
    out = subprocess.run(
        ["ns", str(ROOT / "bench/ns2/fig10.tcl"), str(loss), "100", str(seed), variant],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return float(out.split()[3])


def main():
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    have_ns2 = shutil.which("ns") is not None
    print("| loss | variant | airtcp kb/s (95% CI) | ns-2.35 kb/s (95% CI) | airtcp / ns-2 |")
    print("|---|---|---|---|---|")
    for loss in LOSSES:
        for label, rec, extra, ns_agent in VARIANTS:
            sets = ["warmup=0s", f"links.1.channel.loss={loss}", f"flows.0.recovery={rec}", *extra]
            text = dumps(apply_overrides(load(ROOT / "examples/jersey_fig10.toml"), sets))
            res = airtcp.run_many([text] * seeds, seeds=list(range(1, seeds + 1)))
            a = ci([r.summary["flows"][0]["goodput_acked_bps"] / 1e3 for r in res])
            if have_ns2:
                n = ci([ns2(loss, ns_agent, s) / 1e3 for s in range(1, seeds + 1)])
                ns_txt, ratio = f"{n[0]:.0f} ± {n[1]:.0f}", f"{a[0] / n[0]:.3f}"
            else:
                ns_txt, ratio = "n/a", "n/a"
            print(f"| {loss * 100:g}% | {label} | {a[0]:.0f} ± {a[1]:.0f} | {ns_txt} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
