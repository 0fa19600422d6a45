"""Simulator beside real Linux TCP on recorded cellular traces (issue 27 part 2).

    python bench/cellular_vs_kernel.py [--runs 2] [--duration 30s] [--traces DIR] [--update-validation]

For each `experiments/cellular/<trace>.toml` (mahimahi trace pair: data over the downlink trace,
ACKs over the uplink trace, 20 ms each way, DropTail of 4 BDP; each seed its own trace start
offset) and each scheme with a kernel counterpart, one bulk transfer in the simulator
(`airtcp.run`) and one of Linux TCP between two namespaces through `airtcp-relay`, which carries
every packet through the same links, trace capacity, offset and queues (kernel/README.md). The
scheme is set as the experiment's sweep point of the same label sets it (Jersey family: ECN and a
CW queue); the kernel runs its own loss recovery (SACK, RACK, PRR), so the simulator's point is the
one with SACK recovery (`sack` for Reno).

Per scheme and trace: goodput over the same window of model time, [warm-up, duration] (kernel: bytes
the receiving application read in that window of the relay's model clock, which starts at the
connection's first packet as a simulated flow starts at 0; simulator: in-order bytes at the
receiver), the 95th percentile of the smoothed RTT sampled every 100 ms (kernel:
`tcp_info.tcpi_rtt`; simulator: the flow series' `srtt_s`), and retransmission timeouts (kernel:
the sending namespace's `TcpExtTCPTimeouts`), with their ratios; and the simulator once more with
Linux's RTO estimator and spurious-timeout undo. Needs root and the kernel testbed; writes results/cellular_vs_kernel.json
and, with --update-validation, the table between the cellular-vs-kernel markers of VALIDATION.md.

    python bench/cellular_vs_kernel.py --sim-only [--update-validation]

runs no kernel: it reads the kernel's means recorded in VALIDATION.md's table (its seeds, transfer
length and window from the table's first line) and runs the simulator again with each of
SIM_VARIANTS (loss recoveries and RTO options the model has), so that a change to the model can be
set beside the recorded measurement in seconds; with --update-validation the table goes between the
cellular-sim-variants markers.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from airtcp import api  # noqa: E402
from airtcp import scenario as sc  # noqa: E402
from airtcp.reproduce.spec import load_experiment, traces_dir  # noqa: E402
from airtcp.testbed import emulate  # noqa: E402

TRACES = ["tmobile-umts-driving", "verizon-evdo-driving", "verizon-lte-short", "att-lte-driving-2016"]
#: label in the table -> (the sweep point whose settings the simulator takes, scenario cc)
SCHEMES = {
    "reno": ("sack", "reno"),
    "cubic": ("cubic", "cubic"),
    "bbr": ("bbr", "bbr"),
    "westwood": ("westwood", "westwood"),
    "jersey": ("jersey", "jersey"),
    "new-jersey": ("new-jersey", "new-jersey"),
    "nj+": ("nj+", "nj+"),
}
BEGIN, END = "<!-- cellular-vs-kernel:begin -->", "<!-- cellular-vs-kernel:end -->"
VARIANTS_BEGIN, VARIANTS_END = "<!-- cellular-sim-variants:begin -->", "<!-- cellular-sim-variants:end -->"
#: The simulator's point again with two kernel features the scenario does not model by default:
#: Linux's RTO estimator (at least SRTT + 200 ms) and its undo of a spurious timeout, detected by
#: timestamps (RFC 3522 Eifel); VALIDATION.md says why they matter on these traces.
LINUX_LIKE = {"flows.0.rto_estimator": "linux", "flows.0.rto_undo": "eifel", "flows.0.timestamps": True}
#: --sim-only: the simulator's variants set beside the recorded kernel means (column title -> settings
#: over the sweep point's). RFC 6675 is the table's own simulator column.
SIM_VARIANTS = {
    "RFC 6675": {},
    "PRR": {"flows.0.recovery": "prr"},
    "PRR, Linux RTO + undo": {"flows.0.recovery": "prr", **LINUX_LIKE},
    "PRR + RACK, Linux RTO + undo": {"flows.0.recovery": "prr-rack", **LINUX_LIKE},
    "TCP-Linux (ns-2.35)": {"flows.0.recovery": "linux"},
}


def scenario(trace: str, label: str, duration: str, warmup: str, traces_dir: Path) -> dict:
    """The experiment's scenario with the settings of its sweep point for `label`."""
    exp = load_experiment(REPO / "experiments" / "cellular" / f"{trace}.sweep.toml")
    point = next(p for p in exp.axis("scheme").points if p.label == SCHEMES[label][0])
    doc = copy.deepcopy(sc.load(exp.scenario_path))
    doc["duration"], doc["warmup"], doc["sample_interval"] = duration, warmup, "100ms"
    for key, value in point.sets:
        sc.set_path(doc, key, copy.deepcopy(value))
    for link in doc["links"]:
        for key in ("capacity", "reverse_capacity"):
            cap = link.get(key)
            if isinstance(cap, dict) and cap.get("kind") == "trace":
                cap["file"] = str(traces_dir / Path(cap["file"]).name)
    return doc


