"""What an HA state means, per domain: is it "open", "on", "home"; and the sentence that says so.

Yes/no questions are answered by the polarity of the attribute that carries
the asked-about fact (a lock's state for "locked", a climate's hvac_action
for "heating"), never by words in the entity's name.
"""

from __future__ import annotations

from typing import Any

from .describe import BINARY_WORDS, SAID

# Predicates a question can ask about; each maps to its opposite (for "No, it is …").
OPPOSITE = {
    "on": "off",
    "off": "on",
    "open": "closed",
    "closed": "open",
    "locked": "unlocked",
    "unlocked": "locked",
    "home": "away",
    "away": "home",
    "playing": "not playing",
    "armed": "disarmed",
    "disarmed": "armed",
    "heating": "not heating",
    "cooling": "not cooling",
    "up": "down",
    "down": "up",
    "detected": "clear",
    "wet": "dry",
    "dry": "wet",
    "jammed": "not jammed",
    "running": "not running",
    "cleaning": "not cleaning",
    "docked": "not docked",
    "charging": "not charging",
    "triggered": "not triggered",
    "raining": "not raining",
    "available": "unavailable",
    "unavailable": "available",
    "paused": "not paused",
    "idle": "busy",
    "low": "normal",
    "armed_away": "not armed (away)",
    "armed_home": "not armed (home)",
    "armed_night": "not armed (night)",
    "armed_vacation": "not armed (vacation)",
    "returning": "not returning",
}
_OPEN_CLASSES = {"door", "garage_door", "window", "opening"}
_DETECT_CLASSES = {
    "motion",
    "occupancy",
    "presence",
    "smoke",
    "gas",
    "carbon_monoxide",
    "sound",
    "vibration",
    "moisture",
    "tamper",
    "problem",
    "safety",
    "light",
}
_ON_DOMAINS = {
    "light",
    "switch",
    "fan",
    "input_boolean",
    "humidifier",
    "siren",
    "remote",
    "automation",
    "script",
}
_ACTIVE_MEDIA = {"playing", "paused", "on", "idle", "buffering"}
_RAIN = {"rainy", "pouring", "lightning-rainy", "snowy-rainy"}


def _attrs(state: dict[str, Any]) -> dict[str, Any]:
    return state.get("attributes") or {}


def domain_of(state: dict[str, Any]) -> str:
    """``light`` for ``light.kitchen``."""
    return str(state.get("entity_id", "")).split(".", 1)[0]


def device_class(state: dict[str, Any]) -> str:
    """The device_class attribute, or ""."""
    return str(_attrs(state).get("device_class") or "")


