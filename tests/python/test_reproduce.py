"""`airtcp reproduce`: a small experiment end to end, determinism over --jobs, resuming an
interrupted sweep from the cache, the catalogue listing, and one-line errors for bad specs."""

from __future__ import annotations

import csv
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from conftest import REPO, run_cli
from fixtures import assert_legends_clear

from airtcp import reproduce as rp
from airtcp.reproduce.claims import check_claims
from airtcp.reproduce.report import BEGIN, END, update_reproduction
from airtcp.reproduce.spec import PAPER_ORDER
from airtcp.reproduce.text import fmt_pm
from airtcp.reproduce.why import all_why

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

SCENARIO = """
name = "tiny"
duration = "4s"
warmup = "1s"
sample_interval = "100ms"
nodes = ["S", "BS", "D"]

[[links]]
from = "S"
to = "BS"
rate = "10Mbps"
delay = "20ms"

[[links]]
from = "BS"
to = "D"
rate = "2Mbps"
delay = "1ms"
channel = { kind = "uniform", loss = 0.01 }

[[flows]]
kind = "tcp"
name = "ftp"
src = "S"
dst = "D"
min_rto = "200ms"
"""

SPEC = """
id = "tiny-sweep"
paper = "tiny"
design = "Tiny"
title = "A tiny sweep"
source = "the test suite"
scenario = "tiny.toml"

[runs]
seeds = 3
quick_seeds = 2
quick_duration = "2s"

[[axes]]
name = "loss"
set = "links.1.channel.loss"
values = [0.001, 0.03]
scale = "log"

[[axes]]
name = "scheme"
[[axes.points]]
label = "reno"
set = { "flows.0.cc" = "reno" }
[[axes.points]]
label = "westwood"
set = { "flows.0.cc" = "westwood" }

[[metrics]]
name = "goodput_kbps"
label = "goodput"
unit = "kb/s"
select = "ftp"
field = "goodput_bps"
scale = 0.001

[[metrics]]
name = "bwe_kbps"
label = "mean estimate"
from = "flow_series"
select = "ftp"
field = "bwe_bps"
window = ["1s", "4s"]
scale = 0.001

[figure]
kind = "line"
x = "loss"
x_scale = "log"
y = "goodput_kbps"
series = "scheme"
"""

CLAIMS = """
paper = "Tiny"
seed = "none"

[[claims]]
id = "tiny-gain"
experiment = "tiny-sweep"
figure = "Fig. 1"
condition = "3% loss: Westwood over Reno"
quote = "made up for the test"
kind = "gain"
metric = "goodput_kbps"
at = { loss = 0.03, scheme = "westwood" }
over = { loss = 0.03, scheme = "reno" }
value = 0.5
abs_tol = 0.05

[[claims]]
id = "tiny-value"
experiment = "tiny-sweep"
figure = "Fig. 1"
condition = "0.1% loss, Reno goodput"
quote = "made up for the test"
kind = "value"
metric = "goodput_kbps"
at = { loss = 0.001, scheme = "reno" }
value = 1000
units = "kb/s"
rel_tol = 0.1
"""


def make_root(tmp_path: Path, spec: str = SPEC, claims: str = CLAIMS) -> Path:
    root = tmp_path / "experiments"
    (root / "tiny").mkdir(parents=True)
    (root / "tiny" / "tiny.toml").write_text(SCENARIO)
    (root / "tiny" / "tiny.sweep.toml").write_text(spec)
    (root / "tiny" / "claims.toml").write_text(claims)
    return root


def run_tiny(root: Path, out: Path, jobs: int = 2, progress=None):
    exp = rp.load_experiment(root / "tiny" / "tiny.sweep.toml")
    claims = rp.all_claims(root)
    return rp.run_experiment(exp, out, claims, backend=rp.LocalBackend(jobs), progress=progress, repo=root.parent)


