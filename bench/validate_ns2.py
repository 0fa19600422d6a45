#!/usr/bin/env python3
"""airtcp against ns-2.35 as a second reference (issue 23): `make validate-ns2`.

    python3 bench/validate_ns2.py [--quick] [--only fig10,dumbbell] [--use-reference] [--jobs N]

Runs the ns-2 twins in bench/ns2/ where `ns` (Debian's `ns2`, ns-2.35) is installed and writes
their numbers to bench/ns2/reference.json (a full run only; the file is committed, so that
tests/python/test_validate_ns2.py and this harness work without ns-2); where `ns` is absent, or
with --use-reference, the ns-2 side comes from that file. Then runs airtcp (the Python API) on
the same cells and replaces the section "airtcp vs ns-2.35" of VALIDATION.md (the rest of the
file is kept), each cell marked against the targets below.

Cells (both sides built from the numbers in this file and the twins' settings):
  fig10     examples/jersey_fig10.toml, S -10 Mb/s 45 ms- BS -2 Mb/s 1 ms- D, DropTail 50, uniform
            loss on BS->D data; 1 flow; Tahoe, Reno, NewReno, SACK, FACK, Vegas, Westwood+;
            loss 0, 0.1, 1, 3, 5 %; window 1000 and 20 (ns-2.35's default `window_`, airtcp
            `rwnd_pkts`); 100 s, goodput over [10 s, 100 s]; 10 seeds (quick 3).
            Twin: bench/ns2/fig10.tcl.
  dumbbell  experiments/jersey/manyflows.toml (TCP-Jersey Table I path), S -100 Mb/s 45 ms- R
            -20 Mb/s 1 ms- D, 20 flows 10 ms apart (at 0% loss plus per-seed offsets below 100 ms); the R->D queue of 100 packets is DropTail,
            RED (RED below) or CW (the scenario's own; ns-2: RED set up as CW); Reno, NewReno,
            SACK, Westwood+; loss 0 and 1 %; 100 s, goodput over [20 s, 100 s]; 5 seeds (quick 2).
            Twin: bench/ns2/dumbbell.tcl.
Targets per cell (means over seeds; timeouts, retransmissions and drops summed over flows), each
two-sided (issue 38 item 5: timing out or retransmitting far less than ns-2 misses too):
  timeouts within 2x ± 3 of ns-2's (ns-2/2 − 3 <= airtcp <= 2·ns-2 + 3); retransmissions within
  1.5x ± 10 (ns-2/1.5 − 10 <= airtcp <= 1.5·ns-2 + 10); total goodput within 10 % of ns-2's; Jain
  within 0.02 (multi-flow cells). Drops are printed, not checked.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from validate_common import cpu_model, jain, mean_ci, replace_section  # noqa: E402

NS2_DIR = ROOT / "bench" / "ns2"
REFERENCE = NS2_DIR / "reference.json"
SECTION = "## airtcp vs ns-2.35"

FIG10_SCHEMES = ["tahoe", "reno", "newreno", "sack", "fack", "vegas", "westwood-plus"]
FIG10_LOSSES = [0.0, 0.001, 0.01, 0.03, 0.05]
#: The send-window caps of the Fig. 10 cells, both sides (ns-2 `window_`, airtcp `rwnd_pkts`): 1000,
#: which never binds there, and ns-2.35's default 20, below this path's bandwidth-delay product
#: (2 Mb/s × 97.2 ms / 8320 b ≈ 23.4 packets), which the seed papers ran where they name no window.
FIG10_WINDOWS = [1000, 20]
#: The window of the dumbbell's cells, and of a cell that names none (bench/validate_ns2_jitter.py).
WINDOW = 1000
DB_SCHEMES = ["reno", "newreno", "sack", "westwood-plus"]
DB_LOSSES = [0.0, 0.01]
DB_QUEUES = ["droptail", "red", "cw"]
DB_FLOWS = 20
DB_LIMIT = 100
#: RED on the 100-packet bottleneck, both sides: Floyd & Jacobson's numbers scaled to the buffer
#: (max_th = 3 min_th), not gentle, dropping (no ECN: the flows are not ECN-capable).
RED = {"min_th": 15.0, "max_th": 45.0, "weight": 0.002, "max_p": 0.1}
#: The scenario's CW queue on the bottleneck (weight 0.2, threshold a third of the buffer).
CW = {"weight": 0.2, "threshold": DB_LIMIT / 3}
#: Per-seed start offsets of the dumbbell's flows at 0% loss, ms, both sides (uniform in
#: [0, DB_JITTER_MS), airtcp `start_jitter`, the twin's JITTER_MS). Without loss neither side draws
#: a random number that matters (airtcp none; ns-2 only its agents' `boot_time_` clock phase), so
#: the five seeds would be five copies of one run of chaotic dynamics: Westwood+ on CW gave Jain
#: 0.938 against ns-2's 0.916 as one run each, and 0.950 against 0.946 over 10 jittered seeds.
DB_JITTER_MS = 100
DURATIONS = {"fig10": (100.0, 10.0), "dumbbell": (100.0, 20.0)}  # (duration, warmup) s
SEEDS = {"fig10": 10, "dumbbell": 5}
QUICK_SEEDS = {"fig10": 3, "dumbbell": 2}

# Targets.
RTO_FACTOR, RTO_SLACK = 2.0, 3.0
RTX_FACTOR, RTX_SLACK = 1.5, 10.0
GOODPUT_TOL = 0.10
JAIN_TOL = 0.02

#: airtcp's flow settings that match the ns-2 agents' (bench/ns2/dumbbell.tcl documents each).
COMMON = {
    "mss_bytes": 1000,
    "rwnd_pkts": WINDOW,  # window_ 1000 (a cell's own window wins: FIG10_WINDOWS, window_settings)
    "initial_cwnd_pkts": 1,  # windowInit_ 1
    "min_rto": "200ms",  # minrto_ 0.2
    "max_rto": "60000ms",  # maxrto_ 60
    "initial_rto": "1000ms",  # rtxcur_init_ 1.0
    "clock_granularity": "1ms",  # tcpTick_ 0.001
    "dupack_threshold": 3,  # numdupacks_ 3
    "delayed_ack": False,  # TCPSink
    "option_sizes": "ns2",  # TcpAgent::headersize, TcpSink::ack, Sacker::append_ack
}
#: The ns-2 TcpAgent family (every scheme below but TCP-Linux's) halves `window()` at a timeout,
#: the window without fast recovery's inflation: `TcpAgent::timeout` -> `slowdown(CLOSE_SSTHRESH_HALF)`.
NS2_TIMEOUT = {"timeout_ssthresh": "ns2"}
#: Per scheme: the ns-2 variant of the twins and airtcp's flow settings.
SCHEMES = {
    "tahoe": {"cc": "reno", "recovery": "tahoe", "limited_transmit": True, **NS2_TIMEOUT},  # Agent/TCP, singledup_ 1
    "reno": {"cc": "reno", "recovery": "reno", "limited_transmit": True, **NS2_TIMEOUT},  # Agent/TCP/Reno
    # Agent/TCP/Newreno's default newreno_changes1_ 1 resets the timer on the first partial ACK
    # of a recovery only (partialnewack_helper), airtcp's default "impatient".
    "newreno": {
        "cc": "reno",
        "recovery": "newreno",
        "partial_ack_timer": "impatient",
        "limited_transmit": True,
        **NS2_TIMEOUT,
    },
    # Sack1 + TCPSink/Sack1. Sack1 clears `recover_` when its fast recovery ends (sack1.cc
    # `Sack1TcpAgent::recv`), so only a timeout arms its `bugfix_` guard: airtcp's
    # `recover_guard = "timeout-only"`. With RFC 6675's guard the 20-flow DropTail dumbbell at 1%
    # timed out 65.4 times against ns-2's 31.0: the first segment sent after a recovery's
    # RecoveryPoint, when lost, waited for the timer.
    "sack": {
        "cc": "reno",
        "recovery": "sack",
        "sack": True,
        "limited_transmit": True,
        "recover_guard": "timeout-only",
        **NS2_TIMEOUT,
    },
    # Agent/TCP/Fack: its own duplicate-ACK handling, no limited transmit.
    "fack": {"cc": "reno", "recovery": "fack", "sack": True, "limited_transmit": False, **NS2_TIMEOUT},
    # Agent/TCP/Vegas: alpha 1, beta 3, gamma 1, the fine-grained retransmission, its once-per-RTT
    # arithmetic (variant "ns2": the epoch's mean RTT, actual from segments sent, expected from
    # segments in transit, delta rounded), Reno-style recovery (inflation, deflation at the first
    # new ACK), no limited transmit, and its fast retransmit backs the RTO off (`reset_rtx_timer(1)`,
    # where the other agents pass backoff 0).
    "vegas": {
        "cc": "vegas",
        "recovery": "reno",
        "limited_transmit": False,
        "fast_retransmit_rto_backoff": True,
        "cc_params": {"alpha": 1, "beta": 3, "gamma": 1, "expiry": True, "variant": "ns2"},
        **NS2_TIMEOUT,
    },
    # TCP-Linux westwood (Linux 2.6's tcp_westwood.c, Westwood+: one sample per RTT of at least
    # 50 ms, filter (7 old + new) / 8), timestamps on, and TCP-Linux's own loss recovery: recovery
    # "linux" (FACK marking, lost-retransmission detection, its rate halving, no recover guard;
    # its sending by packets in flight replaces limited transmit) with the timer restarted on every
    # ACK, duplicates too (tcp-linux.cc `renew_timer`), RTT samples from every ACK's timestamp echo,
    # duplicates too (`time_processing` → `rtt_update`), and the module as ns-2.35 has it (Linux
    # 2.6.22 tcp_westwood.c: two cascaded 7/8 filters, RTT_min the least SRTT, `.ssthresh =
    # tcp_reno_ssthresh` with cwnd = `min_cwnd()` = BWE·RTT_min at a fast retransmit).
    "westwood-plus": {
        "cc": "westwood-plus",
        "recovery": "linux",
        "rto_restart": "every-ack",
        "sack": True,
        "timestamps": True,
        "limited_transmit": False,
        "rtt_sample_duplicate_acks": True,
        "cc_params": {
            "alpha": 0.875,
            "min_interval": "50ms",
            "filter": "cascade",
            "decrease": "linux-ns2",
            "rtt_min": "srtt",
            "growth": "linux-ns2",
            "arithmetic": "linux-ns2",
        },
    },
    # Not a validation cell: the same TCP-Linux agent with its Reno module, for
    # bench/validate_ns2_jitter.py to tell the port's machinery from the Westwood+ module.
    "linux-reno": {
        "cc": "reno",
        "recovery": "linux",
        "rto_restart": "every-ack",
        "sack": True,
        "timestamps": True,
        "limited_transmit": False,
        "rtt_sample_duplicate_acks": True,
    },
}


#: The schemes whose ns-2 agent is TCP-Linux, where `window_` bounds the packets in flight, not
#: the sequence space: `LinuxTcpAgent::send_much` (tcp/linux/tcp-linux.cc) sends `while
#: (packets_in_flight() < max(win, next_pkts_in_flight_))` with `win = window()` = min(cwnd_, wnd_)
#: and `packets_in_flight()` = outstanding − SACKed − lost (`ScoreBoard1`), and nothing else of the
#: agent or its Sack1 sink checks `highest_ack_ + wnd_`. Each SACKed segment thus releases a new one
#: past snd.una + window_. airtcp's `rwnd_pkts` bounds the outstanding data (a receiver's window, as
#: ns-2's own agents apply `window_`: `TcpAgent::send_much`, `t_seqno_ <= highest_ack_ + win`); with
#: `recovery = "linux"`, which sends while in flight < max(cwnd, the rate-halving allowance), the
#: port's bound is `max_cwnd_pkts`. Measured on Fig. 10 with window 20 (10 seeds, 1 / 3 / 5% loss):
#: with `rwnd_pkts = 20` airtcp's Westwood+ had 1302 / 893 / 717 kb/s and 157 / 340 / 466
#: retransmissions against ns-2's 1580 / 1265 / 821 and 201 / 482 / 534; with `max_cwnd_pkts = 20`,
#: 1582 / 1231 / 782 and 191 / 481 / 510.
IN_FLIGHT_WINDOW = {"westwood-plus", "linux-reno"}


def window_settings(scheme: str, window: int) -> dict:
    """airtcp's flow settings for ns-2's `window_` = `window` under `scheme`'s agent."""
    if scheme in IN_FLIGHT_WINDOW:
        return {"rwnd_pkts": WINDOW, "max_cwnd_pkts": window}
    return {"rwnd_pkts": window}


