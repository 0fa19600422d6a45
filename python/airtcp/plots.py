"""Figures of a run (cwnd, goodput, RTT and queues over time), of the demo and of a sweep. Headless (Agg)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any, Optional, cast

import polars as pl

from ._signals import sigint_held
from .api import RunResult

# matplotlib's native font module (ft2font, pybind11) keeps Python objects in a C++ static map
# while it initializes and replaces them with its enum classes at the end; a Ctrl-C in between
# leaves the first ones there, and the C runtime frees them when the process exits, after the
# interpreter has finalized: the process aborted ("Fatal Python error: PyThreadState_Get ... the
# GIL is released ... finalizing", status -6; the core dump's main thread: exit() ->
# ~unordered_map<string, pybind11::object> in ft2font -> tupledealloc). So matplotlib loads whole
# with Ctrl-C held back, and the KeyboardInterrupt comes right after (issue 39).
with sigint_held():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

__all__ = ["goodput_series", "plot_run", "run_figure", "plot_demo", "sweep_figure"]


def goodput_series(flow_series: pl.DataFrame) -> pl.DataFrame:
    """Goodput per sample interval, from the cumulative ``delivered_bytes`` of each flow.

    Returns (time_s, flow, goodput_mbps): the bytes delivered since the previous sample (or since
    t = 0 for the first), times 8, over the time since then, in Mb/s.
    """
    if flow_series.height == 0:
        return pl.DataFrame(schema={"time_s": pl.Float64, "flow": pl.String, "goodput_mbps": pl.Float64})
    fs = flow_series.with_row_index("_row").sort(["flow", "time_s", "_row"])
    fs = fs.with_columns(
        pl.col("time_s").diff().over("flow").fill_null(pl.col("time_s")).alias("_dt"),
        pl.col("delivered_bytes")
        .cast(pl.Float64)
        .diff()
        .over("flow")
        .fill_null(pl.col("delivered_bytes").cast(pl.Float64))
        .alias("_db"),
    )
    fs = fs.filter(pl.col("_dt") > 0).with_columns((pl.col("_db") * 8.0 / pl.col("_dt") / 1e6).alias("goodput_mbps"))
    return fs.sort("_row").select("time_s", "flow", "goodput_mbps")


def _save(fig: Figure, path: str | os.PathLike) -> None:
    d = os.path.dirname(os.fspath(path))
    if d:
        os.makedirs(d, exist_ok=True)
    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=110)


def legend_beside(ax: Any, handles: Sequence[Any], labels: Sequence[str], **kw: Any) -> Any:
    """One legend for every panel of a figure, to the right of ``ax`` (the top-right panel), its
    top level with that panel's top. ``fig.legend(loc="outside right upper")`` hung it from the
    figure's top edge, beside the centred suptitle, and a long suptitle ran under it (jersey-fig3 in
    quick mode); hung from the panel it stays below the suptitle, and constrained layout still widens
    the right margin to hold it. ``kw``: the legend's other options (title, font sizes)."""
    return ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, **kw)


def _flow_names(fs: pl.DataFrame) -> list[str]:
    """Flow names in order of first appearance."""
    return fs.get_column("flow").unique(maintain_order=True).to_list() if fs.height else []


def _samples_per_second(g: pl.DataFrame) -> int:
    """Number of samples in one second of a per-flow series (for a 1 s moving average)."""
    if g.height < 2:
        return 1
    dt = cast(Optional[float], g["time_s"].diff().drop_nulls().median())  # a float column's median
    return max(1, int(round(1.0 / dt))) if dt and dt > 0 else 1


def bottleneck_bps(summary: Mapping[str, Any]) -> Optional[float]:
    """The capacity line drawn on goodput axes: when every flow goes one way between the same two
    nodes, the lowest ``rate_bps`` on the fewest-hops path of links between them (``from`` →
    ``to``); None otherwise (flows on other paths or both ways could together exceed it), when
    there is no such path, or when a link on it has no fixed rate (trace or cellular links)."""
    ends = {(f.get("src"), f.get("dst")) for f in summary.get("flows", [])}
    if len(ends) != 1:
        return None
    src, dst = next(iter(ends))
    links = summary.get("links", [])
    seen: dict[Any, Any] = {src: None}
    frontier = [src]
    while frontier and dst not in seen:
        nxt = []
        for node in frontier:
            for lk in links:
                if lk.get("from") == node and lk.get("to") not in seen:
                    seen[lk["to"]] = lk
                    nxt.append(lk["to"])
        frontier = nxt
    if dst not in seen or src == dst:
        return None
    rates, node = [], dst
    while node != src:
        lk = seen[node]
        rate = lk.get("rate_bps")
        if not isinstance(rate, (int, float)) or isinstance(rate, bool) or rate <= 0:
            return None
        rates.append(float(rate))
        node = lk["from"]
    return min(rates)


