"""Conditional questions, step one: find the condition, its consequent and who judges it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import content_words, normalize, tokens
from .vocabulary import AUXILIARIES, WEEKDAYS

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


_AUX = AUXILIARIES
_LEADING = re.compile(
    r"^\s*(?P<kw>if|in case|should|when|whenever|once|provided that|assuming)\s+(?P<cond>[^,]+?)"
    r"\s*(?:,|\bthen\b)\s*(?P<rest>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_LEADING_NO_COMMA = re.compile(
    r"^\s*(?P<kw>if|in case|when|whenever|once|provided that|assuming)\s+(?P<body>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_TRAILING = re.compile(
    r"^(?P<rest>.+?)\s*,?\s+(?P<kw>if|in case|provided that|should(?=\s+(?:it|there)\b))\s+"
    r"(?P<cond>.+?)\s*[?.!]*\s*$",
    re.IGNORECASE | re.DOTALL,
)
# "check if", "do you know if", "what if", "even if": "if" meaning "whether", or no condition;
# "what happens if", "is it ok if", "does it matter if": a question about that case itself.
_NOT_CONDITIONAL_BEFORE = frozenset(
    [
        "happens",
        "happen",
        "happened",
        "ok",
        "okay",
        "alright",
        "fine",
        "safe",
        "matter",
        "mind",
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
        if split is not None and _leading_ok(m.group("kw"), split[0]):
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


# A condition never ends on one of these: "if the garage door is | open ..." is not a split.
_OPEN_ENDED = _AUX | frozenset(
    ["not", "still", "the", "a", "an", "my", "our", "to", "at", "in", "on", "of", "than",
     "being", "been", "be", "get", "gets", "goes", "go", "left", "set", "and", "or"]
)  # fmt: skip


def _split_without_comma(body: str) -> tuple[str, str] | None:
    """ "the garage door is open is the alarm armed": the first split whose condition is whole.

    A consequent starts with an auxiliary, a wh-word or a command ("is", "what",
    "close"); the condition before it needs a verb and must not end open
    ("the garage door is", "it gets"), so "open" in "is open is the alarm armed"
    is the condition's state, not the command "open the …".
    """
    words = body.split()
    for i in range(2, len(words)):
        head = (tokens(normalize(words[i])) or [""])[0]  # "what's" starts with "what"
        if head not in _CONSEQUENT_STARTERS:
            continue
        cond = " ".join(words[:i])
        rest = " ".join(words[i:])
        last = tokens(normalize(cond))[-1:]
        if last and last[0] in _OPEN_ENDED:
            continue
        if _VERBISH.search(cond) and _has_content(rest):
            return cond, rest
    return None


def _has_content(text: str) -> bool:
    return bool(content_words(tokens(normalize(text))))


_NOBODY = r"^(?:nobody|no one|noone|no-one)\b"
_EVERYONE = r"^(?:everyone|everybody)\b"
_ANYONE = r"^(?:anyone|anybody|someone|somebody)\b"
_PEOPLE_AS_QUESTION: list[tuple[re.Pattern[str], str, bool]] = [
    # (condition, the yes/no question that decides it, whether its answer is inverted)
    (re.compile(_NOBODY + r".*\b(?:home|in|here)\b"), "is anyone home", True),
    (re.compile(_EVERYONE + r".*\b(?:out|away|gone)\b"), "is anyone home", True),
    (re.compile(_EVERYONE + r".*\b(?:home|in|here)\b"), "is anyone away", True),
    (re.compile(_ANYONE + r".*\b(?:home|in|here)\b"), "is anyone home", False),
]
_AS_QUESTION = re.compile(
    r"^(?P<subj>.+?)\s+(?P<verb>is|are|was|were|has been|have been|had been|gets|get|goes|go|"
    r"becomes|become|stays|stay|remains|remain|keeps|turns|turned|starts|started)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_VERB_STATE = re.compile(
    r"^(?P<subj>.+?)\s+(?P<verb>opens|opened|closes|closed|locks|unlocks|jams|rises|sets|"
    r"plays|runs|heats|cools|leaks|triggers|fires|arms|disarms)\b(?P<rest>.*)$",
    re.IGNORECASE,
)
_VERB_WORDS = {
    "opens": "open", "opened": "open", "closes": "closed", "closed": "closed",
    "locks": "locked", "unlocks": "unlocked", "jams": "jammed", "rises": "up", "sets": "down",
    "plays": "playing", "runs": "running", "heats": "heating", "cools": "cooling",
    "leaks": "wet", "triggers": "triggered", "fires": "triggered", "arms": "armed",
    "disarms": "disarmed",
}  # fmt: skip
_ALARMING = re.compile(r"\b(?:alarm|siren|smoke|detector|security)\b", re.IGNORECASE)
_DARK = re.compile(r"^(?:it|it's)\s+(?:is\s+|gets\s+)?(?P<word>dark|light|daylight|night)\b", re.I)


def as_question(cond: str) -> tuple[str, bool]:
    """The yes/no question that decides a condition, and whether its answer is inverted.

    "the garage door is open" → "is the garage door open"; "nobody is home" →
    "is anyone home", inverted; "the alarm goes off" → "is the alarm going off".
    The condition is decided by the same reading of the home as that question.
    """
    text = cond.strip().rstrip("?.!").strip()
    lowered = normalize(text)
    for pattern, question, inverted in _PEOPLE_AS_QUESTION:
        if pattern.search(lowered):
            return question, inverted
    dark = _DARK.match(text)
    if dark:
        up = dark.group("word").lower() in ("light", "daylight")
        return ("is the sun up" if up else "is the sun down"), False
    m = _AS_QUESTION.match(text)
    if m:
        subj, verb, rest = m.group("subj"), m.group("verb").lower(), m.group("rest")
        if verb in ("goes", "go") and re.match(r"off\b", rest, re.I):
            rest = ("going off" if _ALARMING.search(subj) else "off") + rest[3:]
        elif verb in ("starts", "started") and not re.match(r"(?:playing|running)\b", rest):
            rest = re.sub(r"^(\w+?)(?:s|ing)?\b", r"\1ing", rest, count=1)
        copula = "are" if verb in ("are", "were", "have been", "get", "go", "stay") else "is"
        return f"{copula} {subj} {rest}", False
    m = _VERB_STATE.match(text)
    if m:
        state = _VERB_WORDS[m.group("verb").lower()]
        return f"is {m.group('subj')} {state}{m.group('rest')}", False
    return f"is {text}", False


def _report(cond: str) -> ConditionPlan:
    """ "If the NAS is down, let me know": judge the condition and answer about it."""
    cond = cond.strip().strip(",").rstrip("?.!").strip()
    kind = condition_kind(cond)
    # About the home, the answer is the question that decides it ("is the garage door open").
    consequent = as_question(cond)[0] if kind == "ha" else cond
    return ConditionPlan(text=cond, consequent=consequent, kind=kind)


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
    r"living|kitchen|bedroom|bathroom|office|garage|freezer|fridge|boiler|battery|floor|"
    r"basement|cellar|attic|heater|hvac|heatpump|ecobee|humidifier|pool|greenhouse)\b",
    re.IGNORECASE,
)


_IMPERSONAL = re.compile(r"^\s*(?:it|it's|it is|there|there's|there is)\b", re.IGNORECASE)
_WHEN_WORDS = frozenset(
    ["today", "tonight", "tomorrow", "weekend", "morning", "afternoon", "evening", *WEEKDAYS]
)


_SUN_POSITION = re.compile(
    r"\bthe sun\s+(?:is|has|was|goes|sets|rises|comes)\b(?!\s+(?:out|shining)\b)|"
    r"^(?:it|it's)\s+(?:is\s+|gets\s+)?(?:dark|daylight)\b",
    re.IGNORECASE,
)


# "it is colder than 5 degrees outside": a reading now, which a live sensor gives.
_LIVE_READING = re.compile(
    r"\b(?:outside|outdoors?|out there)\b.*\b(?:above|over|below|under|more than|less than|"
    r"warmer than|colder than|higher than|lower than)\b|\b(?:above|over|below|under|more than|"
    r"less than|warmer than|colder than|higher than|lower than)\s+-?\d.*\b(?:outside|"
    r"outdoors?|out there)\b",
    re.IGNORECASE,
)


def condition_kind(text: str) -> str:
    """Which structured source can judge a condition: forecast, uptime or ha."""
    if _SUN_POSITION.search(text.strip()):
        return "ha"  # "the sun is up", "it is dark": sun.sun, not the weather
    toks = set(tokens(normalize(text)))
    if _LIVE_READING.search(text) and not toks & _WHEN_WORDS:
        return "ha"  # now, outside: the outdoor sensor (or the weather entity's present)
    if toks & _WEATHER and not _HA_SUBJECT_HINT.search(text):
        return "forecast"
    if _IMPERSONAL.match(text) and toks & _WHEN_WORDS and not _HA_SUBJECT_HINT.search(text):
        return "forecast"  # "it's below zero tomorrow morning": the weather, on a day
    if _MONITOR_STATE.search(text):
        return "uptime"
    return "ha"