def holds(state: dict[str, Any], predicate: str) -> bool | None:
    """Whether the entity is in the asked-about state; None when it does not apply to it."""
    raw = str(state.get("state", ""))
    if predicate == "available":
        return raw != "unavailable"
    if predicate == "unavailable":
        return raw == "unavailable"
    if raw in ("unavailable", "unknown"):
        return None  # nobody can tell
    if predicate == "disarmed":
        return raw == "disarmed" if domain_of(state) == "alarm_control_panel" else None
    if predicate in ("off", "closed", "away", "dry", "down", "unlocked"):
        positive = OPPOSITE[predicate]
        got = holds(state, positive)
        if predicate == "unlocked" and domain_of(state) == "lock":
            return raw in ("unlocked", "open", "opening", "unlocking")
        return None if got is None else not got
    domain = domain_of(state)
    dclass = device_class(state)
    attrs = _attrs(state)
    if predicate == "on":
        if domain in _ON_DOMAINS:
            return raw == "on"
        if domain == "binary_sensor":
            return raw == "on"
        if domain == "media_player":
            return raw in _ACTIVE_MEDIA
        if domain == "climate":
            return raw != "off"
        if domain in ("water_heater",):
            return raw != "off"
        if domain == "vacuum":
            return raw == "cleaning"
        if domain == "lawn_mower":
            return raw == "mowing"
        if domain == "alarm_control_panel":
            return raw.startswith("armed") or raw in ("triggered", "pending", "arming")
        return None
    if predicate == "open":
        if domain in ("cover", "valve"):
            return raw in ("open", "opening")
        if domain == "binary_sensor" and dclass in _OPEN_CLASSES:
            return raw == "on"
        if domain == "lock":
            return raw in ("open", "opening")
        return None
    if predicate == "locked":
        if domain == "lock":
            return raw == "locked"
        if domain == "binary_sensor" and dclass == "lock":
            return raw == "off"
        return None
    if predicate == "jammed":
        return raw == "jammed" if domain == "lock" else None
    if predicate == "home":
        if domain in ("person", "device_tracker"):
            return raw == "home"
        if domain == "binary_sensor" and dclass == "presence":
            return raw == "on"
        return None
    if predicate == "playing":
        return raw == "playing" if domain == "media_player" else None
    if predicate == "paused":
        return raw == "paused" if domain in ("media_player", "vacuum") else None
    if predicate == "idle":
        if domain == "climate":
            # What the device is doing, not its mode: a heating system at temperature idles.
            action = attrs.get("hvac_action")
            return str(action) in ("idle", "off") if action else raw == "off"
        if domain == "water_heater":
            return raw == "off"
        return raw == "idle" if domain in ("media_player", "vacuum") else None
    if predicate == "returning":
        return raw == "returning" if domain in ("vacuum", "lawn_mower") else None
    if predicate == "armed":
        return raw.startswith("armed") if domain == "alarm_control_panel" else None
    if predicate.startswith("armed_"):
        return raw == predicate if domain == "alarm_control_panel" else None
    if predicate == "triggered":
        if domain == "alarm_control_panel":
            return raw == "triggered"
        if domain == "binary_sensor":
            return raw == "on"
        return None
    if predicate in ("heating", "cooling"):
        if domain == "climate":
            action = attrs.get("hvac_action")
            if action:
                return str(action) == predicate
            return raw in (predicate[:4], "heat_cool", "auto") and raw != "off"
        if domain == "water_heater" and predicate == "heating":
            return raw != "off"
        return None
    if predicate == "up":
        if domain == "cover":
            return raw in ("open", "opening")  # blinds up are open, down are closed
        return raw == "above_horizon" if domain == "sun" else None
    if predicate == "detected":
        if domain == "binary_sensor" and (dclass in _DETECT_CLASSES or not dclass):
            return raw == "on"
        return None
    if predicate == "wet":
        return raw == "on" if domain == "binary_sensor" and dclass == "moisture" else None
    if predicate == "low":
        if domain == "binary_sensor" and dclass == "battery":
            return raw == "on"
        return None
    if predicate == "running":
        if domain in ("fan", "switch", "humidifier"):
            return raw == "on"
        if domain == "vacuum":
            return raw == "cleaning"
        if domain == "binary_sensor" and dclass == "running":
            return raw == "on"
        return None
    if predicate == "cleaning":
        return raw == "cleaning" if domain == "vacuum" else None
    if predicate == "docked":
        return raw == "docked" if domain == "vacuum" else None
    if predicate == "charging":
        if domain == "binary_sensor" and dclass == "battery_charging":
            return raw == "on"
        if domain == "vacuum":
            return raw == "docked"
        return None
    if predicate == "raining":
        return raw in _RAIN if domain == "weather" else None
    return None


def _applies(state: dict[str, Any], predicate: str) -> bool:
    """Whether the predicate can be asked of this entity at all (whatever its state)."""
    probe = dict(state)
    for raw in (
        "on", "open", "locked", "home", "playing", "armed_away", "above_horizon", "heat", "docked"
    ):  # fmt: skip
        probe["state"] = raw
        if holds(probe, predicate) is not None:
            return True
    return False


def applies(state: dict[str, Any], predicate: str) -> bool:
    """Whether a yes/no about this predicate makes sense for this entity."""
    return _applies(state, predicate)


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def temp_unit(state: dict[str, Any], default: str) -> str:
    """The temperature unit of a climate/water heater/weather state."""
    attrs = _attrs(state)
    return str(attrs.get("temperature_unit") or attrs.get("unit_of_measurement") or default)


def said(raw: str) -> str:
    """An HA state value said as a person says it."""
    return SAID.get(raw, raw.replace("_", " "))


