"""``reproduce/spec.py`` reads specs, claims and why files through pydantic models: every
experiment shipped loads (checked field by field in the lead's before/after comparison, see the
commit), and a bad file is one line naming the file, the field and what is allowed."""

from __future__ import annotations

import re

import pytest
from test_reproduce import CLAIMS, SPEC, make_root

from conftest import REPO

from airtcp import reproduce as rp
from airtcp.reproduce.spec import load_claims


def test_every_shipped_experiment_and_claim_loads():
    exps = rp.discover(REPO / "experiments")
    assert len(exps) >= 40
    claims = rp.all_claims(REPO / "experiments")
    assert claims and all(c.experiment in {e.id for e in exps} for c in claims)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s: s.replace("seeds = 3", "seeds = 0"), "runs.seeds: must be an integer from 1 to 1000, got 0"),
        (lambda s: s.replace("seeds = 3", 'seeds = "3"'), "runs.seeds: must be an integer from 1 to 1000, got '3'"),
        (lambda s: s.replace("seeds = 3\n", ""), "runs.seeds: is required (an integer from 1 to 1000)"),
        (lambda s: s.replace('title = "A tiny sweep"\n', ""), "tiny.sweep.toml: title: is required (a string)"),
        (lambda s: s.replace('title = "A tiny sweep"', "title = 3"), "title: must be a string, got an integer"),
        (lambda s: s.replace("[runs]", "runs = 1\n[x]"), "runs: must be a table, got an integer"),
        (
            lambda s: s.replace('scale = "log"\n', 'scale = "log"\nvalus = [1]\n'),
            "axes[0].valus: unknown key (allowed here: label, name, points, quick, scale, set, values)",
        ),
        (
            lambda s: s.replace('scale = "log"\n', 'scale = "logarithmic"\n'),
            "axes[0].scale: 'logarithmic' is not one of: linear, log",
        ),
        (
            lambda s: s.replace('label = "westwood"', 'label = "westwood"\nneeds = ["a", 2]'),
            "axes[1].points[1].needs[1]: must be a string, got an integer",
        ),
        (
            lambda s: s.replace("scale = 0.001\n", "scale = nan\n", 1),
            "metrics[0].scale: must be a finite number, got nan",
        ),
        (
            lambda s: s.replace('field = "goodput_bps"', 'field = "goodput_bps"\nstat = "max"'),
            'metrics[0].stat: only with from = "flow_series" or "link_series"',
        ),
        (
            lambda s: s.replace('window = ["1s", "4s"]', 'window = ["1s", "4x"]'),
            "metrics[1].window: ",
        ),
        (
            lambda s: s.replace('window = ["1s", "4s"]', 'window = ["4s", "1s"]'),
            "metrics[1].window: from (4s) must be before to (1s)",
        ),
        (lambda s: s.replace('x = "loss"', 'x = "los"'), "figure.x: 'los' is not an axis (axes: loss, scheme)"),
        (
            lambda s: s.replace('kind = "line"', 'kind = "line"\nceiling = "goodput_kbps"'),
            'figure.ceiling: only with kind = "scatter"',
        ),
        (
            lambda s: s.replace('set = "links.1.channel.loss"\n', ""),
            'axes[0].set: is required with values (a scenario path such as "flows.0.cc")',
        ),
        (lambda s: s.replace('quick_duration = "2s"', 'quick_duration = "2 parsecs"'), "runs.quick_duration: "),
    ],
)
def test_bad_specs_are_one_line_naming_the_field(tmp_path, edit, message):
    root = make_root(tmp_path, spec=edit(SPEC))
    with pytest.raises(rp.SpecError, match=re.escape(message)) as e:
        rp.load_experiment(root / "tiny" / "tiny.sweep.toml")
    assert "\n" not in str(e.value) and str(e.value).startswith(str(root / "tiny" / "tiny.sweep.toml") + ": ")


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s: s.replace('seed = "none"', "seed = 1"), "seed: must be a string, got an integer"),
        (lambda s: s.replace('kind = "gain"', 'kind = "median"', 1), "claims[0].kind: 'median' is not one of: value,"),
        (lambda s: s.replace("value = 0.5", "value = true", 1), "claims[0].value: must be a finite number, got True"),
        (lambda s: s.replace("[[claims]]", "[[claims]]\nextra = 1", 1), "claims[0].extra: unknown key (allowed here: "),
    ],
)
def test_bad_claims_are_one_line_naming_the_field(tmp_path, edit, message):
    root = make_root(tmp_path, claims=edit(CLAIMS))
    with pytest.raises(rp.SpecError, match=re.escape(message)) as e:
        load_claims(root / "tiny" / "claims.toml")
    assert "\n" not in str(e.value)


# ---- the run figures' marks and the paper's values on reproduce figures (issue 40 item 8) ----