def test_end_to_end_from_a_fresh_cache(tmp_path):
    root = make_root(tmp_path)
    out = tmp_path / "results"
    r = run_cli("reproduce", "tiny-sweep", "--experiments", str(root), "--out", str(out), "--jobs", "2", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = out / "tiny-sweep"
    for name in ("figure.png", "figure.svg", "runs.parquet", "aggregated.csv", "claims.csv", "report.md", "run.json"):
        assert (d / name).stat().st_size > 0, name
    raw = pl.read_parquet(d / "runs.parquet")
    assert raw.height == 2 * 2 * 3 and set(raw.columns) >= {"loss", "scheme", "seed", "goodput_kbps", "bwe_kbps"}
    report = (d / "report.md").read_text()
    with open(d / "aggregated.csv", newline="") as f:
        agg = list(csv.DictReader(f))
    assert len(agg) == 4 * 2
    # every mean and CI of the aggregated table is in the report's results table, on its point's row
    for row in agg:
        line = next(x for x in report.splitlines() if x.startswith(f"| {row['loss']} | {row['scheme']} |"))
        # an empty cell is "no value" (NaN; outputs.csv_cell)
        assert fmt_pm(float(row["mean"] or "nan"), float(row["ci95"] or "nan")) in line, (row, line)
    # the claims rows show exactly what claims.csv (computed from the aggregated table) holds
    with open(d / "claims.csv", newline="") as f:
        claims = {c["claim"]: c for c in csv.DictReader(f)}
    assert set(claims) == {"tiny-gain", "tiny-value"}
    means = {(r["loss"], r["scheme"], r["metric"]): float(r["mean"] or "nan") for r in agg}
    assert float(claims["tiny-value"]["ours"]) == means[("0.001", "reno", "goodput_kbps")]
    gain = means[("0.03", "westwood", "goodput_kbps")] / means[("0.03", "reno", "goodput_kbps")] - 1
    assert float(claims["tiny-gain"]["ours"]) == pytest.approx(gain, rel=1e-12)
    for c in claims.values():
        line = next(x for x in report.splitlines() if x.startswith(f"| {c['claim']} |"))
        assert c["ours_text"] in line and c["status"] in line and c["ratio_text"] in line
    assert "quick" not in report.split("## Claims")[0].split("Mode:")[1].split("\n")[0]
    assert report.splitlines()[0] == "# tiny-sweep: " + rp.load_experiment(root / "tiny" / "tiny.sweep.toml").title


def test_jobs_1_and_2_give_identical_tables(tmp_path):
    root = make_root(tmp_path)
    a = run_tiny(root, tmp_path / "a", jobs=1)
    b = run_tiny(root, tmp_path / "b", jobs=2)
    assert a.executed == b.executed == 12
    for name in ("aggregated.csv", "claims.csv"):
        assert (a.out_dir / name).read_bytes() == (b.out_dir / name).read_bytes(), name
    assert pl.read_parquet(a.out_dir / "runs.parquet").equals(pl.read_parquet(b.out_dir / "runs.parquet"))


class Killed(Exception):
    pass


def test_an_interrupted_sweep_reruns_only_the_missing_runs(tmp_path):
    root = make_root(tmp_path)
    out = tmp_path / "results"

    def kill_after_5(done, total):
        if done >= 5:
            raise Killed

    with pytest.raises(Killed):
        run_tiny(root, out, jobs=2, progress=kill_after_5)
    cached = list((out / ".cache").rglob("*.json"))
    assert len(cached) == 5
    resumed = run_tiny(root, out, jobs=2)
    assert (resumed.total, resumed.executed, resumed.cached) == (12, 7, 5)
    again = run_tiny(root, out, jobs=2)
    assert again.executed == 0
    # losing cache files (a crash, a partial copy) costs exactly those runs
    for p in sorted((out / ".cache").rglob("*.json"))[:4]:
        p.unlink()
    (sorted((out / ".cache").rglob("*.json"))[0]).write_text("{ truncated")  # a torn file is redone too
    assert run_tiny(root, out, jobs=2).executed == 5
    fresh = run_tiny(root, tmp_path / "fresh", jobs=2)
    assert (fresh.out_dir / "aggregated.csv").read_bytes() == (out / "tiny-sweep" / "aggregated.csv").read_bytes()


def _claim(kind: str, value: float, rel_tol: float = 0.2) -> rp.spec.Claim:
    return rp.spec.Claim(
        id="c",
        paper="p",
        experiment="e",
        figure="f",
        condition="",
        quote="",
        kind=kind,
        metric="m",
        at={},
        over={},
        value=value,
        shown="",
        units="",
        check="within",
        abs_tol=None,
        rel_tol=rel_tol,
        target=None,
        note="",
        source="s",
    )


def test_verdicts_respect_the_95_percent_interval():
    """Issue 38 item 7, by hand. A gain of +8.0% against the paper's +17% (tolerance 20% of it,
    ±3.4 points) is outside the tolerance; it is 9 points from +17% and 8 from 0:
    - ± 19.3% (quick Jersey over Westwood): [−11.3%, +27.3%] holds both → inconclusive (it was
      "same direction, different size");
    - ± 10%: holds both (9 ≤ 10, 8 ≤ 10) → inconclusive; ± 8.5%: holds 0 only → same direction;
      ± 5% or an unknown interval (NaN): holds neither → same direction (the old rule).
    −5% ± 4% → not reproduced, −5% ± 30% → inconclusive; +16% (within the tolerance) stays
    reproduced whatever the interval. Ratio 1.10 against 1.50 (tolerance ±0.30, neutral 1):
    ± 0.45 → inconclusive, ± 0.30 or ± 0.20 → same direction. A reduction of 0 ± 0.31 against
    0.3 → inconclusive. A value claim has no neutral: never inconclusive."""
    from airtcp.reproduce.claims import status
    from airtcp.reproduce.text import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, SAME_DIRECTION

    gain = _claim("gain", 0.17)
    assert status(gain, 0.080, 0.193) == INCONCLUSIVE
    assert status(gain, 0.080, 0.05) == SAME_DIRECTION
    assert status(gain, 0.080, 0.10) == INCONCLUSIVE
    assert status(gain, 0.080, 0.085) == SAME_DIRECTION
    assert status(gain, 0.080) == SAME_DIRECTION
    assert status(gain, -0.05, 0.04) == NOT_REPRODUCED
    assert status(gain, -0.05, 0.30) == INCONCLUSIVE
    assert status(gain, 0.16, 0.50) == REPRODUCED
    assert status(_claim("ratio", 1.5), 1.10, 0.45) == INCONCLUSIVE
    assert status(_claim("ratio", 1.5), 1.10, 0.30) == SAME_DIRECTION
    assert status(_claim("ratio", 1.5), 1.10, 0.20) == SAME_DIRECTION
    assert status(_claim("reduction", 0.3), 0.0, 0.31) == INCONCLUSIVE
    assert status(_claim("value", 100.0), 50.0, 100.0) == NOT_REPRODUCED


def test_quick_mode_and_seed_override(tmp_path):
    root = make_root(tmp_path)
    exp = rp.load_experiment(root / "tiny" / "tiny.sweep.toml")
    p = rp.plan(exp, quick=True)
    assert len(p.tasks) == 4 * 2 and p.duration_s == 2.0 and 'duration = "2s"' in p.tasks[0].text
    assert len(rp.plan(exp, seeds=1).tasks) == 4


# The project's catalogue of the papers' figures and tables (experiments/catalogue.toml): per paper,
# in catalogue order, its entries, each with the text of the entry and the experiments reproducing it.
CATALOGUE_FILE = REPO / "experiments" / "catalogue.toml"
CATALOGUE_PAPERS = tomllib.loads(CATALOGUE_FILE.read_text(encoding="utf-8"))["papers"]
CATALOGUE_ENTRIES = [(p["id"], e) for p in CATALOGUE_PAPERS for e in p["entries"]]
CATALOGUE = [i for _, e in CATALOGUE_ENTRIES for i in e["experiments"]]


def test_the_compact_list_fits_80_columns_one_line_per_experiment():
    """Issue 40 item 7: ``--list`` at 80 columns is one line per experiment (it was 562 lines), no
    line wider than the terminal, each with the runs --list --long gives."""
    env = dict(os.environ, COLUMNS="80")
    env.pop("AIRTCP_DEBUG", None)

    def listing(*extra: str) -> str:
        cmd = [sys.executable, "-m", "airtcp", "reproduce", "--list", *extra]
        r = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return r.stdout

    lines = listing().splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    exps = rp.discover(REPO / "experiments")
    rows = {line.split()[0]: line.split()[1] for line in lines[2:-1]}
    assert list(rows) == [e.id for e in exps] and len(lines) == len(exps) + 3
    wide = dict(os.environ, COLUMNS="400")
    r = subprocess.run(
        [sys.executable, "-m", "airtcp", "reproduce", "--list", "--long"],
        cwd=REPO, env=wide, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    for e in exps:
        (row,) = [x for x in r.stdout.splitlines() if x.startswith(f"│ {e.id} ")]
        full, quick = [c.strip() for c in row.split("│")[3].split("/")]
        assert rows[e.id] == f"{full}/{quick}", e.id


def test_list_shows_every_catalogue_entry_with_its_parts(tmp_path):
    env = dict(os.environ, COLUMNS="300")
    env.pop("AIRTCP_DEBUG", None)
    r = subprocess.run(
        [sys.executable, "-m", "airtcp", "reproduce", "--list", "--long"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    cols: dict[str, list[str]] = {}  # a table row may wrap over several lines: join each column
    current = ""
    for line in r.stdout.splitlines():
        if not line.startswith("│"):
            continue
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if cells[0]:
            current = cells[0]
            cols[current] = [""] * len(cells)
        cols[current] = [f"{a} {b}".strip() for a, b in zip(cols[current], cells)]
    rows = {k: " | ".join(v) for k, v in cols.items()}
    missing = [i for i in CATALOGUE if i not in rows]
    assert not missing, f"not listed: {missing}"
    assert "ready" in rows["jersey-fig11"] and "cc jersey (present)" in rows["jersey-fig11"]
    assert "hsdpa-cell (present)" in rows["hsdpa-fig6"] and "ready" in rows["hsdpa-fig6"]
    assert "tllr" in rows["thesis-scenario1"]


def test_every_catalogue_entry_has_its_experiments():
    """experiments/catalogue.toml and the specs agree: every entry names at least one experiment,
    every experiment is named by exactly one entry of its own paper, and its `design` field is the
    opening of that entry's text; the papers are in spec.PAPER_ORDER's order."""
    exps = {e.id: e for e in rp.discover(REPO / "experiments")}
    assert CATALOGUE and all(e["experiments"] for _, e in CATALOGUE_ENTRIES)
    assert sorted(CATALOGUE) == sorted(exps), "experiments/ and catalogue.toml list different experiments"
    for paper, entry in CATALOGUE_ENTRIES:
        text = " ".join(entry["text"].split())
        for i in entry["experiments"]:
            assert exps[i].paper == paper, f"{i} is listed under {paper}"
            assert " ".join(exps[i].design.split()) in text, f"{i}: design {exps[i].design!r} is not in its entry"
    assert tuple(p["id"] for p in CATALOGUE_PAPERS) == PAPER_ORDER
    assert [e.paper for e in exps.values()] == sorted((e.paper for e in exps.values()), key=PAPER_ORDER.index)


def test_the_repository_specs_and_claims_are_consistent():
    root = REPO / "experiments"
    exps = rp.discover(root)
    assert sorted(e.id for e in exps) == sorted(CATALOGUE)
    claims = rp.all_claims(root)
    check_claims(claims, exps)
    assert len(claims) > 300 and all(c.quote for c in claims)
    whys = all_why(root, claims)  # every pattern names a claim, causes are known, ids unique
    assert whys and all(w.text and w.commands for w in whys)


def test_every_not_reproduced_row_of_reproduction_md_links_to_a_why_paragraph():
    """Issue 5: "a paragraph per row that is not reproduced saying what was measured to find out
    why". The committed table must link every such row to a paragraph that exists below it, so a
    regenerated table with a new unexplained row fails here."""
    text = (REPO / "REPRODUCTION.md").read_text(encoding="utf-8")
    block = text.split(BEGIN, 1)[1].split(END, 1)[0]
    anchors = set(re.findall(r'<a id="why-([^"]+)"></a>', block))
    known = {w.id for w in all_why(REPO / "experiments", rp.all_claims(REPO / "experiments"))}
    rows = [line for line in block.splitlines() if line.startswith("| ") and not line.startswith("| paper |")]
    table = [r for r in rows if r.count(" | ") >= 8]
    not_reproduced = [r for r in table if r.split(" | ")[-3] == "not reproduced"]
    assert len(not_reproduced) > 10  # the table is there and parsed
    for r in not_reproduced:
        links = re.findall(r"\(#why-([^)]+)\)", r.split(" | ")[-1])
        assert links, f"not reproduced without an explanation: {r[:120]}"
        assert set(links) <= anchors and set(links) <= known, f"dangling why link in: {r[:120]}"
    assert "**unexplained**" not in block


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda s: s.replace("seeds = 3", "seeds = 0"),
            "tiny.sweep.toml: runs.seeds: must be an integer from 1 to 1000, got 0",
        ),
        (lambda s: s.replace('scale = "log"\n', 'scale = "log"\nvalus = [1]\n'), "axes[0].valus: unknown key"),
        (
            lambda s: s.replace('agg = "sum"', "").replace(
                'select = "ftp"\nfield = "goodput_bps"', 'select = "ftp"\nfield = "goodput_bps"\nagg = "median"'
            ),
            "metrics[0].agg: 'median' is not one of: sum, mean, min, max, jain, ratio_of_sums, count",
        ),
        (
            lambda s: s.replace('set = { "flows.0.cc" = "westwood" }', 'set = { "flows.0.rate" = "fast" }'),
            "point loss=0.001, scheme=westwood: scenario invalid: flows[0].rate",
        ),
        (lambda s: s.replace('x = "loss"', 'x = "los"'), "figure.x: 'los' is not an axis (axes: loss, scheme)"),
        (
            lambda s: s.replace("values = [0.001, 0.03]", "values = [0.001, 0.03]\nquick = [0.5]"),
            "axes[0].quick: '0.5' is not a point",
        ),
        # An axis named like a column of aggregated.csv (its seed count "n") would be overwritten.
        (
            lambda s: s.replace('name = "loss"', 'name = "n"').replace('x = "loss"', 'x = "n"'),
            "axes[0].name: 'n' is used twice or reserved",
        ),
    ],
)
def test_bad_specs_are_one_line_naming_the_field(tmp_path, edit, message):
    root = make_root(tmp_path, spec=edit(SPEC))
    r = run_cli("reproduce", "tiny-sweep", "--experiments", str(root), "--out", str(tmp_path / "r"), cwd=tmp_path)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], r.stderr


