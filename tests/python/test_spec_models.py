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
