"""Conditional questions: find the condition, then judge it against structured data.

The verdict is True, False or None; None always comes with the reason it could not
be decided (source not configured, no forecast for that day, no such entity...).
It is never a guess.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from .condition_parser import ConditionPlan, condition_kind, parse_condition
from .judge_common import Verdict, configured, maybe_await
from .judge_ha import judge_ha
from .judge_uptime import judge_monitor
from .judge_weather import evaluate_forecast, judge_weather, resolve_when

if TYPE_CHECKING:
    from ..hass.client import HAClient

__all__ = [
    "ConditionPlan",
    "Verdict",
    "condition_kind",
    "evaluate",
    "judge_ha",
    "judge_monitor",
    "judge_weather",
    "parse_condition",
    "resolve_when",
]

# --- the evaluator ------------------------------------------------------------------


async def evaluate(
    plan: ConditionPlan,
    sources: dict[str, Any],
    ha: HAClient | None,
    now: datetime,
) -> Verdict:
    """Judge a condition against the source its kind names; never guesses."""
    if plan.kind == "forecast":
        return await evaluate_forecast(plan, sources.get("forecast"), ha, now)
    if plan.kind == "uptime":
        uptime = sources.get("uptime")
        if configured(uptime) and callable(getattr(uptime, "monitors", None)):
            monitors = await maybe_await(uptime.monitors())  # type: ignore[union-attr]
            verdict, evidence = judge_monitor(list(monitors or []), plan.text)
            if verdict is not None or "no monitor matches" not in evidence:
                return Verdict(verdict, evidence, "uptime")
        if ha is not None:
            verdict, evidence = await judge_ha(
                ha, plan.text.replace(" down", " off").replace(" up", " on")
            )
            if verdict is not None:
                return Verdict(verdict, evidence, "ha")
        if not configured(uptime):
            return Verdict(
                None, "uptime is not configured, so monitor states are unknown", "uptime"
            )
        return Verdict(None, f"no monitor matches “{plan.text}”", "uptime")
    ha_source = sources.get("ha")
    if ha is None or (ha_source is not None and not configured(ha_source)):
        return Verdict(None, "Home Assistant is not configured, so its states are unknown", "ha")
    verdict, evidence = await judge_ha(ha, plan.text, ha_source, now)
    return Verdict(verdict, evidence, "ha")
