"""The ``airtcp`` command: run, validate, demo, reproduce, sweep.

Every expected failure (invalid scenario, missing file, bad ``--set``, TOML syntax error, an output
that cannot be written) prints exactly one line ``error: <message>`` on stderr and exits with 2.
A bug in the engine (a Rust panic) prints one ``error: internal error in the engine ...`` line asking
for a report and exits with 3; anything else unexpected prints one ``error: internal error: ...``
line and exits with 1; set ``AIRTCP_DEBUG=1`` to see the traceback instead.
"""

from __future__ import annotations

import enum
import functools
import os
import sys
import types
from pathlib import Path
from collections.abc import Mapping
from typing import Annotated, Any, Callable, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import api, outputs
from .scenario import (
    OverrideError,
    ScenarioFileError,
    located_errors,
    parse_duration_s,
    read_with_overrides,
    safe_name,
)


def _click_exceptions() -> Any:
    """Typer's click exception classes, reached from a public Typer name: ``typer.BadParameter`` is
    click's (``BadParameter`` → ``UsageError`` → ``ClickException``), whether Typer vendors click
    (as the private ``typer._click``, since 0.2x) or depends on it (older Typer), so airtcp imports
    neither the private module nor a click that recent Typer does not install."""
    mro = typer.BadParameter.__mro__
    return types.SimpleNamespace(
        ClickException=next(c for c in mro if c.__name__ == "ClickException"),
        UsageError=next(c for c in mro if c.__name__ == "UsageError"),
    )