def test_bad_claims_and_options_are_one_line(tmp_path):
    root = make_root(tmp_path, claims=CLAIMS.replace('scheme = "westwood" }\nover', 'scheme = "vegas" }\nover'))
    r = run_cli("reproduce", "--list", "--experiments", str(root), cwd=tmp_path)
    assert r.returncode == 2 and "claim tiny-gain: scheme = 'vegas' is not a point (points: reno, westwood)" in r.stderr
    root2 = make_root(tmp_path / "2")
    for args, message in [
        (("nope",), "unknown experiment 'nope'"),
        (("tiny-sweep", "--seeds", "0"), "--seeds 0: must be an integer from 1 to 1000"),
        (("tiny-sweep", "--all"), "give one of ID, --all and --list"),
        (("tiny-sweep", "--backend", "slurm"), "Invalid value for '--backend'"),  # a Typer choice
    ]:
        r = run_cli("reproduce", *args, "--experiments", str(root2), "--out", str(tmp_path / "r"), cwd=tmp_path)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and message in r.stderr, (args, r.stderr)


def test_ray_backend_without_ray_is_one_line(tmp_path):
    # ray is optional: the error only matters where it is absent
    try:
        import ray  # noqa: F401

        pytest.skip("ray is installed here")
    except ImportError:
        pass
    root = make_root(tmp_path)
    r = run_cli(
        "reproduce",
        "tiny-sweep",
        "--backend",
        "ray",
        "--experiments",
        str(root),
        "--out",
        str(tmp_path / "r"),
        cwd=tmp_path,
    )
    assert (
        r.returncode == 2
        and r.stderr.strip() == "error: --backend ray: the 'ray' package is not installed (pip install 'ray[default]')"
    )


