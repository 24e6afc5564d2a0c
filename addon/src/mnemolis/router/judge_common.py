"""What every condition judge shares: the verdict and numeric thresholds."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Any

# --- evaluation helpers -----------------------------------------------------------------


@dataclass(slots=True)
class Verdict:
    """A judged condition: True/False/None and the evidence (or the reason for None)."""

    verdict: bool | None
    evidence: str
    source: str


NEGATION = re.compile(r"\b(?:not|no|never)\b")
COMPARATOR = re.compile(
    r"(?P<op>above|over|more than|higher than|greater than|warmer than|hotter than|exceeds?|"
    r"at least|below|under|less than|lower than|colder than|cooler than|at most|>=|<=|>|<)"
    r"\s*(?P<num>-?\d+(?:[.,]\d+)?|zero|freezing)",
    re.IGNORECASE,
)
_GREATER = (
    "above",
    "over",
    "more than",
    "higher than",
    "greater than",
    "warmer than",
    "hotter than",
    "exceed",
    "exceeds",
    "at least",
    ">=",
    ">",
)


@dataclass(frozen=True, slots=True)
class Threshold:
    """A numeric comparison named in a condition ("above 25 degrees")."""

    greater: bool
    value: float
    inclusive: bool
    phrase: str

    def test(self, x: float) -> bool:
        """Whether x satisfies the comparison."""
        if self.greater:
            return x >= self.value if self.inclusive else x > self.value
        return x <= self.value if self.inclusive else x < self.value


def parse_threshold(text: str) -> Threshold | None:
    """The first numeric comparison in the text, if any."""
    m = COMPARATOR.search(text)
    if not m:
        return None
    op = m.group("op").lower()
    raw = m.group("num").lower().replace(",", ".")
    value = 0.0 if raw in ("zero", "freezing") else float(raw)
    return Threshold(
        greater=op in _GREATER,
        value=value,
        inclusive=op in ("at least", "at most", ">=", "<="),
        phrase=m.group(0),
    )


def fmt(x: float) -> str:
    return f"{x:g}"


def num(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def configured(source: Any) -> bool:
    """True when a source exists and is configured."""
    return source is not None and bool(getattr(source, "configured", False))


async def maybe_await(value: Any) -> Any:
    """The value, awaited when a provider returned an awaitable."""
    if inspect.isawaitable(value):
        return await value
    return value
