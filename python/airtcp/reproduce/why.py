"""Why a claim is not reproduced: ``experiments/<paper>/why.toml``, one paragraph per group of rows.

Issue 5 asks REPRODUCTION.md for "a paragraph per row that is not reproduced saying what was
measured to find out why". Many rows share one cause (e.g. the 20 cells of TCP-Jersey's Table II),
so a paragraph covers a group of claims, named by id or shell pattern; the generated table links
every row to its paragraph, and ``unexplained`` lists the not-reproduced rows no paragraph covers
(the test suite requires it to be empty for the committed REPRODUCTION.md).

A paragraph states its cause as one of ``CAUSES`` (the categories the investigation sorted rows
into) and the commands whose output it quotes, so that a reader can re-measure it.

```toml
[[why]]
id = "jersey-cw-non-ect"             # anchor in REPRODUCTION.md (unique over all papers)
title = "Jersey beside non-ECN flows: who starves depends on the CW reading"
cause = "model-difference"           # one of CAUSES
claims = ["jersey-table2-*", "jersey-table4-*"]   # claim ids or shell patterns (each must match)
text = \"\"\"What was measured and what it shows.\"\"\"
commands = ["python3 bench/why.py jersey-table2 --set links.1.queue.drop_non_ect=false"]
```
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

from .spec import Claim, SpecError, Str, StrList, _choice, _Model, _read, _read_toml, _Where, paper_files
from .text import NOT_REPRODUCED

__all__ = ["CAUSES", "Why", "all_why", "match_why", "unexplained"]

#: cause key → the words REPRODUCTION.md uses for it (the categories of issue 5's investigation).
CAUSES = {
    "spec": "experiment spec transcribed wrongly (fixed)",
    "claim": "claim transcribed wrongly (fixed)",
    "status-rule": "status rule applied to the wrong number (fixed)",
    "missing-part": "a model part airtcp lacks",
    "engine-bug": "engine or scheme bug (fixed)",
    "airtcp-defect": "an airtcp behaviour that ns-2.35 and Linux do not share (open)",
    "reading": "an open reading of the paper, measured both ways",
    "model-difference": "a model difference, measured",
}


@dataclass(frozen=True)
class Why:
    """One explanation paragraph and the claims it covers."""

    id: str
    title: str
    cause: str
    claims: tuple[str, ...]
    text: str
    commands: tuple[str, ...]
    source: str

    def covers(self, claim_id: str) -> bool:
        return any(fnmatch.fnmatchcase(claim_id, p) for p in self.claims)


class _WhyDoc(_Model):
    id: Str
    title: Str
    cause: _choice(*CAUSES)  # type: ignore[valid-type]
    claims: StrList
    text: Str
    commands: StrList = ()


class _WhyFileDoc(_Model):
    why: list[_WhyDoc] = []


def _load_why(path: Path) -> list[Why]:
    """Reads one ``why.toml`` (its shape by pydantic models, as the specs); raises SpecError
    naming the file and field."""
    source = str(path)
    out = []
    for i, w in enumerate(_read(_WhyFileDoc, _read_toml(path), source).why):
        if not w.claims:
            raise _Where(source, f"why[{i}]").fail("claims", "is required (claim ids or shell patterns)")
        text = " ".join(w.text.split())
        if not text:
            raise _Where(source, f"why[{i}]").fail("text", "must not be empty")
        out.append(
            Why(id=w.id, title=w.title, cause=w.cause, claims=w.claims, text=text, commands=w.commands, source=source)
        )
    return out


def all_why(root: Path, claims: list[Claim]) -> list[Why]:
    """Every paper's ``why.toml`` under ``root``; checks that ids are unique and that each pattern
    names at least one claim (a renamed claim must not silently lose its explanation)."""
    out: list[Why] = []
    for p in paper_files(root, "why.toml"):
        out.extend(_load_why(p))
    ids = [w.id for w in out]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise SpecError(f"why.toml: duplicate id(s) {', '.join(dup)}")
    names = [c.id for c in claims]
    for w in out:
        for pat in w.claims:
            if not any(fnmatch.fnmatchcase(n, pat) for n in names):
                raise SpecError(f"{w.source}: why {w.id}: claims: '{pat}' matches no claim")
    return out


def match_why(claim_id: str, whys: list[Why]) -> list[Why]:
    """The paragraphs that cover a claim, in file order."""
    return [w for w in whys if w.covers(claim_id)]


def unexplained(rows: list[tuple[str, str]], whys: list[Why]) -> list[str]:
    """Claim ids among ``rows`` (claim id, status) that are not reproduced and have no paragraph."""
    return [cid for cid, status in rows if status == NOT_REPRODUCED and not match_why(cid, whys)]