# --------------------------------------------------------------------------- cells


def cell_key(c: dict) -> str:
    return f"{c['scenario']}/{c['queue']}/{c['scheme']}/{c['loss']:g}/w{c.get('window', WINDOW)}"


def cells(only: set[str] | None = None) -> list[dict]:
    """Every cell of the comparison, in table order."""
    out = []
    if only is None or "fig10" in only:
        for window in FIG10_WINDOWS:
            for scheme in FIG10_SCHEMES:
                for loss in FIG10_LOSSES:
                    out.append(
                        {"scenario": "fig10", "scheme": scheme, "loss": loss, "queue": "droptail", "window": window}
                    )
    if only is None or "dumbbell" in only:
        for queue in DB_QUEUES:
            for scheme in DB_SCHEMES:
                for loss in DB_LOSSES:
                    out.append(
                        {"scenario": "dumbbell", "scheme": scheme, "loss": loss, "queue": queue, "window": WINDOW}
                    )
    return out


def _flow_settings(doc: dict, scheme: str, window: int) -> None:
    from airtcp.scenario import set_path

    flow = doc["flows"][0]
    # The shipped scenario's own readings (e.g. manyflows.toml's ns-2 timeout rule) give way to the
    # cell's: each scheme below names what its ns-2 agent does, TCP-Linux keeping the default.
    for k in ("cc_params", "partial_ack_timer", "sack", "timestamps", "timeout_ssthresh", "recover_guard"):
        flow.pop(k, None)
    for key, value in {**COMMON, **window_settings(scheme, window), **SCHEMES[scheme]}.items():
        # A copy: a later override of the document (e.g. flows.0.cc_params.growth) must not
        # change SCHEMES for the cells after it.
        set_path(doc, f"flows.0.{key}", copy.deepcopy(value))


