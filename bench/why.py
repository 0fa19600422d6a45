"""Measurements behind REPRODUCTION.md's "why not reproduced" paragraphs (experiments/<paper>/why.toml).

Runs one `airtcp reproduce` experiment exactly as its sweep spec does (same scenarios, same seeds,
same metrics, same results cache), optionally with extra assignments applied *after* each grid
point's own (a one-setting variation), restricted to some points, and prints each point's metric
means with their 95% CI, plus optional summary fields of the selected flows/links. Every
measurement quoted in a why.toml paragraph names the command that produced it, e.g.

    python3 bench/why.py jersey-table2 --seeds 3 --point loss=0.0 --set links.1.queue.drop_non_ect=false

Options: --set PATH=VALUE (TOML value, repeatable), --point AXIS=LABEL (repeatable; keeps the
points with one of the labels given for each axis named), --seeds N (default: the spec's), --duration D (replaces the scenario's),
--field NAME=FIELD@SELECT[:AGG] (an extra per-run number from the flow rows, e.g.
`rtx=retransmissions@tcp*:mean`; `links:` before FIELD reads the link rows), --jobs N.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from airtcp.reproduce import Cache, cache_key, make_backend  # noqa: E402
from airtcp.reproduce.metrics import evaluate, mean_ci  # noqa: E402
from airtcp.reproduce.plan import RunTask, plan  # noqa: E402
from airtcp.reproduce.text import fmt_pm  # noqa: E402
from airtcp.reproduce.spec import Metric, discover  # noqa: E402
from airtcp.scenario import apply_override, dumps, loads  # noqa: E402


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("experiment")
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--point", action="append", default=[])
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--duration", default=None)
    ap.add_argument("--field", action="append", default=[])
    ap.add_argument("--metrics", default=None, help="comma-separated metric names to print (default: all)")
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args(argv)

    exp = next((e for e in discover(ROOT / "experiments") if e.id == a.experiment), None)
    if exp is None:
        print(f"error: unknown experiment '{a.experiment}'", file=sys.stderr)
        return 2
    p = plan(exp, seeds=a.seeds)
    want: dict[str, set[str]] = {}
    for x in a.point:
        k, _, v = x.partition("=")
        want.setdefault(k, set()).add(v)  # labels of one axis: any of them; several axes: all
    metrics = list(exp.metrics)
    if a.metrics:
        keep = a.metrics.split(",")
        metrics = [m for m in metrics if m.name in keep]
    for f in a.field:
        name, rest = f.split("=", 1)
        field, _, sel = rest.partition("@")
        sel, _, agg = sel.partition(":")
        source = "flows"
        if field.startswith("links:"):
            source, field = "links", field[len("links:") :]
        metrics.append(Metric(name=name, label=name, source=source, field=field, select=sel or "*", agg=agg or "mean"))

    tasks: list[RunTask] = []
    rows: list[tuple[dict[str, str], list[int]]] = []
    for i, point in enumerate(p.points):
        if any(point.get(k) not in vs for k, vs in want.items()):
            continue
        idx = []
        for s in range(len(p.seeds)):
            t = p.tasks[p.task_index(i, s)]
            if a.sets or a.duration:
                doc = loads(t.text)
                for assignment in a.sets:
                    apply_override(doc, assignment)
                if a.duration:
                    doc["duration"] = a.duration
                t = RunTask(text=dumps(doc), seed=t.seed, base_dir=t.base_dir, series=t.series, inputs=t.inputs)
            idx.append(len(tasks))
            tasks.append(t)
        rows.append((point, idx))

    if not rows:
        labels = {k: sorted({q[k] for q in p.points}) for k in (p.points[0] if p.points else {})}
        print(
            "error: no point matches; labels: " + "; ".join(f"{k}: {', '.join(v)}" for k, v in labels.items()),
            file=sys.stderr,
        )
        return 2
    cache = Cache(ROOT / "results" / ".cache")
    payloads: list = [None] * len(tasks)
    todo = []
    for i, t in enumerate(tasks):
        got = cache.get(cache_key(t))
        if got is None:
            todo.append(i)
        else:
            payloads[i] = got

    def done(j: int, payload: dict) -> None:
        i = todo[j]
        cache.put(cache_key(tasks[i]), payload)
        payloads[i] = payload

    if todo:
        make_backend("local", a.jobs).run([tasks[i] for i in todo], done)
    extra = f"  [{'; '.join(a.sets)}]" if a.sets else ""
    print(f"{exp.id}: {len(p.seeds)} seeds, {len(tasks)} runs ({len(todo)} executed){extra}")
    for point, idx in rows:
        label = ", ".join(f"{k}={v}" for k, v in point.items())
        cells = []
        for m in metrics:
            vals = [evaluate(m, payloads[i], tasks[i]) for i in idx]
            n, mean, _, ci = mean_ci(vals)
            cells.append(f"{m.name} {fmt_pm(mean, ci)}")
        print(f"  {label}: " + "; ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
