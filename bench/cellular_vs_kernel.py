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
#: The simulator's point again with two kernel features the scenario does not model by default:
#: Linux's RTO estimator (at least SRTT + 200 ms) and its undo of a spurious timeout, detected by
#: timestamps (RFC 3522 Eifel); VALIDATION.md says why they matter on these traces.
LINUX_LIKE = {"flows.0.rto_estimator": "linux", "flows.0.rto_undo": "eifel", "flows.0.timestamps": True}


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
    a = ap.parse_args()
    traces = [t for t in TRACES if not a.only or t in a.only.split(",")]
    warm = sc.parse_duration_s(a.warmup)
    res: dict = {"runs": a.runs, "duration": a.duration, "warmup": a.warmup, "cells": []}
    started = time.monotonic()
    for trace in traces:
        for label, (_, cc) in SCHEMES.items():
            doc = scenario(trace, label, a.duration, a.warmup, a.traces)
            cell: dict = {"trace": trace, "scheme": label, "sim": [], "kernel": []}
            linux_like = copy.deepcopy(doc)
            for key, value in LINUX_LIKE.items():
                sc.set_path(linux_like, key, value)
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
        v = REPO / "VALIDATION.md"
        text = v.read_text()
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        v.write_text(head + BEGIN + "\n" + md + "\n" + END + tail)
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
