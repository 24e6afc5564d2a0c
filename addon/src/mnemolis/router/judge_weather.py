"""The forecast's judge: is a weather condition true for the day and hours asked about?"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .condition_parser import ConditionPlan
from .judge_common import (
    NEGATION,
    Verdict,
    configured,
    fmt,
    maybe_await,
    num,
    parse_threshold,
)
from .text import normalize, tokens
from .vocabulary import WEEKDAYS

if TYPE_CHECKING:
    from ..hass.client import HAClient

# --- forecast ---------------------------------------------------------------------

RAIN_CONDITIONS = frozenset({"rainy", "pouring", "lightning-rainy", "snowy-rainy", "hail"})
SNOW_CONDITIONS = frozenset({"snowy", "snowy-rainy"})
STORM_CONDITIONS = frozenset({"lightning", "lightning-rainy", "exceptional", "hail"})
WIND_CONDITIONS = frozenset({"windy", "windy-variant"})
SUN_CONDITIONS = frozenset({"sunny", "clear-night"})
CLOUD_CONDITIONS = frozenset({"cloudy", "partlycloudy", "fog"})
RAIN_PROBABILITY = 50.0  # % at or above which rain counts as expected
WINDY_SPEED = 30.0  # wind speed (forecast unit, km/h by default) that counts as windy
HOT, WARM, COLD, FREEZING = 25.0, 20.0, 5.0, 0.0  # degrees, for hot/warm/cold/freezing

DAY_PARTS: dict[str, tuple[int, int]] = {
    "morning": (6, 12),
    "afternoon": (12, 18),
    "evening": (18, 23),
    "night": (22, 30),
    "tonight": (18, 30),
}


@dataclass(frozen=True, slots=True)
class When:
    """The day (and optional part of day) a condition talks about."""

    day: date
    label: str
    part: str | None = None


def resolve_when(text: str, now: datetime) -> When:
    """The day and part of day named in text (today when none is named)."""
    toks = tokens(normalize(text))
    today = now.date()
    day, label = today, "today"
    norm = " ".join(toks)
    ahead = re.search(r"\bin (\d{1,2}) days?\b", norm)
    if "day after tomorrow" in norm:
        day, label = today + timedelta(days=2), "the day after tomorrow"
    elif ahead:
        n = int(ahead.group(1))
        day, label = today + timedelta(days=n), f"in {n} days"
    elif "tomorrow" in toks:
        day, label = today + timedelta(days=1), "tomorrow"
    elif "weekend" in toks:
        delta = (5 - today.weekday()) % 7
        day, label = today + timedelta(days=delta), "Saturday"
    else:
        for i, name in enumerate(WEEKDAYS):
            if name in toks:
                delta = (i - today.weekday()) % 7
                if "next" in toks and delta == 0:
                    delta = 7
                day, label = today + timedelta(days=delta), name.capitalize()
                break
    part = None
    if day == today and ({"now", "currently"} & set(toks) or "at the moment" in norm):
        part = "now"
    elif "tonight" in toks:
        part = "tonight"
    else:
        for name in ("morning", "afternoon", "evening", "night"):
            if name in toks:
                part = name
                break
    return When(day=day, label=label, part=part)


def _as_datetime(value: Any, tz: tzinfo) -> datetime | None:
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz)
    return dt.astimezone(tz)


def resolve_tz(*candidates: Any) -> tzinfo:
    """First usable time zone among tzinfo objects and IANA names; UTC otherwise."""
    for cand in candidates:
        if isinstance(cand, tzinfo):
            return cand
        if isinstance(cand, str) and cand:
            try:
                return ZoneInfo(cand)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return ZoneInfo("UTC")


def _slice(items: Iterable[object], when: When, tz: tzinfo) -> list[dict[str, Any]]:
    """Hourly entries inside the named part of the named day."""
    lo, hi = DAY_PARTS[when.part or "morning"]
    start = datetime(when.day.year, when.day.month, when.day.day, tzinfo=tz) + timedelta(hours=lo)
    end = datetime(when.day.year, when.day.month, when.day.day, tzinfo=tz) + timedelta(hours=hi)
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        dt = _as_datetime(item.get("datetime"), tz)
        if dt is not None and start <= dt < end:
            out.append(item)
    return out


def _current_hour(items: Iterable[object], now: datetime, tz: tzinfo) -> list[dict[str, Any]]:
    """The hourly entry covering the present hour."""
    for item in items:
        if not isinstance(item, dict):
            continue
        dt = _as_datetime(item.get("datetime"), tz)
        if dt is not None and dt <= now < dt + timedelta(hours=1):
            return [item]
    return []


def describe_forecast(entries: list[dict[str, Any]], label: str) -> str:
    """One line of what the forecast says for a day or a part of one."""
    conditions = list(dict.fromkeys(str(e.get("condition")) for e in entries if e.get("condition")))
    bits = [", ".join(conditions)] if conditions else []
    probs = [p for p in (num(e.get("precipitation_probability")) for e in entries) if p is not None]
    if probs:
        bits.append(f"{fmt(max(probs))}% chance of precipitation")
    amounts = [p for p in (num(e.get("precipitation")) for e in entries) if p is not None]
    if amounts:
        bits.append(f"{fmt(round(sum(amounts), 1))} mm")
    highs = [t for t in (num(e.get("temperature")) for e in entries) if t is not None]
    lows = [t for t in (num(e.get("templow")) for e in entries) if t is not None] or highs
    if highs:
        bits.append(f"high {fmt(max(highs))}°")
    if lows:
        bits.append(f"low {fmt(min(lows))}°")
    winds = [w for w in (num(e.get("wind_speed")) for e in entries) if w is not None]
    if winds:
        bits.append(f"wind up to {fmt(max(winds))}")
    return f"Forecast for {label}: " + ("; ".join(bits) if bits else "no details")


def judge_weather(text: str, entries: list[dict[str, Any]]) -> tuple[bool | None, str]:
    """Judge a weather condition against forecast entries; None names what is missing."""
    norm = normalize(text)
    toks = set(tokens(norm))
    negated = bool(NEGATION.search(norm))
    conds = {str(e.get("condition")) for e in entries if e.get("condition")}
    probs = [p for p in (num(e.get("precipitation_probability")) for e in entries) if p is not None]
    amounts = [p for p in (num(e.get("precipitation")) for e in entries) if p is not None]
    highs = [t for t in (num(e.get("temperature")) for e in entries) if t is not None]
    lows = [t for t in (num(e.get("templow")) for e in entries) if t is not None] or highs
    winds = [w for w in (num(e.get("wind_speed")) for e in entries) if w is not None]
    threshold = parse_threshold(norm)
    verdict: bool | None
    rule: str
    if toks & {
        "rain",
        "rains",
        "raining",
        "rainy",
        "rained",
        "wet",
        "drizzle",
        "showers",
        "pours",
        "pouring",
        "umbrella",
        "precipitation",
        "dry",
    }:
        if not conds and not probs and not amounts:
            return None, "the forecast has no condition or precipitation for that time"
        verdict = (
            bool(conds & RAIN_CONDITIONS)
            or any(p >= RAIN_PROBABILITY for p in probs)
            or (not probs and any(a >= 0.5 for a in amounts))
        )
        rule = f"rain = a rainy condition or ≥ {fmt(RAIN_PROBABILITY)}% chance"
        if "dry" in toks:
            verdict = not verdict
    elif toks & {"snow", "snows", "snowing", "snowy", "sleet"}:
        if not conds:
            return None, "the forecast has no condition for that time"
        verdict, rule = bool(conds & SNOW_CONDITIONS), "snow = a snowy condition"
    elif toks & {"storm", "storms", "stormy", "thunder", "thunderstorm", "lightning", "hail"}:
        if not conds:
            return None, "the forecast has no condition for that time"
        verdict, rule = bool(conds & STORM_CONDITIONS), "storm = lightning, hail or exceptional"
    elif toks & {"wind", "winds", "windy", "gusts", "gusty", "blows"}:
        if threshold is not None and winds:
            verdict = threshold.test(max(winds) if threshold.greater else min(winds))
            rule = f"wind {threshold.phrase}"
        elif winds or conds:
            limit = WINDY_SPEED
            verdict = bool(conds & WIND_CONDITIONS) or any(w >= limit for w in winds)
            rule = f"windy = a windy condition or wind ≥ {fmt(limit)}"
        else:
            return None, "the forecast has no wind speed for that time"
    elif toks & {"sunny", "sun", "sunshine", "clear"}:
        if not conds:
            return None, "the forecast has no condition for that time"
        verdict, rule = bool(conds & SUN_CONDITIONS), "sunny = sunny or clear"
    elif toks & {"cloudy", "overcast", "fog", "foggy"}:
        if not conds:
            return None, "the forecast has no condition for that time"
        verdict, rule = bool(conds & CLOUD_CONDITIONS), "cloudy = cloudy, partly cloudy or fog"
    else:
        if not highs:
            return None, "the forecast has no temperature for that time"
        if threshold is not None:
            value = max(highs) if threshold.greater else min(lows)
            verdict, rule = threshold.test(value), f"temperature {threshold.phrase}"
        elif toks & {"freezing", "freezes", "frost"}:
            verdict, rule = min(lows) <= FREEZING, f"freezing = low ≤ {fmt(FREEZING)}°"
        elif toks & {"hot", "heatwave"}:
            verdict, rule = max(highs) >= HOT, f"hot = high ≥ {fmt(HOT)}°"
        elif toks & {"warm", "mild"}:
            verdict, rule = max(highs) >= WARM, f"warm = high ≥ {fmt(WARM)}°"
        elif toks & {"cold", "chilly"}:
            verdict, rule = min(lows) <= COLD, f"cold = low ≤ {fmt(COLD)}°"
        else:
            return None, "the condition names no weather the forecast can judge"
    if negated:
        verdict = not verdict
    return verdict, rule


async def evaluate_forecast(
    plan: ConditionPlan, forecast: Any, ha: HAClient | None, now: datetime
) -> Verdict:
    """Judge a weather condition against the forecast for the day and hours asked about."""
    if not configured(forecast):
        return Verdict(None, "forecast is not configured, so the weather is unknown", "forecast")
    ha_config = getattr(ha, "config", None) if ha is not None else None
    ha_tz = ha_config.get("time_zone") if isinstance(ha_config, dict) else None
    tz = resolve_tz(getattr(forecast, "timezone", None), ha_tz)
    local_now = now.astimezone(tz)
    when = resolve_when(f"{plan.text} {plan.consequent}", local_now)
    label = when.label + (f" {when.part}" if when.part and when.part != "tonight" else "")
    if when.part == "tonight":
        label = "tonight" if when.label == "today" else f"{when.label} night"
    entries: list[dict[str, Any]] = []
    if when.part is not None and callable(getattr(forecast, "hourly", None)):
        hourly = await maybe_await(forecast.hourly())
        if when.part == "now":
            entries = _current_hour(hourly or [], local_now, tz)
            label = "now"
        else:
            entries = _slice(hourly or [], when, tz)
    note = ""
    if not entries:
        day_entry = None
        if callable(getattr(forecast, "for_day", None)):
            day_entry = await maybe_await(forecast.for_day(when.day))
        elif callable(getattr(forecast, "daily", None)):
            for item in await maybe_await(forecast.daily()) or []:
                dt = _as_datetime(item.get("datetime") if isinstance(item, dict) else None, tz)
                if dt is not None and dt.date() == when.day:
                    day_entry = item
                    break
        if not isinstance(day_entry, dict):
            return Verdict(
                None,
                f"the forecast has no data for {when.label} ({when.day.isoformat()})",
                "forecast",
            )
        entries = [day_entry]
        if when.part is not None:
            span = "the current hour" if when.part == "now" else f"the {when.part}"
            note = f" (daily forecast; no hourly data for {span})"
    verdict, rule = judge_weather(plan.text, entries)
    described = describe_forecast(entries, f"{label}, {when.day.strftime('%a %d %b')}")
    if verdict is None:
        return Verdict(None, f"{described}{note}: {rule}", "forecast")
    return Verdict(verdict, f"{described}{note} ({rule})", "forecast")
