"""Time expressions in questions ("tomorrow", "on Saturday", "in the last 3 hours")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY_RE = re.compile(
    r"\b(?:(next|this|coming|on)\s+)?(" + "|".join(WEEKDAYS) + r")s?\b", re.IGNORECASE
)
PARTS_OF_DAY: dict[str, tuple[int, int]] = {
    "morning": (6, 12),
    "afternoon": (12, 18),
    "evening": (18, 23),
    "tonight": (18, 24),
    "night": (22, 30),
}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "few": 3,
    "couple of": 2,
}
_UNIT_SECONDS = {"minute": 60, "min": 60, "hour": 3600, "hr": 3600, "day": 86400, "week": 604800}
_LAST_N = re.compile(
    r"\b(?:in|over|during|for|within)?\s*(?:the\s+)?(?:last|past|previous)\s+"
    r"(?:(\d+(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|few|"
    r"couple of)\s+)?(minute|min|hour|hr|day|week)s?\b",
    re.IGNORECASE,
)
_SINCE_CLOCK = re.compile(
    r"\bsince\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?", re.IGNORECASE
)
_IN_DAYS = re.compile(r"\bin\s+(\d+|two|three|four|five|six|seven)\s+days?\b", re.IGNORECASE)


def _number(raw: str | None) -> float:
    if raw is None:
        return 1.0
    raw = raw.lower()
    if raw in _NUMBERS:
        return float(_NUMBERS[raw])
    return float(raw)


def day_of(text: str, today: date) -> date | None:
    """The day a question asks about, relative to ``today`` (HA's local date)."""
    lowered = text.lower()
    if "day after tomorrow" in lowered:
        return today + timedelta(days=2)
    if re.search(r"\btomorrow\b", lowered):
        return today + timedelta(days=1)
    if re.search(r"\b(today|tonight|this (morning|afternoon|evening))\b", lowered):
        return today
    if m := _IN_DAYS.search(lowered):
        return today + timedelta(days=int(_number(m.group(1))))
    if m := re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", lowered):
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return None
    if m := _WEEKDAY_RE.search(lowered):
        target = WEEKDAYS.index(m.group(2).lower())
        delta = (target - today.weekday()) % 7
        if m.group(1) and m.group(1).lower() == "next" and delta == 0:
            delta = 7
        return today + timedelta(days=delta)
    return None


def part_of_day(text: str) -> tuple[str, int, int] | None:
    """("evening", 18, 23) when the question names a part of the day."""
    lowered = text.lower()
    for name, (start, end) in PARTS_OF_DAY.items():
        if re.search(rf"\b{name}\b", lowered):
            return name, start, end
    return None


def week_range(text: str, today: date) -> tuple[date, date] | None:
    """The span of days for "this week", "the next days", "this weekend"."""
    lowered = text.lower()
    if re.search(r"\b(this|the)\s+weekend\b|\bweekend\b", lowered):
        saturday = today + timedelta(days=(5 - today.weekday()) % 7)
        if today.weekday() == 6:
            saturday = today - timedelta(days=1)
        return max(saturday, today), saturday + timedelta(days=1)
    if re.search(r"\b(this|the|coming|next)\s+(week|few days|days)\b|\bweek ahead\b", lowered):
        return today, today + timedelta(days=6)
    return None


@dataclass(slots=True, frozen=True)
class Window:
    """A span of past time a question asks about, with how to say it."""

    start: datetime
    end: datetime
    label: str


def past_window(text: str, now: datetime) -> Window | None:
    """The past span a "what changed ..." question names; ``now`` is HA-local and aware."""
    lowered = text.lower()
    tz = now.tzinfo
    midnight = datetime.combine(now.date(), time(0), tz)
    if m := _LAST_N.search(lowered):
        amount = _number(m.group(1))
        unit = m.group(2).lower()
        seconds = amount * _UNIT_SECONDS[unit]
        word = {"min": "minute", "hr": "hour"}.get(unit, unit)
        label = f"the last {amount:g} {word}{'' if amount == 1 else 's'}"
        if m.group(1) is None or m.group(1).lower() in ("a", "an", "one"):
            label = f"the last {word}"
        return Window(now - timedelta(seconds=seconds), now, label)
    if m := _SINCE_CLOCK.search(lowered):
        hour, minute = int(m.group(1)), int(m.group(2) or 0)
        suffix = (m.group(3) or "").replace(".", "").lower()
        if suffix == "pm" and hour < 12:
            hour += 12
        elif suffix == "am" and hour == 12:
            hour = 0
        if hour < 24 and minute < 60:
            start = midnight.replace(hour=hour, minute=minute)
            if start > now:
                start -= timedelta(days=1)
            return Window(start, now, f"since {start:%H:%M}")
    if re.search(r"\bsince (this )?morning\b|\bthis morning\b", lowered):
        start = midnight.replace(hour=6)
        if start > now:
            start = midnight
        return Window(start, now, "since this morning")
    if re.search(r"\b(last night|overnight)\b", lowered):
        start = midnight - timedelta(hours=2)
        return Window(start, min(now, midnight.replace(hour=7)), "overnight")
    if re.search(r"\bsince yesterday\b", lowered):
        return Window(midnight - timedelta(days=1), now, "since yesterday")
    if re.search(r"\byesterday\b", lowered):
        return Window(midnight - timedelta(days=1), midnight, "yesterday")
    if re.search(r"\b(today|since midnight)\b", lowered):
        return Window(midnight, now, "today")
    if re.search(r"\bthis week\b|\bsince monday\b", lowered):
        return Window(midnight - timedelta(days=now.weekday()), now, "this week")
    if re.search(r"\bthis (afternoon|evening)\b", lowered):
        hour = 12 if "afternoon" in lowered else 18
        start = midnight.replace(hour=hour)
        if start <= now:
            return Window(start, now, f"since {start:%H:%M}")
    return None