def airtcp_doc(cell: dict, duration: float | None = None, warmup: float | None = None) -> dict:
    """The airtcp scenario of a cell: the shipped scenario file with this cell's settings on it."""
    from airtcp.scenario import load, set_path

    dur, warm = DURATIONS[cell["scenario"]]
    dur = duration if duration is not None else dur
    warm = warmup if warmup is not None else warm
    if cell["scenario"] == "fig10":
        doc = load(ROOT / "examples" / "jersey_fig10.toml")
    else:
        doc = load(ROOT / "experiments" / "jersey" / "manyflows.toml")
        q = {
            "droptail": {"kind": "droptail", "limit_pkts": DB_LIMIT},
            "red": {
                "kind": "red",
                "limit_pkts": DB_LIMIT,
                "min_th_pkts": RED["min_th"],
                "max_th_pkts": RED["max_th"],
                "weight": RED["weight"],
                "max_p": RED["max_p"],
                "ecn": False,
                "gentle": False,
                # ns-2.35's red.cc: nothing dropped while at most one packet waits, the first
                # arrival above min_th untested, (1 - w)^(m+1) after idle time.
                "rules": "ns2",
            },
            "cw": {
                "kind": "cw",
                "limit_pkts": DB_LIMIT,
                "weight": CW["weight"],
                "threshold_pkts": CW["threshold"],
                "drop_non_ect": True,
                "rules": "ns2",  # the twin's CW is ns-2's RED: nothing dropped while <= 1 waits
            },
        }[cell["queue"]]
        set_path(doc, "links.1.queue", q)
        set_path(doc, "flows.0.count", DB_FLOWS)
        set_path(doc, "flows.0.start_spacing", "10ms")
        # The twin starts its flows 10 ms apart, plus its per-seed offsets at 0% loss.
        set_path(doc, "flows.0.start_jitter", f"{DB_JITTER_MS}ms" if cell["loss"] == 0 else "0s")
    set_path(doc, "name", f"ns2-{cell['scenario']}-{cell['queue']}-{cell['scheme']}")
    set_path(doc, "duration", f"{dur:g}s")
    set_path(doc, "warmup", f"{warm:g}s")
    set_path(doc, "sample_interval", "10s")
    set_path(doc, "links.1.channel", {"kind": "uniform", "loss": cell["loss"]})
    _flow_settings(doc, cell["scheme"], cell.get("window", WINDOW))
    return doc


def bottleneck(cell: dict) -> str:
    return "BS->D" if cell["scenario"] == "fig10" else "R->D"


def airtcp_totals(summary: dict, cell: dict) -> dict:
    flows = summary["flows"]
    link = next(lk for lk in summary["links"] if lk["name"] == bottleneck(cell))
    g = [f["goodput_bps"] for f in flows]
    return {
        "goodput_bps": sum(g),
        "jain": jain(g),
        "timeouts": sum(f["timeouts"] for f in flows),
        "retransmissions": sum(f["retransmissions"] for f in flows),
        "fast_retransmits": sum(f["fast_retransmits"] for f in flows),
        "drops": link["overflow_drops"] + link["early_drops"],
    }


def run_airtcp(cell_list: list[dict], seeds: list[int], jobs: int = 1) -> dict[str, list[dict]]:
    """airtcp's per-seed totals of every cell (runs in-process through the Python API)."""
    import airtcp
    from airtcp.scenario import dumps

    texts, keys = [], []
    for c in cell_list:
        text = dumps(airtcp_doc(c))
        for s in seeds[c["scenario"]] if isinstance(seeds, dict) else seeds:
            texts.append(text)
            keys.append((cell_key(c), c, s))
    t0 = time.perf_counter()
    res = airtcp.run_many(texts, jobs=jobs, seeds=[k[2] for k in keys])
    wall = (time.perf_counter() - t0) / max(1, len(texts))
    out: dict[str, list[dict]] = {}
    for (key, c, s), r in zip(keys, res):
        out.setdefault(key, []).append({"seed": s, **airtcp_totals(r.summary, c), "wall_s": wall})
    return out


# --------------------------------------------------------------------------- ns-2


def parse_kv(tokens: list[str]) -> dict:
    return {tokens[i]: float(tokens[i + 1]) for i in range(0, len(tokens) - 1, 2)}


