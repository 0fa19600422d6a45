#!/usr/bin/env python3
"""Cross-validation of airtcp against ns-3 3.44 on the same scenarios, side by side (issue 6).

    python3 bench/validate_ns3.py [--quick] [--seeds N] [--out VALIDATION.md] [--only fig10,dumbbell,red]

Builds the ns-3 twins in bench/ns3/ with g++ against the `ns3` wheel from PyPI (downloaded with
`pip download --no-deps ns3==3.44.post0` into target/ns3/ unless already there; only its headers
and shared libraries are used, no Python bindings), builds airtcp's `run_toml` example, then runs
every scenario x scheme (x loss) for seeds 1..N on both sides, one process at a time, timing each
run's wall clock (process start to exit) in the same session. Writes VALIDATION.md (the tables and
the settings) and target/ns3/results.json (every run).

Scenarios (both sides built from the same numbers below):
  fig10     S -10 Mb/s 45 ms- BS -2 Mb/s 1 ms, uniform loss on BS->D- D; DropTail 50; 1 flow;
            loss 0, 0.1, 1, 3, 5 %; 100 s, goodput over [10 s, 100 s].
  dumbbell  10 flows S_i -100 Mb/s (1+i) ms- R1 -10 Mb/s 20 ms- R2 -100 Mb/s 1 ms- D_i, flow i
            starting at 0.1 i s; bottleneck DropTail of 64 packets (the BDP at the mean base RTT
            of 53 ms in 1040-B packets); 60 s, goodput over [10 s, 60 s].
  fig10-ts  fig10 with RFC 7323 timestamps on both sides (RTT sampled on every ACK by both).
  fig10-ackedcount
            fig10, Westwood+ only, against a diagnostic ns-3 variant (`TcpWestwoodPlusAckedCount` in
            bench/ns3/twin.h) whose estimator counts acknowledged segments by AckedCount, as airtcp
            does, instead of ns-3 3.44's counts (VALIDATION.md finding 6).
  fig10-flightsize
            fig10, NewReno only, against a diagnostic ns-3 variant (`TcpNewRenoFlightSize`) whose
            ssthresh at a fast retransmit is FlightSize/2, as airtcp's, instead of ns-3 3.44's
            (FlightSize - 1 segment)/2 (finding 5).
  red       the same dumbbell with RED + ECN on R1->R2: limit 64, min_th 10, max_th 30,
            w_q 0.002, max_p 0.1, not gentle; ECN-capable TCP.
Schemes: NewReno (airtcp cc = "reno", recovery = "newreno"; ns-3 TcpNewReno + TcpClassicRecovery),
Westwood+ (airtcp "westwood-plus"; ns-3 TcpWestwoodPlus), Vegas (airtcp "vegas" with
expiry = false; ns-3 TcpVegas), all with the settings in bench/ns3/twin.h.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validate_common import cpu_model, jain, kept_sections, mean_ci  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NS3_DIR = ROOT / "target" / "ns3"
NS3_VERSION = "3.44.post0"
NS3_LIBS = ["core", "network", "internet", "point-to-point", "applications", "traffic-control"]
TWINS = {"fig10": "fig10.cc", "dumbbell": "dumbbell.cc"}
SCHEMES = ["newreno", "westwood-plus", "vegas"]
FIG10_LOSSES = [0.0, 0.001, 0.01, 0.03, 0.05]
# Diagnostic tables: scenario -> (airtcp scheme, the ns-3 twin's variant of it in bench/ns3/twin.h).
DIAGNOSTICS = {
    "fig10-ackedcount": ("westwood-plus", "westwood-plus-ackedcount"),
    "fig10-flightsize": ("newreno", "newreno-flightsize"),
    "fig10-disorder": ("newreno", "newreno-flightsize-disorder"),
}

# Dumbbell numbers shared by both sides.
DB_FLOWS = 10
DB_BUFFER = 64
DB_SPACING = 0.1
RED = dict(min_th=10.0, max_th=30.0, weight=0.002, max_p=0.1)


# --------------------------------------------------------------------------- building


def ns3_root() -> Path:
    """Folder holding include/ and lib64/ of the ns-3 wheel (unzipped on first use)."""
    root = NS3_DIR / "ns3"
    if (root / "lib64" / "libns3.44-core.so").exists():
        return root
    NS3_DIR.mkdir(parents=True, exist_ok=True)
    wheels = sorted(glob.glob(str(NS3_DIR / "ns3-*.whl"))) + sorted(glob.glob("/tmp/ns3whl/ns3-*.whl"))
    if not wheels:
        print(f"downloading the ns3 {NS3_VERSION} wheel from PyPI (~100 MB) ...", file=sys.stderr)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "--python-version",
                "3.11",
                f"ns3=={NS3_VERSION}",
                "-d",
                str(NS3_DIR),
            ],
            check=True,
        )
        wheels = sorted(glob.glob(str(NS3_DIR / "ns3-*.whl")))
    print(f"unzipping {wheels[-1]} ...", file=sys.stderr)
    with zipfile.ZipFile(wheels[-1]) as z:
        members = [m for m in z.namelist() if m.startswith(("ns3/include/", "ns3/lib64/"))]
        z.extractall(NS3_DIR, members)
    return root


def build_twins() -> dict[str, Path]:
    root = ns3_root()
    out = NS3_DIR / "bin"
    out.mkdir(parents=True, exist_ok=True)
    src_dir = ROOT / "bench" / "ns3"
    bins = {}
    for name, src in TWINS.items():
        exe = out / name
        deps = [src_dir / src, src_dir / "twin.h"]
        if not exe.exists() or exe.stat().st_mtime < max(d.stat().st_mtime for d in deps):
            cmd = (
                [
                    "g++",
                    "-std=c++20",
                    "-O2",
                    "-w",
                    f"-I{root / 'include'}",
                    "-o",
                    str(exe),
                    str(src_dir / src),
                    f"-L{root / 'lib64'}",
                ]
                + [f"-lns3.44-{lib}" for lib in NS3_LIBS]
                + [f"-Wl,-rpath,{root / 'lib64'}"]
            )
            print("building", name, "...", file=sys.stderr)
            subprocess.run(cmd, check=True)
        bins[name] = exe
    return bins


def build_airtcp() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "airtcp", "--example", "run_toml"], cwd=ROOT, check=True)
    return target / "release" / "examples" / "run_toml"


# --------------------------------------------------------------------------- scenarios


def airtcp_flow(name: str, src: str, dst: str, scheme: str, start: float, ecn: bool, timestamps: bool = False) -> str:
    cc = {"newreno": "reno", "westwood-plus": "westwood-plus", "vegas": "vegas"}[scheme]
    lines = [
        "[[flows]]",
        'kind = "tcp"',
        f'name = "{name}"',
        f'src = "{src}"',
        f'dst = "{dst}"',
        f'cc = "{cc}"',
        'recovery = "newreno"',
        "mss_bytes = 1000",
        "rwnd_pkts = 1000",
        'min_rto = "200ms"',
        f'start = "{start:g}s"',
    ]
    if ecn:
        lines.append("ecn = true")
    if timestamps:
        lines.append("timestamps = true")
    if scheme == "vegas":
        # ns-3's TcpVegas has no fine-grained "Vegas expiry" retransmission.
        lines.append("cc_params = { alpha = 1, beta = 3, gamma = 1, expiry = false }")
    return "\n".join(lines) + "\n"


def fig10_toml(loss: float, scheme: str, duration: float, warmup: float, timestamps: bool = False) -> str:
    """The Jersey Fig. 10 scenario as the project ships it (examples/jersey_fig10.toml), with the
    loss rate, run length and scheme of this comparison set on it."""
    from airtcp.scenario import load, set_path  # needs the package, like run_toml needs the crate
    import tomli_w

    doc = load(ROOT / "examples" / "jersey_fig10.toml")
    settings = {
        "name": "ns3-fig10",
        "duration": f"{duration:g}s",
        "warmup": f"{warmup:g}s",
        "sample_interval": "1s",
        "links.1.channel.loss": loss,
        "flows.0.cc": {"newreno": "reno", "westwood-plus": "westwood-plus", "vegas": "vegas"}[scheme],
    }
    if timestamps:
        settings["flows.0.timestamps"] = True
    if scheme == "vegas":
        # ns-3's TcpVegas has no fine-grained "Vegas expiry" retransmission.
        settings["flows.0.cc_params"] = {"alpha": 1, "beta": 3, "gamma": 1, "expiry": False}
    for key, value in settings.items():
        set_path(doc, key, value)
    return tomli_w.dumps(doc)


def dumbbell_toml(queue: str, scheme: str, duration: float, warmup: float, timestamps: bool = False) -> str:
    nodes = [f"S{i}" for i in range(DB_FLOWS)] + ["R1", "R2"] + [f"D{i}" for i in range(DB_FLOWS)]
    out = [
        f'name = "ns3-{queue}"',
        f'duration = "{duration:g}s"',
        f'warmup = "{warmup:g}s"',
        'sample_interval = "1s"',
        "nodes = [" + ", ".join(f'"{n}"' for n in nodes) + "]",
        "",
    ]
    if queue == "red":
        q = (
            f'{{ kind = "red", limit_pkts = {DB_BUFFER}, min_th_pkts = {RED["min_th"]}, max_th_pkts = {RED["max_th"]}, '
            f"weight = {RED['weight']}, max_p = {RED['max_p']}, ecn = true, gentle = false }}"
        )
    else:
        q = f'{{ kind = "droptail", limit_pkts = {DB_BUFFER} }}'
    out += [
        "[[links]]",
        'from = "R1"',
        'to = "R2"',
        'rate = "10Mbps"',
        'delay = "20ms"',
        f"queue = {q}",
        f'reverse_queue = {{ kind = "droptail", limit_pkts = {DB_BUFFER} }}',
        "",
    ]
    for i in range(DB_FLOWS):
        out += [
            "[[links]]",
            f'from = "S{i}"',
            'to = "R1"',
            'rate = "100Mbps"',
            f'delay = "{1 + i}ms"',
            'queue = { kind = "droptail", limit_pkts = 100 }',
            "",
        ]
        out += [
            "[[links]]",
            'from = "R2"',
            f'to = "D{i}"',
            'rate = "100Mbps"',
            'delay = "1ms"',
            'queue = { kind = "droptail", limit_pkts = 100 }',
            "",
        ]
    text = "\n".join(out) + "\n"
    for i in range(DB_FLOWS):
        text += "\n" + airtcp_flow(f"f{i}", f"S{i}", f"D{i}", scheme, i * DB_SPACING, queue == "red", timestamps)
    return text


# --------------------------------------------------------------------------- running


def timed(cmd: list[str]) -> tuple[dict, float]:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    return json.loads(p.stdout), wall


def run_airtcp(exe: Path, toml_text: str, key: str, seed: int) -> dict:
    scen_dir = NS3_DIR / "scenarios"
    scen_dir.mkdir(parents=True, exist_ok=True)
    path = scen_dir / f"{key}.toml"
    if not path.exists() or path.read_text() != toml_text:
        path.write_text(toml_text)
    s, wall = timed([str(exe), str(path), str(seed)])
    flows = [f["goodput_bps"] for f in s["flows"]]
    bott = next((lk for lk in s["links"] if lk["name"] == "R1->R2"), None)
    return {
        "goodput_bps": sum(flows),
        "flows_bps": flows,
        "jain": jain(flows),
        "wall_s": wall,
        "retransmissions": sum(f["retransmissions"] for f in s["flows"]),
        "timeouts": sum(f["timeouts"] for f in s["flows"]),
        "fast_retransmits": sum(f["fast_retransmits"] for f in s["flows"]),
        "ecn_reductions": sum(f["ecn_reductions"] for f in s["flows"]),
        "packets_sent": sum(f["packets_sent"] for f in s["flows"]),
        "drops": (bott["overflow_drops"] + bott["early_drops"]) if bott else None,
        "ce_marks": bott["ce_marks"] if bott else None,
        "events": s["events"],
    }


def run_ns3(exe: Path, args: list[str]) -> dict:
    s, wall = timed([str(exe)] + args)
    flows = s["flows"]
    return {
        "goodput_bps": s["total_goodput_bps"],
        "flows_bps": flows,
        "jain": jain(flows),
        "wall_s": wall,
        "run_wall_s": s["run_wall_s"],
        "retransmissions": s["retransmissions"],
        "timeouts": s["timeouts"],
        "fast_retransmits": s["fast_retransmits"],
        "ecn_reductions": s["ecn_reductions"],
        "packets_sent": s["packets_sent"],
        "drops": (s["bottleneck_overflow_drops"] + s["bottleneck_early_drops"])
        if "bottleneck_overflow_drops" in s
        else None,
        "ce_marks": s.get("bottleneck_ce_marks"),
    }


def cases(only: set[str], quick: bool):
    """(scenario, scheme, loss) in table order."""
    for scheme in SCHEMES:
        for scen in ("fig10", "fig10-ts"):
            if scen in only:
                for loss in FIG10_LOSSES:
                    yield (scen, scheme, loss)
    for scen, (scheme, _) in DIAGNOSTICS.items():
        if scen in only:
            for loss in FIG10_LOSSES:
                yield (scen, scheme, loss)
    for scen in ("dumbbell", "dumbbell-ts", "red"):
        if scen in only:
            for scheme in SCHEMES:
                yield (scen, scheme, 0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="3 seeds, shorter runs (fig10 40 s, dumbbells 30 s)")
    ap.add_argument("--seeds", type=int, default=None, help="seeds 1..N (default 10, quick 3)")
    ap.add_argument(
        "--only",
        default="fig10,fig10-ts,fig10-ackedcount,fig10-flightsize,fig10-disorder,dumbbell,dumbbell-ts,red",
        help="comma-separated subset of fig10,fig10-ts (Fig. 10 with timestamps on both sides),"
        "fig10-ackedcount (Westwood+ against ns-3 counting by AckedCount),"
        "fig10-flightsize (NewReno against ns-3 with ssthresh = FlightSize/2),"
        "fig10-disorder (the same, and ns-3's recovery counting the duplicate ACKs before the "
        "fast retransmit),dumbbell,dumbbell-ts (the DropTail dumbbell with RFC 7323 timestamps on both "
        "sides),red",
    )
    ap.add_argument("--out", default=str(ROOT / "VALIDATION.md"))
    ap.add_argument(
        "--render-only",
        action="store_true",
        help="rewrite the report from target/ns3/results.json without running anything",
    )
    a = ap.parse_args()
    if a.render_only:
        d = json.loads((NS3_DIR / "results.json").read_text())
        Path(a.out).write_text(render(d["meta"], d["results"]) + kept_sections(Path(a.out)))
        return
    seeds = a.seeds or (3 if a.quick else 10)
    only = set(a.only.split(","))
    fig10_dur, db_dur, warmup = (40.0, 30.0, 10.0) if a.quick else (100.0, 60.0, 10.0)

    bins = build_twins()
    run_toml = build_airtcp()
    results = []
    t_start = time.time()
    for scen, scheme, loss in cases(only, a.quick):
        row = {"scenario": scen, "scheme": scheme, "loss": loss, "airtcp": [], "ns3": []}
        for seed in range(1, seeds + 1):
            if scen.startswith("fig10"):
                ts = scen == "fig10-ts"
                key = f"{scen}-{scheme}-{loss}"
                at = run_airtcp(run_toml, fig10_toml(loss, scheme, fig10_dur, warmup, ts), key, seed)
                ns_cc = DIAGNOSTICS[scen][1] if scen in DIAGNOSTICS else scheme
                ns = run_ns3(
                    bins["fig10"],
                    [
                        f"--loss={loss}",
                        f"--run={seed}",
                        f"--cc={ns_cc}",
                        f"--duration={fig10_dur}",
                        f"--warmup={warmup}",
                        f"--timestamps={int(ts)}",
                    ],
                )
            else:
                key = f"{scen}-{scheme}"
                ts = scen == "dumbbell-ts"
                at = run_airtcp(
                    run_toml,
                    dumbbell_toml(scen if scen == "red" else "droptail", scheme, db_dur, warmup, ts),
                    key,
                    seed,
                )
                ns = run_ns3(
                    bins["dumbbell"],
                    [
                        f"--queue={'red' if scen == 'red' else 'droptail'}",
                        f"--run={seed}",
                        f"--cc={scheme}",
                        f"--duration={db_dur}",
                        f"--warmup={warmup}",
                        f"--flows={DB_FLOWS}",
                        f"--buffer={DB_BUFFER}",
                        f"--spacing={DB_SPACING}",
                        f"--minTh={RED['min_th']}",
                        f"--maxTh={RED['max_th']}",
                        f"--qw={RED['weight']}",
                        f"--maxP={RED['max_p']}",
                        "--ecn=1",
                        f"--timestamps={int(ts)}",
                    ],
                )
            at["seed"] = ns["seed"] = seed
            row["airtcp"].append(at)
            row["ns3"].append(ns)
        results.append(row)
        ga, ca = mean_ci([r["goodput_bps"] for r in row["airtcp"]])
        gn, cn = mean_ci([r["goodput_bps"] for r in row["ns3"]])
        print(
            f"{scen:9s} {scheme:14s} loss {loss * 100:4g}%  airtcp {ga / 1e3:8.1f} ± {ca / 1e3:6.1f}  "
            f"ns-3 {gn / 1e3:8.1f} ± {cn / 1e3:6.1f} kb/s  ratio {ga / gn if gn else float('nan'):.3f}",
            file=sys.stderr,
        )
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} cpus",
        "cpu": cpu_model(),
        "seeds": seeds,
        "quick": a.quick,
        "durations": {"fig10": fig10_dur, "dumbbell": db_dur, "warmup": warmup},
        "total_s": time.time() - t_start,
        "ns3": NS3_VERSION,
        "airtcp_commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip(),
    }
    NS3_DIR.mkdir(parents=True, exist_ok=True)
    (NS3_DIR / "results.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    Path(a.out).write_text(render(meta, results) + kept_sections(Path(a.out)))
    print(f"wrote {a.out} and {NS3_DIR / 'results.json'}", file=sys.stderr)


# --------------------------------------------------------------------------- report


def fmt_kbps(m: float, c: float) -> str:
    return f"{m / 1e3:.1f} ± {c / 1e3:.1f}"


def render(meta: dict, results: list[dict]) -> str:
    notes_path = ROOT / "bench" / "ns3" / "FINDINGS.md"
    out = [
        "# airtcp vs ns-3: cross-validation",
        "",
        f"Generated by `make validate-ns3` (`python3 bench/validate_ns3.py{' --quick' if meta['quick'] else ''}`) on "
        f"{meta['date']}, {meta['machine']} ({meta['cpu']}), airtcp {meta['airtcp_commit']}, ns-3 {meta['ns3']} "
        f"(the PyPI wheel's C++ libraries, twins in `bench/ns3/`). Seeds 1–{meta['seeds']} on each side "
        f"(ns-3: `RngSeedManager` seed 1, run = seed); mean ± 95% CI (Student t) over seeds. "
        f"Goodput: application bytes received over [{meta['durations']['warmup']:g} s, end] per second, summed over flows. "
        f"Wall: mean per run, process start to exit (the ns-3 column in parentheses: `Simulator::Run()` alone), "
        f"one process at a time, both sides in the same session. Total {meta['total_s']:.0f} s.",
        "",
        "A ratio is flagged **✗** when the two 95% intervals do not overlap (the difference is more than the",
        "seed-to-seed noise explains); each flag is discussed under Findings.",
        "",
    ]
    for scen, title in (
        ("fig10", f"TCP-Jersey Fig. 10 topology ({meta['durations']['fig10']:g} s)"),
        ("fig10-ts", f"Fig. 10 topology with RFC 7323 timestamps on both sides ({meta['durations']['fig10']:g} s)"),
        (
            "fig10-ackedcount",
            f"Fig. 10, Westwood+ against ns-3 counting by AckedCount (diagnostic, finding 6; {meta['durations']['fig10']:g} s)",
        ),
        (
            "fig10-flightsize",
            f"Fig. 10, NewReno against ns-3 with ssthresh = FlightSize/2 (diagnostic, finding 5; {meta['durations']['fig10']:g} s)",
        ),
        (
            "fig10-disorder",
            f"Fig. 10, NewReno against ns-3 with ssthresh = FlightSize/2 and the pre-retransmit duplicate ACKs out of its pipe (diagnostic, finding 5; {meta['durations']['fig10']:g} s)",
        ),
        ("dumbbell", f"10-flow dumbbell, DropTail bottleneck ({meta['durations']['dumbbell']:g} s)"),
        (
            "dumbbell-ts",
            f"10-flow dumbbell, DropTail bottleneck, RFC 7323 timestamps on both sides ({meta['durations']['dumbbell']:g} s)",
        ),
        ("red", f"10-flow dumbbell, RED + ECN bottleneck ({meta['durations']['dumbbell']:g} s)"),
    ):
        rows = [r for r in results if r["scenario"] == scen]
        if not rows:
            continue
        out += [f"## {title}", ""]
        extra = scen in ("dumbbell", "dumbbell-ts", "red")
        hdr = "| scheme | loss | airtcp kb/s | ns-3 kb/s | airtcp / ns-3 | FR / RTO airtcp | FR / RTO ns-3 |"
        sep = "|---|---|---|---|---|---|---|"
        if extra:
            hdr += " Jain airtcp | Jain ns-3 | bottleneck drops / CE marks airtcp | ns-3 |"
            sep += "---|---|---|---|"
        hdr += " wall airtcp ms | wall ns-3 ms | wall ratio |"
        sep += "---|---|---|"
        out += [hdr, sep]
        for r in rows:
            A, N = r["airtcp"], r["ns3"]
            ga, ca = mean_ci([x["goodput_bps"] for x in A])
            gn, cn = mean_ci([x["goodput_bps"] for x in N])
            flag = "" if abs(ga - gn) <= ca + cn else " ✗"
            ratio = f"{ga / gn:.3f}{flag}" if gn else "–"
            fa = f"{statistics.fmean(x['fast_retransmits'] for x in A):.0f} / {statistics.fmean(x['timeouts'] for x in A):.1f}"
            fn = f"{statistics.fmean(x['fast_retransmits'] for x in N):.0f} / {statistics.fmean(x['timeouts'] for x in N):.1f}"
            line = f"| {r['scheme']} | {r['loss'] * 100:g}% | {fmt_kbps(ga, ca)} | {fmt_kbps(gn, cn)} | {ratio} | {fa} | {fn} |"
            if extra:
                ja = statistics.fmean(x["jain"] for x in A)
                jn = statistics.fmean(x["jain"] for x in N)
                da = f"{statistics.fmean(x['drops'] for x in A):.0f} / {statistics.fmean(x['ce_marks'] for x in A):.0f}"
                dn = f"{statistics.fmean(x['drops'] for x in N):.0f} / {statistics.fmean(x['ce_marks'] for x in N):.0f}"
                line += f" {ja:.3f} | {jn:.3f} | {da} | {dn} |"
            wa = statistics.fmean(x["wall_s"] for x in A)
            wn = statistics.fmean(x["wall_s"] for x in N)
            wr = statistics.fmean(x["run_wall_s"] for x in N)
            line += f" {wa * 1e3:.1f} | {wn * 1e3:.0f} ({wr * 1e3:.0f}) | {wa / wn:.4f} |"
            out.append(line)
        out.append("")
    fig = [r for r in results if r["scenario"] == "fig10"]
    if fig:
        wa = [x["wall_s"] for r in fig for x in r["airtcp"]]
        wn = [x["wall_s"] for r in fig for x in r["ns3"]]
        wr = [x["run_wall_s"] for r in fig for x in r["ns3"]]
        out += [
            "### Wall time on the Fig. 10 scenario, all runs",
            "",
            f"Median per run: airtcp {statistics.median(wa) * 1e3:.1f} ms (whole process), ns-3 "
            f"{statistics.median(wn) * 1e3:.0f} ms (whole process) / {statistics.median(wr) * 1e3:.0f} ms "
            f"(`Simulator::Run()` only). airtcp / ns-3 = {statistics.median(wa) / statistics.median(wn):.4f} "
            f"(1 / {statistics.median(wn) / statistics.median(wa):.0f}) process to process, "
            f"{statistics.median(wa) / statistics.median(wr):.4f} (1 / {statistics.median(wr) / statistics.median(wa):.0f}) "
            "against ns-3's `Run()` alone (airtcp's figure still includes its process start and TOML parsing).",
            "",
        ]
    if notes_path.exists():
        out.append(notes_path.read_text())
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