def test_missing_parts_skip_with_a_clear_line(tmp_path):
    spec = SPEC.replace(
        'label = "westwood"\nset = { "flows.0.cc" = "westwood" }',
        'label = "caiad"\nset = { "flows.0.cc" = "no-such-cc" }',
    )
    root = make_root(tmp_path, spec=spec, claims='paper = "Tiny"\nseed = "none"\n')
    exp = rp.load_experiment(root / "tiny" / "tiny.sweep.toml")
    av = rp.availability(exp)
    assert not av.runnable and av.missing == ("cc no-such-cc",)
    r = run_cli("reproduce", "--all", "--quick", "--experiments", str(root), "--out", str(tmp_path / "r"), cwd=tmp_path)
    assert r.returncode == 0 and "skip tiny-sweep: needs cc no-such-cc (missing in this build)" in r.stdout
    r = run_cli("reproduce", "tiny-sweep", "--experiments", str(root), "--out", str(tmp_path / "r"), cwd=tmp_path)
    assert r.returncode == 2 and "tiny-sweep: needs cc no-such-cc (missing in this build)" in r.stderr
    # an optional point with a missing part is left out instead
    opt = spec.replace(
        'set = { "flows.0.cc" = "no-such-cc" }', 'set = { "flows.0.cc" = "no-such-cc" }\noptional = true'
    )
    exp = rp.load_experiment(make_root(tmp_path / "o", spec=opt) / "tiny" / "tiny.sweep.toml")
    p = rp.plan(exp)
    assert p.availability.runnable and [pt["scheme"] for pt in p.points] == ["reno", "reno"]


