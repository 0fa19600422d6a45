"""The docs stay true: every scenario field is documented, and the README's Python example runs."""

from __future__ import annotations

import re

import pytest

from conftest import REPO

MODEL = REPO / "crates" / "airtcp" / "src" / "scenario" / "model.rs"
DOC = REPO / "docs" / "scenario.md"


def model_fields() -> set[str]:
    src = MODEL.read_text()
    src = re.sub(r"//.*", "", src)  # comments
    src = re.sub(r"#\[serde\(skip\)\]\s*pub \w+", "", src)  # not a key of the file
    fields = set(re.findall(r"^\s+(?:pub\s+)?([a-z_][a-z0-9_]*)\s*:\s*[A-Za-z(]", src, re.M))
    fields |= set(re.findall(r"[{,]\s*([a-z_][a-z0-9_]*)\s*:\s*[A-Za-z(]", src))  # Variant { loss: f64 }
    return fields


def model_variants() -> set[str]:
    """The strings a scenario may use as a `kind` (tags of `tagged_enum!`) or as the value of a
    plain enum field (`#[serde(rename_all = "lowercase")]` enums)."""
    src = re.sub(r"//.*", "", MODEL.read_text())
    out = set()
    for m in re.finditer(r"tagged_enum!\(\w+,\s*\"\w+\",\s*\{(.*?)\}\);", src, re.S):
        out |= set(re.findall(r'"([a-z0-9-]+)"\s*=>', m.group(1)))
    for m in re.finditer(r'rename_all = "lowercase"\)\]\s*pub enum (\w+)\s*\{(.*?)\n\}', src, re.S):
        out |= {v.lower() for v in re.findall(r"^    ([A-Z]\w*)\b", m.group(2), re.M)}
    return out


def test_every_scenario_field_is_documented():
    doc = DOC.read_text()
    fields = model_fields()
    assert {"duration", "nodes", "rate", "loss", "recovery", "limit_pkts"} <= fields  # the parser works
    missing = sorted(f for f in fields if f"`{f}`" not in doc)
    assert not missing, f"fields of model.rs not documented in docs/scenario.md: {missing}"


def test_every_kind_is_documented():
    doc = DOC.read_text()
    kinds = model_variants()
    assert {"droptail", "uniform", "tcp", "cbr"} <= kinds
    missing = sorted(k for k in kinds if f'"{k}"' not in doc)
    assert not missing, f"kinds of model.rs not documented in docs/scenario.md: {missing}"


def test_readme_python_example_runs(capsys):
    readme = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    assert "nodes" in capsys.readouterr().out  # the ScenarioError example printed its message


@pytest.mark.parametrize("example", sorted((REPO / "examples").glob("*.toml")), ids=lambda p: p.name)
def test_examples_are_valid(example):
    import airtcp

    airtcp.validate(example)