class _App(typer.Typer):
    """A Typer app whose usage errors (missing argument, bad option value) are one stderr line too."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if "standalone_mode" in kwargs:
            return super().__call__(*args, **kwargs)
        ex = _click_exceptions()
        try:
            rv = super().__call__(*args, standalone_mode=False, **kwargs)
        except ex.ClickException as e:
            if type(e).__name__ == "NoArgsIsHelpError":  # `airtcp` alone (click >= 8.2): show the help
                sys.stdout.write(e.format_message() + "\n")
                sys.exit(0)
            hint = ""
            ctx = getattr(e, "ctx", None)
            if isinstance(e, ex.UsageError) and ctx is not None:
                hint = f" (see: {ctx.command_path} --help)"
            sys.stderr.write(f"error: {_one_line(e.format_message())}{hint}\n")
            sys.exit(e.exit_code)
        except typer.Abort:
            sys.stderr.write("error: aborted\n")
            sys.exit(1)
        except KeyboardInterrupt:  # Ctrl-C outside a command (while the options are read)
            rv = 130
        if rv == 130:
            if not _REPORTED:  # Typer turns a Ctrl-C outside our commands' wrapper into a silent 130
                sys.stderr.write("error: interrupted\n")
            # Ends here, without the interpreter's finalization or the C runtime's exit handlers:
            # a native module whose initialization a Ctrl-C cut short can leave Python objects
            # in a C++ static, which exit() frees after the interpreter has finalized, aborting
            # the process (status -6, "PyThreadState_Get: ... the GIL is released"; found in a
            # core dump: matplotlib's ft2font). `airtcp.plots` now loads matplotlib with Ctrl-C
            # held back, and the engine's threads are joined before the KeyboardInterrupt; this
            # stays for any other library with the same flaw, since nothing is left to finalize:
            # everything this command wrote is already in place or removed (`outputs.staged`),
            # so only the streams need flushing. It also bypasses CPython's "unhandled
            # KeyboardInterrupt" flag (set by a Ctrl-C inside code run from a string), which
            # would make the process kill itself with SIGINT at exit: the status is 130 as
            # documented.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(130)
        sys.exit(rv if isinstance(rv, int) else 0)


app = _App(
    name="airtcp",
    help="Deterministic packet-level TCP simulator.",
    # --install-completion / --show-completion: Tab completes commands, options and file names in
    # bash, zsh, fish and PowerShell
    add_completion=True,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # click's plain help: flags read `--pcap`, not `--pcap <bool>` (Typer's rich panels), and it
    # stays readable in an 80-column terminal
    rich_markup_mode=None,
)

# Everything printed is text, never rich markup or emoji codes: names come from the user's files
# (a flow named "[/]" ended a finished run with MarkupError, "[link=...]" became a hyperlink,
# issue 39 item 6). Styles are given as arguments (style=...), not inside strings.
console = Console(markup=False, emoji=False, highlight=False)


class BackendChoice(str, enum.Enum):
    """Where the runs of ``reproduce`` and ``sweep`` execute (a choice, so --help lists them)."""

    local = "local"
    ray = "ray"


BackendOption = Annotated[
    BackendChoice,
    typer.Option(help="Where runs execute: local (threads) or ray (a Ray cluster).", case_sensitive=False),
]


def _print_version(value: bool) -> None:
    if value:
        from ._version import __version__

        print(f"airtcp {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", callback=_print_version, is_eager=True),
    ] = False,
) -> None:
    """Deterministic packet-level TCP simulator."""


class CliError(Exception):
    """An expected failure, reported as one line with exit code 2."""


def _one_line(message: object) -> str:
    return " ".join(part.strip() for part in str(message).splitlines() if part.strip()) or "unknown error"


#: Whether ``_fail`` has written its error line (so the app does not write a second).
_REPORTED = False


def _fail(message: object, code: int) -> None:
    global _REPORTED
    _REPORTED = True
    sys.stdout.flush()
    sys.stderr.write(f"error: {_one_line(message)}\n")
    sys.stderr.flush()
    raise typer.Exit(code)


def _cli_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turns every failure of a command into one stderr line and an exit code (never a traceback)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except (api.ScenarioError, ScenarioFileError, OverrideError, CliError, outputs.OutputError) as e:
            _fail(e, 2)
        except api.InternalError as e:
            if os.environ.get("AIRTCP_DEBUG"):
                raise
            _fail(e, 3)
        except OSError as e:
            where = f"{e.filename}: " if getattr(e, "filename", None) else ""
            _fail(f"{where}{e.strerror or e}", 2)
        except KeyboardInterrupt:
            _fail("interrupted", 130)
        except Exception as e:  # noqa: BLE001 - the promise is: no traceback
            if _caused_by_ctrl_c(e):  # e.g. "ImportError: initialization failed" of a native module
                _fail("interrupted", 130)
            if os.environ.get("AIRTCP_DEBUG"):
                raise
            _fail(f"internal error: {type(e).__name__}: {e} (set AIRTCP_DEBUG=1 for a traceback)", 1)

    return wrapper


def _caused_by_ctrl_c(e: BaseException) -> bool:
    """Whether a KeyboardInterrupt is behind ``e`` (a Ctrl-C while a native module was being
    imported surfaces as an ImportError raised from it)."""
    seen: set[int] = set()
    cur: Optional[BaseException] = e
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, KeyboardInterrupt):
            return True
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return False


def _mss_by_flow(summary: Mapping[str, Any], doc: dict[str, Any]) -> dict[str, int]:
    """Segment size of each flow, by summary name (summary flows are in scenario order)."""
    specs = doc.get("flows") or []
    out: dict[str, int] = {}
    for i, f in enumerate(summary.get("flows", [])):
        spec = specs[i] if i < len(specs) and isinstance(specs[i], dict) else {}
        size = spec.get("mss_bytes", spec.get("packet_bytes", 1000))
        out[f["name"]] = size if isinstance(size, int) and size > 0 else 1000
    return out


def _mbps(bps: float) -> str:
    return f"{bps / 1e6:.3f}"


def flows_table(summary: Mapping[str, Any], title: str = "flows") -> Table:
    t = Table(title=Text(title), title_justify="left")
    t.add_column("flow", no_wrap=True)
    t.add_column("cc/recovery", no_wrap=True)
    t.add_column("goodput Mb/s", justify="right")
    t.add_column("retrans.", justify="right")
    t.add_column("timeouts", justify="right")
    t.add_column("fast retr.", justify="right")
    for f in summary["flows"]:
        kind = f"{f.get('cc') or '-'}/{f.get('recovery') or '-'}" if f["kind"] == "tcp" else f["kind"]
        t.add_row(
            Text(f["name"]),
            Text(kind),
            _mbps(f["goodput_bps"]),
            str(f["retransmissions"]),
            str(f["timeouts"]),
            str(f["fast_retransmits"]),
        )
    return t


def links_table(summary: Mapping[str, Any], title: str = "links") -> Table:
    t = Table(title=Text(title), title_justify="left")
    t.add_column("link", no_wrap=True)
    t.add_column("Mb/s", justify="right")
    t.add_column("queue")
    t.add_column("q. drops", justify="right")
    t.add_column("CE marks", justify="right")
    t.add_column("ch. losses", justify="right")
    t.add_column("util.", justify="right")
    for link in summary["links"]:
        t.add_row(
            Text(link["name"]),
            _mbps(link["rate_bps"]),
            Text(link["queue"]),
            str(link["overflow_drops"] + link["early_drops"]),
            str(link["ce_marks"]),
            str(link["channel_losses"]),
            f"{100 * link['utilization']:.1f} %",
        )
    return t


ForceOption = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Replace an output folder written by another command (the same command replaces its own).",
    ),
]


def _with_presets(read: tuple[str, dict[str, Any]], sets: Optional[list[str]]) -> tuple[str, dict[str, Any]]:
    """A scenario's text and document (``read_with_overrides``) with the scheme presets applied
    (``airtcp.presets``) when ``--set`` changed it (``--set flows.0.cc=jersey`` then brings
    ``ecn = true``); what they added is one ``note:`` line on stderr. A file run as written is
    checked as written."""
    from .presets import complete, notice
    from .scenario import dumps

    text, doc = read
    if not sets:
        return text, doc
    notes = complete(doc)
    if not notes:
        return text, doc
    sys.stderr.write(f"note: {notice(notes)}\n")
    return dumps(doc), doc


SetOption = Annotated[
    Optional[list[str]],
    typer.Option(
        "--set",
        "-s",
        metavar="KEY=VALUE",
        help="Override a scenario value by dotted path, e.g. flows.0.recovery=sack (repeatable).",
    ),
]


@app.command()
@_cli_errors
def run(
    scenario: Annotated[
        Path, typer.Argument(metavar="SCENARIO.toml", help="Scenario file (TOML).", show_default=False)
    ],
    seed: Annotated[Optional[int], typer.Option(help="Seed (overrides the scenario's seed).")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Output directory.", show_default="out/<scenario name>")] = None,
    sets: SetOption = None,
    write: Annotated[bool, typer.Option("--write/--no-write", help="Write summary, series and plot.")] = True,
    pcap: Annotated[
        bool,
        typer.Option(
            "--pcap",
            help="Also write a packet capture: <out>/pcap/<link>.pcap per link direction, "
            "<out>/pcap/hosts/<node>.pcap per host (libpcap, IPv4/TCP/UDP headers, a handshake "
            "opening each TCP flow) and <out>/pcap/events.csv (drops, losses, corruptions).",
        ),
    ] = False,
    force: ForceOption = False,
) -> None:
    """Run one scenario, print a summary table and write summary.json, parquet series and plot.png."""
    text, doc = _with_presets(read_with_overrides(scenario, sets), sets)
    if seed is not None and not 0 <= seed < 2**64:
        raise CliError(f"--seed {seed}: out of range (allowed: 0 to {2**64 - 1})")
    if pcap and not write:
        raise CliError("--pcap: needs the output folder (drop --no-write)")
    if not write:
        with located_errors(scenario, sets):
            result = api.run(text=text, seed=seed, base_dir=scenario.resolve().parent, presets=False)
        _print_run(result.summary)
        return
    out_dir = outputs.check_path(
        out if out is not None else Path("out") / safe_name(str(doc.get("name") or scenario.stem))
    )
    names = _RUN_OUTPUTS + (("pcap",) if pcap else ())
    invocation = {
        "command": "run",
        "scenario": str(scenario.resolve()),
        "set": list(sets or []),
        "seed": seed,
    }  # not --pcap: a capture adds a file, it does not change the results
    # Everything, the capture too, is written into a temporary folder beside out_dir and moved
    # into place only when complete: an error or Ctrl-C at any moment leaves out_dir as it was.
    with outputs.staged(out_dir, "summary.json", names, invocation, force) as tmp:
        with located_errors(scenario, sets):
            result = api.run(
                text=text,
                seed=seed,
                base_dir=scenario.resolve().parent,
                pcap_dir=tmp / "pcap" if pcap else None,
                presets=False,
            )
        _print_run(result.summary)
        prov = outputs.provenance(invocation, list(names), scenario=text, overrides=sets, seed=result.seed)
        result.write(tmp, provenance=prov)
        outputs.pause_point("writing")
        from .plots import plot_run

        plot_run(result, tmp / "plot.png", _mss_by_flow(result.summary, doc))
    console.print(Text(f"wrote {out_dir}/summary.json, flow_series.parquet, link_series.parquet, plot.png"))
    if pcap:
        n = sum(1 for _ in (out_dir / "pcap").glob("*.pcap"))
        console.print(Text(f"wrote {out_dir / 'pcap'}/: {n} pcap file(s) and events.csv"))


_RUN_OUTPUTS = ("summary.json", "flow_series.parquet", "link_series.parquet", "plot.png")


def _print_run(s: Mapping[str, Any]) -> None:
    console.print(
        Text.assemble(
            (s["scenario"], "bold"),
            f"  seed {s['seed']}  simulated {s['end_time_s']:g} s "
            f"(goodput measured after {s['warmup_s']:g} s), {s['events']} events",
        )
    )
    console.print(flows_table(s))
    console.print(links_table(s))
    if s.get("jain_fairness_tcp") is not None and sum(f["kind"] == "tcp" for f in s["flows"]) > 1:
        console.print(f"Jain fairness (TCP goodput): {s['jain_fairness_tcp']:.4f}")


@app.command()
@_cli_errors
def validate(
    scenario: Annotated[
        Path, typer.Argument(metavar="SCENARIO.toml", help="Scenario file (TOML).", show_default=False)
    ],
    sets: SetOption = None,
) -> None:
    """Check a scenario file without running it."""
    text, doc = _with_presets(read_with_overrides(scenario, sets), sets)
    with located_errors(scenario, sets):
        api.validate(text=text, base_dir=scenario.resolve().parent, presets=False)
    console.print(
        f"ok: {scenario} ({len(doc.get('nodes') or [])} nodes, {len(doc.get('links') or [])} links, "
        f"{len(doc.get('flows') or [])} flows)"
    )


@app.command()
@_cli_errors
def demo(
    out: Annotated[Path, typer.Option(help="Output directory.")] = Path("out/demo"),
    seed: Annotated[Optional[int], typer.Option(help="Seed (overrides the scenario's seed).")] = None,
    duration: Annotated[
        Optional[str], typer.Option(help="Simulated duration, e.g. 20s.", show_default="the scenario's 100s")
    ] = None,
    jobs: Annotated[int, typer.Option(help="Parallel runs.", show_default="all cores")] = 0,
    force: ForceOption = False,
) -> None:
    """Compare Reno, CUBIC, BBR, Westwood, TCP-Jersey and TCP NJ+ on TCP-Jersey's Fig. 10 topology (1 % loss, CW router)."""
    from .demo import DemoError, demo_command

    try:
        demo_command(console, out, seed, duration, jobs, force)
    except DemoError as e:
        raise CliError(str(e)) from None


