"""The docs stay true: every scenario field is documented, and the README's Python example runs."""

from __future__ import annotations

import re

import pytest

from conftest import REPO

SRC = REPO / "crates" / "airtcp" / "src"
# The scenario format: the document's shape (scenario/model.rs) and each model kind's own table,
# in the kind's file (channels, queues, capacity models, applications; see docs/ARCHITECTURE.md).
MODEL_FILES = [
    SRC / "scenario" / "model.rs",
    *sorted((SRC / "channel").glob("*.rs")),
    *sorted((SRC / "net" / "queue").glob("*.rs")),
    *sorted((SRC / "net" / "capacity").rglob("*.rs")),
    *sorted((SRC / "app").glob("*.rs")),
]
DOC = REPO / "docs" / "scenario.md"


def _source() -> str:
    return "\n".join(re.sub(r"//.*", "", f.read_text()) for f in MODEL_FILES)


def model_fields() -> set[str]:
    """The keys of every scenario table: the fields of the structs that deny unknown keys."""
    src = re.sub(r"#\[serde\(skip\)\]\s*pub \w+", "", _source())  # not a key of the file
    fields: set[str] = set()
    bodies = re.findall(r"deny_unknown_fields\)\]\s*(?:pub(?:\(crate\))?\s+)?struct \w+\s*\{(.*?)\n\}", src, re.S)
    for body in bodies:
        fields |= set(re.findall(r"^\s+(?:pub(?:\(crate\))?\s+)?([a-z_][a-z0-9_]*)\s*:\s*[A-Za-z(]", body, re.M))
    return fields


def model_variants() -> set[str]:
    """The strings a scenario may use as a `kind` (the names of the kinds' registries and the tags of
    `tagged_enum!`) or as the value of a plain enum field (`#[serde(rename_all = "lowercase")]` enums)."""
    src = _source()
    out = set(re.findall(r'kind::<[\w:]+>\("([a-z0-9-]+)"\)', src))
    out |= set(re.findall(r'_KIND: &str = "([a-z0-9-]+)"', src))
    for m in re.finditer(r"tagged_enum!\(\w+,\s*\"\w+\",\s*\{(.*?)\}\);", src, re.S):
        out |= set(re.findall(r'"([a-z0-9-]+)"\s*=>', m.group(1)))
    for m in re.finditer(r'rename_all = "lowercase"\)\]\s*pub(?:\(crate\))? enum (\w+)\s*\{(.*?)\n\}', src, re.S):
        out |= {v.lower() for v in re.findall(r"^    ([A-Z]\w*)\b", m.group(2), re.M)}
    return out


def test_every_scenario_field_is_documented():
    doc = DOC.read_text()
    fields = model_fields()
    assert {
        "duration",
        "nodes",
        "rate",
        "loss",
        "recovery",
        "limit_pkts",
        "min_th_pkts",
        "pf_tc_tti",
        "fd_t",
    } <= fields  # the parser works
    missing = sorted(f for f in fields if f"`{f}`" not in doc)
    assert not missing, f"fields of model.rs not documented in docs/scenario.md: {missing}"


def test_every_kind_is_documented():
    doc = DOC.read_text()
    kinds = model_variants()
    assert {"droptail", "red", "uniform", "fading", "hsdpa", "trace", "tcp", "cbr", "corruption"} <= kinds
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


def _allowed(assignment: str) -> list[str]:
    """The names the engine accepts for a field, read from its error for an unknown one."""
    import airtcp

    doc = airtcp.apply_overrides(airtcp.scenario.load(REPO / "examples" / "jersey_fig10.toml"), [assignment])
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.validate(doc)
    m = re.search(r"\(allowed: ([^)]*)\)", str(e.value))
    assert m, str(e.value)
    return m.group(1).split(", ")


def test_readme_opening_paragraph_names_every_scheme():
    """Issue 26: the README's first paragraph names every window policy (cc::REGISTRY) and every
    recovery strategy (tcp::recovery::REGISTRY) the engine has, as scenario files spell them."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    opening = readme.split("```\n\n", 1)[1].split("\n\n", 1)[0]
    names = _allowed("flows.0.cc=no-such-policy") + _allowed("flows.0.recovery=no-such-strategy")
    assert {"reno", "bbr", "tahoe", "linux"} <= set(names)
    missing = [n for n in names if f"`{n}`" not in opening]
    assert not missing, f"README's opening paragraph does not name: {missing}"


@pytest.mark.parametrize("doc", ["docs/ARCHITECTURE.md", "docs/papers.md"])
def test_paths_named_in_the_architecture_docs_exist(doc):
    """docs/ARCHITECTURE.md and docs/papers.md match the code: every path they name (relative to the
    repository, to the engine's src/ or to the Python package; outputs under results/ aside) exists."""
    text = (REPO / doc).read_text(encoding="utf-8")
    paths = {
        p for p in re.findall(r"`([A-Za-z0-9_./+-]+)`", text) if "/" in p and not p.startswith(("results/", "../"))
    }
    assert len(paths) > 20
    bases = [REPO, REPO / "crates" / "airtcp" / "src", REPO / "python" / "airtcp"]
    missing = sorted(p for p in paths if not any((b / p).exists() for b in bases))
    assert not missing, f"{doc} names paths that do not exist: {missing}"


def test_papers_md_names_every_experiment():
    from airtcp import reproduce

    text = (REPO / "docs" / "papers.md").read_text(encoding="utf-8")
    ids = [e.id for e in reproduce.discover(REPO / "experiments")]
    assert len(ids) > 30
    missing = [i for i in ids if f"`{i}`" not in text]
    assert not missing, f"docs/papers.md does not name: {missing}"
