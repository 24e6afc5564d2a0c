"""Conditional questions, step one: find the condition, its consequent and who judges it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import content_words, normalize, tokens
from .vocabulary import WEEKDAYS

# --- parsing ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConditionPlan:
    """A conditional question split into its condition and what to answer."""

    text: str
    consequent: str
    kind: str  # forecast | ha | uptime

    @property
    def source(self) -> str:
        """The source whose data decides the condition."""
        return self.kind


_AUX = frozenset(
    [
        "was",
        "were",
        "is",
        "are",
        "did",
        "does",
        "do",
        "will",
        "would",
        "can",
        "could",
        "should",
        "shall",
        "has",
        "have",
        "had",
        "am",
    ]
)
_LEADING = re.compile(
    r"^\s*(?P<kw>if|in case|should|when|whenever|once|provided that|assuming)\s+(?P<cond>[^,]+?)"
    r"\s*(?:,|\bthen\b)\s*(?P<rest>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_LEADING_NO_COMMA = re.compile(r"^\s*(?P<kw>if|in case)\s+(?P<body>.+)$", re.IGNORECASE | re.DOTALL)
_TRAILING = re.compile(
    r"^(?P<rest>.+?)\s*,?\s+(?P<kw>if|in case|provided that|should(?=\s+(?:it|there)\b))\s+"
    r"(?P<cond>.+?)\s*[?.!]*\s*$",
    re.IGNORECASE | re.DOTALL,
)
# "check if", "do you know if", "what if", "even if": "if" meaning "whether", or no condition.
_NOT_CONDITIONAL_BEFORE = frozenset(
    [
        "know",
        "check",
        "see",
        "wonder",
        "ask",
        "asking",
        "find",
        "tell",
        "sure",
        "whether",
        "what",
        "even",
        "as",
        "ask",
    ]
)
_CONSEQUENT_STARTERS = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "will",
        "would",
        "should",
        "do",
        "does",
        "did",
        "can",
        "could",
        "what",
        "which",
        "who",
        "how",
        "when",
        "where",
        "remind",
        "tell",
        "close",
        "open",
        "turn",
        "switch",
        "lock",
        "notify",
        "let",
        "give",
    ]
)
_VERBISH = re.compile(
    r"\b(?:is|are|was|were|be|gets?|goes|go|falls?|drops?|rises?|rains?|raining|snows?|snowing|"
    r"stays?|remains?|opens?|closes?|turns?|has|have|left|becomes?|reaches|exceeds?|hits?|"
    r"storms?|freezes?|blows?|shines?|pours?)\b",
    re.IGNORECASE,
)
_SUBJECT_START = re.compile(
    r"^(?:it|there|the|my|our|a|an|any|anyone|anybody|someone|somebody|nobody|no one|"
    r"everyone|everybody|[A-Z]\w*)\b"
)


# "If X, let me know": a condition with no consequent of its own asks about X itself.
_REPORT = (
    r"(?:please\s+)?(?:let me know|let us know|tell me|tell us|notify me|warn me|alert me|"
    r"inform me|ping me|say so|give me a shout)(?:\s+(?:please|about it|then|so))?"
)
_REPORT_ONLY = re.compile(rf"^\s*(?:then\s+)?{_REPORT}\s*[.!?]*\s*$", re.IGNORECASE)
_REPORT_TAIL = re.compile(
    rf"^\s*(?P<kw>if|in case|when|whenever|once)\s+(?P<cond>.+?)\s*,?\s*(?:then\s+)?{_REPORT}"
    r"\s*[.!?]*\s*$",
    re.IGNORECASE | re.DOTALL,
)


def parse_condition(question: str) -> ConditionPlan | None:
    """The condition and consequent of "if …, …" and "… if …" questions, else None."""
    q = question.strip()
    m = _REPORT_TAIL.match(q)
    if m and _leading_ok(m.group("kw"), m.group("cond")):
        return _report(m.group("cond"))
    m = _LEADING.match(q)
    if m and _REPORT_ONLY.match(m.group("rest")) and _leading_ok(m.group("kw"), m.group("cond")):
        return _report(m.group("cond"))
    if m and _leading_ok(m.group("kw"), m.group("cond")) and _has_content(m.group("rest")):
        return _plan(m.group("cond"), m.group("rest"))
    m = _LEADING_NO_COMMA.match(q)
    if m:
        split = _split_without_comma(m.group("body"))
        if split is not None:
            return _plan(*split)
    m = _TRAILING.match(q)
    if m and _has_content(m.group("rest")) and _has_content(m.group("cond")):
        before = tokens(normalize(m.group("rest")))
        if before and before[-1] not in _NOT_CONDITIONAL_BEFORE and not _asks_whether(before):
            return _plan(m.group("cond"), m.group("rest"))
    return None


_ASK_VERBS = frozenset(
    {"tell", "let", "notify", "alert", "warn", "ping", "remind", "message", "text", "email"}
)


def _asks_whether(before: list[str]) -> bool:
    """ "tell me if", "notify me if", "find out if": a request, not a condition."""
    if len(before) < 2:
        return False
    return (before[-1] in ("me", "us") and before[-2] in _ASK_VERBS) or before[-2:] == [
        "find",
        "out",
    ]


def _leading_ok(keyword: str, cond: str) -> bool:
    kw = keyword.lower()
    toks = tokens(normalize(cond))
    if not toks or not _has_content(cond):
        return False
    if kw in ("when", "whenever", "once") and toks[0] in _AUX | {"what", "which", "how"}:
        return False  # "when is the next bin day, ..." is a question, not a condition
    if kw == "should" and not _SUBJECT_START.match(cond.strip()):
        return False  # "should I bring a coat, ..." asks for advice
    return not (kw == "should" and toks[0] in ("i", "we", "you"))


def _split_without_comma(body: str) -> tuple[str, str] | None:
    words = body.split()
    for i in range(2, len(words)):
        head = normalize(words[i])
        if head.strip("?.!,") not in _CONSEQUENT_STARTERS:
            continue
        cond = " ".join(words[:i])
        rest = " ".join(words[i:])
        if _VERBISH.search(cond) and _has_content(rest):
            return cond, rest
    return None


def _has_content(text: str) -> bool:
    return bool(content_words(tokens(normalize(text))))


def _report(cond: str) -> ConditionPlan:
    """ "If the NAS is down, let me know": judge the condition and answer about it."""
    cond = cond.strip().strip(",").rstrip("?.!").strip()
    return ConditionPlan(text=cond, consequent=cond, kind=condition_kind(cond))


_COND_SUBJECT = re.compile(
    r"^(?P<subj>(?:the|my|our)\s+[\w' -]+?)\s+(?:is|are|was|were|gets?|goes|stays?|has)\b",
    re.IGNORECASE,
)
_IT = re.compile(r"\bit\b", re.IGNORECASE)


def _plan(cond: str, rest: str) -> ConditionPlan:
    cond = cond.strip().strip(",").rstrip("?.!").strip()
    rest = rest.strip().strip(",").strip()
    subject = _COND_SUBJECT.match(cond)
    if subject and _IT.search(rest) and not _WEATHER.intersection(tokens(normalize(rest))):
        # "If the garage door is open, when did it open?": "it" is the garage door
        # (but in "…, is it going to rain tonight?" it is the weather).
        rest = _IT.sub(subject.group("subj"), rest, count=1)
    return ConditionPlan(text=cond, consequent=rest, kind=condition_kind(cond))


# --- what kind of condition ---------------------------------------------------------

_WEATHER = frozenset(
    [
        "rain",
        "rains",
        "raining",
        "rainy",
        "rained",
        "wet",
        "dry",
        "drizzle",
        "showers",
        "pours",
        "pouring",
        "snow",
        "snows",
        "snowing",
        "snowy",
        "sleet",
        "hail",
        "hails",
        "storm",
        "storms",
        "stormy",
        "thunder",
        "thunderstorm",
        "lightning",
        "wind",
        "winds",
        "windy",
        "gusts",
        "gusty",
        "sunny",
        "sun",
        "cloudy",
        "overcast",
        "fog",
        "foggy",
        "frost",
        "freezes",
        "freezing",
        "hot",
        "cold",
        "warm",
        "chilly",
        "mild",
        "temperature",
        "degrees",
        "weather",
        "forecast",
        "umbrella",
        "precipitation",
        "heatwave",
    ]
)
_MONITOR_STATE = re.compile(
    r"\b(?:up|down|online|offline|reachable|unreachable|responding|unresponsive)\b", re.IGNORECASE
)
_HA_SUBJECT_HINT = re.compile(
    r"\b(?:in|of) the (?!weather|forecast|morning|afternoon|evening|night|day)\w+|"
    r"\b(?:sensor|thermostat|room|inside|indoor|"
    r"living|kitchen|bedroom|bathroom|office|garage|freezer|fridge|boiler|battery)\b",
    re.IGNORECASE,
)


_IMPERSONAL = re.compile(r"^\s*(?:it|it's|it is|there|there's|there is)\b", re.IGNORECASE)
_WHEN_WORDS = frozenset(
    ["today", "tonight", "tomorrow", "weekend", "morning", "afternoon", "evening", *WEEKDAYS]
)


def condition_kind(text: str) -> str:
    """Which structured source can judge a condition: forecast, uptime or ha."""
    toks = set(tokens(normalize(text)))
    if toks & _WEATHER and not _HA_SUBJECT_HINT.search(text):
        return "forecast"
    if _IMPERSONAL.match(text) and toks & _WHEN_WORDS and not _HA_SUBJECT_HINT.search(text):
        return "forecast"  # "it's below zero tomorrow morning": the weather, on a day
    if _MONITOR_STATE.search(text):
        return "uptime"
    return "ha"
