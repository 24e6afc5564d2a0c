"""Turning HA states and timestamps into words a person reads or hears."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import Any

# binary_sensor device classes: (word for "on", word for "off").
BINARY_WORDS: dict[str, tuple[str, str]] = {
    "door": ("open", "closed"),
    "garage_door": ("open", "closed"),
    "window": ("open", "closed"),
    "opening": ("open", "closed"),
    "lock": ("unlocked", "locked"),
    "motion": ("detecting motion", "clear"),
    "occupancy": ("occupied", "clear"),
    "presence": ("home", "away"),
    "moisture": ("wet", "dry"),
    "smoke": ("detecting smoke", "clear"),
    "gas": ("detecting gas", "clear"),
    "carbon_monoxide": ("detecting carbon monoxide", "clear"),
    "safety": ("unsafe", "safe"),
    "problem": ("reporting a problem", "OK"),
    "battery": ("low", "normal"),
    "battery_charging": ("charging", "not charging"),
    "connectivity": ("connected", "disconnected"),
    "plug": ("plugged in", "unplugged"),
    "power": ("powered", "not powered"),
    "running": ("running", "not running"),
    "heat": ("hot", "normal"),
    "cold": ("cold", "normal"),
    "light": ("detecting light", "dark"),
    "moving": ("moving", "still"),
    "sound": ("detecting sound", "quiet"),
    "vibration": ("vibrating", "still"),
    "tamper": ("tampered", "clear"),
    "update": ("update available", "up to date"),
}
STATE_WORDS = {"not_home": "away", "unavailable": "unavailable", "unknown": "unknown"}
# States HA writes with underscores, said the way a person says them.
SAID = {
    "above_horizon": "up",
    "below_horizon": "down",
    "armed_away": "armed (away)",
    "armed_home": "armed (home)",
    "armed_night": "armed (night)",
    "armed_vacation": "armed (vacation)",
    "armed_custom_bypass": "armed (custom bypass)",
    "heat_cool": "heat/cool",
    "fan_only": "fan only",
    "not_home": "away",
    "partlycloudy": "partly cloudy",
    "clear-night": "clear",
    "lightning-rainy": "stormy with rain",
    "snowy-rainy": "sleet",
    "windy-variant": "windy and cloudy",
    "heat_pump": "heat pump",
    "high_demand": "high demand",
    "returning": "returning to the dock",
}


def state_word(state: dict[str, Any]) -> str:
    """The state as a word or value with unit: "open", "21.5 °C", "away"."""
    entity_id = str(state.get("entity_id", ""))
    domain = entity_id.split(".", 1)[0]
    raw = str(state.get("state", ""))
    attrs = state.get("attributes") or {}
    if raw in ("unavailable", "unknown"):
        return raw
    if domain == "binary_sensor":
        on, off = BINARY_WORDS.get(str(attrs.get("device_class") or ""), ("on", "off"))
        return on if raw == "on" else off if raw == "off" else raw
    if domain in ("person", "device_tracker"):
        return STATE_WORDS.get(raw, raw)
    if domain == "zone" and raw.isdigit():
        return f"{raw} {'person' if raw == '1' else 'people'} there"
    if domain == "climate":
        current = attrs.get("current_temperature")
        target = attrs.get("temperature")
        extra = []
        if current is not None:
            extra.append(f"currently {current}")
        if target is not None:
            extra.append(f"set to {target}")
        return raw + (f" ({', '.join(extra)})" if extra else "")
    if domain == "cover" and attrs.get("current_position") is not None:
        return f"{raw} ({attrs['current_position']} %)"
    if domain == "weather":
        unit = attrs.get("temperature_unit") or ""
        temp = attrs.get("temperature")
        return f"{raw}, {temp} {unit}".strip() if temp is not None else raw
    if domain == "media_player" and attrs.get("media_title"):
        return f"{raw} ({attrs['media_title']})"
    unit = attrs.get("unit_of_measurement")
    if unit:
        return f"{raw} {unit}"
    return STATE_WORDS.get(raw, raw)


def parse_time(value: str | float | datetime | None) -> datetime | None:
    """An aware datetime from an ISO string, epoch seconds or datetime."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value
    if isinstance(value, int | float):
        return datetime.fromtimestamp(float(value), UTC)
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None


def when(value: str | float | datetime | None, tz: tzinfo, now: datetime) -> str:
    """Say when, in HA's zone: "today at 14:32", "yesterday at 09:10", "on Sat 28 Nov at 10:00"."""
    moment = parse_time(value)
    if moment is None:
        return "at an unknown time"
    local = moment.astimezone(tz)
    today = now.astimezone(tz).date()
    clock = local.strftime("%H:%M")
    days = (today - local.date()).days
    if days == 0:
        return f"today at {clock}"
    if days == 1:
        return f"yesterday at {clock}"
    if days == -1:
        return f"tomorrow at {clock}"
    return f"on {local.strftime('%a')} {local.day} {local.strftime('%b')} at {clock}"


def ago(value: str | float | datetime | None, now: datetime) -> str:
    """How long ago: "5 minutes ago", "3 hours ago", "2 days ago"."""
    moment = parse_time(value)
    if moment is None:
        return ""
    seconds = max(0.0, (now - moment).total_seconds())
    if seconds < 60:
        return "just now"
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'' if n == 1 else 's'} ago"
    return "just now"