SUMMARY = {
    "flows": [{"name": "ftp", "src": "S", "dst": "D"}],
    "links": [{"from": "S", "to": "BS", "rate_bps": 10_000_000}, {"from": "BS", "to": "D", "rate_bps": 2_000_000}],
    "warmup_s": 0.5,
}


def _rows(exp) -> list[dict]:
    rows = []
    for loss in exp.axis("loss").labels():
        for scheme in exp.axis("scheme").labels():
            for m in exp.metrics:
                rows.append(
                    {"loss": loss, "scheme": scheme, "metric": m.name, "n": 3, "mean": 900.0, "sd": 1.0}
                    | {"ci95": 2.0, "ci_low": 898.0, "ci_high": 902.0}
                )
    return rows


def _points(exp) -> list[dict[str, str]]:
    return [{"loss": a, "scheme": b} for a in exp.axis("loss").labels() for b in exp.axis("scheme").labels()]


def test_a_goodput_figure_marks_the_paths_capacity(tmp_path):
    from airtcp.reproduce.report import figure

    exp = rp.load_experiment(make_root(tmp_path) / "tiny" / "tiny.sweep.toml")
    fig = figure(exp, exp.axes, _rows(exp), [(p, {"summary": SUMMARY}) for p in _points(exp)], "t")
    cap = [ln for ln in fig.axes[0].get_lines() if str(ln.get_label()).startswith("capacity")]
    # the slowest link, 2 Mb/s, in the metric's kb/s (scale 0.001)
    assert len(cap) == 1 and list(cap[0].get_ydata()) == [2000.0, 2000.0]
    # grid points on paths of different capacity: no line
    other = dict(SUMMARY, links=[SUMMARY["links"][0], dict(SUMMARY["links"][1], rate_bps=1_000_000)])
    payloads = [(p, {"summary": SUMMARY if i else other}) for i, p in enumerate(_points(exp))]
    fig = figure(exp, exp.axes, _rows(exp), payloads, "t")
    assert not [ln for ln in fig.axes[0].get_lines() if str(ln.get_label()).startswith("capacity")]


def test_a_timeseries_figure_shows_warmup_capacity_and_the_papers_values(tmp_path):
    from airtcp.reproduce.report import PAPER_LABEL, figure

    spec = SPEC.split("[figure]")[0] + (
        '[figure]\nkind = "timeseries"\ncolumn = "bwe_bps"\nselect = "ftp"\nscale = 0.001\npanels = "scheme"\n'
    )
    claims = CLAIMS + (
        '\n[[claims]]\nid = "tiny-bwe"\nexperiment = "tiny-sweep"\nfigure = "Fig. 2"\ncondition = "c"\n'
        'quote = "q"\nkind = "value"\nmetric = "bwe_kbps"\nat = { loss = 0.03, scheme = "westwood" }\n'
        'value = 1500\nshown = "about 1.5 Mb/s"\nrel_tol = 0.1\n'
    )
    root = make_root(tmp_path, spec=spec, claims=claims)
    exp = rp.load_experiment(root / "tiny" / "tiny.sweep.toml")
    mine = [c for c in load_claims(root / "tiny" / "claims.toml") if c.id == "tiny-bwe"]
    series = {"time_s": [0.0, 1.0, 2.0, 3.0], "flow": ["ftp"] * 4, "bwe_bps": [0.0, 1e6, 1.2e6, 1.4e6]}
    payloads = [(p, {"summary": SUMMARY, "flow_series": series}) for p in _points(exp)]
    fig = figure(exp, exp.axes, [], payloads, "t", mine)
    reno, westwood = fig.axes[0], fig.axes[1]
    for ax in (reno, westwood):
        labels = [str(ln.get_label()) for ln in ax.get_lines()]
        assert "warm-up 0.5 s (not in goodput)" in labels
        shade = ax.patches[0]  # [0, warm-up) shaded (a Rectangle or, in older matplotlib, a Polygon)
        xs = shade.get_patch_transform().transform(shade.get_path().vertices)[:, 0]
        assert (min(xs), max(xs)) == (0.0, 0.5)
        cap = next(ln for ln in ax.get_lines() if str(ln.get_label()).startswith("capacity"))
        assert list(cap.get_ydata()) == [2000.0, 2000.0]
    # the claim is at scheme = westwood: its panel only; over the metric's window 1-4 s as far as the
    # runs go (3 s), at 1500 kb/s (the metric's unit and the figure's are both kb/s)
    paper = [ln for ln in westwood.get_lines() if ln.get_label() == PAPER_LABEL]
    assert len(paper) == 1 and list(paper[0].get_xdata()) == [1.0, 3.0] and list(paper[0].get_ydata()) == [1500.0] * 2
    assert not [ln for ln in reno.get_lines() if ln.get_label() == PAPER_LABEL]