@app.command()
@_cli_errors
def reproduce(
    experiment: Annotated[
        Optional[str],
        typer.Argument(metavar="ID", help="Experiment id, e.g. jersey-fig11 (see --list).", show_default=False),
    ] = None,
    all_: Annotated[bool, typer.Option("--all", help="Run every experiment whose parts exist.")] = False,
    list_: Annotated[
        bool, typer.Option("--list", help="List the experiments: one line each (id, runs, status, title).")
    ] = False,
    long: Annotated[
        bool, typer.Option("--long", help="With --list: also the source and the parts each needs, wrapped.")
    ] = False,
    quick: Annotated[
        bool, typer.Option("--quick", help="Fewer seeds, shorter runs, fewer grid points (as each spec says).")
    ] = False,
    jobs: Annotated[int, typer.Option(help="Parallel runs.", show_default="all cores")] = 0,
    seeds: Annotated[Optional[int], typer.Option(help="Seeds per grid point (overrides the spec's count).")] = None,
    out: Annotated[Path, typer.Option(help="Results folder (results/<id>/, cache in results/.cache/).")] = Path(
        "results"
    ),
    experiments: Annotated[
        Optional[Path],
        typer.Option(
            help="Experiments folder.", show_default="./experiments, else the checkout's, else the installed copy"
        ),
    ] = None,
    backend: BackendOption = BackendChoice.local,
    ray_address: Annotated[Optional[str], typer.Option(help="Ray cluster address for --backend ray.")] = None,
    update_reproduction: Annotated[
        bool, typer.Option("--update-reproduction", help="Regenerate REPRODUCTION.md's claims table from the results.")
    ] = False,
    reproduction: Annotated[
        Optional[Path],
        typer.Option(
            help="The file --update-reproduction rewrites.", show_default="REPRODUCTION.md beside experiments/"
        ),
    ] = None,
    traces: Annotated[
        Optional[Path],
        typer.Option(
            help="Folder of mahimahi traces (the mahimahi repository's traces/) for the cellular-* experiments "
            "(see: airtcp traces).",
            show_default="$AIRTCP_TRACES, else ~/.local/share/airtcp/traces",
        ),
    ] = None,
    force: ForceOption = False,
) -> None:
    """Re-run a seed paper's experiment (or --all): tables, figure and report.md with the paper's claims beside ours."""
    from .reproduce.command import UsageError, reproduce_command
    from .reproduce.spec import TRACES_ENV, SpecError

    if traces is not None:
        if not traces.is_dir():
            raise CliError(f"--traces {traces}: no such folder (the mahimahi repository's traces/)")
        os.environ[TRACES_ENV] = str(traces.absolute())
    try:
        reproduce_command(
            console,
            experiment,
            all_,
            list_,
            quick,
            jobs,
            seeds,
            out,
            experiments,
            backend.value,
            ray_address,
            update_reproduction,
            reproduction,
            force,
            long,
        )
    except (UsageError, SpecError) as e:
        raise CliError(str(e)) from None
    except RuntimeError as e:  # e.g. --backend ray without ray installed
        raise CliError(str(e)) from None


