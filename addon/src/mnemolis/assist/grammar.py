"""The question intents of Home Assistant's grammar, loaded once per language."""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass
from typing import Any

from hassil import Intents
from hassil.intents import Intent, IntentData
from home_assistant_intents import get_intents, get_languages

# Mnemolis reads the home; it never switches it, so only the question intents load.
QUESTION_INTENTS = frozenset(
    {
        "HassGetState",
        "HassClimateGetTemperature",
        "HassGetWeather",
        "HassGetCurrentTime",
        "HassGetCurrentDate",
    }
)
# "and" in the languages people most often ask in: for the lists a response template
# does not make (a count's names), and where a question in one breath may be split.
AND_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("and",),
    "de": ("und",),
    "fr": ("et",),
    "es": ("y", "e"),
    "it": ("e", "ed"),
    "pt": ("e",),
    "pt-BR": ("e",),
    "nl": ("en",),
    "pl": ("i", "oraz"),
    "sv": ("och",),
    "da": ("og",),
    "nb": ("og",),
    "tr": ("ve",),
}
# Yes and no: a yes/no answer that names no device gets its device named after them.
YES_NO: dict[str, frozenset[str]] = {
    "en": frozenset({"yes", "no"}),
    "de": frozenset({"ja", "nein"}),
    "fr": frozenset({"oui", "non"}),
    "es": frozenset({"sí", "si", "no"}),
    "it": frozenset({"sì", "si", "no"}),
    "pt": frozenset({"sim", "não"}),
    "pt-BR": frozenset({"sim", "não"}),
    "nl": frozenset({"ja", "nee"}),
    "pl": frozenset({"tak", "nie"}),
    "sv": frozenset({"ja", "nej"}),
    "da": frozenset({"ja", "nej"}),
    "nb": frozenset({"ja", "nei"}),
    "tr": frozenset({"evet", "hayır"}),  # noqa: RUF001
}
_TAG = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")
LOCK = threading.Lock()  # one parse of a language's sentences at a time


@dataclass(frozen=True, slots=True)
class Grammar:
    """One language's question intents, their response templates and error texts."""

    language: str
    intents: Intents
    responses: dict[str, dict[str, str]]
    errors: dict[str, str]
    #: The language's words for home ("home", "house", …: its ``home`` expansion rule).
    home_words: tuple[str, ...] = ()

    def response(self, intent: str, key: str | None) -> str | None:
        """The response template HA renders for an intent's response key."""
        table = self.responses.get(intent) or {}
        return table.get(key or "default") or table.get("default")

    def error(self, key: str) -> str | None:
        """An error text template (``no_entity``, ``no_area``, …)."""
        return self.errors.get(key)


@functools.cache
def languages() -> tuple[str, ...]:
    """Every language the installed grammar has (``en``, ``de``, ``pt-BR``, …)."""
    return tuple(get_languages())


def resolve(tag: str | None) -> str | None:
    """The grammar's language for a BCP 47 tag (``de-AT`` → ``de``), or None if it has none."""
    if not tag or not _TAG.match(tag.strip()):
        return None
    parts = tag.strip().replace("_", "-").split("-")
    known = {code.lower(): code for code in languages()}
    primary = parts[0].lower()
    # Script or region subtags the package names (pt-BR, zh-HK, sr-Latn, de-CH) first.
    for sub in parts[1:]:
        hit = known.get(f"{primary}-{sub.lower()}")
        if hit is not None:
            return hit
    if primary in known:
        return known[primary]
    for code in languages():  # "zh" → zh-CN: the first regional form
        if code.lower().startswith(primary + "-"):
            return code
    return None


def load(language: str) -> Grammar | None:
    """The question grammar of a language the package has (parsed once, then shared)."""
    with LOCK:  # a first question and a warm-up may both ask for the same language
        return _load(language)


@functools.cache
def _load(language: str) -> Grammar | None:
    data: dict[str, Any] | None = get_intents(language)
    if not data:
        return None
    intents = {k: v for k, v in (data.get("intents") or {}).items() if k in QUESTION_INTENTS}
    if not intents:
        return None
    parsed = Intents.from_dict({**data, "intents": intents})
    responses = data.get("responses") or {}
    return Grammar(
        language=language,
        intents=parsed,
        responses={
            k: dict(v) for k, v in (responses.get("intents") or {}).items() if k in QUESTION_INTENTS
        },
        errors=dict(responses.get("errors") or {}),
        home_words=_alternatives((data.get("expansion_rules") or {}).get("home")),
    )


@functools.cache
def commands(language: str) -> Intents | None:
    """A language's sentences that ask Home Assistant to do something ("turn off the
    kitchen light", "add milk to the shopping list"): never carried out here, only told
    apart from a question, when nothing answered it, to say who carries it out."""
    data: dict[str, Any] | None = get_intents(language)
    if not data:
        return None
    intents = {k: v for k, v in (data.get("intents") or {}).items() if k not in QUESTION_INTENTS}
    return Intents.from_dict({**data, "intents": intents}) if intents else None


def _alternatives(rule: Any) -> tuple[str, ...]:
    """The plain words of an expansion rule of alternatives ("(home|house|flat)")."""
    if not isinstance(rule, str):
        return ()
    words = [w.strip() for w in rule.strip().strip("()").split("|")]
    return tuple(w for w in words if w and not re.search(r"[\[\]{}<>()]", w))


def _values(value: Any) -> set[str]:
    """A fixed slot or context value as a set of strings (a string, a list, a mapping)."""
    if isinstance(value, dict):
        value = value.get("value")
    if value is None:
        return set()
    if isinstance(value, list | tuple | set | frozenset):
        return {str(v) for v in value}
    return {str(value)}


def _fits(data: IntentData, domains: frozenset[str], classes: frozenset[str]) -> bool:
    """Whether a block of sentences can name anything of this home (its fixed domain and
    device class, and the context its names require, exist here)."""
    for source in (data.slots, data.requires_context):
        wanted = _values(source.get("domain"))
        if wanted and not wanted & domains:
            return False
        wanted = _values(source.get("device_class"))
        if wanted and not wanted & classes:
            return False
    return True


def for_home(loaded: Grammar, domains: frozenset[str], classes: frozenset[str]) -> Intents:
    """The grammar without the sentences about kinds of devices this home does not have.

    Asked about gas sensors in a home without any, HA's grammar answers "No"; here the
    router's own rules say there are none. Reading fewer sentences also makes every
    question cheaper (docs/benchmarks.md). Built once per change of the home's kinds.
    """
    intents = loaded.intents
    kept = {
        name: Intent(name=name, data=[d for d in intent.data if _fits(d, domains, classes)])
        for name, intent in intents.intents.items()
    }
    return Intents(
        language=intents.language,
        intents={name: intent for name, intent in kept.items() if intent.data},
        slot_lists=intents.slot_lists,
        expansion_rules=intents.expansion_rules,
        skip_words=intents.skip_words,
        settings=intents.settings,
    )
