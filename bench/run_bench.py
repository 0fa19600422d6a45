#!/usr/bin/env python3
"""Scenario benchmarks (issue 6): whole runs, scale, memory and sweep speed-up, with ns-2.35 and
ns-3.44 timed on the same scenario in the same run where they are installed.

Prints tables and writes bench/results.json. Times are medians of repeats; compare ratios, not bare
times, across machines (these are noisy shared VMs).

  python3 bench/run_bench.py            # everything (a few minutes)
  BENCH_REPEATS=7 python3 bench/run_bench.py
  BENCH_GRID_ROUNDS=1 python3 bench/run_bench.py   # one round per seed of the ns-3 grid (default 3)

ns-2 is timed if `ns` is on PATH (Debian: ns2). ns-3 is timed if its Fig. 10 twin has been built
by `make validate-ns3` (target/ns3/bin/fig10); pass --build-ns3 to build it here (downloads the
~100 MB `ns3` wheel once).
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
BENCH = TARGET / "release" / "examples" / "bench_scenarios"
RUN_TOML = TARGET / "release" / "examples" / "run_toml"
NS3_FIG10 = TARGET / "ns3" / "bin" / "fig10"
# The same runner linked statically (glibc's static-pie): a process then skips the dynamic loader,
# which costs ~0.4 ms per start on these VMs (a Rust "hello" takes 1.04 ms dynamic, 0.68 ms static,
# /bin/true 0.82 ms through the same harness). Built for an explicit --target so that the flag does
# not reach proc-macros and build scripts.
GNU_TARGET = "x86_64-unknown-linux-gnu"
STATIC_DIR = TARGET / "static"
RUN_TOML_STATIC = STATIC_DIR / GNU_TARGET / "release" / "examples" / "run_toml"
REPEATS = int(os.environ.get("BENCH_REPEATS", "21"))
# Rounds per seed of the ns-3 grid (each round: airtcp in-process, airtcp process, ns-3 twin).
GRID_ROUNDS = int(os.environ.get("BENCH_GRID_ROUNDS", "3"))


def bench(*args: str) -> list[dict]:
    out = subprocess.run([str(BENCH), *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def wall(cmd: list[str], repeats: int) -> float:
    """Median wall time of a whole process, start to exit."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def fig10_toml(loss: float) -> str:
    text = (ROOT / "examples" / "jersey_fig10.toml").read_text()
    return text.replace("loss = 0.01", f"loss = {loss}", 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-ns3", action="store_true", help="build the ns-3 Fig. 10 twin first")
    a = ap.parse_args()
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "airtcp", "--example", "bench_scenarios", "--example", "run_toml"],
        cwd=ROOT,
        check=True,
    )
    have_static = platform.system() == "Linux" and platform.machine() == "x86_64"
    if have_static:
        env = dict(os.environ, RUSTFLAGS="-C target-feature=+crt-static", CARGO_TARGET_DIR=str(STATIC_DIR))
        subprocess.run(
            ["cargo", "build", "--release", "-q", "-p", "airtcp", "--example", "run_toml", "--target", GNU_TARGET],
            cwd=ROOT,
            check=True,
            env=env,
        )
    # The same static runner built with profile-guided optimization (bench/build_pgo.sh), where
    # rustc's LLVM version of llvm-profdata is installed.
    run_toml_pgo = None
    if have_static:
        pgo = subprocess.run(["bash", str(ROOT / "bench" / "build_pgo.sh")], cwd=ROOT, capture_output=True, text=True)
        if pgo.returncode == 0:
            run_toml_pgo = pgo.stdout.strip().splitlines()[-1]
        else:
            print(f"(no PGO runner: {pgo.stderr.strip().splitlines()[-1] if pgo.stderr.strip() else pgo.returncode})")
    if a.build_ns3:
        sys.path.insert(0, str(ROOT / "bench"))
        import validate_ns3  # noqa: E402

        validate_ns3.build_twins()
    n = max(5, REPEATS // 3)
    n_ext = max(9, REPEATS // 2)  # external processes: ns-2's steady time is a difference of two noisy medians
    cores = os.cpu_count() or 1
    results: dict = {
        "machine": f"{platform.machine()} {cores} cores",
        "date": time.strftime("%Y-%m-%d"),
        "repeats": REPEATS,
    }
    print(f"machine: {results['machine']}, python {platform.python_version()}, {REPEATS} repeats in-process")

    # 1. Fig. 10, every scheme, in-process (parsing and output included).
    rows = bench("fig10", str(REPEATS))
    results["fig10"] = rows
    print(f"\n{'Fig. 10, 100 s':40} {'median':>9} {'events':>8} {'events/s':>10}")
    for r in rows:
        print(f"{r['scenario'][6:]:40} {r['median_wall_s'] * 1e3:7.2f}ms {r['events']:8d} {r['events_per_s']:10.3g}")

    # 2. Fig. 10 NewReno, whole processes side by side: airtcp, ns-2, ns-3. Besides 100-s processes,
    # ns-2 and airtcp each run the scenario for 1000 s and for ~0 s: steady-state cost per 100 s =
    # (T(1000 s) - T(0 s)) / 10, which is far less noisy than a difference of two 100-s medians.
    have_ns2 = shutil.which("ns") is not None
    have_ns3 = NS3_FIG10.exists()
    side = []
    ns2_tcl = str(ROOT / "bench/ns2/fig10.tcl")
    ns2_start = wall(["ns", ns2_tcl, "0", "0.001", "1"], n_ext) if have_ns2 else None
    with tempfile.TemporaryDirectory() as tmp:
        for loss in (0.0, 0.01):
            path = Path(tmp) / f"fig10-{loss}.toml"
            path.write_text(fig10_toml(loss))
            long_path = Path(tmp) / f"fig10-{loss}-1000s.toml"
            long_path.write_text(fig10_toml(loss).replace('duration = "100s"', 'duration = "1000s"', 1))
            zero_path = Path(tmp) / f"fig10-{loss}-0s.toml"
            zero_path.write_text(
                fig10_toml(loss)
                .replace('duration = "100s"', 'duration = "1ms"', 1)
                .replace('warmup = "10s"', 'warmup = "0s"', 1)
            )
            row = {"loss": loss, "airtcp_process_s": wall([str(RUN_TOML), str(path), "1"], n_ext)}
            if have_static:
                row["airtcp_static_process_s"] = wall([str(RUN_TOML_STATIC), str(path), "1"], n_ext)
            if run_toml_pgo:
                row["airtcp_pgo_process_s"] = wall([run_toml_pgo, str(path), "1"], n_ext)
            inproc = [r for r in rows if r["scenario"] == f"fig10 reno/newreno {loss * 100:g}%"][0]["median_wall_s"]
            row["airtcp_in_process_s"] = inproc
            a_long = wall([str(RUN_TOML), str(long_path), "1"], n)
            a_zero = wall([str(RUN_TOML), str(zero_path), "1"], n_ext)
            row["airtcp_steady_per_100s"] = (a_long - a_zero) / 10
            if run_toml_pgo:
                p_long = wall([run_toml_pgo, str(long_path), "1"], n)
                p_zero = wall([run_toml_pgo, str(zero_path), "1"], n_ext)
                row["airtcp_pgo_steady_per_100s"] = (p_long - p_zero) / 10
            if have_ns2:
                total = wall(["ns", ns2_tcl, str(loss), "100", "1"], n_ext)
                long_total = wall(["ns", ns2_tcl, str(loss), "1000", "1"], n)
                row |= {
                    "ns2_total_s": total,
                    "ns2_startup_s": ns2_start,
                    "ns2_steady_per_100s": (long_total - ns2_start) / 10,
                    "ns2_over_airtcp_steady": (long_total - ns2_start) / 10 / row["airtcp_steady_per_100s"],
                    "ns2_over_airtcp_process": total / row["airtcp_process_s"],
                }
                if run_toml_pgo:
                    row["ns2_over_airtcp_pgo_steady"] = row["ns2_steady_per_100s"] / row["airtcp_pgo_steady_per_100s"]
            if have_ns3:
                ns3 = wall(
                    [
                        str(NS3_FIG10),
                        f"--loss={loss}",
                        "--run=1",
                        "--cc=newreno",
                        "--duration=100",
                        "--warmup=10",
                        "--timestamps=0",
                    ],
                    n_ext,
                )
                row |= {"ns3_process_s": ns3, "airtcp_over_ns3_process": row["airtcp_process_s"] / ns3}
                if have_static:
                    row["airtcp_static_over_ns3_process"] = row["airtcp_static_process_s"] / ns3
                if run_toml_pgo:
                    row["airtcp_pgo_over_ns3_process"] = row["airtcp_pgo_process_s"] / ns3
            side.append(row)
    results["fig10_side_by_side"] = side
    print(
        f"\n{'NewReno Fig. 10':16} {'airtcp in-proc':>14} {'airtcp proc':>12} {'static proc':>12} "
        f"{'ns-3 proc':>10} {'airtcp/ns-3':>12} {'static/ns-3':>12}"
        + (f" {'PGO proc':>10} {'PGO/ns-3':>9}" if run_toml_pgo else "")
    )
    for r in side:
        st = f"{r['airtcp_static_process_s'] * 1e3:10.2f}ms" if have_static else f"{'-':>12}"
        ns3 = (
            (
                f"{r['ns3_process_s'] * 1e3:8.0f}ms {'1/%.0f' % (1 / r['airtcp_over_ns3_process']):>12} "
                + (f"{'1/%.0f' % (1 / r['airtcp_static_over_ns3_process']):>12}" if have_static else "")
            )
            if have_ns3
            else ""
        )
        pgo = ""
        if run_toml_pgo:
            pgo = f" {r['airtcp_pgo_process_s'] * 1e3:8.2f}ms" + (
                f" {'1/%.0f' % (1 / r['airtcp_pgo_over_ns3_process']):>9}" if have_ns3 else ""
            )
        print(
            f"{'loss ' + format(r['loss'] * 100, 'g') + '%':16} {r['airtcp_in_process_s'] * 1e3:12.2f}ms "
            f"{r['airtcp_process_s'] * 1e3:10.2f}ms {st} {ns3}{pgo}"
        )
    if have_ns2:
        print(
            f"\n{'per 100 s, steady':16} {'airtcp':>10} {'ns-2':>10} {'ns-2/airtcp':>12} "
            f"{'ns-2 proc':>10} {'ns-2/airtcp proc':>17}"
            + (f" {'PGO steady':>10} {'ns-2/PGO':>9}" if run_toml_pgo else "")
            + "   (steady = (T(1000 s) - T(0 s)) / 10)"
        )
        for r in side:
            print(
                f"{'loss ' + format(r['loss'] * 100, 'g') + '%':16} {r['airtcp_steady_per_100s'] * 1e3:8.2f}ms "
                f"{r['ns2_steady_per_100s'] * 1e3:8.2f}ms {r['ns2_over_airtcp_steady']:11.1f}x "
                f"{r['ns2_total_s'] * 1e3:8.1f}ms {r['ns2_over_airtcp_process']:16.1f}x"
                + (
                    f" {r['airtcp_pgo_steady_per_100s'] * 1e3:8.2f}ms {r['ns2_over_airtcp_pgo_steady']:8.1f}x"
                    if run_toml_pgo
                    else ""
                )
            )

    # 2b. The ns-3 comparison grid: Fig. 10 at five loss rates x NewReno, Westwood+, Vegas, with the
    # settings of `make validate-ns3`. Two ways to compare, on the same seeds 1..n in one sitting:
    #   engine:  airtcp in-process (parse + run + summary and series) vs ns-3's Simulator::Run()
    #            alone (the twin's own timer: no start-up, no topology set-up; favours ns-3);
    #   process: one scenario per process, airtcp's static runner vs the ns-3 twin, start to exit.
    # Each seed's three timings are taken back to back (airtcp in-process, airtcp process, ns-3), so
    # that a slow stretch of this shared VM hits both simulators alike; a cell's figure is the median
    # over its seeds of each seed's median over GRID_ROUNDS such rounds (a slow stretch of a few
    # hundred ms, which these VMs have, then spoils one round, not the seed's figure). airtcp's
    # in-process time of a round is the median of 3 runs in one process
    # after 20 ms of warm-up runs (`bench_scenarios cell`): a fresh process runs its first
    # milliseconds slower on these VMs, and the ns-3 twin's Run() starts after ~20 ms of set-up.
    if have_ns3:
        grid_n = max(5, REPEATS // 2)
        cells = []
        with tempfile.TemporaryDirectory() as tmp:
            # The cells and their scenario files, as `bench_scenarios grid` writes them.
            for ours in bench("grid", "1"):
                loss, scheme = ours["loss"], ours["scheme"]
                path = Path(tmp) / f"grid-{scheme}-{loss}.toml"
                path.write_text(ours["toml"])
                runner = RUN_TOML_STATIC if have_static else RUN_TOML
                ours_in, ours_proc, ns3_proc, ns3_run = [], [], [], []
                for seed in range(1, grid_n + 1):
                    seed_times: dict[str, list[float]] = {"in": [], "proc": [], "ns3_proc": [], "ns3_run": []}
                    for _ in range(GRID_ROUNDS):
                        seed_times["in"].append(bench("cell", scheme, str(loss), str(seed), "3")[0]["wall_s"])
                        seed_times["proc"].append(wall([str(runner), str(path), str(seed)], 1))
                        t0 = time.perf_counter()
                        out = subprocess.run(
                            [
                                str(NS3_FIG10),
                                f"--loss={loss}",
                                f"--run={seed}",
                                f"--cc={scheme}",
                                "--duration=100",
                                "--warmup=10",
                            ],
                            check=True,
                            capture_output=True,
                            text=True,
                        ).stdout
                        seed_times["ns3_proc"].append(time.perf_counter() - t0)
                        seed_times["ns3_run"].append(json.loads(out)["run_wall_s"])
                    for acc, key in (
                        (ours_in, "in"),
                        (ours_proc, "proc"),
                        (ns3_proc, "ns3_proc"),
                        (ns3_run, "ns3_run"),
                    ):
                        acc.append(statistics.median(seed_times[key]))
                cells.append(
                    {
                        "loss": loss,
                        "scheme": scheme,
                        "seeds": grid_n,
                        "rounds_per_seed": GRID_ROUNDS,
                        "airtcp_in_process_s": statistics.median(ours_in),
                        "airtcp_process_s": statistics.median(ours_proc),
                        "airtcp_runner": "static" if have_static else "dynamic",
                        "ns3_run_s": statistics.median(ns3_run),
                        "ns3_process_s": statistics.median(ns3_proc),
                    }
                )
        for c in cells:
            c["engine_ratio"] = c["airtcp_in_process_s"] / c["ns3_run_s"]
            c["process_ratio"] = c["airtcp_process_s"] / c["ns3_process_s"]
        results["ns3_grid"] = cells
        print(
            f"\n{'Fig. 10 grid':24} {'airtcp in-proc':>14} {'ns-3 Run()':>11} {'engine':>8} "
            f"{'airtcp proc':>12} {'ns-3 proc':>10} {'process':>8}   (medians over seeds 1..{grid_n})"
        )
        for c in cells:
            print(
                f"{c['scheme'] + ' ' + format(c['loss'] * 100, 'g') + '%':24} {c['airtcp_in_process_s'] * 1e3:12.2f}ms "
                f"{c['ns3_run_s'] * 1e3:9.0f}ms {'1/%.0f' % (1 / c['engine_ratio']):>8} "
                f"{c['airtcp_process_s'] * 1e3:10.2f}ms {c['ns3_process_s'] * 1e3:8.0f}ms {'1/%.0f' % (1 / c['process_ratio']):>8}"
            )
        worst_engine = max(cells, key=lambda c: c["engine_ratio"])
        worst_proc = max(cells, key=lambda c: c["process_ratio"])
        print(
            f"worst cell: engine 1/{1 / worst_engine['engine_ratio']:.0f} ({worst_engine['scheme']} "
            f"{worst_engine['loss'] * 100:g}%), process 1/{1 / worst_proc['process_ratio']:.0f} "
            f"({worst_proc['scheme']} {worst_proc['loss'] * 100:g}%)"
        )

    # 3. Dumbbells: 20 and 1 000 flows through a 100 Mb/s bottleneck, 100 s.
    db = bench("dumbbell", "20", "100", str(n)) + bench("dumbbell", "1000", "100", "3")
    results["dumbbell"] = db
    print()
    for r in db:
        print(
            f"{r['scenario']:24} {r['median_wall_s']:7.3f} s for {r['simulated_s']} s simulated, "
            f"{r['events']} events, {r['events_per_s']:.3g} events/s"
        )

    # 4. Memory: the peak RSS of a 10 000-flow run (default 100-ms series, 100 s).
    mem = bench("memory", "10000", "100", "100ms")[0]
    results["memory"] = mem
    print(
        f"\n10 000 flows, 100 s, series every 100 ms: peak RSS {mem['peak_rss_kib'] / 1024:.0f} MiB, "
        f"{mem['wall_s']:.2f} s, {mem['flows_that_sent']} flows sent data"
    )

    # 5. A 200-run sweep on 1 thread and on all cores (medians of n), same digest required.
    # Alternated, so that a drift of the machine's speed (these VMs' clocks wander by 30% between
    # minutes) hits both sides alike.
    one, allc = [], []
    for _ in range(n):
        one.append(bench("sweep", "200", "1")[0])
        allc.append(bench("sweep", "200", "0")[0])
    digests = {r["digest"] for r in one + allc}
    t1 = statistics.median(r["wall_s"] for r in one)
    tn = statistics.median(r["wall_s"] for r in allc)
    # Each alternated pair's own speed-up, and its CPU time on all threads over that on one: a pair
    # whose speed-up falls short while its CPU time grows ran on slower cores (the host's other
    # tenants), not a worse sweep. The pairs' spread shows how much this VM's figure wanders.
    pair_speedups = sorted(a["wall_s"] / b["wall_s"] for a, b in zip(one, allc))
    cpu_growth = statistics.median(b["cpu_s"] / a["cpu_s"] for a, b in zip(one, allc))
    results["sweep"] = {
        "runs": 200,
        "threads": allc[0]["threads"],
        "wall_1_s": t1,
        "wall_all_s": tn,
        "speedup": t1 / tn,
        "pair_speedups": pair_speedups,
        "cpu_all_over_cpu_1": cpu_growth,
        "identical_results": len(digests) == 1,
    }
    print(
        f"\nsweep of 200 Fig. 10 runs: {t1:.3f} s on 1 thread, {tn:.3f} s on {allc[0]['threads']}: "
        f"{t1 / tn:.2f}x; results identical: {len(digests) == 1}"
    )
    print(
        f"  pairs' speed-ups: min {pair_speedups[0]:.2f}x, median {statistics.median(pair_speedups):.2f}x, "
        f"max {pair_speedups[-1]:.2f}x; CPU time on {allc[0]['threads']} threads / on 1: {cpu_growth:.2f}"
    )
    # 5b. The same 200 runs as ns-3 twin processes, one at a time and `cores` at a time: the time a
    # researcher waits for the sweep's answers with each simulator.
    if have_ns3:
        from concurrent.futures import ThreadPoolExecutor

        # The (loss, seed) of each of airtcp's 200 runs, as `bench_scenarios sweep` reports them.
        cmds = [
            [str(NS3_FIG10), f"--loss={loss}", f"--run={seed}", "--cc=newreno", "--duration=100", "--warmup=10"]
            for loss, seed in one[0]["cells"]
        ]

        def sweep_ns3(workers: int) -> float:
            t0 = time.perf_counter()
            with ThreadPoolExecutor(max_workers=workers) as pool:
                list(pool.map(lambda c: subprocess.run(c, check=True, capture_output=True), cmds))
            return time.perf_counter() - t0

        ns3_1, ns3_all = sweep_ns3(1), sweep_ns3(cores)
        results["sweep"] |= {
            "ns3_wall_1_s": ns3_1,
            "ns3_wall_all_s": ns3_all,
            "airtcp_over_ns3_1": t1 / ns3_1,
            "airtcp_over_ns3_all": tn / ns3_all,
        }
        print(
            f"the same 200 runs as ns-3 processes: {ns3_1:.1f} s one at a time, {ns3_all:.1f} s {cores} at a "
            f"time; airtcp / ns-3 = 1/{ns3_1 / t1:.0f} (1 thread vs 1 process at a time), "
            f"1/{ns3_all / tn:.0f} (all cores each)"
        )
    (ROOT / "bench" / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0 if len(digests) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