def test_update_reproduction_keeps_the_hand_written_text(tmp_path):
    root = make_root(tmp_path)
    out = tmp_path / "results"
    run_tiny(root, out)
    doc = tmp_path / "REPRODUCTION.md"
    doc.write_text("# status\n\nintro\n\n## Hand-written\n\nanalysis that must stay\n")
    exps, claims = rp.discover(root), rp.all_claims(root)
    assert update_reproduction(doc, exps, claims, out, {}) == 2
    first = doc.read_text()
    assert first.startswith("# status\n\nintro\n") and "analysis that must stay" in first
    assert BEGIN in first and END in first and "| Tiny | Fig. 1 | 3% loss: Westwood over Reno |" in first
    update_reproduction(doc, exps, claims, out, {})
    assert doc.read_text() == first  # idempotent: the generated block is replaced, not appended
    shutil.rmtree(out / "tiny-sweep")
    update_reproduction(doc, exps, claims, out, {})
    assert "not run (no results yet)" in doc.read_text()


WHY = """
[[why]]
id = "tiny-why"
title = "Why the tiny value is off"
cause = "model-difference"
claims = ["tiny-val*"]
text = \"\"\"What was
measured by the test.\"\"\"
commands = ["python3 bench/why.py tiny-sweep"]
"""


