"""Speak a handled intent with the response template the intents package ships.

Rendered with Jinja2 (sandboxed) the way HA's default agent renders it: ``slots``,
``state`` (the first matched or unmatched state), ``query.matched`` /
``query.unmatched``, ``state_attr()``. One difference, on purpose: a state word is
said the way HA's own UI shows it in that language ("normal", "erkannt", "ouvert"),
from HA's ``entity_component`` translations, where HA's Assist would say "off".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from jinja2 import ChainableUndefined, TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from .home import state_name

Translate = Callable[[dict[str, Any]], str | None]


class RenderError(Exception):
    """A response template could not be rendered (a bad template, a missing value)."""


class SpokenState:
    """A state as a response template sees it (HA's ``TemplateState``, read-only)."""

    __slots__ = ("_raw", "_said", "attributes", "entity_id", "name")

    def __init__(self, raw: dict[str, Any], name: str, said: str | None) -> None:
        self._raw = raw
        self._said = said
        self.entity_id = str(raw["entity_id"])
        self.name = name
        self.attributes: dict[str, Any] = dict(raw.get("attributes") or {})

    @property
    def state(self) -> str:
        """The raw state, as templates compare it ("home", "rainy")."""
        return str(self._raw.get("state"))

    @property
    def domain(self) -> str:
        """The entity's domain."""
        return self.entity_id.split(".", 1)[0]

    @property
    def object_id(self) -> str:
        """The entity id without its domain."""
        return self.entity_id.split(".", 1)[-1]

    @property
    def state_with_unit(self) -> str:
        """The state as said ("normal", "21.5 °C"): translated words, numbers with units."""
        value = self._said if self._said is not None else self.state
        unit = self.attributes.get("unit_of_measurement")
        return f"{value} {unit}" if unit else value

    def __str__(self) -> str:
        return self.state

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SpokenState):
            return self.entity_id == other.entity_id and self.state == other.state
        return False

    def __hash__(self) -> int:
        return hash((self.entity_id, self.state))


def said_word(word: str) -> str:
    """A translated state word as said mid-sentence ("Normal" → "normal", "OK" kept)."""
    if len(word) > 1 and word[0].isupper() and word[1].islower():
        return word[0].lower() + word[1:]
    return word


def _env() -> ImmutableSandboxedEnvironment:
    # Undefined names read as empty, as in HA's engine (a template may name a variable
    # that only one of its branches sets).
    env = ImmutableSandboxedEnvironment(
        undefined=ChainableUndefined, extensions=["jinja2.ext.loopcontrols", "jinja2.ext.do"]
    )
    # The number helpers HA's template engine adds as functions as well as filters.
    env.globals.update(float=_float, int=_int, round=_round, abs=abs)
    # A name begins the sentence: its first letter up, the rest as the name has it
    # ("Living Room Lamp", not Jinja's "Living room lamp").
    env.filters["capitalize"] = lambda value: str(value)[:1].upper() + str(value)[1:]
    return env


def _float(value: Any, default: Any = 0.0) -> Any:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def _int(value: Any, default: Any = 0) -> Any:
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return default


def _round(value: Any, precision: int = 0, method: str = "common") -> Any:
    number = _float(value, None)
    if number is None:
        return value
    if method == "ceil":
        return math.ceil(number * 10**precision) / 10**precision
    if method == "floor":
        return math.floor(number * 10**precision) / 10**precision
    return round(number, precision)


_ENV = _env()
_COMPILED: dict[str, Any] = {}


def render(
    template: str,
    slots: Mapping[str, Any],
    matched: list[dict[str, Any]],
    unmatched: list[dict[str, Any]],
    states: Mapping[str, dict[str, Any]],
    names: Callable[[dict[str, Any]], str] | None = None,
    translate: Translate | None = None,
) -> str:
    """The spoken answer: the template rendered, white space folded."""
    named = names or (lambda s: state_name(s, None))

    def spoken(raw: dict[str, Any]) -> SpokenState:
        word = translate(raw) if translate is not None else None
        return SpokenState(raw, named(raw), said_word(word) if word else None)

    def state_attr(entity_id: str, attr: str) -> Any:
        return ((states.get(entity_id) or {}).get("attributes") or {}).get(attr)

    first = matched[0] if matched else (unmatched[0] if unmatched else None)
    compiled = _COMPILED.get(template)
    try:
        if compiled is None:
            compiled = _COMPILED[template] = _ENV.from_string(template)
        text = compiled.render(
            slots=dict(slots),
            state=spoken(first) if first is not None else None,
            query={
                "matched": [spoken(s) for s in matched],
                "unmatched": [spoken(s) for s in unmatched],
            },
            state_attr=state_attr,
        )
    except (TemplateError, TypeError, ValueError, KeyError, AttributeError) as err:
        raise RenderError(f"response template failed: {err}") from err
    return " ".join(str(text).split())
