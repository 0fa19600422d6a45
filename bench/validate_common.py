"""Helpers shared by the cross-validation harnesses (bench/validate_ns3.py, bench/validate_ns2.py):
Jain's index, means with 95% Student-t intervals, the CPU's name, and VALIDATION.md's sections."""

from __future__ import annotations

import math
import platform
import statistics
from pathlib import Path

#: Headings (level 2) of the VALIDATION.md sections that other tools than validate_ns3.py write, in
#: file order; validate_ns3.py rewrites everything before the first of them and keeps the rest.
KEPT_SECTIONS = ["## airtcp vs ns-2.35", "## Sim vs kernel"]


def jain(xs: list[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²); 1 for all-zero allocations."""
    s = sum(xs)
    q = sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else 1.0


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (Student t; 0 for one sample)."""
    from scipy.stats import t

    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, 0.0
    return m, float(t.ppf(0.975, len(xs) - 1)) * statistics.stdev(xs) / math.sqrt(len(xs))


def cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def kept_sections(path: Path) -> str:
    """The sections of an existing VALIDATION.md written by other tools (from the first heading of
    KEPT_SECTIONS on), for validate_ns3.py to append to its regenerated part."""
    if not path.exists():
        return ""
    text = path.read_text()
    starts = [i for i in (text.find("\n" + h) for h in KEPT_SECTIONS) if i >= 0]
    return "\n" + text[min(starts) :].lstrip("\n") if starts else ""


def replace_section(path: Path, heading: str, body: str) -> None:
    """Writes `body` (which starts with the level-2 `heading`) in place of that section of `path`
    (up to the next level-2 heading), or, when the file has none, before the first later section of
    KEPT_SECTIONS, or at the end. The rest of the file is left as it is."""
    text = path.read_text() if path.exists() else ""
    body = body.rstrip("\n") + "\n"
    i = text.find("\n" + heading + "\n")
    if i >= 0:
        j = text.find("\n## ", i + 1)
        rest = text[j:] if j >= 0 else ""
        path.write_text(text[: i + 1] + body + rest)
        return
    later = KEPT_SECTIONS[KEPT_SECTIONS.index(heading) + 1 :] if heading in KEPT_SECTIONS else []
    starts = [k for k in (text.find("\n" + h) for h in later) if k >= 0]
    if starts:
        k = min(starts)
        path.write_text(text[: k + 1] + body + "\n" + text[k + 1 :])
    else:
        path.write_text(text.rstrip("\n") + ("\n\n" if text else "") + body)