def splice(path: Path, begin: str, end: str, md: str) -> None:
    """Replaces what lies between the markers `begin` and `end` in the file at `path` with `md`."""
    head, rest = path.read_text().split(begin, 1)
    _, tail = rest.split(end, 1)
    path.write_text(head + begin + "\n" + md + "\n" + end + tail)


def set_all(doc: dict, sets: dict) -> dict:
    """A copy of `doc` with each dotted path of `sets` set."""
    out = copy.deepcopy(doc)
    for key, value in sets.items():
        sc.set_path(out, key, value)
    return out


def recorded_kernel(validation: str) -> tuple[dict, list[dict]]:
    """The kernel side of VALIDATION.md's cellular table: (runs, duration, warm-up) from its first
    line, and per row the trace, scheme, kernel goodput (kb/s), the simulator's goodput as recorded
    (kb/s) and kernel RTOs."""
    block = validation.split(BEGIN, 1)[1].split(END, 1)[0].strip().splitlines()
    m = re.match(r"Means over (\d+) seeds .*?; (\S+) transfers, measured over \[(\S+), ", block[0])
    if not m:
        raise SystemExit("error: VALIDATION.md's cellular-vs-kernel table has no 'Means over N seeds ...' line")
    setup = {"runs": int(m.group(1)), "duration": m.group(2), "warmup": m.group(3)}
    rows = []
    for line in block:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 12 and cells[0] in TRACES:
            rows.append(
                {
                    "trace": cells[0],
                    "scheme": cells[1],
                    "kernel_kbps": float(cells[2]),
                    "sim_kbps": float(cells[3]),
                    "kernel_rtos": float(cells[8]),
                }
            )
    return setup, rows


def sim_only(a: argparse.Namespace) -> int:
    """--sim-only: the simulator's variants beside the recorded kernel means (no kernel run)."""
    v = REPO / "VALIDATION.md"
    setup, rows = recorded_kernel(v.read_text())
    lines = [
        f"Simulator variants beside the kernel means of the table above (recorded, not re-measured): the same "
        f"{setup['runs']} seeds, {setup['duration']} transfers, goodput over [{setup['warmup']}, {setup['duration']}]. "
        "Per variant: mean goodput / kernel goodput, and (in brackets) retransmission timeouts per transfer.",
        "",
        "| trace | scheme | kernel kb/s (RTOs) | " + " | ".join(SIM_VARIANTS) + " |",
        "|---|---|---:|" + "---:|" * len(SIM_VARIANTS),
    ]
    for row in rows:
        if a.only and row["trace"] not in a.only.split(","):
            continue
        doc = scenario(row["trace"], row["scheme"], setup["duration"], setup["warmup"], a.traces)
        cols = []
        for sets in SIM_VARIANTS.values():
            flows = [
                api.run(sc.dumps(set_all(doc, sets)), seed).summary["flows"][0] for seed in range(1, setup["runs"] + 1)
            ]
            goodput = statistics.mean(f["goodput_bps"] for f in flows) / 1e3
            cols.append(f"{goodput / row['kernel_kbps']:.2f} ({statistics.mean(f['timeouts'] for f in flows):.1f})")
        lines.append(
            f"| {row['trace']} | {row['scheme']} | {row['kernel_kbps']:.0f} ({row['kernel_rtos']:.1f}) | "
            + " | ".join(cols)
            + " |"
        )
        print(lines[-1], flush=True)
    md = "\n".join(lines)
    if a.update_validation:
        splice(v, VARIANTS_BEGIN, VARIANTS_END, md)
    return 0


