"""Home Assistant's judge: does a condition on the home hold ("the garage door is open")?

A condition is decided as the yes/no question it amounts to ("is the garage door
open?", see condition_parser.as_question) and by the same reading of the home as
that question: the ``ha`` source's own verdict when it runs here, so a condition
and a question agree on the entity, its exposure and the polarity of every
domain's states (armed, heating, jammed, docked, playing, up, above 25 °C …).
With only a client (the documented ``states`` + ``match_entities`` interface) the
state words of mnemolis.hass.question and the polarity rules of mnemolis.hass.facts
decide it.
"""

from __future__ import annotations

import inspect
import re
from datetime import datetime
from typing import Any

from rapidfuzz import fuzz, process

from ..hass.facts import OPPOSITE, applies, holds, state_phrase
from ..hass.question import parse
from .condition_parser import as_question
from .judge_common import (
    COMPARATOR,
    Threshold,
    configured,
    fmt,
    num,
    parse_threshold,
)
from .text import normalize

# --- Home Assistant states -----------------------------------------------------------

_NUMERIC_DOMAINS = ["sensor", "input_number", "number", "climate", "weather", "water_heater"]
_NUMERIC_RE = re.compile(
    r"^(?P<subj>.+?)\s+(?:is|are|gets|goes|rises|drops|falls|reads|climbs)?\s*"
    r"(?:still\s+)?(?P<cmp>" + COMPARATOR.pattern + ")",
    re.IGNORECASE,
)
_UNAVAILABLE = frozenset({"unavailable", "unknown", "none", ""})
_LEADING_AUX = re.compile(r"^(?:is|are|was|were)\s+", re.IGNORECASE)
_NO_STATE = (
    "the condition names no state Home Assistant can check (open/closed, on/off, "
    "locked/unlocked/jammed, home/away, armed/disarmed/triggered, heating/cooling, "
    "playing/paused, up/down, detected, wet, docked/cleaning or a number)"
)


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


async def judge_ha(
    ha: Any, text: str, source: Any = None, now: datetime | None = None
) -> tuple[bool | None, str]:
    """Judge "the garage door is open", "nobody is home", "the lounge is above 25"."""
    # A helper named for the condition itself ("Garage door open") is what it means,
    # before any entity whose name is only like it ("Secondary Garage Door").
    named = _named_for_it(_states_of(ha), text)
    if named is not None:
        return named
    return await _judge(ha, text, source, now)


async def _judge(
    ha: Any, text: str, source: Any = None, now: datetime | None = None
) -> tuple[bool | None, str]:
    question, inverted = as_question(text)
    judge = getattr(source, "judge", None)
    if callable(judge) and configured(source):
        reading = _reading_question(text)
        if reading is not None:
            asked, threshold = reading
            verdict, evidence = await judge(asked, now, threshold.test)
            return verdict, f"{evidence}; condition: {threshold.phrase}"
        verdict, evidence = await judge(question, now)
        if verdict is not None and inverted:
            verdict = not verdict
        return verdict, evidence
    return await _judge_with_client(ha, text, question)


# The measurement a unit names, when the subject does not ("it is above 20 degrees inside").
_UNIT_MEASURE = [
    (re.compile(r"^\s*(?:degrees?|°\s*[cf]?|celsius|fahrenheit)\b", re.I), "temperature"),
    (re.compile(r"^\s*(?:%|percent)\s*(?:humidity)?", re.I), "humidity"),
    (re.compile(r"^\s*(?:k?w|watts?|kilowatts?)\b", re.I), "power"),
    (re.compile(r"^\s*(?:kwh|kilowatt hours?)\b", re.I), "energy"),
    (re.compile(r"^\s*ppm\b", re.I), "co2"),
]
_IMPERSONAL_SUBJECT = frozenset({"it", "it's", "there", "inside", "outside"})


# Switch-like domains whose "on" says that what the entity is named for holds.
_FLAG_DOMAINS = ("input_boolean", "binary_sensor", "switch")
_FILLER = re.compile(r"\b(?:the|a|an|my|our|is|are|was|were|be|been)\b", re.IGNORECASE)


def _named_for_it(states: dict[str, dict[str, Any]], text: str) -> tuple[bool | None, str] | None:
    """An on/off entity named for the condition itself ("Garage door open", a helper a user
    keeps for it) answers it: on, it holds; off, it does not."""
    wanted = " ".join(normalize(_FILLER.sub(" ", text)).split())
    if len(wanted.split()) < 2:
        return None
    for entity_id, state in states.items():
        if entity_id.split(".", 1)[0] not in _FLAG_DOMAINS:
            continue
        name = " ".join(normalize(_FILLER.sub(" ", _state_name(state))).split())
        if name != wanted:
            continue
        value = str(state.get("state", "")).lower()
        if value not in ("on", "off"):
            return None, f"{_state_name(state)} ({entity_id}) is {value or 'unknown'}"
        return value == "on", f"{_state_name(state)} ({entity_id}) is {value}"
    return None


def _reading_question(text: str) -> tuple[str, Threshold] | None:
    """ "the lounge is above 25 degrees" → ("what is the lounge temperature", above 25)."""
    m = _NUMERIC_RE.match(text.strip())
    if not m:
        return None
    threshold = parse_threshold(m.group("cmp"))
    if threshold is None:
        return None
    subject = m.group("subj").strip()
    tail = text.strip()[m.end() :]
    measure = ""
    for pattern, word in _UNIT_MEASURE:
        unit = pattern.match(tail)
        if unit:
            measure, tail = word, tail[unit.end() :]
            break
    tail = tail.strip(" ,?.!")
    if subject.lower() in _IMPERSONAL_SUBJECT:
        where = "outside" if subject.lower() == "outside" else ""
        return " ".join(f"what is the {measure or 'temperature'} {where} {tail}".split()), threshold
    named = parse(f"what is {subject}")
    extra = "" if named.measure is not None or not measure else f" {measure}"
    return " ".join(f"what is {subject}{extra} {tail}".split()), threshold