@app.command()
@_cli_errors
def sweep(
    scenario: Annotated[
        Path, typer.Argument(metavar="SCENARIO.toml", help="Scenario file (TOML).", show_default=False)
    ],
    grid: Annotated[
        Optional[list[str]],
        typer.Option(
            "--grid",
            "-g",
            metavar="PATH=V1,V2,...",
            help="A grid axis: a scenario path (as for --set) and its values, e.g. flows.0.cc=reno,cubic (repeatable).",
            show_default=False,
        ),
    ] = None,
    seeds: Annotated[int, typer.Option(help="Seeds 1..N per grid point.")] = 5,
    out: Annotated[
        Optional[Path],
        typer.Option(help="Output folder (cache in OUT/.cache).", show_default="results/sweep-<scenario name>"),
    ] = None,
    jobs: Annotated[int, typer.Option(help="Parallel runs.", show_default="all cores")] = 0,
    backend: BackendOption = BackendChoice.local,
    ray_address: Annotated[Optional[str], typer.Option(help="Ray cluster address for --backend ray.")] = None,
    sets: SetOption = None,
    force: ForceOption = False,
) -> None:
    """Run a grid over any scenario × seeds: runs.parquet, aggregated.csv (mean and 95% CI per point, flow and metric)
    and figure.png (throughput vs delay per scheme when the grid varies cc); cached and resumable."""
    from .sweep_command import sweep_command

    sweep_command(console, scenario, grid or [], seeds, out, jobs, backend.value, ray_address, sets, force)


