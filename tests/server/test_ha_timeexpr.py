"""Time expressions in questions, relative to HA's local time."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from mnemolis.hass.timeexpr import day_of, part_of_day, past_window, week_range

TZ = ZoneInfo("Europe/Amsterdam")
NOW = datetime(2026, 11, 28, 15, 40, tzinfo=TZ)  # a Saturday afternoon
TODAY = NOW.date()


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("weather tomorrow", TODAY + timedelta(days=1)),
        ("and the day after tomorrow?", TODAY + timedelta(days=2)),
        ("what about today", TODAY),
        ("will it rain tonight", TODAY),
        ("forecast for Monday", date(2026, 11, 30)),
        ("on saturday", TODAY),
        ("next Saturday", TODAY + timedelta(days=7)),
        ("in 3 days", TODAY + timedelta(days=3)),
        ("weather on 2026-12-24", date(2026, 12, 24)),
        ("what is the weather", None),
    ],
)
def test_day_of(question: str, expected: date | None) -> None:
    assert day_of(question, TODAY) == expected


def test_parts_of_day_and_weeks() -> None:
    assert part_of_day("rain this evening?") == ("evening", 18, 23)
    assert part_of_day("tomorrow morning") == ("morning", 6, 12)
    assert part_of_day("tomorrow") is None
    assert week_range("will it rain this week", TODAY) == (TODAY, TODAY + timedelta(days=6))
    # Saturday: the weekend is today and tomorrow.
    assert week_range("snow this weekend?", TODAY) == (TODAY, TODAY + timedelta(days=1))


@pytest.mark.parametrize(
    ("question", "start", "end", "label"),
    [
        ("what changed in the last 3 hours", NOW - timedelta(hours=3), NOW, "the last 3 hours"),
        ("anything in the past hour?", NOW - timedelta(hours=1), NOW, "the last hour"),
        ("last 30 minutes", NOW - timedelta(minutes=30), NOW, "the last 30 minutes"),
        ("since this morning", NOW.replace(hour=6, minute=0), NOW, "since this morning"),
        ("since 2pm", NOW.replace(hour=14, minute=0), NOW, "since 14:00"),
        ("since 9:30", NOW.replace(hour=9, minute=30), NOW, "since 09:30"),
        (
            "since 18:00",
            NOW.replace(hour=18, minute=0) - timedelta(days=1),
            NOW,
            "since 18:00",
        ),
        (
            "what happened yesterday",
            NOW.replace(hour=0, minute=0) - timedelta(days=1),
            NOW.replace(hour=0, minute=0),
            "yesterday",
        ),
        ("today", NOW.replace(hour=0, minute=0), NOW, "today"),
        (
            "overnight",
            NOW.replace(hour=0, minute=0) - timedelta(hours=2),
            NOW.replace(hour=7, minute=0),
            "overnight",
        ),
        ("this week", NOW.replace(hour=0, minute=0) - timedelta(days=5), NOW, "this week"),
    ],
)
def test_past_window(question: str, start: datetime, end: datetime, label: str) -> None:
    window = past_window(question, NOW)
    assert window is not None
    assert (window.start, window.end, window.label) == (start, end, label)


def test_no_window() -> None:
    assert past_window("what changed?", NOW) is None