async def _judge_with_client(ha: Any, text: str, question: str) -> tuple[bool | None, str]:
    """The condition from the client's states alone (no ha source here)."""
    states = _states_of(ha)
    people = _people_condition(normalize(text))
    if people is not None:
        return _judge_people(states, people)
    m = _NUMERIC_RE.match(text.strip())
    if m:
        threshold = parse_threshold(m.group("cmp"))
        subject = subject_of(m.group("subj"))
        if threshold is not None:
            return await _judge_numeric(ha, states, subject, threshold)
    q = parse(question)
    if q.predicate is None:
        return None, _NO_STATE
    subject = subject_of(_LEADING_AUX.sub("", q.without_predicate()).replace(" not ", " "))
    if not subject or _personal(subject):
        return None, f"“{text}” is about you, and no data says that ahead of time"
    pred = q.predicate
    candidates = _applicable(states, pred)
    if not candidates:
        return None, f"no Home Assistant entity can be {pred}"
    entity_id, why = await find_entity(ha, subject, sorted({e.split(".")[0] for e in candidates}))
    if entity_id is None and q.kind is not None:
        # "the alarm" for the one alarm panel, whatever it is called ("Security").
        of_kind = [e for e in candidates if e.split(".")[0] in q.kind.domains]
        entity_id = of_kind[0] if len(of_kind) == 1 else None
    if entity_id is None:
        return None, why
    state = states.get(entity_id)
    if not isinstance(state, dict):
        return None, f"{entity_id} has no state yet"
    name = _state_name(state)
    value = str(state.get("state", "")).lower()
    if value in _UNAVAILABLE:
        return None, f"{name} ({entity_id}) is {value or 'unknown'}"
    phrase = state_phrase(state)
    said = f"{name} ({entity_id}) is {phrase}" + (f" (state {value})" if value != phrase else "")
    actual = holds(state, pred)
    if actual is None and applies(state, OPPOSITE.get(pred, pred)):
        opposite = holds(state, OPPOSITE[pred])
        actual = None if opposite is None else not opposite
    if actual is None:
        return None, f"{said}, which does not say whether it is {pred}"
    return actual, said


def _applicable(states: dict[str, dict[str, Any]], pred: str) -> list[str]:
    """Entities that can be in this state (decided once per domain and device class)."""
    kinds: dict[tuple[str, str], bool] = {}
    out = []
    for entity_id, state in states.items():
        key = (entity_id.split(".", 1)[0], str((state.get("attributes") or {}).get("device_class")))
        if key not in kinds:
            kinds[key] = applies(state, pred)
        if kinds[key]:
            out.append(entity_id)
    return out


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


def _people_condition(norm: str) -> str | None:
    if re.search(r"\b(?:nobody|no one|noone|no-one)\b.*\b(?:is )?(?:home|at home|in)\b", norm):
        return "nobody"
    if re.search(r"\b(?:everyone|everybody)\b.*\b(?:home|at home|out|away)\b", norm):
        return "everyone_away" if re.search(r"\b(?:out|away|gone)\b", norm) else "everyone"
    if re.search(r"\b(?:anyone|anybody|someone|somebody)\b.*\b(?:home|at home|in)\b", norm):
        return "anyone"
    return None


def _people(states: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Persons, and device trackers no person follows (a tracker at home is somebody)."""
    persons = [v for k, v in states.items() if k.startswith("person.") and isinstance(v, dict)]
    followed = {
        str(t) for p in persons for t in ((p.get("attributes") or {}).get("device_trackers") or [])
    }
    trackers = [
        v
        for k, v in states.items()
        if k.startswith("device_tracker.") and k not in followed and isinstance(v, dict)
    ]
    return [s for s in persons + trackers if str(s.get("state")) not in _UNAVAILABLE]


def _judge_people(states: dict[str, dict[str, Any]], who: str) -> tuple[bool | None, str]:
    people = _people(states)
    if not people:
        return None, "Home Assistant has no person entities"
    home = [_state_name(v) for v in people if str(v.get("state")) == "home"]
    away = [_state_name(v) for v in people if str(v.get("state")) != "home"]
    evidence = f"home: {', '.join(home) or 'nobody'}; away: {', '.join(away) or 'nobody'}"
    if who in ("nobody", "everyone_away"):
        return not home, evidence
    if who == "anyone":
        return bool(home), evidence
    return not away, evidence


async def _judge_numeric(
    ha: Any, states: dict[str, dict[str, Any]], subject: str, threshold: Threshold
) -> tuple[bool | None, str]:
    entity_id, why = await find_entity(ha, subject, _NUMERIC_DOMAINS)
    if entity_id is None:
        return None, why
    state = states.get(entity_id) or {}
    attrs = state.get("attributes") or {}
    raw: Any = state.get("state")
    if entity_id.startswith(("climate.", "weather.", "water_heater.")) and isinstance(attrs, dict):
        raw = attrs.get("current_temperature", attrs.get("temperature"))
    value = num(raw)
    name = _state_name(state) if state else entity_id
    if value is None:
        return None, f"{name} ({entity_id}) is {raw!s}, not a number"
    unit = attrs.get("unit_of_measurement", "") if isinstance(attrs, dict) else ""
    return threshold.test(
        value
    ), f"{name} ({entity_id}) is {fmt(value)}{unit}; condition: {threshold.phrase}"