def p95(values: list[float]) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(0.95 * len(v)))] if v else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--duration", default="30s")
    ap.add_argument("--warmup", default="5s")
    ap.add_argument("--traces", type=Path, default=traces_dir(), help="mahimahi traces (default: $AIRTCP_TRACES)")
    ap.add_argument("--only", default="", help="comma-separated traces (default: all four)")
    ap.add_argument("--update-validation", action="store_true")
    ap.add_argument("--out", type=Path, default=REPO / "results" / "cellular_vs_kernel.json")
    ap.add_argument(
        "--sim-only", action="store_true", help="no kernel: the simulator's variants beside the recorded kernel means"
    )
    a = ap.parse_args()
    if a.sim_only:
        return sim_only(a)
    traces = [t for t in TRACES if not a.only or t in a.only.split(",")]
    warm = sc.parse_duration_s(a.warmup)
    res: dict = {"runs": a.runs, "duration": a.duration, "warmup": a.warmup, "cells": []}
    started = time.monotonic()
    for trace in traces:
        for label, (_, cc) in SCHEMES.items():
            doc = scenario(trace, label, a.duration, a.warmup, a.traces)
            cell: dict = {"trace": trace, "scheme": label, "sim": [], "kernel": []}
            linux_like = set_all(doc, LINUX_LIKE)
            cell["sim_linux"] = []
            for seed in range(1, a.runs + 1):
                for variant, key in ((doc, "sim"), (linux_like, "sim_linux")):
                    r = api.run(sc.dumps(variant), seed)
                    f = r.summary["flows"][0]
                    srtt = [
                        x
                        for t, x in zip(r.flow_series["time_s"], r.flow_series["srtt_s"])
                        if t >= warm and x is not None
                    ]
                    cell[key].append(
                        {
                            "seed": seed,
                            "goodput_bps": f["goodput_bps"],
                            "srtt_p95_s": p95(srtt),
                            "retransmissions": f["retransmissions"],
                            "timeouts": f["timeouts"],
                        }
                    )
                k = emulate.run_scenario(doc, cc, seed=seed, sample_ms=100)
                kf = k["flows"][0]
                ks = [s["rtt_us"] / 1e6 for s in k["samples"] if s["t_s"] >= warm]
                cell["kernel"].append(
                    {
                        "seed": seed,
                        "goodput_bps": kf["model_window_goodput_bps"],
                        "first_byte_window_goodput_bps": kf["window_goodput_bps"],
                        "span_goodput_bps": kf["goodput_bps"],
                        "srtt_p95_s": p95(ks),
                        "retransmissions": kf["retransmissions"],
                        "timeouts": kf["sender_counters"].get("TcpExtTCPTimeouts", 0),
                        "sender_counters": kf["sender_counters"],
                        "ss_cc": kf["ss_cc"],
                    }
                )
                sim, sim_l, ker = cell["sim"][-1], cell["sim_linux"][-1], cell["kernel"][-1]
                print(
                    f"[{time.monotonic() - started:6.0f} s] {trace} {label:10s} seed {seed}: "
                    f"sim {sim['goodput_bps'] / 1e3:7.0f} kb/s p95 {sim['srtt_p95_s'] * 1e3:5.0f} ms "
                    f"{sim['timeouts']} RTOs, Linux-like {sim_l['goodput_bps'] / 1e3:7.0f} kb/s {sim_l['timeouts']} RTOs | "
                    f"kernel {ker['goodput_bps'] / 1e3:7.0f} kb/s p95 {ker['srtt_p95_s'] * 1e3:5.0f} ms "
                    f"{ker['timeouts']} RTOs {kf['ss_cc']}",
                    flush=True,
                )
            res["cells"].append(cell)
            a.out.parent.mkdir(parents=True, exist_ok=True)
            a.out.write_text(json.dumps(res, indent=1) + "\n")
    md = table(res)
    print(md)
    if a.update_validation:
        splice(REPO / "VALIDATION.md", BEGIN, END, md)
    return 0


def table(res: dict) -> str:
    lines = [
        f"Means over {res['runs']} seeds (each its own trace offset); {res['duration']} transfers, "
        f"measured over [{res['warmup']}, {res['duration']}] of model time on both sides. Goodput in kb/s; p95 of the "
        "smoothed RTT sampled every 100 ms, in ms; RTOs: retransmission timeouts per transfer (kernel: "
        "`TcpExtTCPTimeouts`). Last two columns: the simulator with Linux's RTO estimator and its undo of "
        'spurious timeouts (`rto_estimator = "linux"`, `rto_undo = "eifel"`).',
        "",
        "| trace | scheme | kernel goodput | sim goodput | sim / kernel | kernel p95 SRTT | sim p95 SRTT "
        "| sim / kernel | kernel RTOs | sim RTOs | sim, Linux RTO + undo: goodput / kernel | RTOs |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def mean(c: dict, side: str, key: str) -> float:
        return statistics.mean(x[key] for x in c[side])

    for c in res["cells"]:
        kg, sg, lg = (mean(c, side, "goodput_bps") / 1e3 for side in ("kernel", "sim", "sim_linux"))
        kr, sr = (mean(c, side, "srtt_p95_s") * 1e3 for side in ("kernel", "sim"))
        kt, st, lt = (mean(c, side, "timeouts") for side in ("kernel", "sim", "sim_linux"))
        lines.append(
            f"| {c['trace']} | {c['scheme']} | {kg:.0f} | {sg:.0f} | {sg / kg:.2f} | {kr:.0f} | {sr:.0f} | {sr / kr:.2f} "
            f"| {kt:.1f} | {st:.1f} | {lg / kg:.2f} | {lt:.1f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
