"""``airtcp demo``: Reno, CUBIC, BBR, Westwood, TCP-Jersey and TCP NJ+ on TCP-Jersey's Fig. 10
topology (1 % loss, a congestion-warning router), run in parallel, printed as a table and written
as ``demo.json`` and ``demo.png``. cli.py parses the options and turns the errors into one line."""

from __future__ import annotations

import copy
import sys
from importlib import resources
from pathlib import Path
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import api, outputs
from .presets import complete, notice
from .scenario import dumps, loads, parse_duration_s

__all__ = ["DEMO_VARIANTS", "DemoError", "demo_command", "demo_scenario_text", "demo_variants"]

# The TCP-Jersey Fig. 11 comparison at 1 % loss: the window policies, with CUBIC (RFC 9438) as
# the baseline people compare against. All use Reno's fast recovery, as in the paper; the lossy
# hop's queue is a CW router. The flow options a policy needs (ECN for TCP-Jersey, ECN and
# timestamps for NJ+) come from the scheme presets (airtcp.presets), as in a sweep.
DEMO_VARIANTS: dict[str, dict[str, Any]] = {
    "reno": {"cc": "reno"},
    "cubic": {"cc": "cubic"},
    "bbr": {"cc": "bbr"},
    "westwood": {"cc": "westwood"},
    "jersey": {"cc": "jersey"},
    "nj+": {"cc": "nj+"},
}


#: Under the demo's table: what every variant shares, and what "redundant" counts.
RECOVERY_NOTE = (
    "Every variant: Reno fast recovery (recovery = reno), a CW queue on the lossy hop. "
    "redundant: retransmitted segments the receiver already held (go-back-N after a timeout "
    "resends what arrived)."
)


def redundant(flows: Sequence[Mapping[str, Any]]) -> Optional[int]:
    """The flows' ``redundant_segments`` summed; None when this engine build does not report it."""
    if any("redundant_segments" not in f for f in flows):
        return None
    return sum(int(f["redundant_segments"]) for f in flows)


class DemoError(ValueError):
    """A bad option of the demo (``--duration``, ``--seed``): one line, exit code 2."""


def demo_scenario_text() -> str:
    """The TCP-Jersey Fig. 10 scenario shipped with the package (examples/jersey_fig10.toml, package data)."""
    return resources.files("airtcp").joinpath("data/examples/jersey_fig10.toml").read_text(encoding="utf-8")


