"""The package's modules import one another without a cycle (issue 26: reproduce/'s claims, report
and why used to import each other, some of it hidden in function bodies), and every module imports.

The graph is read from the source (``ast``), every import statement counted wherever it is, also
inside a function: an import deferred to call time is still a dependency, and a cycle through one
only fails later. ``from . import x`` depends on the submodule ``x`` when there is one, else on the
package ``__init__``; a submodule's implicit import of its own parent package is not an edge.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from conftest import REPO

PACKAGE = REPO / "python" / "airtcp"


def _modules() -> dict[str, Path]:
    """Module name -> file, for every .py file of the package (``airtcp.reproduce`` is its
    ``__init__.py``) and the extension ``airtcp._core`` (its stub, ``_core.pyi``, imports nothing)."""
    out = {}
    for path in sorted([*PACKAGE.rglob("*.py"), PACKAGE / "_core.pyi"]):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules ``name`` imports, anywhere in its source."""
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]  # the package relative imports start from
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                # `import a.b.c` imports a, a.b and a.b.c; the deepest one of ours is the dependency
                for k in range(len(parts), 0, -1):
                    if ".".join(parts[:k]) in modules:
                        out.add(".".join(parts[:k]))
                        break
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                target = ".".join(base + (node.module.split(".") if node.module else []))
            else:
                target = node.module or ""
            if not (target == "airtcp" or target.startswith("airtcp.")):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in modules else target)
    out.discard(name)
    return {m for m in out if m in modules}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_the_package_has_no_import_cycle():
    graph = _graph()
    cycles = _cycles(graph)
    detail = [" <-> ".join(c) + ": " + "; ".join(f"{m} imports {sorted(graph[m] & set(c))}" for m in c) for c in cycles]
    assert not cycles, "import cycles:\n" + "\n".join(detail)


def test_the_graph_reader_sees_the_imports_that_made_the_old_cycle():
    """The reader itself: claims, why and report still import what they must (a reader that saw
    nothing would find no cycle either)."""
    graph = _graph()
    assert {"airtcp.reproduce.spec", "airtcp.reproduce.text"} <= graph["airtcp.reproduce.claims"]
    assert {"airtcp.reproduce.claims", "airtcp.reproduce.why", "airtcp.reproduce.text"} <= graph[
        "airtcp.reproduce.report"
    ]
    assert "airtcp.reproduce.command" in graph["airtcp.cli"]  # imported inside the command's function
    assert "airtcp.api" in graph["airtcp.reproduce.backend"]  # `from .. import __version__, _core, api`
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("name", sorted(n for n in _modules() if n != "airtcp.__main__"))
def test_every_module_imports(name):
    importlib.import_module(name)
