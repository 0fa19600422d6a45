#!/usr/bin/env python3
"""Scenario benchmark: airtcp vs ns-2.35 on the Jersey Fig. 10 scenario, in the same run.

Prints a table and writes bench/results.json. Medians of N repeats; ratios, not bare times,
are what to compare across machines. ns-2 is timed only if `ns` is on PATH (Debian: ns2).
"""
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPEATS = int(os.environ.get("BENCH_REPEATS", "21"))


def airtcp_rows():
    exe = ROOT / "target" / "release" / "examples" / "bench_scenarios"
    out = subprocess.run([str(exe), str(REPEATS)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def ns2_time(loss, duration, repeats):
    tcl = ROOT / "bench" / "ns2" / "fig10.tcl"
    times = []
    for i in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(["ns", str(tcl), str(loss), str(duration), str(i + 1)], check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    rows = airtcp_rows()
    have_ns2 = shutil.which("ns") is not None
    n = max(5, REPEATS // 3)
    startup = ns2_time(0.0, 0.001, n) if have_ns2 else None
    print(f"machine: {platform.machine()} {os.cpu_count()} cores, python {platform.python_version()}")
    print(f"{'scenario':24} {'airtcp median':>14} {'events/s':>12} {'ns-2 total':>11} {'ns-2 steady':>12} {'ratio (steady)':>15}")
    for r in rows:
        name = f"fig10 {r['recovery']} {r['loss']*100:g}%"
        if have_ns2 and r["recovery"] == "newreno":
            total = ns2_time(r["loss"], 100, n)
            steady = total - startup
            r["ns2_total_s"] = total
            r["ns2_startup_s"] = startup
            r["ns2_steady_s"] = steady
            r["ns2_over_airtcp_steady"] = steady / r["median_wall_s"]
            extra = f"{total*1e3:9.1f}ms {steady*1e3:10.1f}ms {steady / r['median_wall_s']:14.1f}x"
        else:
            extra = ""
        print(f"{name:24} {r['median_wall_s']*1e3:12.2f}ms {r['events_per_s']:12.3g} {extra}")
    (ROOT / "bench" / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