def state_phrase(state: dict[str, Any], *, focus: str = "", temp: str = "°C") -> str:
    """What the entity is, as the words after "<name> is": "open at 70 %", "21.5 °C"."""
    domain = domain_of(state)
    raw = str(state.get("state", ""))
    attrs = _attrs(state)
    if raw in ("unavailable", "unknown"):
        return raw
    if domain == "binary_sensor":
        on, off = BINARY_WORDS.get(device_class(state), ("on", "off"))
        return on if raw == "on" else off if raw == "off" else raw
    if domain in ("person", "device_tracker"):
        if raw == "home":
            return "home"
        if raw == "not_home":
            return "away"
        return f"at {raw}"
    if domain == "sun":
        return "up" if raw == "above_horizon" else "down"
    if domain == "climate":
        return _climate(state, focus, temp)
    if domain == "water_heater":
        unit = temp_unit(state, temp)
        bits = [f"in {said(raw)} mode" if raw != "off" else "off"]
        if attrs.get("temperature") is not None:
            bits.append(f"set to {_num(attrs['temperature'])} {unit}")
        if attrs.get("current_temperature") is not None:
            bits.append(f"currently {_num(attrs['current_temperature'])} {unit}")
        return ", ".join(bits)
    if domain == "humidifier":
        bits = [raw]
        if attrs.get("humidity") is not None:
            bits.append(f"set to {_num(attrs['humidity'])} % humidity")
        if attrs.get("current_humidity") is not None:
            bits.append(f"currently {_num(attrs['current_humidity'])} %")
        if raw == "on" and attrs.get("mode"):
            bits.append(f"mode {attrs['mode']}")
        return ", ".join(bits)
    if domain in ("cover", "valve"):
        pos = attrs.get("current_position")
        if raw in ("open", "opening") and pos is not None and pos not in (0, 100):
            return f"{raw} at {pos} %"
        if focus == "position" and pos is not None:
            return f"{said(raw)} ({pos} % open)"
        return said(raw)
    if domain == "fan":
        pct = attrs.get("percentage")
        if raw == "on" and pct is not None:
            return f"on at {pct} % speed"
        return raw
    if domain == "light":
        bright = attrs.get("brightness")
        if raw == "on" and isinstance(bright, int | float) and focus == "brightness":
            return f"on at {round(bright / 2.55)} % brightness"
        return raw
    if domain == "media_player":
        return _media(state)
    if domain == "vacuum":
        battery = attrs.get("battery_level")
        text = said(raw)
        return f"{text}, battery {battery} %" if battery is not None else text
    if domain == "alarm_control_panel":
        return said(raw)
    if domain == "weather":
        unit = temp_unit(state, temp)
        t = attrs.get("temperature")
        text = said(raw)
        return f"{text}, {_num(t)} {unit}" if t is not None else text
    if domain == "lock":
        return said(raw)
    if domain in ("input_select", "select"):
        return raw
    if domain in ("input_datetime", "time") and len(raw) == 8 and raw[2] == ":" == raw[5]:
        return raw[:5] if raw.endswith(":00") else raw  # "06:45", as a clock says it
    if domain in ("input_text", "text"):
        if attrs.get("mode") == "password":
            return "set (a password is never read out)"
        return f"“{raw}”"
    if domain in ("input_button", "button", "event", "scene"):
        return f"last used {raw}"
    measured = attrs.get("unit_of_measurement")
    if measured:
        return f"{raw} {measured}"
    return said(raw)


def _climate(state: dict[str, Any], focus: str, temp: str) -> str:
    attrs = _attrs(state)
    raw = str(state.get("state", ""))
    unit = temp_unit(state, temp)
    target = attrs.get("temperature")
    low, high = attrs.get("target_temp_low"), attrs.get("target_temp_high")
    current = attrs.get("current_temperature")
    action = attrs.get("hvac_action")
    if target is not None:
        setpoint = f"set to {_num(target)} {unit}"
    elif low is not None and high is not None:
        setpoint = f"set to {_num(low)} to {_num(high)} {unit}"
    else:
        setpoint = ""
    mode = "off" if raw == "off" else f"in {said(raw)} mode"
    now = f"{_num(current)} {unit}" if current is not None else ""
    if focus == "current" and now:
        bits = [now]
        bits += [x for x in (setpoint, mode) if x]
        return f"{bits[0]} now" + (f" ({', '.join(bits[1:])})" if len(bits) > 1 else "")
    bits = [mode] if focus == "mode" or not setpoint else []
    if setpoint:
        bits.append(setpoint)
    if focus != "mode" and setpoint and raw != "off":
        bits.append(mode)
    if action and action not in ("off", raw):
        bits.append(f"currently {said(str(action))}")
    if now:
        bits.append(f"{now} now")
    return ", ".join(dict.fromkeys(bits))


def _media(state: dict[str, Any]) -> str:
    attrs = _attrs(state)
    raw = str(state.get("state", ""))
    title = attrs.get("media_title")
    artist = attrs.get("media_artist") or attrs.get("media_series_title")
    if raw in ("playing", "paused") and title:
        what = f"“{title}”" + (f" by {artist}" if artist and raw == "playing" else "")
        return f"{raw} {what}"
    return said(raw)
