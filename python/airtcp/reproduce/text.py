"""The words and numbers every output of ``airtcp reproduce`` shares: the claim statuses (see
``claims``) and the number formats. It imports nothing of the package, so that ``claims`` (which
assigns a status and writes numbers into its details), ``why`` (which looks for the rows not
reproduced) and ``report`` (which prints all of them) depend on it rather than on each other.
"""

from __future__ import annotations

import math
from typing import Optional

__all__ = ["REPRODUCED", "SAME_DIRECTION", "INCONCLUSIVE", "NOT_REPRODUCED", "NOT_RUN", "fmt", "fmt_pm"]

REPRODUCED = "reproduced"
SAME_DIRECTION = "same direction, different size"
INCONCLUSIVE = "inconclusive"
NOT_REPRODUCED = "not reproduced"
NOT_RUN = "not run"


def fmt(x: Optional[float]) -> str:
    """Four significant digits (no exponent for ordinary magnitudes); "—" for a missing value."""
    if x is None or not math.isfinite(x):
        return "—"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if -4 <= mag < 6:
        decimals = max(0, 3 - mag)
        return f"{x:.{decimals}f}"
    return f"{x:.3e}"


def fmt_pm(mean: float, ci: float, percent: bool = False) -> str:
    """``mean ± ci`` (``ci`` below 1e-9 of the mean is rounding noise and shows as 0); with
    ``percent`` a fraction is shown in percent with a sign, as the papers write gains."""
    if math.isfinite(ci) and math.isfinite(mean) and ci < 1e-9 * abs(mean):
        ci = 0.0
    if percent:
        if not math.isfinite(mean):
            return "—"
        s = f"{100 * mean:+.1f}%"
        return s if not math.isfinite(ci) else f"{s} ± {100 * ci:.1f}%"
    return fmt(mean) if not math.isfinite(ci) else f"{fmt(mean)} ± {fmt(ci)}"