def mark_warmup(ax: Any, warmup_s: float, label: bool = False) -> None:
    """Shades [0, warm-up): the summary's goodput leaves that time out."""
    if warmup_s > 0:
        ax.axvspan(0, warmup_s, color="0.85", alpha=0.5, lw=0, zorder=0, label="warm-up" if label else None)


#: Flows drawn one by one in `plot_run`; beyond them the plot shows the first ones and the total
#: goodput of all. A line and a legend entry per flow made 10 001 flows take over 300 s to draw,
#: and no reader can tell 10 001 lines apart.
PLOT_MAX_FLOWS = 20
#: Flows named in the legend (one legend for all panels: a flow has the same colour in each).
PLOT_LEGEND_FLOWS = 8
#: Links drawn in the queue panel: those that ever queue a packet, longest maximum queue first.
PLOT_MAX_LINKS = 6


def plot_run(result: RunResult, path: str | os.PathLike, mss_bytes: Mapping[str, int] | None = None) -> None:
    """Four panels over time: cwnd (segments) and smoothed RTT (ms) per TCP flow, goodput (Mb/s per
    sample interval) per flow, and the queue (packets) of the links that queue; with more than
    `PLOT_MAX_FLOWS` flows, the first of them and the total goodput of all.

    ``mss_bytes`` maps flow name → segment size used to express cwnd in segments (default 1000).
    """
    _save(run_figure(result, mss_bytes), path)


def run_figure(result: RunResult, mss_bytes: Mapping[str, int] | None = None) -> Figure:
    """The figure `plot_run` writes."""
    from matplotlib.lines import Line2D

    mss_bytes = mss_bytes or {}
    fs = result.flow_series
    names = _flow_names(fs)
    shown = names[:PLOT_MAX_FLOWS]
    color = {n: f"C{i % 10}" for i, n in enumerate(shown)}
    gp = goodput_series(fs)
    fig = Figure(figsize=(9, 10), layout="constrained")
    ax_c, ax_g, ax_r, ax_q = fig.subplots(4, 1, sharex=True)
    # One pass over the rows, not a filter per flow.
    by_flow = {k[0]: f for k, f in fs.filter(pl.col("flow").is_in(shown)).partition_by("flow", as_dict=True).items()}
    gp_by_flow = {k[0]: g for k, g in gp.filter(pl.col("flow").is_in(shown)).partition_by("flow", as_dict=True).items()}
    for name in shown:
        f = by_flow[name]
        c = color[name]
        mss = mss_bytes.get(name, 1000) or 1000
        t = f["time_s"].to_list()
        if f["cwnd_bytes"].null_count() < f.height:  # TCP flows only: UDP ones have no window
            ax_c.plot(t, (f["cwnd_bytes"].cast(pl.Float64) / mss).to_list(), lw=0.9, color=c, label=name)
        if f["srtt_s"].null_count() < f.height:  # 0 before the first RTT sample: no value, not a 0 ms RTT
            rtt = [v * 1e3 if v else math.nan for v in f["srtt_s"].to_list()]
            ax_r.plot(t, rtt, lw=0.9, color=c, label=name)
        g = gp_by_flow.get(name)
        if g is None:  # no sample after t = 0 (a run shorter than its sample_interval): no goodput to draw
            continue
        (line,) = ax_g.plot(g["time_s"].to_list(), g["goodput_mbps"].to_list(), lw=0.6, alpha=0.45, color=c)
        window = _samples_per_second(g)
        if window > 1:
            smooth = g["goodput_mbps"].rolling_mean(window_size=window, min_samples=1)
            ax_g.plot(g["time_s"].to_list(), smooth.to_list(), lw=1.4, color=c, label=name)
        else:  # samples a second or more apart: the raw series is the only one
            line.set(label=name, lw=1.2, alpha=1.0)

    warm = float(result.summary.get("warmup_s") or 0.0)
    for ax in (ax_c, ax_g, ax_r, ax_q):
        mark_warmup(ax, warm)
    cap = bottleneck_bps(result.summary)
    extra_handles = []
    if cap is not None:
        extra_handles.append(
            ax_g.axhline(
                cap / 1e6, color="0.3", ls="--", lw=1.0, label=f"capacity {cap / 1e6:g} Mb/s (slowest link of the path)"
            )
        )
    if warm > 0:
        from matplotlib.patches import Patch

        extra_handles.append(Patch(color="0.85", alpha=0.5, label=f"warm-up {warm:g} s (not in goodput)"))
    ax_c.set_ylabel("cwnd (segments)")
    ax_g.set_ylabel("goodput (Mb/s)\nthin: per sample, bold: 1 s mean", fontsize="small")
    ax_r.set_ylabel("smoothed RTT (ms)")
    title = f"{result.scenario} — seed {result.seed}"
    handles = [Line2D([], [], color=color[n], label=n) for n in shown[:PLOT_LEGEND_FLOWS]]
    if len(names) > len(shown):
        total = gp.group_by("time_s", maintain_order=True).agg(pl.col("goodput_mbps").sum()).sort("time_s")
        (tl,) = ax_g.plot(
            total["time_s"].to_list(),
            total["goodput_mbps"].to_list(),
            lw=1.2,
            color="black",
            label=f"total, all {len(names)} flows",
        )
        extra_handles.insert(0, tl)
        title += f" — first {len(shown)} of {len(names)} flows"
    ax_c.set_title(title)
    if handles:
        more = f"flows (first {len(handles)} of {len(shown)} drawn)" if len(shown) > len(handles) else "flows"
        ax_c.legend(handles=handles, loc="upper right", fontsize="small", title=more, title_fontsize="small")
    if extra_handles:
        ax_g.legend(handles=extra_handles, loc="upper right", fontsize="small", title="marks", title_fontsize="small")
    _queue_panel(ax_q, result.link_series)
    for ax in (ax_c, ax_g, ax_r, ax_q):
        ax.grid(True, alpha=0.3)
    ax_q.set_xlabel("time (s)")
    return fig


