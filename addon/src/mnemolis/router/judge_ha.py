"""Home Assistant's judge: is a condition on entity states (open, on, home, above 25) true?"""

from __future__ import annotations

import inspect
import re
from typing import Any

from rapidfuzz import fuzz, process

from .judge_common import (
    COMPARATOR,
    Threshold,
    fmt,
    num,
    parse_threshold,
)
from .text import normalize

# --- Home Assistant states -----------------------------------------------------------

_STATE_WORDS: dict[str, tuple[str, bool]] = {
    # word -> (family, desired truth)
    "open": ("open", True),
    "opened": ("open", True),
    "opens": ("open", True),
    "closed": ("open", False),
    "shut": ("open", False),
    "closes": ("open", False),
    "on": ("on", True),
    "off": ("on", False),
    "running": ("on", True),
    "playing": ("on", True),
    "locked": ("locked", True),
    "unlocked": ("locked", False),
    "home": ("home", True),
    "away": ("home", False),
    "out": ("home", False),
}
_DOMAINS: dict[str, list[str]] = {
    "open": ["cover", "binary_sensor", "input_boolean", "switch", "valve", "lock"],
    "on": [
        "light",
        "switch",
        "fan",
        "input_boolean",
        "binary_sensor",
        "media_player",
        "climate",
        "automation",
        "siren",
        "humidifier",
        "vacuum",
        "remote",
    ],
    "locked": ["lock", "input_boolean", "binary_sensor"],
    "home": ["person", "device_tracker", "binary_sensor", "input_boolean"],
    "numeric": ["sensor", "input_number", "number", "climate", "weather"],
}
_STATE_RE = re.compile(
    r"^(?P<subj>.+?)\s+(?:is|are|was|gets|get|goes|go|becomes|stays|remains|has been|"
    r"have been|is still|are still|is left|are left|was left|gets left)?\s*(?P<neg>not\s+)?"
    r"(?P<state>open|opened|opens|closed|shut|closes|on|off|locked|unlocked|running|playing|"
    r"home|at home|away|out)\b",
    re.IGNORECASE,
)
_NUMERIC_RE = re.compile(
    r"^(?P<subj>.+?)\s+(?:is|are|gets|goes|rises|drops|falls|reads)?\s*"
    r"(?:still\s+)?(?P<cmp>" + COMPARATOR.pattern + ")",
    re.IGNORECASE,
)
_UNAVAILABLE = frozenset({"unavailable", "unknown", "none", ""})
_OPEN_STATES = frozenset({"open", "opening", "on", "unlocked"})
_ON_OFF_STATES = frozenset({"off", "idle", "standby", "paused", "closed", "docked", "not_home"})


def _personal(subject: str) -> bool:
    """ "I get", "we leave": the asker, not an entity of the home."""
    first = subject.split()[0].lower() if subject.split() else ""
    return first in ("i", "we", "you", "me", "us", "i'm", "we're")


def subject_of(text: str) -> str:
    toks = [t for t in text.strip().split() if t.lower() not in ("the", "my", "our", "a", "an")]
    return " ".join(toks).strip(" ,?.!")


def _state_name(state: dict[str, Any]) -> str:
    attrs = state.get("attributes") or {}
    name = attrs.get("friendly_name") if isinstance(attrs, dict) else None
    return str(name or state.get("entity_id", "?"))


def _states_of(ha: Any) -> dict[str, dict[str, Any]]:
    states = getattr(ha, "states", None)
    if callable(states):
        states = states()
    return states if isinstance(states, dict) else {}


async def find_entity(ha: Any, subject: str, domains: list[str]) -> tuple[str | None, str]:
    """The entity a subject names: (entity_id, "") or (None, why not)."""
    states = _states_of(ha)
    matcher = getattr(ha, "match_entities", None)
    if callable(matcher):
        for doms in (domains, None):
            try:
                found = matcher(subject, domains=doms, limit=3)
                if inspect.isawaitable(found):
                    found = await found
            except Exception:  # the matcher is a convenience; fall back to our own
                found = []
            matches = [m for m in (found or []) if getattr(m, "entity_id", None)]
            if matches:
                best = matches[0]
                if len(matches) > 1 and _close(best, matches[1]):
                    return None, _ambiguous(subject, [best.entity_id, matches[1].entity_id], states)
                return str(best.entity_id), ""
    if not states:
        return None, "Home Assistant has no states loaded"
    return _fuzzy_entity(subject, states, domains)


def _close(a: Any, b: Any) -> bool:
    sa, sb = getattr(a, "score", None), getattr(b, "score", None)
    if not isinstance(sa, int | float) or not isinstance(sb, int | float):
        return False
    return abs(float(sa) - float(sb)) < 1.0 and a.entity_id != b.entity_id


def _ambiguous(subject: str, ids: list[str], states: dict[str, dict[str, Any]]) -> str:
    names = [_state_name(states.get(i, {"entity_id": i})) for i in ids]
    return f"“{subject}” could be {' or '.join(names)}; name it more precisely"