@app.command()
@_cli_errors
def traces(
    folder: Annotated[
        Optional[Path],
        typer.Argument(
            metavar="DIR",
            help="Folder to check.",
            show_default="$AIRTCP_TRACES, else ~/.local/share/airtcp/traces",
        ),
    ] = None,
    download: Annotated[
        bool,
        typer.Option(
            "--download", help="Download the missing files into the folder (each kept only if it is mahimahi's)."
        ),
    ] = False,
    source: Annotated[
        Optional[str], typer.Option("--from", help="Where to download from.", show_default="mahimahi's repository")
    ] = None,
) -> None:
    """Where to get mahimahi's cellular traces (the cellular-* experiments read them) and a check that a folder holds
    the right files; exit status 1 while any is missing or wrong."""
    from . import traces as tr

    where = folder if folder is not None else tr.traces_dir()
    origin = (
        "given"
        if folder is not None
        else (
            f"${tr.TRACES_ENV}" if os.environ.get(tr.TRACES_ENV) else f"the default; set ${tr.TRACES_ENV} to change it"
        )
    )
    if folder is not None and folder.exists() and not folder.is_dir():
        raise CliError(f"{folder}: not a folder")
    if download:
        states = tr.download(where, source or tr.DOWNLOAD_BASE)
    else:
        states = tr.check(where) if where.is_dir() else [tr.TraceStatus(t, "missing") for t in tr.TRACE_FILES]
    t = Table(title=f"mahimahi traces in {where} ({origin})", title_justify="left")
    t.add_column("file", no_wrap=True)
    t.add_column("network")
    t.add_column("state")
    for st in states:
        t.add_row(st.file.name, st.file.network, "ok" if st.ok else f"[red]{st.state}[/red]")
    console.print(t)
    bad = [st for st in states if not st.ok]
    if not bad:
        console.print(
            "all present and checked (size and SHA-256); "
            + ("`airtcp reproduce cellular-...` reads them." if folder is None else f"use them with --traces {where}.")
        )
        return
    console.print(
        f"{len(bad)} of {len(states)} missing or wrong. They are mahimahi's (Winstein et al., NSDI 2013), "
        "in the traces/ folder of github.com/ravinet/mahimahi: `airtcp traces --download` fetches them into "
        f"{where}, or by hand:",
        markup=False,
    )
    console.print(f"  mkdir -p {where} && cd {where}", markup=False, soft_wrap=True)
    for st in bad:
        console.print(f"  curl -fLO {source or tr.DOWNLOAD_BASE}/{st.file.name}", markup=False, soft_wrap=True)
    console.print(
        f"then `airtcp traces` again; elsewhere than {tr.default_dir()}, set {tr.TRACES_ENV}=DIR "
        "or give `airtcp reproduce --traces DIR`.",
        markup=False,
    )
    raise typer.Exit(1)