def demo_variants(doc: dict[str, Any], duration: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The demo's six runs of one scenario: every TCP flow with Reno, CUBIC, BBR, Westwood, TCP-Jersey and TCP NJ+
    (Reno recovery), behind a congestion-warning queue on each lossy link (TCP-Jersey Fig. 10/11).
    The options each policy needs are not set here: ``presets.complete`` adds them."""
    base = copy.deepcopy(doc)
    if duration is not None:
        dur_s = parse_duration_s(duration)
        if dur_s <= 0:
            raise DemoError(f"--duration {duration}: must be positive")
        base["duration"] = duration
        warmup = base.get("warmup")
        if warmup is not None and parse_duration_s(warmup) >= dur_s:
            base["warmup"] = "0s"
    variants = []
    for label, opts in DEMO_VARIANTS.items():
        d = copy.deepcopy(base)
        d["name"] = f"{base.get('name', 'demo')}-{label}"
        for link in d.get("links", []):
            channel = link.get("channel")
            if isinstance(channel, dict) and channel.get("kind", "none") != "none":
                limit = link.get("queue", {}).get("limit_pkts", 50) if isinstance(link.get("queue"), dict) else 50
                link["queue"] = {"kind": "cw", "limit_pkts": limit}
        for f in d.get("flows", []):
            if f.get("kind", "tcp") == "tcp":
                f["recovery"] = "reno"
                f.update(opts)
        variants.append((label, d))
    return variants


def demo_command(
    console: Console, out: Path, seed: Optional[int], duration: Optional[str], jobs: int, force: bool = False
) -> None:
    """``airtcp demo`` with its options as cli.py parses them: runs the variants with a progress
    bar, prints the table and writes ``demo.json`` and ``demo.png`` in ``out`` (complete or not at
    all, never over another command's output unless ``force``: ``outputs.staged``)."""
    if duration is not None:
        try:
            parse_duration_s(duration)
        except ValueError as e:
            raise DemoError(f"--duration: {e}") from None
    if seed is not None and not 0 <= seed < 2**64:
        raise DemoError(f"--seed {seed}: out of range (allowed: 0 to {2**64 - 1})")
    doc = loads(demo_scenario_text(), source="jersey_fig10.toml")
    variants = demo_variants(doc, duration)
    notes = [n for _, d in variants for n in complete(d)]
    labels = [rec for rec, _ in variants]
    texts = [dumps(d) for _, d in variants]
    try:
        threads = api.resolve_jobs(jobs, len(texts), "--jobs")
    except ValueError as e:
        raise DemoError(str(e)) from None
    out = outputs.check_path(out)
    # After the options are checked: a refused command prints its one error line only.
    if notes:
        print(f"note: {notice(notes)}", file=sys.stderr)
    invocation = {"command": "demo", "seed": seed, "duration": duration}
    with outputs.staged(out, "demo.json", _OUTPUTS, invocation, force) as tmp:
        _demo(console, tmp, doc, variants, labels, texts, seed, threads, invocation)
    console.print(Text(f"wrote {out}/demo.json, {out}/demo.png"))


_OUTPUTS = ("demo.json", "demo.png")


def _demo(
    console: Console,
    out: Path,
    doc: dict[str, Any],
    variants: list[tuple[str, dict[str, Any]]],
    labels: list[str],
    texts: list[str],
    seed: Optional[int],
    threads: int,
    invocation: dict[str, Any],
) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", style="progress.description", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as progress:
        task = progress.add_task(f"simulating {len(texts)} runs on {threads} threads", total=len(texts))
        results = api.run_many(
            texts,
            jobs=threads,
            seeds=[seed] * len(texts),
            progress=lambda done, total: progress.update(task, completed=done),
            presets=False,
        )

    base_gp = sum(f["goodput_bps"] for f in results[0].summary["flows"] if f["kind"] == "tcp")
    t = Table(
        title=f"{doc.get('name', 'demo')}: window policies compared (seed {results[0].seed}, "
        f"{results[0].summary['end_time_s']:g} s)",
        title_justify="left",
        caption=RECOVERY_NOTE,
        caption_justify="left",
    )
    for col, right in [
        ("cc", False),
        ("Mb/s", True),
        ("vs reno", True),
        ("retrans.", True),
        ("redundant", True),
        ("timeouts", True),
        ("fast retr.", True),
    ]:
        t.add_column(col, justify="right" if right else "left")
    rows = []
    for label, r in zip(labels, results):
        tcp = [f for f in r.summary["flows"] if f["kind"] == "tcp"]
        gp = sum(f["goodput_bps"] for f in tcp)
        rel = f"{100 * (gp / base_gp - 1):+.1f} %" if base_gp > 0 else "-"
        rtx, to, fr = (sum(f[k] for f in tcp) for k in ("retransmissions", "timeouts", "fast_retransmits"))
        red = redundant(tcp)
        t.add_row(label, f"{gp / 1e6:.3f}", rel, str(rtx), "-" if red is None else str(red), str(to), str(fr))
        rows.append(
            {
                "cc": label,
                "recovery": "reno",
                "queue": "cw",
                "goodput_bps": gp,
                "retransmissions": rtx,
                "redundant_segments": red,
                "timeouts": to,
                "fast_retransmits": fr,
                "summary": r.summary,
            }
        )
    console.print(t)

    report = {
        "scenario": doc.get("name", "demo"),
        "seed": results[0].seed,
        "duration": variants[0][1].get("duration"),
        "variants": rows,
        outputs.PROVENANCE_KEY: outputs.provenance(
            invocation, list(_OUTPUTS), scenario=dict(zip(labels, texts)), seed=results[0].seed
        ),
    }
    outputs.write_json(out / "demo.json", report)
    outputs.pause_point("writing")
    from .plots import plot_demo

    mss = next((f.get("mss_bytes", 1000) for f in doc.get("flows", []) if f.get("kind", "tcp") == "tcp"), 1000)
    plot_demo(
        labels,
        results,
        out / "demo.png",
        mss_bytes=mss,
        title=f"{doc.get('name', 'demo')}: {' vs '.join(labels)} (1 % loss)\n"
        "each with Reno fast recovery (recovery = reno) behind a CW queue on the lossy hop",
    )