def _fuzzy_entity(
    subject: str, states: dict[str, dict[str, Any]], domains: list[str]
) -> tuple[str | None, str]:
    choices: dict[str, str] = {}
    for entity_id, state in states.items():
        if domains and entity_id.split(".", 1)[0] not in domains:
            continue
        choices[entity_id] = normalize(_state_name(state))
        choices[entity_id + "#id"] = entity_id.split(".", 1)[-1].replace("_", " ")
    if not choices:
        return None, f"no {'/'.join(domains)} entity in Home Assistant"
    found = process.extract(
        normalize(subject), choices, scorer=fuzz.WRatio, limit=4, score_cutoff=80
    )
    best: dict[str, float] = {}
    for _choice, sc, key in found:
        ent = key.removesuffix("#id")
        best[ent] = max(best.get(ent, 0.0), sc)
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    if not ranked:
        return None, f"no Home Assistant entity matches “{subject}”"
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] < 1.0:
        return None, _ambiguous(subject, [ranked[0][0], ranked[1][0]], states)
    return ranked[0][0], ""


def _is_open(state: dict[str, Any]) -> bool:
    return str(state.get("state", "")).lower() in _OPEN_STATES


def _is_on(state: dict[str, Any]) -> bool:
    return str(state.get("state", "")).lower() not in _ON_OFF_STATES


async def judge_ha(ha: Any, text: str) -> tuple[bool | None, str]:
    """Judge "the garage door is open", "nobody is home", "the lounge is above 25"."""
    states = _states_of(ha)
    norm = normalize(text)
    people = _people_condition(norm)
    if people is not None:
        return _judge_people(states, *people)
    m = _NUMERIC_RE.match(text.strip())
    if m:
        threshold = parse_threshold(m.group("cmp"))
        subject = subject_of(m.group("subj"))
        if threshold is not None:
            return await _judge_numeric(ha, states, subject, threshold)
    m = _STATE_RE.match(text.strip())
    if not m:
        return (
            None,
            "the condition names no state Home Assistant can check "
            "(open/closed, on/off, locked/unlocked, home/away or a number)",
        )
    subject = subject_of(m.group("subj"))
    if _personal(subject):
        return None, f"“{text}” is about you, and no data says that ahead of time"
    word = m.group("state").lower().replace("at home", "home")
    family, wanted = _STATE_WORDS[word]
    if m.group("neg"):
        wanted = not wanted
    entity_id, why = await find_entity(ha, subject, _DOMAINS[family])
    if entity_id is None:
        return None, why
    state = states.get(entity_id)
    if not isinstance(state, dict):
        return None, f"{entity_id} has no state yet"
    value = str(state.get("state", "")).lower()
    name = _state_name(state)
    if value in _UNAVAILABLE:
        return None, f"{name} ({entity_id}) is {value or 'unknown'}"
    if family == "open":
        actual = _is_open(state)
    elif family == "locked":
        if entity_id.startswith("lock."):
            if value not in ("locked", "unlocked"):
                return None, f"{name} is {value}"
            actual = value == "locked"
        else:
            actual = value == "on"
    elif family == "home":
        actual = value == "home" or (value == "on" and not entity_id.startswith("person."))
    else:
        actual = _is_on(state)
    return actual == wanted, f"{name} ({entity_id}) is {value}"


def _people_condition(norm: str) -> tuple[str, bool] | None:
    if re.search(r"\b(?:nobody|no one|noone|no-one)\b.*\b(?:is )?(?:home|at home|in)\b", norm):
        return "nobody", True
    if re.search(r"\b(?:everyone|everybody)\b.*\b(?:home|at home|out|away)\b", norm):
        return ("everyone_away" if re.search(r"\b(?:out|away|gone)\b", norm) else "everyone"), True
    if re.search(r"\b(?:anyone|anybody|someone|somebody)\b.*\b(?:home|at home|in)\b", norm):
        return "anyone", True
    return None


def _judge_people(states: dict[str, dict[str, Any]], who: str, _: bool) -> tuple[bool | None, str]:
    persons = {k: v for k, v in states.items() if k.startswith("person.") and isinstance(v, dict)}
    if not persons:
        return None, "Home Assistant has no person entities"
    home = [_state_name(v) for v in persons.values() if str(v.get("state")) == "home"]
    away = [_state_name(v) for v in persons.values() if str(v.get("state")) != "home"]
    evidence = f"home: {', '.join(home) or 'nobody'}; away: {', '.join(away) or 'nobody'}"
    if who == "nobody":
        return not home, evidence
    if who == "anyone":
        return bool(home), evidence
    if who == "everyone_away":
        return not home, evidence
    return not away, evidence


async def _judge_numeric(
    ha: Any, states: dict[str, dict[str, Any]], subject: str, threshold: Threshold
) -> tuple[bool | None, str]:
    entity_id, why = await find_entity(ha, subject, _DOMAINS["numeric"])
    if entity_id is None:
        return None, why
    state = states.get(entity_id) or {}
    attrs = state.get("attributes") or {}
    raw: Any = state.get("state")
    if entity_id.startswith(("climate.", "weather.")) and isinstance(attrs, dict):
        raw = attrs.get("current_temperature", attrs.get("temperature"))
    value = num(raw)
    name = _state_name(state) if state else entity_id
    if value is None:
        return None, f"{name} ({entity_id}) is {raw!s}, not a number"
    unit = attrs.get("unit_of_measurement", "") if isinstance(attrs, dict) else ""
    return threshold.test(
        value
    ), f"{name} ({entity_id}) is {fmt(value)}{unit}; condition: {threshold.phrase}"
