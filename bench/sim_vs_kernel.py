"""Sim vs kernel on TCP-Jersey's Fig. 10 path (issue 7): the simulator's Reno, Westwood and Jersey
beside real Linux TCP — kernel reno and cubic, our BPF westwood and jersey — carried by
airtcp-relay over the same links (experiments/jersey/fig10.toml: CW queue at the base station,
uniform loss on the wireless hop, Reno recovery), at several loss rates, several seeds each.

    python bench/sim_vs_kernel.py [--runs 5] [--duration 20s] [--warmup 4s] [--update-validation]

With --bbr: the simulator's CUBIC and BBR beside the kernel's own cubic and bbr on the same path
with deep drop-tail buffers (1000 packets at both hops) and SACK recovery, as Linux runs them
(results/sim_vs_kernel_bbr.json, the table between the sim-vs-kernel-bbr markers):

    python bench/sim_vs_kernel.py --bbr [--runs 3] [--losses 0,0.01,0.03] [--update-validation]

With --nj: TCP New Jersey and NJ+ (ECN and timestamps on) beside our BPF atcp_newjersey and
atcp_njplus on the Fig. 10 path (results/sim_vs_kernel_nj.json, the sim-vs-kernel-nj markers):

    python bench/sim_vs_kernel.py --nj [--runs 5] [--update-validation]

Needs root and the kernel testbed (kernel/README.md). Writes results/sim_vs_kernel.json and, with
--update-validation, the table between the markers in VALIDATION.md.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from airtcp import api  # noqa: E402
from airtcp import scenario as sc  # noqa: E402
from airtcp.testbed import emulate  # noqa: E402

LOSSES = [0.0, 0.001, 0.01, 0.03]
#: scheme -> scenario flow options (as experiments/jersey/fig11.sweep.toml sets them)
SCHEMES = {
    "reno": {"cc": "reno"},
    "cubic": {"cc": "reno"},  # the simulator has no CUBIC; kernel only
    "westwood": {"cc": "westwood"},
    "jersey": {"cc": "jersey", "ecn": True},
}
KERNEL = ["reno", "cubic", "westwood", "jersey"]
SIM = ["reno", "westwood", "jersey"]
BEGIN, END = "<!-- sim-vs-kernel:begin -->", "<!-- sim-vs-kernel:end -->"
#: --bbr: the same scheme in both columns, SACK recovery, deep drop-tail buffers
BBR_SCHEMES = {
    "cubic": {"cc": "cubic", "recovery": "sack", "sack": True},
    "bbr": {"cc": "bbr", "recovery": "sack", "sack": True},
}
BBR_BEGIN, BBR_END = "<!-- sim-vs-kernel-bbr:begin -->", "<!-- sim-vs-kernel-bbr:end -->"
#: --nj: TCP New Jersey and NJ+ (issue 27), set as experiments/njplus/fig6.sweep.toml sets them
#: (ECN for the CW queue's marks, timestamps for the receiver-timestamp ABE), on the same path
NJ_SCHEMES = {
    "new-jersey": {"cc": "new-jersey", "ecn": True, "timestamps": True},
    "nj+": {"cc": "nj+", "ecn": True, "timestamps": True},
}
NJ_BEGIN, NJ_END = "<!-- sim-vs-kernel-nj:begin -->", "<!-- sim-vs-kernel-nj:end -->"


def _on_path(base: dict, loss: float, flow: dict, duration: str, warmup: str) -> dict:
    """The Fig. 10 scenario with uniform loss `loss` on the wireless hop and `flow`'s settings."""
    d = copy.deepcopy(base)
    d["duration"], d["warmup"] = duration, warmup
    d["links"][1]["channel"] = {"kind": "uniform", "loss": loss} if loss > 0 else {"kind": "none"}
    d["flows"][0].update(flow)
    return d


def variant(base: dict, loss: float, scheme: str, duration: str, warmup: str) -> dict:
    return _on_path(base, loss, SCHEMES[scheme], duration, warmup)


def bbr_variant(base: dict, loss: float, scheme: str, duration: str, warmup: str) -> dict:
    d = _on_path(base, loss, {"rwnd_pkts": 10000, **BBR_SCHEMES[scheme]}, duration, warmup)
    for link in d["links"]:
        link["queue"] = {"kind": "droptail", "limit_pkts": 1000}
    return d


def nj_variant(base: dict, loss: float, scheme: str, duration: str, warmup: str) -> dict:
    return _on_path(base, loss, NJ_SCHEMES[scheme], duration, warmup)