def test_not_reproduced_rows_link_to_their_why_paragraph(tmp_path):
    root = make_root(tmp_path, claims=CLAIMS.replace("value = 1000", "value = 1e9"))  # surely not reproduced
    out = tmp_path / "results"
    run_tiny(root, out)
    doc = tmp_path / "REPRODUCTION.md"
    doc.write_text("# status\n")
    exps, claims = rp.discover(root), rp.all_claims(root)
    missing: list[str] = []
    update_reproduction(doc, exps, claims, out, {}, all_why(root, claims), missing)
    assert missing == ["tiny-value"]
    assert "**unexplained**" in doc.read_text() and "`tiny-value`" in doc.read_text()
    (root / "tiny" / "why.toml").write_text(WHY)
    missing = []
    update_reproduction(doc, exps, claims, out, {}, all_why(root, claims), missing)
    text = doc.read_text()
    assert missing == []
    row = next(line for line in text.splitlines() if line.startswith("| Tiny | Fig. 1 | 0.1% loss, Reno goodput |"))
    assert row.endswith("| not reproduced | `tiny-sweep` (full, 3 seeds × 4s) | [tiny-why](#why-tiny-why) |")
    assert '<a id="why-tiny-why"></a>Why the tiny value is off' in text
    assert "What was measured by the test." in text and "- `python3 bench/why.py tiny-sweep`" in text
    assert "| a model difference, measured | 1 |" in text and "**unexplained**" not in text


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s: s.replace('"tiny-val*"', '"tiny-nothing"'), "why tiny-why: claims: 'tiny-nothing' matches no claim"),
        (
            lambda s: s.replace('"model-difference"', '"bad-luck"'),
            "why[0].cause: 'bad-luck' is not one of: spec, claim",
        ),
        (lambda s: s.replace("title = ", 'titel = "x"\ntitle = '), "why[0].titel: unknown key"),
    ],
)
def test_bad_why_files_are_one_line_naming_the_field(tmp_path, edit, message):
    root = make_root(tmp_path)
    (root / "tiny" / "why.toml").write_text(edit(WHY))
    with pytest.raises(rp.SpecError, match=re.escape(message)):
        all_why(root, rp.all_claims(root))


def test_aggregated_csv_is_recomputed_by_hand_from_runs_parquet(tmp_path):
    """Issue 24 part 5: mean, sd, Student-t half-width (t from scipy) and the bounds, the lower one
    clipped at 0 for a metric no seed made negative, recomputed from the per-run table."""
    import statistics

    from scipy.stats import t as student

    root = make_root(tmp_path)
    o = run_tiny(root, tmp_path / "r", jobs=2)
    raw = pl.read_parquet(o.out_dir / "runs.parquet")
    with open(o.out_dir / "aggregated.csv", newline="") as f:
        agg = list(csv.DictReader(f))
    assert len(agg) == 8 and sum(r["n"] == "3" for r in agg) == 6
    for row in agg:
        xs = raw.filter((pl.col("loss") == row["loss"]) & (pl.col("scheme") == row["scheme"]))[row["metric"]].to_list()
        xs = [x for x in xs if math.isfinite(x)]  # Reno has no bandwidth estimate: n = 0, all NaN
        assert int(row["n"]) == len(xs)
        if not xs:
            assert row["mean"] == row["ci_low"] == ""  # no value: an empty cell (outputs.csv_cell)
            continue
        assert len(xs) == 3
        m, sd = statistics.fmean(xs), statistics.stdev(xs)
        half = student.ppf(0.975, len(xs) - 1) * sd / len(xs) ** 0.5
        assert float(row["mean"]) == pytest.approx(m, rel=1e-12)
        assert float(row["sd"]) == pytest.approx(sd, rel=1e-9, abs=1e-12)
        assert float(row["ci95"]) == pytest.approx(half, rel=1e-9, abs=1e-12)
        assert min(xs) >= 0 and float(row["ci_low"]) == pytest.approx(max(0.0, m - half), abs=1e-9)
        assert float(row["ci_high"]) == pytest.approx(m + half, rel=1e-12)