def run_ns2_once(cell: dict, seed: int) -> dict:
    """One ns-2 run of a cell: its totals and wall time (process start to exit)."""
    dur, warm = DURATIONS[cell["scenario"]]
    env = dict(os.environ)
    if cell["scenario"] == "fig10":
        cmd = [
            "ns",
            str(NS2_DIR / "fig10.tcl"),
            f"{cell['loss']:g}",
            f"{dur:g}",
            str(seed),
            cell["scheme"],
            f"{warm:g}",
            str(cell.get("window", WINDOW)),
        ]
    else:
        cmd = [
            "ns",
            str(NS2_DIR / "dumbbell.tcl"),
            f"{cell['loss']:g}",
            f"{dur:g}",
            str(seed),
            cell["scheme"],
            cell["queue"],
            f"{warm:g}",
            str(DB_FLOWS),
        ]
        if cell["loss"] == 0:
            # An explicit JITTER_MS in the environment (bench/validate_ns2_jitter.py) wins.
            env.setdefault("JITTER_MS", f"{DB_JITTER_MS}")
        env |= {
            "RED_MIN": f"{RED['min_th']:g}",
            "RED_MAX": f"{RED['max_th']:g}",
            "RED_W": f"{RED['weight']:g}",
            "RED_MAXP": f"{RED['max_p']:g}",
        }
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    lines = p.stdout.splitlines()
    if cell["scenario"] == "fig10":
        kv = parse_kv(next(ln for ln in lines if ln.startswith("acked_pkts")).split())
        g = [kv["goodput_warm_bps"]]
        fr = None if cell["scheme"] == "vegas" else int(kv["fast_retransmits"])  # Vegas cuts cwnd outside slowdown()
    else:
        g = [parse_kv(ln.split()[2:])["goodput_bps"] for ln in lines if ln.startswith("flow ")]
        kv = parse_kv(next(ln for ln in lines if ln.startswith("total ")).split()[1:])
        fr = int(kv["fast_retransmits"])
    return {
        "seed": seed,
        "goodput_bps": sum(g),
        "jain": jain(g),
        "timeouts": int(kv["timeouts"]),
        "retransmissions": int(kv["rexmitpkts"]),
        "fast_retransmits": fr,
        "drops": int(kv["drops"]),
        "wall_s": round(wall, 4),
    }


def ns2_version() -> str:
    try:
        v = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", "ns2"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        v = ""
    return f"ns-2.35 (Debian ns2 {v})" if v else "ns-2.35"


def run_ns2(cell_list: list[dict], seeds: dict[str, list[int]], jobs: int = 1) -> dict[str, list[dict]]:
    work = [(c, s) for c in cell_list for s in seeds[c["scenario"]]]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        res = list(ex.map(lambda w: run_ns2_once(*w), work))
    out: dict[str, list[dict]] = {}
    for (c, _), r in zip(work, res):
        out.setdefault(cell_key(c), []).append(r)
    return out