def paired_table(
    res: dict, runs: int, duration: str, warmup: str, setting: str, columns: dict[str, tuple[str, str]]
) -> str:
    """Per loss rate and scheme: the kernel's goodput, the simulator's and their ratio.
    `columns`: scheme -> (kernel column name, simulator column name)."""
    head = "| loss |" + "".join(f" {kn} | {sn} | sim / kernel |" for kn, sn in columns.values())
    lines = [
        f"Goodput in kb/s, mean ± sd over {runs} seeds; {duration} transfers, goodput after {warmup}; {setting}",
        "",
        head,
        "|---:|" + "---:|---:|---:|" * len(columns),
    ]

    def cell(v: list[float]) -> str:
        return f"{statistics.mean(v):.0f} ± {statistics.stdev(v) if len(v) > 1 else 0:.0f}"

    for loss in LOSSES:
        k = res["kernel"][str(loss)]
        s = res["sim"][str(loss)]
        row = [f"{loss * 100:g}%"]
        for c in columns:
            row += [cell(k[c]), cell(s[c]), f"{statistics.mean(s[c]) / statistics.mean(k[c]):.2f}"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def nj_table(res: dict, runs: int, duration: str, warmup: str) -> str:
    setting = "the path and kernel settings of the table above, with ECN and timestamps on."
    columns = {"new-jersey": ("BPF new jersey", "sim New Jersey"), "nj+": ("BPF nj+", "sim NJ+")}
    return paired_table(res, runs, duration, warmup, setting, columns)


def bbr_table(res: dict, runs: int, duration: str, warmup: str) -> str:
    setting = 'both hops drop-tail with 1000-packet buffers, SACK on (`recovery = "sack"` in the simulator).'
    columns = {"cubic": ("kernel cubic", "sim CUBIC"), "bbr": ("kernel bbr", "sim BBR")}
    return paired_table(res, runs, duration, warmup, setting, columns)


def table(res: dict, runs: int, duration: str, warmup: str) -> str:
    lines = [
        f"Goodput in kb/s, mean ± sd over {runs} seeds; {duration} transfers, goodput after {warmup}. "
        "Kernel: Linux TCP between two namespaces through `airtcp-relay` (the simulator's own link, "
        "queue and channel code; kernel/README.md); sim: `airtcp run` on the same scenario.",
        "",
        "| loss | kernel reno | kernel cubic | BPF westwood | BPF jersey | sim Reno | sim Westwood | sim Jersey "
        "| BPF jersey / kernel reno | sim Jersey / sim Reno |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for loss in LOSSES:
        k = res["kernel"][str(loss)]
        s = res["sim"][str(loss)]

        def cell(v: list[float]) -> str:
            return f"{statistics.mean(v):.0f} ± {statistics.stdev(v) if len(v) > 1 else 0:.0f}"

        kr = statistics.mean(k["reno"])
        sr = statistics.mean(s["reno"])
        lines.append(
            f"| {loss * 100:g}% | "
            + " | ".join(cell(k[c]) for c in KERNEL)
            + " | "
            + " | ".join(cell(s[c]) for c in SIM)
            + f" | {statistics.mean(k['jersey']) / kr:.2f} | {statistics.mean(s['jersey']) / sr:.2f} |"
        )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--duration", default="20s")
    ap.add_argument("--warmup", default="4s")
    ap.add_argument("--losses", default=",".join(str(x) for x in LOSSES), help="comma-separated loss rates")
    ap.add_argument("--update-validation", action="store_true")
    ap.add_argument("--bbr", action="store_true", help="CUBIC and BBR, kernel and simulator (module doc)")
    ap.add_argument("--nj", action="store_true", help="New Jersey and NJ+, BPF and simulator (module doc)")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    LOSSES[:] = [float(x) for x in a.losses.split(",")]
    if a.out is None:
        name = "sim_vs_kernel_bbr.json" if a.bbr else "sim_vs_kernel_nj.json" if a.nj else "sim_vs_kernel.json"
        a.out = REPO / "results" / name
    global SIM, KERNEL, BEGIN, END, variant, table
    if a.bbr:
        SIM = KERNEL = list(BBR_SCHEMES)
        BEGIN, END, variant, table = BBR_BEGIN, BBR_END, bbr_variant, bbr_table
    elif a.nj:
        SIM = KERNEL = list(NJ_SCHEMES)
        BEGIN, END, variant, table = NJ_BEGIN, NJ_END, nj_variant, nj_table
    base = sc.load(REPO / "experiments" / "jersey" / "fig10.toml")
    res: dict = {
        "kernel": {},
        "sim": {},
        "runs": a.runs,
        "duration": a.duration,
        "warmup": a.warmup,
        "kernel_detail": [],
    }
    started = time.monotonic()
    for loss in LOSSES:
        res["sim"][str(loss)] = {}
        res["kernel"][str(loss)] = {}
        for scheme in SIM:
            doc = variant(base, loss, scheme, a.duration, a.warmup)
            text = sc.dumps(doc)
            res["sim"][str(loss)][scheme] = [
                api.run(text, seed).summary["flows"][0]["goodput_bps"] / 1e3 for seed in range(1, a.runs + 1)
            ]
        for scheme in KERNEL:
            doc = variant(base, loss, scheme, a.duration, a.warmup)
            g = []
            for seed in range(1, a.runs + 1):
                r = emulate.run_scenario(doc, scheme, seed=seed, sample_ms=500)
                f = r["flows"][0]
                g.append(f["goodput_bps"] / 1e3)
                res["kernel_detail"].append({"loss": loss, "scheme": scheme, "seed": seed, **f, "links": r["links"]})
                print(
                    f"[{time.monotonic() - started:6.0f} s] loss {loss:g} {scheme:8s} seed {seed}: "
                    f"{g[-1]:7.1f} kb/s  retrans {f['retransmissions']}  ce {f['delivered_ce']}  ss {f['ss_cc']}",
                    flush=True,
                )
            res["kernel"][str(loss)][scheme] = g
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(json.dumps(res, indent=1) + "\n")
    md = table(res, a.runs, a.duration, a.warmup)
    print(md)
    if a.update_validation:
        v = REPO / "VALIDATION.md"
        text = v.read_text()
        if BEGIN in text and END in text:
            head, rest = text.split(BEGIN, 1)
            _, tail = rest.split(END, 1)
            v.write_text(head + BEGIN + "\n" + md + "\n" + END + tail)
        else:
            print("VALIDATION.md has no sim-vs-kernel markers; table not written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