def test_ci_bounds_clip_at_zero_only_for_nonnegative_metrics():
    from airtcp.reproduce.metrics import ci_bounds, mean_ci

    xs = [100.0, 900.0]  # two spread seeds: t(1) = 12.7, the symmetric interval reaches far below 0
    n, m, _, ci = mean_ci(xs)
    assert n == 2 and m - ci < 0
    assert ci_bounds(xs, m, ci) == (0.0, m + ci)
    signed = [-100.0, 900.0]  # a difference can be negative: no clipping
    n, m, _, ci = mean_ci(signed)
    assert ci_bounds(signed, m, ci) == (m - ci, m + ci)
    assert all(math.isnan(v) for v in ci_bounds([5.0], 5.0, math.nan))


def test_bar_figures_use_categorical_positions_and_overlay_the_papers_values(tmp_path):
    """caiad-fig15 drew bars at x = 0, 1, 5, 10 (overlapping groups, empty gaps); bars now sit at
    0, 1, 2, ... whatever numeric x the points have, and a claim of kind value is a star on its bar."""
    from airtcp.reproduce.report import PAPER_LABEL, figure

    spec = SPEC.replace('kind = "line"', 'kind = "bar"')
    root = make_root(tmp_path, spec=spec)
    o = run_tiny(root, tmp_path / "r")
    exp = rp.load_experiment(root / "tiny" / "tiny.sweep.toml")
    with open(o.out_dir / "aggregated.csv", newline="") as f:
        agg = [
            dict(
                r,
                mean=float(r["mean"] or "nan"),
                ci_low=float(r["ci_low"] or "nan"),
                ci_high=float(r["ci_high"] or "nan"),
            )
            for r in csv.DictReader(f)
        ]
    fig = figure(exp, o.plan.axes, agg, [], "test", rp.all_claims(root))
    ax = fig.axes[0]
    bars = [(p.get_x() + p.get_width() / 2, p.get_height()) for p in ax.patches]
    assert len(bars) == 4
    assert sorted(round(x, 6) for x, _ in bars) == [-0.2, 0.2, 0.8, 1.2]  # loss 0.001 and 0.03 as categories 0 and 1
    means = {(r["loss"], r["scheme"]): r["mean"] for r in agg if r["metric"] == "goodput_kbps"}
    # reno first (series order), westwood second, in each category
    assert [h for _, h in sorted(bars)] == pytest.approx(
        [means[("0.001", "reno")], means[("0.001", "westwood")], means[("0.03", "reno")], means[("0.03", "westwood")]]
    )
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.001", "0.03"]
    (paper,) = [ln for ln in ax.lines if ln.get_label() == PAPER_LABEL]
    # tiny-value: 1000 kb/s at loss 0.001, reno (tiny-gain is a gain, not a value: not drawn)
    assert paper.get_xydata().tolist() == [[-0.2, 1000.0]]
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_figures_show_seeds_below_three_and_one_point_grids_as_points(tmp_path):
    """Issue 40 item 6: with 2 seeds no t(1) interval (12.7 standard errors wide) but the seeds'
    own values, hollow, at the mean's x; a grid with one x value is a category with the series side
    by side, drawn as points (no line); the legend is titled with the axis it varies; the figure
    says n."""
    from airtcp.reproduce.report import figure

    spec = SPEC.replace("values = [0.001, 0.03]", "values = [0.03]")
    root = make_root(tmp_path, spec=spec)
    exp = rp.load_experiment(root / "tiny" / "tiny.sweep.toml")
    o = rp.run_experiment(exp, tmp_path / "r", [], seeds=2, backend=rp.LocalBackend(2), repo=root.parent)
    runs = pl.read_parquet(o.out_dir / "runs.parquet")
    with open(o.out_dir / "aggregated.csv", newline="") as f:
        agg = [
            dict(
                r,
                n=int(r["n"]),
                mean=float(r["mean"] or "nan"),
                ci_low=float(r["ci_low"] or "nan"),
                ci_high=float(r["ci_high"] or "nan"),
            )
            for r in csv.DictReader(f)
        ]
    # a subtitle as long as the figure is wide: jersey-fig3's legend covered a long suptitle
    fig = figure(
        exp, o.plan.axes, agg, [], "quick, 2 seeds × 30s, " + "a subtitle that spans the figure " * 2, [], runs
    )
    ax = fig.axes[0]
    assert "n = 2 seeds: mean, hollow = each seed, no interval" in fig._suptitle.get_text()
    (legend,) = [*fig.legends, *(a.get_legend() for a in fig.axes if a.get_legend() is not None)]  # one for all
    assert [t.get_text() for t in legend.get_texts()][:2] == ["reno", "westwood"]
    assert legend.get_title().get_text() == "scheme"
    assert_legends_clear(fig)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.03"]
    assert ax.get_xscale() == "linear"  # a category, not a log axis with one value
    means = [ln for s in ("reno", "westwood") for ln in ax.lines if ln.get_gid() == f"series:{s}"]
    assert [ln.get_linestyle() for ln in means] == ["None", "None"]  # points, no line
    assert not ax.collections  # no error bars
    for ln, scheme, x in zip(means, ("reno", "westwood"), (-0.2, 0.2)):
        ((mx, my),) = ln.get_xydata().tolist()
        seeds = runs.filter(pl.col("scheme") == scheme)["goodput_kbps"].to_list()
        assert (mx, my) == (pytest.approx(x), pytest.approx(sum(seeds) / 2))
        (hollow,) = [h for h in ax.lines if h.get_gid() is None and h.get_color() == ln.get_color()]
        assert sorted(hollow.get_ydata()) == sorted(seeds) and list(hollow.get_xdata()) == pytest.approx([x, x])
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_reproduce_all_writes_an_index_page_whose_links_resolve(tmp_path):
    """Issue 24 part 4: `--all` ends with results/index.html: each experiment's figure, its claims
    beside ours, a link to report.md; a skipped experiment says why; text is escaped."""
    from html.parser import HTMLParser
    from urllib.parse import unquote

    claims = CLAIMS.replace('condition = "0.1% loss, Reno goodput"', 'condition = "0.1% loss <b>&amp; \\"Reno\\"</b>"')
    root = make_root(tmp_path, claims=claims)
    skipped = root / "other"
    skipped.mkdir()
    (skipped / "tiny.toml").write_text(SCENARIO)
    (skipped / "tiny.sweep.toml").write_text(
        SPEC.replace('id = "tiny-sweep"', 'id = "tiny-skipped"')
        .replace('paper = "tiny"', 'paper = "other"')
        .replace('"flows.0.cc" = "westwood"', '"flows.0.cc" = "no-such-cc"')
    )
    out = tmp_path / "results"
    r = run_cli(
        "reproduce", "--all", "--quick", "--jobs", "2", "--experiments", str(root), "--out", str(out), cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    page = (out / "index.html").read_text()

    class Links(HTMLParser):
        def __init__(self):
            super().__init__()
            self.refs, self.ids, self.cells = [], set(), []

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            self.refs += [a[k] for k in ("href", "src") if k in a]
            if "id" in a:
                self.ids.add(a["id"])

        def handle_data(self, data):
            self.cells.append(data)

    p = Links()
    p.feed(page)
    assert {"tiny-sweep/report.md", "tiny-sweep/figure.png"} <= set(p.refs)
    for ref in p.refs:
        if ref.startswith("#"):
            assert ref[1:] in p.ids, ref
        else:
            assert (out / unquote(ref)).is_file(), ref
    # the claims rows carry claims.csv's text, escaped; the markup in a condition stays text
    with open(out / "tiny-sweep" / "claims.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        ours = row["ours_text"] + (f" ({row['detail']})" if row["detail"] else "")
        assert ours in p.cells and row["status"] in p.cells, ours
    assert '0.1% loss <b>&amp; "Reno"</b>' in p.cells and "<b>" not in page.split("<body>")[1].replace("<b>&", "")
    assert "Not run: needs cc no-such-cc." in p.cells
    # Issue 38 item 7: quick results say so in every headline: the page's, the section's, report.md's.
    h1 = page.split("<h1>")[1].split("</h1>")[0]
    assert h1.endswith("(quick)") and "quick: fewer seeds" in page.split("</h1>")[1].split("</p>")[0]
    assert "<h2>tiny-sweep: " in page and "(quick)</h2>" in page.split("<h2>tiny-sweep: ")[1].split("\n")[0]
    assert (out / "tiny-sweep" / "report.md").read_text().splitlines()[0].endswith("(quick)")


def test_scatter_figures_have_no_papers_values_to_draw():
    """Issue 40 asks for the paper's values on every figure that has them. The scatter figures
    (``_scatter``: the four cellular-* experiments) draw none, because no paper claims a value for
    them: their only checks are against the trace itself. This fails when a claim for a scatter
    experiment appears, so that the figure then learns to draw it."""
    root = REPO / "experiments"
    scatters = {e.id for e in rp.discover(root) if e.figure.kind == "scatter"}
    assert scatters == {
        "cellular-att-lte-driving-2016",
        "cellular-tmobile-umts-driving",
        "cellular-verizon-evdo-driving",
        "cellular-verizon-lte-short",
    }
    assert [c.id for c in rp.all_claims(root) if c.experiment in scatters] == []