def _queue_panel(ax: Any, ls: pl.DataFrame) -> None:
    """Queue length (packets) of the links that ever hold a packet, longest maximum first."""
    ax.set_ylabel("queue (packets)")
    if ls.height == 0:
        return
    peaks = ls.group_by("link", maintain_order=True).agg(pl.col("queue_pkts").max().alias("peak"))
    busy = peaks.filter(pl.col("peak") > 0).sort("peak", descending=True, maintain_order=True)["link"].to_list()
    if not busy:
        ax.text(
            0.5, 0.5, "no link ever queues a packet", transform=ax.transAxes, ha="center", va="center", fontsize="small"
        )
        return
    drawn = busy[:PLOT_MAX_LINKS]
    by_link = {k[0]: f for k, f in ls.filter(pl.col("link").is_in(drawn)).partition_by("link", as_dict=True).items()}
    for i, link in enumerate(drawn):
        f = by_link[link]
        ax.plot(
            f["time_s"].to_list(),
            f["queue_pkts"].cast(pl.Float64).to_list(),
            lw=0.9,
            color=f"C{i % 10}",
            ls="-",
            label=link,
        )
    title = "links" if len(busy) == len(drawn) else f"links (first {len(drawn)} of {len(busy)} that queue)"
    ax.legend(loc="upper right", fontsize="small", title=title, title_fontsize="small")