def write_reference(cell_list: list[dict], ns: dict[str, list[dict]], seeds: dict[str, list[int]], wall: float) -> None:
    ref = {
        "generator": "bench/validate_ns2.py (make validate-ns2) with bench/ns2/fig10.tcl and bench/ns2/dumbbell.tcl",
        "ns2": ns2_version(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "machine": f"{platform.machine()} {os.cpu_count()} cpus ({cpu_model()})",
        "ns2_wall_s": round(wall, 1),
        "durations": reference_durations(),
        "dumbbell": {"flows": DB_FLOWS, "limit_pkts": DB_LIMIT, "red": RED, "cw": CW, "jitter_ms_at_0": DB_JITTER_MS},
        "targets": {
            "timeouts": f"ns-2/{RTO_FACTOR:g} - {RTO_SLACK:g} <= airtcp <= {RTO_FACTOR:g} x ns-2 + {RTO_SLACK:g}",
            "retransmissions": f"ns-2/{RTX_FACTOR:g} - {RTX_SLACK:g} <= airtcp <= {RTX_FACTOR:g} x ns-2 + {RTX_SLACK:g}",
            "goodput": f"within {GOODPUT_TOL:.0%}",
            "jain": f"within {JAIN_TOL:g}",
        },
        "cells": [
            {
                **c,
                "duration_s": DURATIONS[c["scenario"]][0],
                "warmup_s": DURATIONS[c["scenario"]][1],
                "flows": 1 if c["scenario"] == "fig10" else DB_FLOWS,
                "seeds": seeds[c["scenario"]],
                "runs": ns[cell_key(c)],
            }
            for c in cell_list
        ],
    }
    REFERENCE.write_text(dump_reference(ref))


def dump_reference(ref: dict) -> str:
    """reference.json's text: JSON with one line per cell's settings and per run (diffable)."""
    head = json.dumps({k: v for k, v in ref.items() if k != "cells"}, indent=1, ensure_ascii=False)
    cells_text = []
    for c in ref["cells"]:
        settings = json.dumps({k: v for k, v in c.items() if k != "runs"})
        runs = ",\n".join("   " + json.dumps(r) for r in c["runs"])
        cells_text.append(f'  {settings[:-1]}, "runs": [\n{runs}\n  ]}}')
    return head[:-2] + ',\n "cells": [\n' + ",\n".join(cells_text) + "\n ]\n}\n"


def reference_durations() -> dict:
    return {k: {"duration_s": d, "warmup_s": w} for k, (d, w) in DURATIONS.items()}


def load_reference() -> dict:
    return json.loads(REFERENCE.read_text())


# --------------------------------------------------------------------------- targets and report


def mean(runs: list[dict], field: str) -> float:
    return statistics.fmean(r[field] for r in runs)


def within(ours: float, theirs: float, factor: float, slack: float) -> bool:
    """Two-sided: theirs/factor − slack <= ours <= theirs·factor + slack."""
    return theirs / factor - slack <= ours <= theirs * factor + slack


def verdict(cell: dict, at: list[dict], ns: list[dict]) -> dict[str, bool]:
    """Which targets a cell meets: timeouts, retransmissions, goodput and (multi-flow cells) Jain."""
    v = {
        "timeouts": within(mean(at, "timeouts"), mean(ns, "timeouts"), RTO_FACTOR, RTO_SLACK),
        "retransmissions": within(mean(at, "retransmissions"), mean(ns, "retransmissions"), RTX_FACTOR, RTX_SLACK),
        "goodput": abs(mean(at, "goodput_bps") - mean(ns, "goodput_bps")) <= GOODPUT_TOL * mean(ns, "goodput_bps"),
    }
    if cell["scenario"] != "fig10":
        v["jain"] = abs(mean(at, "jain") - mean(ns, "jain")) <= JAIN_TOL
    return v


def render(meta: dict, rows: list[tuple[dict, list[dict], list[dict]]]) -> str:
    ok = sum(all(verdict(c, a, n).values()) for c, a, n in rows)
    out = [
        SECTION,
        "",
        f"Generated by `make validate-ns2` (`python3 bench/validate_ns2.py{' --quick' if meta['quick'] else ''}`) on "
        f"{meta['date']}, {meta['machine']}, airtcp {meta['airtcp_commit']}. ns-2 side: {meta['ns2_source']}. "
        "Twins: `bench/ns2/fig10.tcl` and `bench/ns2/dumbbell.tcl` (their comments list every matched setting); "
        "airtcp side: the shipped scenario files with the settings of `bench/validate_ns2.py` (`COMMON`, `SCHEMES`). "
        f"Seeds per cell: Fig. 10 {len(meta['seeds']['fig10'])}, dumbbell {len(meta['seeds']['dumbbell'])} "
        f"(ns-2: seed k is substream k of one generator, `bench/ns2/seeds.tcl`, since `$defaultRNG seed k` gives scaled copies of one stream; the dumbbell's flows at 0% loss start at per-seed offsets, uniform in [0, {DB_JITTER_MS} ms), on both sides: without them neither side draws a random number that matters there and the seeds are copies of one run). "
        "Means over seeds; goodput ± 95% CI (Student t), in-order payload at the receivers over [warm-up, end], "
        "summed over flows; timeouts (ns-2: `nrexmit_`; FACK: rises of `backoff_`, which its agent does not count "
        "in `nrexmit_`), retransmitted packets (`nrexmitpack_`) and bottleneck queue drops (queue monitor; "
        "overflow + early) summed over flows. "
        f"Targets, each two-sided: timeouts within {RTO_FACTOR:g}× ± {RTO_SLACK:g} of ns-2's (ns-2/{RTO_FACTOR:g} − "
        f"{RTO_SLACK:g} ≤ airtcp ≤ {RTO_FACTOR:g} × ns-2 + {RTO_SLACK:g}), retransmissions within {RTX_FACTOR:g}× ± "
        f"{RTX_SLACK:g}, goodput within {GOODPUT_TOL:.0%}, Jain within {JAIN_TOL:g} (multi-flow cells); drops are "
        "not checked; **✗** names the missed ones. "
        f"{ok} of {len(rows)} cells meet all targets. Wall: airtcp {meta['airtcp_wall_s']:.0f} s for "
        f"{meta['airtcp_runs']} runs, ns-2 {meta['ns2_wall_s']:.0f} s ({meta['ns2_runs']} runs; "
        f"{meta['ns2_per_run']}); whole harness {meta['total_s']:.0f} s.",
        "",
    ]
    groups = [
        (
            "fig10",
            "droptail",
            window,
            f"Fig. 10 path, 1 flow, window {window}{' (ns-2.35’s default `window_`)' if window == 20 else ''} "
            f"({DURATIONS['fig10'][0]:g} s, goodput over [{DURATIONS['fig10'][1]:g} s, end])",
        )
        for window in FIG10_WINDOWS
    ]
    for q, label in (
        ("droptail", "DropTail"),
        (
            "red",
            f"RED (min_th {RED['min_th']:g}, max_th {RED['max_th']:g}, "
            f"w_q {RED['weight']:g}, max_p {RED['max_p']:g}, not gentle)",
        ),
        (
            "cw",
            f"CW (weight {CW['weight']:g}, threshold {CW['threshold']:.1f}; ns-2: RED with "
            "min_th = max_th = threshold, max_p 1)",
        ),
    ):
        groups.append(
            (
                "dumbbell",
                q,
                WINDOW,
                f"20-flow dumbbell (TCP-Jersey Table I path), {DB_LIMIT}-packet {label} "
                f"bottleneck ({DURATIONS['dumbbell'][0]:g} s, goodput over "
                f"[{DURATIONS['dumbbell'][1]:g} s, end])",
            )
        )
    for scen, queue, window, title in groups:
        sel = [
            r
            for r in rows
            if r[0]["scenario"] == scen and r[0]["queue"] == queue and r[0].get("window", WINDOW) == window
        ]
        if not sel:
            continue
        multi = scen != "fig10"
        out += [f"### {title}", ""]
        hdr = "| scheme | loss | goodput airtcp kb/s | ns-2 kb/s | ratio |"
        sep = "|---|---|---|---|---|"
        if multi:
            hdr += " Jain airtcp | ns-2 |"
            sep += "---|---|"
        hdr += " timeouts airtcp | ns-2 | retransmissions airtcp | ns-2 | drops airtcp | ns-2 | targets |"
        sep += "---|---|---|---|---|---|---|"
        out += [hdr, sep]
        for c, a, n in sel:
            ga, ca = mean_ci([x["goodput_bps"] for x in a])
            gn, cn = mean_ci([x["goodput_bps"] for x in n])
            line = (
                f"| {c['scheme']} | {c['loss'] * 100:g}% | {ga / 1e3:.1f} ± {ca / 1e3:.1f} | "
                f"{gn / 1e3:.1f} ± {cn / 1e3:.1f} | {ga / gn:.3f} |"
            )
            if multi:
                line += f" {mean(a, 'jain'):.4f} | {mean(n, 'jain'):.4f} |"
            v = verdict(c, a, n)
            miss = [k for k, good in v.items() if not good]
            line += (
                f" {mean(a, 'timeouts'):.1f} | {mean(n, 'timeouts'):.1f} | {mean(a, 'retransmissions'):.0f} | "
                f"{mean(n, 'retransmissions'):.0f} | {mean(a, 'drops'):.0f} | {mean(n, 'drops'):.0f} | "
                f"{'✓' if not miss else '**✗** ' + ', '.join(miss)} |"
            )
            out.append(line)
        out.append("")
    out += [
        "Settings matched on both sides: 1000-B segments (1040 B on the wire, ns-2's Vegas agent set to 1040 B "
        "since it adds no headers), no handshake (ns-2 `syn_ false`: airtcp starts with data), window 1000 (on Fig. 10 "
        "also 20, ns-2.35's default `window_`: airtcp `rwnd_pkts`, for TCP-Linux `max_cwnd_pkts`, below), "
        "initial window 1, minimum RTO 200 ms, maximum 60 s, initial RTO 1 s, "
        "1-ms RTO clock, 3 duplicate ACKs, no delayed ACKs, limited transmit (ns-2 `singledup_`) for the agents "
        "that have it (not FACK, Vegas, TCP-Linux), NewReno's timer reset on the first partial ACK only (ns-2.35's "
        "`newreno_changes1_ 1`, airtcp's `impatient`), ns-2.35's Vegas agent for Vegas (airtcp `variant = \"ns2\"` with "
        "Reno's recovery exit and the RTO backed off at each fast retransmit), ns-2's option sizes (airtcp `option_sizes = \"ns2\"`: "
        "timestamps 10 B on data and none on ACKs, a SACK block 8 B without the option's 2-B header), "
        'TCP-Linux\'s own loss recovery, timer and RTT sampling for Westwood+ (airtcp `recovery = "linux"`, '
        '`rto_restart = "every-ack"`, `rtt_sample_duplicate_acks = true`: the agent takes an RTT sample from every '
        "ACK's timestamp echo, duplicates too), the port's own growth (`growth = \"linux-ns2\"`: Appropriate Byte "
        "Counting as `tcp/linux/ns-linux-param.c` sets it, `sysctl_tcp_abc = 1`, counted through recovery) and "
        "that agent's Westwood+ module, Linux 2.6.22's `tcp_westwood.c` "
        '(airtcp `westwood-plus` with `filter = "cascade"`: two 7/8 filters; `rtt_min = "srtt"`: the least '
        "SRTT; `decrease = \"linux-ns2\"`: ssthresh = Reno's cwnd/2, and at a fast retransmit cwnd = the module's "
        '`min_cwnd` = BWE·RTT_min, which the port sets outright; `arithmetic = "linux-ns2"`: its integers on the '
        "1-ms jiffy), losses after serialization on the wireless hop (`link-lossmodel`), RED counted in packets "
        'without `wait_`, and ns-2.35\'s RED drop rules on RED and CW (airtcp `rules = "ns2"`, `queue/red.cc` '
        "`enque`: nothing dropped while at most one packet waits, the first arrival after the average "
        "crosses min_th untested with the count restarting at 1 — above max_th too, since ns-2.35's default "
        "`use_mark_p_ true` turns the forced drop off there —, (1 − w)^(m+1) after idle time; without them "
        "RED at 0% loss cost airtcp's SACK 2.3 times ns-2's timeouts, 212 against 90 jittered, and Reno "
        "and NewReno a fifth more drops), and ns-2's Sack1 `recover_` rule for SACK (airtcp "
        '`recover_guard = "timeout-only"`: Sack1 clears `recover_` when its fast recovery ends, so only a '
        "timeout arms its guard; with RFC 6675's guard the DropTail dumbbell at 1% timed out 65.4 times against "
        "ns-2's 31.0, the first segment sent after a recovery's RecoveryPoint waiting for the timer when lost). "
        "Not matched: the rest of Sack1's recovery (its pipe counter, every hole below the highest SACK resent "
        "at once) is not RFC 6675 (airtcp's `sack`).",
        "",
        "Vegas as ns-2.35's agent runs it (issue 38; `variant = \"ns2\"`, `VegasTcpAgent::recv`): the epoch's mean "
        'fine-grained RTT, "actual" from the segments sent during the epoch, "expected" from the segments in '
        "transit over BaseRTT, delta rounded as `int(x + 0.5)`, and recovery left at the first new ACK. With the "
        "thesis's arithmetic instead (the epoch's least RTT sample, cwnd for both rates, unrounded), the same "
        "settings gave 1.105, 1.151 and 1.163 of ns-2's goodput at 1, 3 and 5% loss (10 seeds); with ns-2's, "
        "1.026, 1.003 and 1.043, timeouts 0.6, 4.8 and 10.7 against 0.8, 4.2 and 12.6, retransmissions 161, 264 "
        "and 310 against 174, 286 and 328.",
        "",
        "Window 20 (issue 38): ns-2.35's own default `window_`, which the seed papers ran where they name no "
        "window, below Fig. 10's bandwidth-delay product (2 Mb/s × 97.2 ms / 8320 b = 23.4 segments): at 0% "
        "loss every scheme on both sides sends 20 segments per RTT, 1646.4 kb/s (1645.5 with TCP-Linux's "
        "timestamps), and nothing is queued or dropped; with loss, only the wireless losses. ns-2's agents "
        "apply `window_` in two ways. Its own (`TcpAgent::send_much`, `t_seqno_ <= highest_ack_ + win`) bound "
        "the sequence space, as airtcp's `rwnd_pkts` does. TCP-Linux bounds the packets in flight "
        "(`LinuxTcpAgent::send_much`: `packets_in_flight() < max(win, next_pkts_in_flight_)`, `win` = "
        "min(cwnd_, wnd_), in flight = outstanding − SACKed − lost), so every SACKed segment releases a new "
        "one past snd.una + 20; for it the harness sets `max_cwnd_pkts` = the window (with `recovery = "
        '"linux"` airtcp sends while in flight < max(cwnd, the rate-halving allowance)) and leaves '
        "`rwnd_pkts` at 1000 (`window_settings`; on every window-1000 cell the two settings give the same "
        "runs). With `rwnd_pkts = 20` instead, Westwood+ read 1302, 893 and 717 kb/s at 1, 3 and 5% against "
        "ns-2's 1580, 1265 and 821, retransmitting 157, 340 and 466 times against 201, 482 and 534 "
        "(0.82, 0.71 and 0.87 of ns-2's goodput, three misses); with the in-flight bound, 1582, 1231 and 782 "
        "kb/s, 191, 481 and 510 retransmissions. Vegas at 3% reads ± 98 kb/s: airtcp's seed 8 gives 244 kb/s "
        "with 26 timeouts, its cwnd at 2 segments from 29 s to the end. Traced: after a timeout's go-back-N "
        "the ACK of the first resent segment (no fine sample: it was sent twice) begins an epoch, and the "
        "ACK of the second, 4.16 ms later, covers a segment the receiver held and ends it, so the epoch's "
        "RTT is `currentTime - v_begtime_` = 4.16 ms with `rttLen` 1, which `VegasTcpAgent::recv` takes as "
        "BaseRTT (`if (rtt < v_baseRTT_ || rttLen <= 1)`); then delta ≈ the segments in transit, 2, "
        "between α and β, and the window holds. ns-2's agent does the same: over 200 seeds each side has "
        "two runs below 450 kb/s (airtcp 244 and 414, ns-2 303 and 390 kb/s; means 657 and 614), and on "
        "ns-2's seed 177 cwnd_ stays at 2 to 4 segments from 40 s to the end.",
        "",
        "The count targets are two-sided since issue 38 (they were: timeouts at most 2 × ns-2 + 10, "
        "retransmissions printed): timing out or retransmitting far less than ns-2 now misses too. Against the "
        "same committed ns-2 numbers four cells miss: NewReno at 0.1% (10.7 timeouts against 1.0, 754 "
        "retransmissions against 120, the limited-transmit retransmissions of issue 38 item 3), FACK at 5% "
        "(goodput 1.10 of ns-2's), and NewReno and SACK on the CW dumbbell at 0% (62 and 9 timeouts against "
        "ns-2's 201 and 57: airtcp times out far less). The first two were met since (the timeout rule and "
        "limited transmit of issue 38 item 3), and SACK on the DropTail dumbbell at 1%, a strict expected "
        "failure until then (65.4 timeouts against 31.0), is met with Sack1's guard (41.2). The two CW cells at "
        "0% missed until the CW rule below (NewReno 45 timeouts and 3323 retransmissions against 204.6 and 5005, SACK 6 against "
        "56.6; airtcp's goodput 0.953 of ns-2's in both): no loss and no RED randomness on our side, so each "
        "is one deterministic run, while ns-2's five seeds differ (goodput ± 19.9 and ± 2.2 kb/s), which "
        "says its CW twin draws random numbers we do not model. Traced since (below): the first arrival after "
        "the CW queue's average crosses its threshold.",
        "",
        "The CW twin is ns-2.35's RED at its defaults, and there `use_mark_p_` is `true` (`ns-default.tcl`): "
        "`REDQueue::enque` takes its forced drop above max_th only `if (!edp_.use_mark_p && ...)`, so an "
        "arrival above max_th meets the `edv_.old` test first — the first one after the average crosses, or "
        "after the queue held one packet or none, passes untested — and the later ones reach `drop_early`, "
        "where `calculate_p_new` gives 1. With max_th a millionth above min_th, as the twin sets CW, every "
        'crossing is such a one. airtcp\'s `rules = "ns2"` dropped from the first arrival on. Measured on seed 1 '
        "at 0% (flows exactly 10 ms apart): ns-2 NewReno 197 timeouts, 4947 retransmissions, 3842 drops, 18.86 "
        "Mb/s; the twin with `Queue/RED set use_mark_p_ false` 37, 3447, 3038, 18.12 Mb/s; airtcp before 45, "
        "3323, 2957, 17.96 Mb/s; airtcp with the crossing arrival spared 172, 4580, 3810, 18.85 Mb/s. SACK: ns-2 "
        "61, 4171, 4106; `use_mark_p_ false` 10, 3141, 3121; airtcp before 6, 3055, 3059; now 68, 4083, 4069. "
        "The rule moved every CW cell: Reno at 0% from 544 timeouts to 887 (ns-2 899), and Westwood+ over 10 "
        "jittered seeds (`bench/validate_ns2_jitter.py`) from Jain 0.898 and 52.8 timeouts to 0.950 and 28.6 "
        '(ns-2 0.946 and 28.4). `rules = "ns2"` on RED now also spares that arrival, resets the count at a drop '
        "above max_th, and marks an ECT packet only while p_b < `mark_p_` = 0.1 (dropping it above), as "
        "ns-2.35's `drop_early` does with `use_mark_p_`. What made ns-2's seeds differ at 0%: not RED's draws "
        "(with `use_mark_p_ false` the seeds agree, and `drop_early`'s draws meet p = 1), but the agents' "
        "`boot_time_ = Random::uniform(tcp_tick_)` (`TcpAgent::reset`), the phase of the 1-ms clock against "
        "which `rtt_update` quantizes each RTT sample; seeds 1 and 4 first part at 3.290 s, where one flow's "
        "retransmission timer fires 1 ms apart. It matters only where the RTO is above its 200-ms floor, and "
        "airtcp does not model it (its RTT samples are not quantized); the per-seed start offsets now draw the "
        "spread on both sides.",
        "",
        "Why the twin has no SYN: ns-2's 40-B SYN gives the first RTT sample without the 1000-B serialization "
        "at 2 Mb/s (92 ms instead of 97 ms on Fig. 10), and TCP-Linux's Westwood+ keeps the least SRTT as its "
        "RTT_min, so every window it sets from BWE·RTT_min stays 5% low for the whole run; on Fig. 10 at 3% loss "
        "that cost ns-2's Westwood+ a fifth of its goodput (10 seeds: 1.05 Mb/s with the SYN, 1.27 without; "
        "airtcp 1.26). This was the factor missing when the port's byte counting first went into the twin (Fig. 10 "
        "Westwood+ at 3% and 5% read 1.48 and 1.51 of ns-2's goodput). Run with the same losses (ns-2's dropped "
        "packets replayed by index in airtcp), the two agree within 3% on seed 1 at 3%: 1.30 vs 1.27 Mb/s with "
        "the byte counting, 0.82 vs 0.83 without; 473 vs 470 retransmissions, 283 vs 288 fast retransmits.",
        "",
        "The 20-flow cells at 0% loss were one deterministic run per side until the CW rule above; since, their "
        "flows start at per-seed offsets (100 ms) on both sides, as `python3 bench/validate_ns2_jitter.py` "
        "draws them (10 seeds, any cell) to tell one sample of chaotic dynamics from a systematic miss: as one "
        "run each, Westwood+ on CW read Jain 0.938 against ns-2's 0.916 with the rule, outside 0.02, and 0.950 "
        "against 0.946 over 10 jittered seeds. Before the CW rule, with the settings "
        "above: Westwood+ on DropTail, Jain 0.993 (0.990 to 0.996) vs ns-2's 0.997 (0.995 to 0.998), 0 and 0 "
        "timeouts, drops 2421 vs 2490; Westwood+ on CW, Jain 0.898 (0.838 to 0.936) vs 0.944 (0.895 to 0.983), "
        "timeouts 52.8 vs 25.6, drops 13 375 vs 15 530: the deterministic cell meets the target (0.923 vs "
        "0.916) but the jittered means differed by 0.045, the gap the `use_mark_p_` rule above closes (ns-2's "
        "RED idle decay, its `ts_resetRTO_` on duplicate ACKs, the option sizes and ns-2's `qlen > 1` rule on "
        "the CW queue had been tried and moved neither side). SACK on RED at 0%, jittered: 116 vs 90 timeouts, drops 3983 vs 3863, goodput "
        "17.09 vs 17.22 Mb/s; Reno 913 vs 758 timeouts.",
        "",
    ]
    return "\n".join(out)


# --------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--quick", action="store_true", help="fewer seeds (Fig. 10 3, dumbbell 2); reference.json untouched"
    )
    ap.add_argument("--only", default="fig10,dumbbell", help="comma-separated subset of fig10,dumbbell")
    ap.add_argument(
        "--use-reference",
        action="store_true",
        help="take ns-2's side from bench/ns2/reference.json even where `ns` is installed",
    )
    ap.add_argument("--jobs", type=int, default=1, help="processes / threads at a time (default 1)")
    ap.add_argument("--out", default=str(ROOT / "VALIDATION.md"))
    ap.add_argument(
        "--render-only",
        action="store_true",
        help="rewrite the section from target/ns2/results.json (the last run) without running anything",
    )
    a = ap.parse_args()
    if a.render_only:
        d = json.loads((ROOT / "target" / "ns2" / "results.json").read_text())
        keys = ("scenario", "scheme", "loss", "queue", "window")
        rows = [({k: c[k] for k in keys if k in c}, c["airtcp"], c["ns2"]) for c in d["cells"]]
        replace_section(Path(a.out), SECTION, render(d["meta"], rows))
        return
    only = set(a.only.split(","))
    cell_list = cells(only)
    nseeds = QUICK_SEEDS if a.quick else SEEDS
    seeds = {k: list(range(1, n + 1)) for k, n in nseeds.items()}
    t_start = time.time()

    have_ns = shutil.which("ns") is not None and not a.use_reference
    if have_ns:
        t0 = time.perf_counter()
        ns = run_ns2(cell_list, seeds, a.jobs)
        ns_wall = time.perf_counter() - t0
        ns_source = f"{ns2_version()}, run now"
        if not a.quick and only >= {"fig10", "dumbbell"}:
            write_reference(cell_list, ns, seeds, ns_wall)
            print(f"wrote {REFERENCE}", file=sys.stderr)
    else:
        ref = load_reference()
        if ref["durations"] != reference_durations():
            sys.exit(
                f"{REFERENCE} was made with durations {ref['durations']}, this harness uses "
                f"{reference_durations()}: regenerate it where `ns` is installed"
            )
        by_key = {cell_key(c): c for c in ref["cells"]}
        missing = [cell_key(c) for c in cell_list if cell_key(c) not in by_key]
        if missing:
            sys.exit(f"{REFERENCE} lacks cells {missing[:5]}...: regenerate it where `ns` is installed")
        for scen in {c["scenario"] for c in cell_list}:  # the reference's seeds, as many as asked for
            ref_seeds = next(rc["seeds"] for rc in ref["cells"] if rc["scenario"] == scen)
            seeds[scen] = ref_seeds[: nseeds[scen]]
        ns = {
            cell_key(c): [r for r in by_key[cell_key(c)]["runs"] if r["seed"] in seeds[c["scenario"]]]
            for c in cell_list
        }
        ns_wall = sum(r["wall_s"] for c in cell_list for r in ns[cell_key(c)])
        ns_source = f"{ref['ns2']}, from `bench/ns2/reference.json` ({ref['date']})"

    t0 = time.perf_counter()
    at = run_airtcp(cell_list, seeds, a.jobs)
    at_wall = time.perf_counter() - t0

    rows = [(c, at[cell_key(c)], ns[cell_key(c)]) for c in cell_list]
    for c, A, N in rows:
        v = verdict(c, A, N)
        print(
            f"{cell_key(c):38s} goodput {mean(A, 'goodput_bps') / 1e3:8.1f} / {mean(N, 'goodput_bps') / 1e3:8.1f} kb/s  "
            f"RTO {mean(A, 'timeouts'):6.1f} / {mean(N, 'timeouts'):6.1f}  Jain {mean(A, 'jain'):.4f} / "
            f"{mean(N, 'jain'):.4f}  {'ok' if all(v.values()) else 'MISS ' + ','.join(k for k, g in v.items() if not g)}",
            file=sys.stderr,
        )
    per_run = {
        s: statistics.fmean(r["wall_s"] for c in cell_list if c["scenario"] == s for r in ns[cell_key(c)])
        for s in {c["scenario"] for c in cell_list}
    }
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} cpus ({cpu_model()})",
        "quick": a.quick,
        "seeds": {k: seeds.get(k, []) for k in ("fig10", "dumbbell")},
        "airtcp_commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip(),
        "ns2_source": ns_source,
        "ns2_wall_s": ns_wall,
        "ns2_runs": sum(len(ns[cell_key(c)]) for c in cell_list),
        "ns2_per_run": ", ".join(f"{s} {w:.2f} s per run" for s, w in sorted(per_run.items())),
        "airtcp_wall_s": at_wall,
        "airtcp_runs": sum(len(at[cell_key(c)]) for c in cell_list),
        "total_s": time.time() - t_start,
    }
    replace_section(Path(a.out), SECTION, render(meta, rows))
    out_dir = ROOT / "target" / "ns2"
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(
        json.dumps({"meta": meta, "cells": [{**c, "airtcp": A, "ns2": N} for c, A, N in rows]}, indent=1) + "\n"
    )
    print(f"wrote {a.out} ({SECTION[3:]}) and {out_dir / 'results.json'} in {meta['total_s']:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