testbed_app = typer.Typer(
    help="Real-kernel testbed (root): BPF congestion controls over an emulated path (kernel/README.md).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(testbed_app, name="testbed")


def _testbed_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Testbed failures (missing tool, failed command, not root) are one line, exit 2."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from .testbed import TestbedError, unavailable_reason

        reason = unavailable_reason(need_tun=True)
        if reason:
            raise CliError(f"testbed unavailable: {reason}")
        try:
            return fn(*args, **kwargs)
        except TestbedError as e:
            raise CliError(str(e)) from None

    return wrapper


def _check_sysctls(values: Optional[list[str]]) -> Optional[list[str]]:
    """--sysctl values, checked while the command line is parsed (before the testbed is)."""
    for setting in values or []:
        name, eq, value = setting.partition("=")
        if not eq or not name.startswith("net.") or not value:
            raise typer.BadParameter(f"{setting}: expected NAME=VALUE with a net.* name, e.g. net.ipv4.tcp_frto=0")
    return values


@testbed_app.command("run")
@_cli_errors
@_testbed_errors
def testbed_run(
    scenario: Annotated[
        Path, typer.Argument(metavar="SCENARIO.toml", help="Scenario file (TOML).", show_default=False)
    ],
    cc: Annotated[str, typer.Option(help="Scheme: reno, cubic, bbr, westwood, jersey, new-jersey, nj+.")] = "reno",
    runs: Annotated[int, typer.Option(help="Transfers, seeds seed..seed+runs-1 (the relay's streams).")] = 1,
    seed: Annotated[Optional[int], typer.Option(help="First seed (overrides the scenario's).")] = None,
    duration: Annotated[
        Optional[str], typer.Option(help="Transfer length (overrides the scenario's), e.g. 20s.")
    ] = None,
    out: Annotated[Optional[Path], typer.Option(help="Write the summaries here as JSON.")] = None,
    sets: SetOption = None,
    sysctl: Annotated[
        Optional[list[str]],
        typer.Option(
            help="More kernel settings for both namespaces, NAME=VALUE (repeatable), e.g. net.ipv4.tcp_frto=0.",
            callback=_check_sysctls,
        ),
    ] = None,
    usec_ts: Annotated[
        bool,
        typer.Option("--usec-ts", help="Negotiate microsecond TCP timestamps (route feature tcp_usec_ts, Linux 6.7+)."),
    ] = False,
) -> None:
    """Carry the scenario's first TCP flow over its emulated links with a kernel (or our BPF) congestion control."""
    from .testbed import emulate

    if runs < 1:
        raise CliError(f"--runs {runs}: must be at least 1")
    _, doc = read_with_overrides(scenario, sets)
    if duration is not None:
        if parse_duration_s(duration) <= 0:
            raise CliError(f"--duration {duration}: must be positive")
        doc["duration"] = duration
        if parse_duration_s(str(doc.get("warmup", "0s"))) >= parse_duration_s(duration):
            doc["warmup"] = "0s"
    first = int(doc.get("seed", 1) if seed is None else seed)
    results = []
    t = Table(title=f"testbed {doc.get('name', scenario.stem)} --cc {cc}", title_justify="left")
    for col in ("seed", "kernel cc", "ss shows", "goodput kb/s", "retransmissions", "timeouts", "delivered_ce"):
        t.add_column(col)
    for i in range(runs):
        r = emulate.run_scenario(doc, cc, seed=first + i, sysctls=tuple(sysctl or ()), usec_timestamps=usec_ts)
        results.append(r)
        f = r["flows"][0]
        t.add_row(
            str(r["seed"]),
            f["kernel_cc"],
            ",".join(f["ss_cc"]),
            f"{f['goodput_bps'] / 1e3:.1f}",
            str(f["retransmissions"]),
            str(f["sender_counters"].get("TcpExtTCPTimeouts", 0)),
            str(f["delivered_ce"]),
        )
    console.print(t)
    if runs > 1:
        g = [r["flows"][0]["goodput_bps"] / 1e3 for r in results]
        console.print(f"mean goodput {sum(g) / len(g):.1f} kb/s over {runs} runs")
    if out is not None:
        emulate.dump(results, out)
        console.print(f"wrote {out}")


@testbed_app.command("accuracy")
@_cli_errors
@_testbed_errors
def testbed_accuracy(
    rates: Annotated[str, typer.Option(help="Comma-separated link rates in bit/s.")] = "2e6,10e6",
    delay: Annotated[str, typer.Option(help="One-way propagation delay of the link.")] = "20ms",
    seconds: Annotated[float, typer.Option(help="Length of the rate probe.")] = 3.0,
    out: Annotated[Optional[Path], typer.Option(help="Write the measurements here as JSON.")] = None,
) -> None:
    """Measure the relay's delivered rate and one-way delay against its settings (UDP probes)."""
    from .testbed import emulate

    try:
        rate_list = [float(x) for x in rates.split(",")]
    except ValueError:
        raise CliError(f"--rates {rates}: give numbers in bit/s, e.g. 2e6,10e6") from None
    if any(r <= 0 for r in rate_list):
        raise CliError(f"--rates {rates}: must be positive")
    delay_s = parse_duration_s(delay)
    t = Table(title=f"relay accuracy (delay setting {delay})", title_justify="left")
    for col in ("rate setting", "delivered", "rate error", "one-way median", "delay error median", "p95 |error|"):
        t.add_column(col)
    res = []
    for r in rate_list:
        a = emulate.accuracy(r, delay_s, seconds)
        res.append(a)
        t.add_row(
            f"{r / 1e6:g} Mb/s",
            f"{a['delivered_bps'] / 1e6:.4f} Mb/s",
            f"{a['rate_error'] * 100:+.2f}%",
            f"{a['one_way_ms_median']:.3f} ms",
            f"{a['delay_error_ms_median']:+.3f} ms",
            f"{a['delay_error_ms_p95']:.3f} ms",
        )
    console.print(t)
    if out is not None:
        emulate.dump(res, out)
        console.print(f"wrote {out}")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