def plot_demo(
    labels: Sequence[str],
    results: Sequence[RunResult],
    path: str | os.PathLike,
    mss_bytes: int = 1000,
    title: str = "",
) -> None:
    """Side by side: goodput per variant (bars) and, per variant, the first flow's cwnd trace."""
    n = max(1, len(results))
    fig = Figure(figsize=(12, 2.0 + 1.5 * n), layout="constrained")
    grid = fig.add_gridspec(n, 2, width_ratios=[1, 2.2])
    ax_b = fig.add_subplot(grid[: (n + 1) // 2, 0])
    ax_x = fig.add_subplot(grid[(n + 1) // 2 :, 0], sharex=ax_b)
    tcp = [[f for f in r.summary["flows"] if f["kind"] == "tcp"] for r in results]
    goodputs = [sum(f["goodput_bps"] for f in fl) / 1e6 for fl in tcp]
    styles = scheme_styles(list(labels))
    colors = [styles[x][0] for x in labels]
    bars = ax_b.bar(list(labels), goodputs, color=colors)
    ax_b.bar_label(bars, fmt="%.3f", fontsize="small")
    ax_b.set_ylabel("goodput (Mb/s)")
    ax_b.set_title("goodput after warm-up")
    ax_b.grid(True, axis="y", alpha=0.3)
    cap = bottleneck_bps(results[0].summary) if results else None
    if cap is not None:
        ax_b.axhline(cap / 1e6, color="0.3", ls="--", lw=1.0)
        ax_b.text(
            0.01, cap / 1e6, f"capacity {cap / 1e6:g} Mb/s", transform=ax_b.get_yaxis_transform(),
            va="bottom", fontsize="small", color="0.3",
        )  # fmt: skip
        ax_b.set_ylim(0, max([cap / 1e6] + goodputs) * 1.15)
    ax_b.tick_params(labelbottom=False)
    # Retransmissions split into those the receiver needed and those it already held.
    rtx = [sum(f["retransmissions"] for f in fl) for fl in tcp]
    red = [sum(f.get("redundant_segments", 0) or 0 for f in fl) for fl in tcp]
    have = all("redundant_segments" in f for fl in tcp for f in fl)
    needed = [a - b for a, b in zip(rtx, red)] if have else rtx
    ax_x.bar(list(labels), needed, color=colors, label="needed" if have else "retransmissions")
    if have:
        ax_x.bar(list(labels), red, bottom=needed, color="white", edgecolor=colors, hatch="///", label="redundant")
    for i, (a, b) in enumerate(zip(rtx, red)):
        ax_x.text(i, a, f"{a}" + (f"\n({b} red.)" if have and b else ""), ha="center", va="bottom", fontsize="x-small")
    ax_x.set_ylabel("retransmitted segments")
    ax_x.set_title("retransmissions: needed / redundant (receiver already held them)", fontsize="small")
    ax_x.set_ylim(0, max(rtx + [1]) * 1.3)
    ax_x.grid(True, axis="y", alpha=0.3)
    ax_x.legend(fontsize="small", loc="upper left")
    # Names such as "westwood" and "jersey" side by side ran together ("westwoodjersey").
    ax_x.tick_params(axis="x", labelrotation=35)
    for t in ax_x.get_xticklabels():
        t.set_horizontalalignment("right")
    warm = float(results[0].summary.get("warmup_s") or 0.0) if results else 0.0
    first = None
    for i, (label, r, c) in enumerate(zip(labels, results, colors)):
        ax = fig.add_subplot(grid[i, 1], sharex=first, sharey=first)
        first = first or ax
        fs = r.flow_series.filter(pl.col("cwnd_bytes").is_not_null())
        names = _flow_names(fs)
        if names:
            f = fs.filter(pl.col("flow") == names[0])
            ax.plot(f["time_s"].to_list(), (f["cwnd_bytes"].cast(pl.Float64) / mss_bytes).to_list(), lw=0.7, color=c)
        mark_warmup(ax, warm)
        ax.text(
            0.995,
            0.92,
            label,
            transform=ax.transAxes,
            ha="right",
            va="top",
            fontsize="small",
            bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8},
        )
        ax.set_ylabel("cwnd (seg)")
        ax.grid(True, alpha=0.3)
        if i == 0:
            ax.set_title("congestion window" + (f" (grey: warm-up, {warm:g} s)" if warm > 0 else ""))
        if i < n - 1:
            ax.tick_params(labelbottom=False)
        else:
            ax.set_xlabel("time (s)")
    if title:
        fig.suptitle(title)
    _save(fig, path)


#: Lines drawn by the sweep's goodput figure (one per flow and combination of the other axes).
SWEEP_MAX_LINES = 10
#: Panels of the sweep's scatter (one per combination of the axes other than ``cc``).
SWEEP_MAX_PANELS = 12


def _asym(mean: float, lo: float, hi: float, scale: float) -> list[list[float]]:
    ok = all(isinstance(v, float) and math.isfinite(v) for v in (mean, lo, hi))
    return [[(mean - lo) * scale if ok else 0.0], [(hi - mean) * scale if ok else 0.0]]


def sweep_figure(
    plan: Any, agg: list[dict[str, Any]], scatter: list[dict[str, Any]], runs: Any, metrics: Sequence[str], title: str
) -> Figure:
    """The figure of `airtcp sweep`: the Pantheon-style scatter when the grid varies a flow's cc,
    else goodput per flow over the first axis (categories), mean and 95% interval over seeds."""
    if scatter:
        return _pantheon(scatter, title)
    return _sweep_lines(plan, agg, title, runs)


#: Twenty-two colours no two alike: matplotlib's tab10, black and dark gold (so the engine's twelve
#: window policies all get a strong colour), then tab20's light partners of tab10.
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#000000", "#b8860b", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
)  # fmt: skip
#: Ten markers; with the palette, each of the first 100 styles is a pair no other one has.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")


def style(i: int) -> tuple[str, str]:
    """(colour, marker) of the ``i``-th series: 20 distinct colours, and a marker that changes
    whenever the colour comes round again, so two series never look alike (``C{i % 10}`` repeated
    colours past ten schemes, issue 40 item 8)."""
    return PALETTE[i % len(PALETTE)], MARKERS[(i + i // len(PALETTE)) % len(MARKERS)]


def scheme_styles(labels: Sequence[str]) -> dict[str, tuple[str, str]]:
    """A style per scheme label that is the same in every figure: the engine's window policies in
    its order first (``reno`` is always blue circles), then any other label in order of appearance.
    A label with ``;`` fields (``reno;recovery=sack``) is its own series, after the plain names."""
    try:
        from .presets import requirements

        known = list(requirements()["cc"])
    except Exception:  # noqa: BLE001 - a figure without the engine's list still gets distinct styles
        known = []
    order = known + [x for x in labels if x not in known]
    return {x: style(order.index(x)) for x in labels}


def _pantheon(points: list[dict[str, Any]], title: str) -> Figure:
    """Throughput (up) against delay (right = less delay, the axis inverted as in Pantheon's
    figures): per scheme its mean over seeds with the 95% interval both ways (``MIN_CI_SEEDS`` or
    more seeds; with fewer, the seeds' own points and their mean, no t(1) interval), and each seed
    as a faint dot; one panel per combination of the other grid axes, all on the same axes. Each
    scheme has its own colour and marker, named in one titled legend beside the panels (text next
    to the points collided and was clipped at the edges)."""
    from .reproduce.metrics import MIN_CI_SEEDS

    panels = list(dict.fromkeys(p["panel"] for p in points))
    shown = panels[:SWEEP_MAX_PANELS]
    cols = min(len(shown), 3)
    rows = math.ceil(len(shown) / cols)
    fig = Figure(figsize=(4.6 * cols + 2.2, 4.0 * rows + 0.8), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False, sharex=True, sharey=True)
    schemes = list(dict.fromkeys(p["scheme"] for p in points))
    styles = scheme_styles(schemes)
    delay = points[0]["delay_metric"]
    xlabel = (
        "RTT, 95th percentile (ms)"
        if delay == "rtt_p95_s"
        else "mean RTT (ms)\n[this build reports no RTT percentiles]"
    )
    n = max(p["n"] for p in points)
    handles: dict[str, Any] = {}
    for k, ax in enumerate(ax for row in axes for ax in row):
        if k >= len(shown):
            ax.set_visible(False)
            continue
        for p in (p for p in points if p["panel"] == shown[k]):
            c, mk = styles[p["scheme"]]
            xs = [float(v) * 1e3 for v in p["delay_per_seed_s"].split()]
            ys = [float(v) / 1e6 for v in p["goodput_per_seed_bps"].split()]
            few = p["n"] < MIN_CI_SEEDS
            ax.plot(xs, ys, ls="none", marker=mk, ms=5 if few else 4, alpha=0.6 if few else 0.3, color=c, mfc="none")
            x, y = p["delay_mean_s"] * 1e3, p["goodput_mean_bps"] / 1e6
            eb = ax.errorbar(
                [x],
                [y],
                xerr=None if few else _asym(p["delay_mean_s"], p["delay_ci_low_s"], p["delay_ci_high_s"], 1e3),
                yerr=None
                if few
                else _asym(p["goodput_mean_bps"], p["goodput_ci_low_bps"], p["goodput_ci_high_bps"], 1e-6),
                fmt=mk,
                ms=7,
                mec="black",
                mew=0.5,
                capsize=3,
                color=c,
                label=p["scheme"],
            )
            eb[0].set_gid(f"scheme:{p['scheme']}")
            handles.setdefault(p["scheme"], eb[0])
        if not ax.xaxis_inverted():
            ax.invert_xaxis()
        ax.grid(True, alpha=0.3)
        if shown[k]:
            ax.set_title(shown[k], fontsize="small")
    for ax in axes[-1]:
        ax.set_xlabel(xlabel)
    for row in axes:
        row[0].set_ylabel("goodput (Mb/s)")
    legend_beside(
        axes[0][-1],
        [handles[s] for s in schemes if s in handles],
        [s for s in schemes if s in handles],
        title="scheme",
        fontsize="small",
        title_fontsize="small",
    )
    extra = f"; first {len(shown)} of {len(panels)} panels" if len(panels) > len(shown) else ""
    how = (
        f"mean ± 95% CI over n = {n} seeds (hollow: each seed)"
        if n >= MIN_CI_SEEDS
        else f"n = {n} seed{'s' if n != 1 else ''}: hollow = each seed, filled = mean\n(too few seeds for an interval)"
    )
    fig.suptitle(f"{title}\n{how}\nbetter is up and right{extra}", fontsize="medium")
    return fig


def _sweep_lines(plan: Any, agg: list[dict[str, Any]], title: str, runs: Any = None) -> Figure:
    """Goodput per flow over the first axis (its values as categories): per line (a flow and a
    combination of the other axes) the mean and 95% interval over seeds, or with fewer than
    ``MIN_CI_SEEDS`` seeds each seed's value (hollow) and no interval; a one-value axis is drawn as
    points, not lines; each line its own colour and marker; the legend titled with what it varies."""
    from .reproduce.metrics import MIN_CI_SEEDS

    first = plan.axes[0]
    others = plan.axes[1:]
    rows = [r for r in agg if r["metric"] == "goodput_bps"]
    keys: list[tuple[str, tuple[str, ...]]] = []
    for r in rows:
        k = (r["flow"], tuple(r[a.path] for a in others))
        if k not in keys:
            keys.append(k)
    shown = keys[:SWEEP_MAX_LINES]
    fig = Figure(figsize=(8, 5), layout="constrained")
    ax = fig.subplots()
    xs = list(range(len(first.labels)))
    n = max((r["n"] for r in rows), default=0)
    few = n < MIN_CI_SEEDS
    for j, (flow, other) in enumerate(shown):
        pts = [
            (xs[first.labels.index(r[first.path])], r)
            for r in rows
            if r["flow"] == flow and tuple(r[a.path] for a in others) == other
        ]
        if not pts:
            continue
        c, mk = style(j)
        below = [(r["mean"] - r["ci_low"]) / 1e6 if math.isfinite(r["ci_low"]) else 0.0 for _, r in pts]
        above = [(r["ci_high"] - r["mean"]) / 1e6 if math.isfinite(r["ci_high"]) else 0.0 for _, r in pts]
        label = ", ".join([flow] + [f"{a.path}={v}" for a, v in zip(others, other)])
        eb = ax.errorbar(
            [x for x, _ in pts],
            [r["mean"] / 1e6 for _, r in pts],
            yerr=None if few else [below, above],
            marker=mk,
            ms=5 if len(pts) > 1 else 7,
            capsize=2,
            color=c,
            ls="-" if len(pts) > 1 else "none",
            label=label,
        )
        eb[0].set_gid(f"line:{label}")
        if few and runs is not None:
            block = runs.filter(runs["flow"] == flow)
            for a, v in zip(others, other):
                block = block.filter(block[a.path] == v)
            sx = [xs[first.labels.index(lab)] for lab in block[first.path].to_list()]
            sy = [v / 1e6 if v is not None else math.nan for v in block["goodput_bps"].to_list()]
            ax.plot(sx, sy, ls="none", marker=mk, ms=4, mfc="none", color=c)
    ax.set_xticks(xs)
    ax.set_xticklabels(list(first.labels))
    if len(xs) == 1:
        ax.set_xlim(-0.5, 0.5)
    ax.set_xlabel(first.path)
    ax.set_ylabel("goodput (Mb/s)")
    ax.grid(True, alpha=0.3)
    legend_title = "flow" + "".join(f", {a.path}" for a in others)
    if len(keys) > len(shown):
        legend_title += f" (first {len(shown)} of {len(keys)})"
    ax.legend(
        fontsize="small", title=legend_title, title_fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0)
    )
    how = (
        f"mean ± 95% CI over n = {n} seeds"
        if not few
        else f"n = {n} seed{'s' if n != 1 else ''}: filled = mean, hollow = each seed (too few for an interval)"
    )
    ax.set_title(f"{title}\n{how}", fontsize="medium")
    return fig
