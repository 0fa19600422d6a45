#!/usr/bin/env python3
"""Is a deterministic validate-ns2 cell's miss one sample of chaotic dynamics, or systematic?

    python3 bench/validate_ns2_jitter.py [--jitter-ms 100] [--seeds 10] [--queue cw] [--loss 0]
                                         [--schemes westwood-plus,sack]
                                         [--airtcp-set KEY=VALUE ...] [--ns2-env NAME=VALUE ...]

Without start offsets, the 20-flow dumbbell at 0% loss draws no random number that matters on either
side (flows exactly 10 ms apart), so each side is one run; `make validate-ns2` draws offsets of
100 ms there since issue 38. This runs any cell with per-seed start offsets on both sides: ns-2 through bench/ns2/dumbbell.tcl's JITTER_MS (an RNG stream of its
own), airtcp through `start_jitter`, and prints per side the mean, min and max of Jain's index and
the mean timeouts, bottleneck drops and goodput. Needs `ns` (Debian's ns2).

--airtcp-set changes the airtcp scenario of every cell (dotted path, e.g.
flows.0.cc_params.growth=linux-ns2: TCP-Linux's byte counting); --ns2-env passes an environment
variable to the twin (e.g. LINUX_ABC=0: the port's byte counting off, bench/ns2/agents.tcl).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "python"))

import validate_ns2 as v  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jitter-ms", type=float, default=100.0)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--queue", default="cw", choices=v.DB_QUEUES)
    ap.add_argument("--loss", type=float, default=0.0)
    ap.add_argument("--schemes", default="westwood-plus,sack")
    ap.add_argument(
        "--airtcp-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a value of the airtcp scenario by dotted path (repeatable)",
    )
    ap.add_argument(
        "--ns2-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="environment variable for the ns-2 twin (repeatable)",
    )
    a = ap.parse_args()
    for kv in a.airtcp_set + a.ns2_env:
        if "=" not in kv:
            ap.error(f"expected KEY=VALUE, got {kv!r}")
    import airtcp
    from airtcp.scenario import apply_override, dumps, set_path

    for scheme in a.schemes.split(","):
        cell = {"scenario": "dumbbell", "scheme": scheme, "loss": a.loss, "queue": a.queue}
        env = {"JITTER_MS": f"{a.jitter_ms:g}", **dict(kv.split("=", 1) for kv in a.ns2_env)}
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            ns = [v.run_ns2_once(cell, s) for s in range(1, a.seeds + 1)]
        finally:
            for k, old in saved.items():
                if old is None:
                    del os.environ[k]
                else:
                    os.environ[k] = old
        doc = v.airtcp_doc(cell)
        set_path(doc, "flows.0.start_jitter", f"{a.jitter_ms:g}ms")
        for kv in a.airtcp_set:
            apply_override(doc, kv)
        ours = [v.airtcp_totals(airtcp.run(dumps(doc), seed=s).summary, cell) for s in range(1, a.seeds + 1)]
        for side, rows in (("ns-2", ns), ("airtcp", ours)):
            j = [r["jain"] for r in rows]
            print(
                f"{scheme:14} {side:7} Jain mean {statistics.mean(j):.4f} (min {min(j):.4f}, max {max(j):.4f})  "
                f"timeouts {statistics.mean(r['timeouts'] for r in rows):.1f}  "
                f"drops {statistics.mean(r['drops'] for r in rows):.0f}  "
                f"goodput {statistics.mean(r['goodput_bps'] for r in rows) / 1e3:.0f} kb/s"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
