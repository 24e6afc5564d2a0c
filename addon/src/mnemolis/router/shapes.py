"""Question shapes: what a question asks, read from its form rather than its words.

A table word says what a question is *about* ("dishwasher", "lights", "solar",
"Anna"); its shape says what is *asked*: "how long is the guarantee on the
fridge?" asks a document, "what causes the northern lights?" asks for an
explanation, "remind me what I wanted to buy for Anna" asks what the user said.
Each shape names the source that answers that kind of question and the kinds of
evidence of the other sources it outranks:

* ``word`` / ``phrase``: table words and phrases (a topic, not an ask);
* ``name``: a live name (an entity, area, monitor, feed, database, tag);
* ``naming``: a word that names a source outright ("weather", "the news").

Patterns of the tables and other shapes are never outranked: "is the kitchen
light on" is a question about a state whatever else it mentions. ``signals.py``
scores the shapes beside the tables; ``Scores.strong`` applies the outranking.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .profiles import NONE
from .text import Matcher, all_needles, content_words, needles_in, normalize, tokens
from .vocabulary import HA_DEVICE_WORDS, NAMING, PHRASES, TIME_WORDS, WEEKDAYS, WORDS

SHAPE_WEIGHT = 2.5  # a shape is a match on its own (MATCH is 2.0)

TOPIC = frozenset({"word", "phrase"})
TOPIC_AND_NAMES = frozenset({"word", "phrase", "name"})
ANY_TOPIC = frozenset({"word", "phrase", "naming"})

# --- what the guards look at -------------------------------------------------------

_PERSONAL = re.compile(r"\b(?:i|my|me|mine|we|our|us|you|your)\b")
_CURRENT = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|now|currently|current|latest|recent|recently|"
    r"next|upcoming|this (?:week|weekend|morning|afternoon|evening|year|month)|"
    r"price|prices|cost|costs|buy|cheap|cheaper|cheapest|deal|deals|score)\b"
)
_HOME_WORDS = frozenset(
    ["home", "house", "flat", "apartment", "indoors", "inside", "upstairs", "downstairs"]
)
_DETERMINERS = frozenset(["the", "my", "our", "any", "all", "every", "each", "which", "a", "an"])
_DAYS = "|".join(f"{d}s?" for d in WEEKDAYS)

# Words some source's tables own (weight ≥ 1) or that name a source: a personal
# question about one of them ("what is my energy usage") belongs to that source.
_OWNED = frozenset(
    [w for words in WORDS.values() for w, v in words.items() if v >= 1]
    + [w for names in NAMING.values() for n in names for w in n.split()]
)


# Kinds of documents a household keeps (what "what does my … say" asks).
DOCUMENT_NOUNS = frozenset(
    [
        "manual",
        "manuals",
        "guide",
        "guides",
        "lease",
        "contract",
        "contracts",
        "policy",
        "policies",
        "warranty",
        "documentation",
        "docs",
        "notes",
        "recipe",
        "recipes",
        "instructions",
        "agreement",
        "agreements",
        "terms",
        "invoice",
        "invoices",
        "receipt",
        "receipts",
        "booklet",
        "leaflet",
        "label",
        "paperwork",
        "letter",
        "letters",
        "report",
        "reports",
        "spec",
        "specs",
        "handbook",
        "brochure",
        "datasheet",
        "certificate",
        "deed",
        "deeds",
        "statement",
        "statements",
        "bill",
        "bills",
        "insurance",
    ]
)
_DOCS = "|".join(sorted(DOCUMENT_NOUNS))


@dataclass(frozen=True, slots=True)
class Context:
    """What a shape's guard may look at besides the text."""

    text: str  # the normalised question
    toks: list[str]
    names: dict[str, list[str]]  # live names found per source


def home_reference(ctx: Context) -> bool:
    """True when the question points at the home: a live HA name, "the house", "the fridge".

    A device word counts when it heads its noun phrase right after a determiner or
    an area ("the fridge", "the kitchen lights"), not inside another noun phrase
    ("the northern lights", "the solar system").
    """
    if ctx.names.get("ha"):
        return True
    toks = ctx.toks
    if _HOME_WORDS.intersection(toks):
        return True
    for i, tok in enumerate(toks):
        if tok not in HA_DEVICE_WORDS:
            continue
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if nxt and nxt not in _PHRASE_END and not nxt.endswith(("ed", "ing")):
            continue  # "solar system", "light year": the device word is not the head
        prev = toks[i - 1] if i else ""
        if prev in _DETERMINERS or prev in HA_DEVICE_WORDS or f"{prev} {tok}" in _HA_PHRASES:
            return True  # "the fridge", "the kitchen light", "the front door"
    return False


_HA_PHRASES = frozenset(PHRASES["ha"])


# What may follow the head noun of a noun phrase (end, verb, preposition, state).
_PHRASE_END = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "in",
        "on",
        "off",
        "at",
        "of",
        "for",
        "to",
        "and",
        "or",
        "still",
        "right",
        "now",
        "open",
        "closed",
        "running",
        "work",
        "works",
        "working",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "use",
        "uses",
        "say",
        "says",
        "need",
        "needs",
        "set",
        "last",
        "turned",
        "switched",
        "left",
        "been",
        "be",
        "will",
        "would",
        "should",
        "can",
        "so",
        "too",
        "doing",
        "locked",
        "unlocked",
        "playing",
        *TIME_WORDS,
        # verbs a device does ("the lights turn on", "the fridge beeps")
        "turn",
        "turns",
        "go",
        "goes",
        "come",
        "comes",
        "stay",
        "stays",
        "get",
        "gets",
        "keep",
        "keeps",
        "stop",
        "stops",
        "start",
        "starts",
        "run",
        "runs",
        "beep",
        "beeps",
        "flash",
        "flashes",
        "flicker",
        "leak",
        "leaks",
        "make",
        "makes",
        "need",
        "show",
        "shows",
    ]
)


def _encyclopedic_guard(ctx: Context) -> bool:
    """Nothing personal, current, of the home, or naming another source ("the news")."""
    text = _GENERIC_WE.sub("", ctx.text)  # "why do we have seasons": we, people
    if _PERSONAL.search(text) or _CURRENT.search(text) or _ADVICE.search(text):
        return False
    if any(t in _NAMING_WORDS for t in ctx.toks):
        return False
    return not home_reference(ctx)


def _conceptual_guard(ctx: Context) -> bool:
    """ "The difference between weather and climate": a source's word as a concept is fine."""
    return not (_PERSONAL.search(ctx.text) or _CURRENT.search(ctx.text) or home_reference(ctx))


_GENERIC_WE = re.compile(r"^(?:why|how) (?:do|did|can) we\b|\b(?:tell|explain to|teach) me\b")
_ADVICE = re.compile(r"\b(?:good|best|recommend|recommended|should|nice|worth)\b")
_NAMING_WORDS = frozenset(
    w
    for source, names in NAMING.items()
    if source != "kiwix"
    for n in names
    for w in content_words(n.split())
)


def _no_home_thing(ctx: Context) -> bool:
    """No HA name and no device word: "is the pharmacy open", not "is the garage door open"."""
    return not ctx.names.get("ha") and not HA_DEVICE_WORDS.intersection(ctx.toks)


# What a home uses or makes ("how much energy is the house using"), not what it buys.
_USAGE = frozenset(
    [
        "energy",
        "power",
        "electricity",
        "consumption",
        "usage",
        "kwh",
        "watts",
        "solar",
        "using",
        "use",
        "used",
        "producing",
        "generating",
    ]
)


def _not_weather(ctx: Context) -> bool:
    """ "Is the sun coming out later": the weather, not a release."""
    return not any(WORDS["forecast"].get(t, 0) >= 1 for t in ctx.toks) and "sun" not in ctx.toks


_ASKED_THING = re.compile(
    r"\b(?:what time|when) (?:does|do|will) (?:the )?(?P<a>[\w' ]{2,30}?) (?:open|close|shut)\b"
    r"|\b(?:is|are) (?:the )?(?P<b>[\w' ]{2,30}?) (?:open|closed) \w+"
    r"|^how much (?:is|are|does|do|would|will|did) (?:a |an |the )?(?P<c>[a-z ]+?)"
    r"(?: cost| costs|$| right now| now| today| at | in | for | from )"
)


def _not_home_thing_asked(ctx: Context) -> bool:
    """What is asked about is not a thing of the home: its head is no device, it is no name.

    "When does the garden centre close" asks about a shop even though the home has a
    Garden; "when does the garage door close" asks about the home.
    """
    m = _ASKED_THING.search(ctx.text)
    if m is None:
        return True  # "compare prices for a new fridge": buying one, whatever it is
    thing = next(g for g in m.groups() if g is not None)
    toks = tokens(thing)
    if not toks or toks[-1] in HA_DEVICE_WORDS:
        return False
    said = {normalize(n) for n in ctx.names.get("ha", [])}
    return " ".join(toks) not in said and toks[-1] not in said


def _not_indoors(ctx: Context) -> bool:
    return not ctx.names.get("ha") and not _HOME_WORDS.intersection(ctx.toks)


def _about_the_user(ctx: Context) -> bool:
    """ "What is my shoe size", "who is our dentist": a fact about the user, owned by no source."""
    m = _MY_FACT.match(ctx.text)
    if m is None:
        return False
    rest = content_words(tokens(m.group("rest")))
    if not rest or any(w in _OWNED or w in _HOME_WORDS or w in DOCUMENT_NOUNS for w in rest):
        return False
    if _STATE_OF.match(ctx.text):
        return False  # "what is the status of my home" asks the home
    return not any(ctx.names.get(s) for s in ("ha", "uptime", "news", "rag"))


_STATE_OF = re.compile(r"^\w+ (?:is|are) the (?:status|state|condition|level|reading) of\b")
_MY_FACT = re.compile(
    r"^(?:what|who|when|where|which|how old) (?:is|are|was|were) (?:the \w+ of )?(?:my|our) "
    r"(?P<rest>.+)$"
)


def _health_subject(ctx: Context) -> bool:
    """A service or machine of the user's (or a monitor's name) is what is asked about."""
    return bool(ctx.names.get("uptime")) or bool(_SERVICE_WORDS.intersection(ctx.toks))


_SERVICE_WORDS = frozenset(
    [
        "server",
        "servers",
        "network",
        "service",
        "services",
        "homelab",
        "website",
        "websites",
        "site",
        "sites",
        "selfhosted",
        "hosted",
        "container",
        "containers",
        "vm",
        "vms",
        "vpn",
        "dns",
        "apps",
        "monitors",
        "infrastructure",
        "stack",
        "systems",
    ]
)


def _home_history(ctx: Context) -> bool:
    """A past question over a window of time about the home (not the news, not sport)."""
    if not (_happened(ctx.text) or _ACTIVITY.search(ctx.text)):
        return False
    return home_reference(ctx) or bool(_PEOPLE_MOVES.search(ctx.text))


# A window of time a history question is bounded by (both history shapes need one).
_WINDOW = (
    r"\b(?:today|yesterday|this (?:morning|afternoon|evening)|since|overnight|last night|while|"
    r"earlier|in the (?:last|past))\b"
)
_ACTIVITY = re.compile(
    r"\b(?:activity|activities|events|history|log|goings on|comings and goings)\b.*"
    r"\b(?:today|this (?:morning|afternoon|evening)|since|overnight|last night|while|earlier)\b"
    r"|\b(?:today|yesterday|this (?:morning|afternoon|evening)|overnight|last night)(?:'s| is)? "
    r"(?:activity|activities|events|history|log)\b"
)
_PEOPLE_MOVES = re.compile(
    r"\b(?:anyone|anybody|someone|somebody|who|everyone|nobody)\s+(?:came|come|went|left|arrived|"
    r"got)\b|\b(?:came|come|arrived|got) (?:in|home|back|by)\b"
)


@dataclass(frozen=True, slots=True)
class Shape:
    """One question shape: the source it asks, what it outranks, and when it applies."""

    source: str
    label: str
    matcher: Matcher
    beats: frozenset[str]
    guard: Callable[[Context], bool] | None = None
    weight: float = SHAPE_WEIGHT
    guard_first: bool = False  # the guard is cheaper than the pattern: ask it first

    def matches(self, text: str, present: frozenset[str] | None = None) -> bool:
        """Whether the normalised text has this shape (the guard aside)."""
        return self.matcher.search(text, present)


def _s(
    source: str,
    label: str,
    rx: str,
    beats: frozenset[str],
    guard: Callable[[Context], bool] | None = None,
    *,
    guard_first: bool = False,
) -> Shape:
    return Shape(source, label, Matcher(rx), beats, guard, guard_first=guard_first)


SHAPES: tuple[Shape, ...] = (
    # --- no source: a creative request ------------------------------------------------
    _s(
        NONE,
        "a creative request (no source's data)",
        r"^(?:please |can you |could you |help me |i want to |i need to )?(?:write|compose|make up|"
        r"draft|create|invent|sing|"
        r"tell) (?:me |us )?(?:a|an|some|another) (?:[a-z]+ )?"
        r"(?:poem|poems|story|stories|song|songs|haiku|limerick|joke|jokes|riddle|riddles|"
        r"letter|message|note|speech|toast|rhyme|tale|tongue twister)\b",
        frozenset({"word", "phrase", "name", "naming"}),
    ),
    # --- the home now: who is in ----------------------------------------------------
    _s(
        "ha",
        "who is home",
        r"\b(?:is|are) (?:there )?(?:anyone|anybody|someone|somebody|everyone|everybody|nobody|"
        r"no one|people|the kids|the children) (?:at home|home|in the house|in|here|back)\b"
        r"|^who (?:is|are) (?:at home|home|in the house|in|here|back|still out|out)\b",
        TOPIC,
    ),
    # --- the documents: what a manual, warranty, contract or recipe says ------------
    _s(
        "rag",
        "asks a document (warranty, manual, error code)",
        r"\b(?:warranty|warranties|guarantee|guarantees|guaranty|user guide|installation guide|"
        r"instruction manual|instructions|datasheet|data sheet|spec sheet|"
        r"(?:error|fault) (?:code|message)s?|error [a-z]?\d+|code [a-z]\d+|"
        r"model number|serial number|service interval|maintenance schedule)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "rag",
        "how do I fix/maintain X (instructions)",
        r"\bhow (?:do|can|should|would|could) (?:i|we|you|one) (?:reset|clean|fix|repair|"
        r"replace|descale|service|maintain|install|bleed|calibrate|pair|reprogram|troubleshoot|"
        r"change the (?!channel)|set up|setup|configure|connect|update|adjust|program|empty|"
        r"unclog|defrost|remove|fit|mount|use the|operate|enable|disable|back up|restore|set the|"
        r"winterize|winterise|refill|top up|drain|unblock|sharpen|oil|lubricate|wire)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "rag",
        "what does the document say",
        rf"\bwhat (?:does|do|did) (?:my|the|our|this|that) (?:\w+ ){{0,2}}(?:{_DOCS}) "
        r"(?:say|says|recommend|suggest|cover|covers|mention|state|specify|list)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "rag",
        "how often to service X",
        r"^how often (?:should|do|does|must|can|would) (?:i|we|you|one|the|my|our)\b"
        r"|\b(?:service|servicing|maintenance|descaling|cleaning|replacement) "
        r"(?:interval|schedule)",
        TOPIC_AND_NAMES,
    ),
    _s(
        "rag",
        "find a document",
        rf"^(?:please )?(?:find|show|get|look for|search for|open|pull up|dig out) (?:me )?"
        rf"(?:the|my|our|a|an) (?:\w+ )?(?:{_DOCS})\b",
        TOPIC_AND_NAMES | {"pattern"},
    ),
    _s(
        "rag",
        "a recommended setting",
        r"\b(?:recommended|correct|right|ideal|optimal|maximum|max|minimum) (?:[a-z]+ ){0,2}"
        r"(?:pressure|setting|settings|temperature|dosage|dose|amount|level|capacity|load|"
        r"oil|fuse|bulb|detergent|programme|program|cycle)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "rag",
        "the terms of an agreement",
        r"\b(?:terms|conditions|clauses?|notice period|cancellation) (?:of|in|for) "
        r"(?:my|the|our)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "rag",
        "a recipe",
        r"\b(?:recipe|recipes) (?:for|with|that|using|uses)\b|\bthe recipe\b|"
        r"\bhow (?:do|can|should) (?:i|we) (?:make|cook|bake|prepare)\b",
        TOPIC_AND_NAMES,
    ),
    # --- the memories: what the user said, decided, left somewhere, is -------------
    _s(
        "memory",
        "did I say",
        r"\b(?:did|have) (?:i|we) (?:ever )?(?:say|said|mention|"
        r"mentioned|tell|told|agree|agreed|decide|decided|promise|promised|plan|planned|"
        r"settle|settled)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "memory",
        "what someone asked of me",
        r"\bwhat (?:did|does) \w+ (?:ask|tell|want|need) (?:me|us)\b"
        r"|\bwhat (?:did|does) \w+ (?:ask|asked|tell|told) (?:me|us) to\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "memory",
        "the household's routine",
        r"^(?:what time|when) (?:do|does|should|must|will) (?:i|we|the kids|the children|"
        r"my \w+|our \w+) (?!open|close|shut)\w+",
        TOPIC_AND_NAMES,
        lambda ctx: not ctx.names.get("uptime"),
    ),
    _s(
        "memory",
        "remind me what I",
        r"\bremind (?:me|us) (?:what|where|when|who|which|how|of|"
        r"about)\b|\bwhat (?:i|we) (?:wanted|decided|agreed|said|planned|promised|noted|told)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "memory",
        "what did we decide",
        r"\bwhat (?:did|have) (?:i|we) (?:decide|decided|agree|agreed|say|said|plan|planned|"
        r"promise|promised|choose|chose|pick|picked|settle|settled|want|wanted|note|noted|"
        r"write down|wrote down|tell you|told you|ask you)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "memory",
        "where did I put X",
        r"\bwhere (?:did|have|do) (?:i|we) (?:put|leave|left|"
        r"keep|store|stash|hide|park|parked)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "memory",
        "my preferred X",
        r"\b(?:my|our) (?:preferred|favourite|favorite|usual|"
        r"regular|normal|go to) \w+",
        TOPIC_AND_NAMES,
    ),
    _s(
        "memory",
        "what I like",
        r"\b(?:which|what) (?:\w+ ){0,2}(?:do|does|did) (?:i|we) (?:like|love|prefer|enjoy|hate|"
        r"dislike|drink|eat|listen to|watch|read|support|follow)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "memory",
        "what you know about me",
        r"\bwhat do you (?:know|remember|have) (?:about|on) (?:me|my|our|us)\b"
        r"|\b(?:that|the) [a-z]+(?: [a-z]+)? (?:i|we) (?:liked|loved|mentioned|told you about|"
        r"recommended|found|visited|went to|bought|ordered|enjoyed)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "memory",
        "what do I usually",
        r"\bwhat (?:do|did) (?:i|we) (?:usually|normally|always|"
        r"typically|often)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "memory",
        "the household's rules",
        r"\b(?:house|family|household|home|our|my) rules?\b|\brules (?:for|about|on) (?:the )?"
        r"(?:kids|children|screen|bedtime|guests|visitors|pets|dog|cat)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "memory",
        "a fact about the user",
        r"^(?:what|who|when|where|which|how old) ",
        TOPIC_AND_NAMES,
        _about_the_user,
    ),
    # --- the web: places, hours, prices, scores, releases ---------------------------
    _s(
        "web",
        "a place nearby",
        r"\b(?:nearest|closest|nearby|near me|near here|around here|"
        r"close to me|close by|in my area|in town)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "web",
        "opening hours",
        r"\b(?:opening (?:hours|times)|business hours|closing time|"
        rf"open (?:on|at|until|till|late|after|before|during) (?:{_DAYS}|weekends?|holidays?|"
        r"bank holidays?|easter|christmas|\d))\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "web",
        "when does X open",
        r"\b(?:what time|when) (?:does|do|will) (?:the )?[\w' ]{2,30}? (?:open|close|shut)\b"
        r"|\b(?:is|are) (?:the )?[\w' ]{2,30}? (?:open|closed) (?:today|tonight|tomorrow|now|"
        r"right now|yet|late|this|at|until|till|over)\b",
        TOPIC_AND_NAMES,
        lambda ctx: _not_home_thing_asked(ctx),
    ),
    _s(
        "web",
        "look it up",
        r"^(?:please )?(?:look up|google|search for|find out)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "web",
        "a current figure",
        r"\b(?:current|latest|today is|this week is) (?:[a-z]+ ){0,2}(?:rate|rates|price|prices|"
        r"value|standings|odds|ranking|rankings|exchange|index|yield)\b",
        TOPIC,
        lambda ctx: not _USAGE.intersection(ctx.toks),
    ),
    _s(
        "web", "the time somewhere", r"^what (?:time|day|date) is it (?:in|at) \w+", TOPIC_AND_NAMES
    ),
    _s(
        "web",
        "a price",
        r"^how much (?:is|are|does|do|would|will|did) (?:a|an|one|two|the new|\d+|"
        r"(?!the\b|it\b|that\b|this\b|there\b|my\b|our\b)[a-z]+)\b|\bcheap\b|"
        r"\b(?:price|prices|cost|costs) (?:of|for)\b|\bhow much (?:does|do|did|would|will) .+ "
        r"cost\b|\bwhere can (?:i|we) (?:buy|get|order|find)\b|\b(?:cheapest|cheaper|on sale|"
        r"for sale|discounts?|going rate)\b|\bhow much (?:should|would|do|does) (?:i|we|you|a|an) "
        r"(?:pay|charge|tip)\b",
        TOPIC_AND_NAMES,
        lambda ctx: not _USAGE.intersection(ctx.toks) and _not_home_thing_asked(ctx),
    ),
    _s(
        "web",
        "a score or result",
        r"\b(?:score|scores|result|results) (?:of|in|from|for) (?:the|last|yesterday|tonight)\b|"
        r"\bwho (?:won|is winning|will win|leads|lost|is playing|are playing|plays)\b|"
        r"\b(?:match|game|race|final|tournament|league|cup|fixture)(?:es|s)? (?:result|score)s?\b|"
        r"\b(?:kick[ -]?off|tip[ -]?off|fixtures)\b",
        TOPIC_AND_NAMES,
    ),
    _s(
        "web",
        "a release or a showing",
        r"\bwhen (?:is|are|does|do|will) (?:the )?(?:next|new)\b|\b(?:coming out|come out|"
        r"comes out|release date|released|launch date|launching)\b|\b(?:showing|playing|on) "
        r"(?:at|in) the (?:cinema|theatre|theater|movies)\b|\b(?:cinema|movies?|films?|concerts?|"
        r"gigs?|shows|exhibitions?|festivals?|matches) (?:tonight|today|tomorrow|this (?:weekend|"
        r"week|evening)|that (?:night|day|evening)|on|near|nearby|in town)\b|\b(?:train|bus|flight|"
        r"ferry) (?:times|timetable|schedule|departures)\b",
        TOPIC_AND_NAMES,
        lambda ctx: _no_home_thing(ctx) and _not_weather(ctx),
    ),
    # --- the news: what is new about a subject ---------------------------------------
    _s(
        "news",
        "updates on a subject",
        r"^(?:any )?(?:updates?|developments|news) (?:on|about|regarding|from)\b"
        r"|\bwhat is the latest (?:on|about|with|from)\b|\bthe latest (?:on|about) the\b"
        r"|\b(?:what|anything|something) (?:is |has |have )?"
        r"(?:happen\w*|going on|new|been going on)"
        r" (?:in|around|across) the (?:world|country)\b",
        TOPIC,
    ),
    # --- the forecast: the weather to come -------------------------------------------
    _s(
        "forecast",
        "will it rain (the weather to come)",
        r"\b(?:will|would|is|does) it (?:be )?(?:going to |gonna )?(?:rain|snow|freeze|pour|"
        r"bucket|chuck it|pelt|tip it|lash|"
        r"drizzle|hail|storm|thunder|sleet|clear up|brighten up|warm up|cool down|cool off|"
        r"get (?:cold|colder|warm|warmer|hot|hotter|windy|wet|icy|chilly)|"
        r"stay (?:dry|sunny|warm|cold|nice|wet)|"
        r"be (?:cold|warm|hot|nice|windy|sunny|muggy|humid|wet|dry|chilly|freezing|mild|cloudy|"
        r"foggy|icy|stormy|clear|rainy|snowy|overcast|grey|gray|scorching|boiling|bright))\b"
        r"|\bwill (?:we|i) (?:get|see|have) (?:any )?(?:rain|snow|sun|sunshine|storms?|frost|"
        r"thunder|hail|showers|a storm)\b"
        r"|\bwhat (?:is|will be) the (?:high|low|max|min|maximum|minimum)\b"
        rf"|\b(?:today|tonight|tomorrow|{_DAYS})'s "
        r"(?:high|low|highs|lows|max|min|maximum|minimum)\b"
        r"|\b(?:is|will) (?:it|today|tomorrow|this weekend|the weekend) (?:be )?(?:a )?"
        r"(?:good|nice|"
        r"bad|great) (?:day|weekend|evening|morning|afternoon|time|weather) (?:for|to)\b"
        r"|\b(?:good|nice|bad) weather (?:for|to)\b"
        r"|\b(?:icy|slippery|frozen|flooded|snowy) (?:roads?|paths?|pavements?|streets?)\b"
        r"|\b(?:roads?|paths?|pavements?|streets?) (?:be )?(?:icy|slippery|frozen|flooded|snowy)\b"
        r"|\b(?:get|getting) (?:soaked|drenched|wet|sunburnt|sunburned|rained on)\b",
        TOPIC,
        _not_indoors,
    ),
    # --- the monitors: is a service of mine healthy ----------------------------------
    _s(
        "uptime",
        "is a service healthy",
        r"\b(?:up|down|offline|online|broken|ok|okay|healthy|running|working|alive|responding|"
        r"reachable|unreachable|problems?|issues?|outages?|downtime|crashed|failing|fine|green|"
        r"red|slow|dead|errors?|operational)\b",
        TOPIC_AND_NAMES,
        _health_subject,
        guard_first=True,
    ),
    _s(
        "uptime",
        "is anything down",
        r"\b(?:anything|something|everything|nothing)\s+(?:is\s+|went\s+|gone\s+|has gone\s+)?"
        r"(?:down|offline|unreachable)\b|\b(?:is|are|was|has) (?:anything|something|everything)"
        r" (?:gone )?(?:down|offline|unreachable)\b",
        TOPIC,
    ),
    # --- the history: what happened in the home over a time --------------------------
    _s("changes", "what happened (past, over a time)", _WINDOW, TOPIC_AND_NAMES, _home_history),
    # --- the encyclopedia: explanations, definitions, facts of the world -------------
    _s(
        "kiwix",
        "asks for an explanation or a fact",
        r"^(?:please )?(?:tell me about|explain|define|describe)\b"
        r"|^(?:who|what) (?:is|are|was|were) (?:a|an)\b"
        r"|^who (?:was|were|invented|discovered|wrote|painted|composed|founded|built|designed|"
        r"directed|created|ruled|sang|played|killed|named)\b"
        r"|^why (?:is|are|was|were|do|does|did|can|cannot|would|will|is not|are not|do not|"
        r"does not)\b"
        r"|^what (?:causes|caused|makes|made|happens when|happened to|happened in|happened at)\b"
        r"|^what (?:is|are|was|were) the (?:difference|differences|meaning|definition|origin|"
        r"origins|history|cause|causes|capital|population|purpose|function|symptoms|boiling "
        r"point|melting point|speed|distance|largest|biggest|smallest|tallest|longest|highest|"
        r"deepest|oldest|first|fastest|hottest|coldest|main|official|national)\b"
        r"|^what (?:is|are|was|were) (?!the\b|a\b|an\b|it\b|there\b|that\b|this\b|on\b|in\b|up\b|"
        r"new\b|wrong\b|next\b|left\b|[a-z]+ing\b)[a-z]+(?: [a-z]+){0,2}"
        r"(?<! at)(?<! on)(?<! in)(?<! for)(?<! to)(?<! up)(?<! now)$"
        r"|^how (?:many|much) [a-z]+(?: [a-z]+){0,2} (?:are|is|were|was) (?:there )?(?:in|on|at) "
        r"(?:the|a|an)\b"
        r"|^how many [a-z]+(?: [a-z]+)? (?:does|do|did|has|have|had) \w+"
        r"|^how (?:far|tall|big|old|long|deep|high|heavy|fast|large|wide|hot|cold)(?: away)? "
        r"(?:is|are|was|were)\b"
        r"|^(?:when|where|how|how long|how many|how much|why|what|which|who) (?:did|was|were)\b"
        r"|^how (?:is|are|was|were) [a-z]+(?: [a-z]+){0,4} (?:different|similar|related|alike|"
        r"connected)\b"
        r"|^what (?:is|are|was|were) [a-z]+(?: [a-z]+){0,3} (?:made|composed) (?:of|from)\b"
        r"|^what (?:does|do|did) (?:a|an) [a-z]+(?: [a-z]+)? do\b"
        r"|^how many [a-z]+(?: [a-z]+)? (?:are|were|is|was) there\b"
        r"|^where (?:do|does|did|can) (?!i\b|we\b|you\b|my\b|our\b)[a-z]+(?: [a-z]+){0,2} "
        r"(?:live|come from|grow|originate|nest|migrate|breed|hibernate|go in)\b"
        r"|^how (?:do|does) (?!i\b|we\b|you\b|one\b)[a-z]+(?: [a-z]+){0,3} [a-z]+"
        r"|\bwhich (?:one )?(?:is|are|was|were|has|have) (?:the )?(?:[a-z]+er|[a-z]+est|"
        r"more|most|less|least)\b"
        r"|\bstand for\b|^what (?:does|did) (?:the )?(?:word |term |phrase )?\S+ mean\b"
        r"|^what (?:language|languages|currency|religion|continent|country|ocean|planet|animal|"
        r"species|year|century)\b"
        r"|^(?:is|are|was|were) (?:a |an )?(?!it\b|there\b|the\b|my\b|our\b|i\b|we\b|you\b|"
        r"anyone\b|anybody\b|someone\b|somebody\b|everyone\b|everything\b|anything\b|"
        r"any\b|all\b)[a-z]+(?: [a-z]+)? (?:a|an|mammals?|reptiles?|birds?|fish|insects?|"
        r"poisonous|venomous|dangerous|extinct|related|edible|toxic)\b",
        TOPIC,
        _encyclopedic_guard,
    ),
    _s(
        "kiwix",
        "asks how two things differ (a concept)",
        r"\b(?:difference|differences|distinction) between\b",
        ANY_TOPIC,
        _conceptual_guard,
    ),
)


_NEEDLES = all_needles([s.matcher for s in SHAPES])


def shapes(ctx: Context) -> list[Shape]:
    """The shapes a question has (each at most once)."""
    found = []
    present = needles_in(ctx.text, _NEEDLES)
    for shape in SHAPES:
        if shape.guard_first and shape.guard is not None and not shape.guard(ctx):
            continue
        if shape.matches(ctx.text, present) and (shape.guard is None or shape.guard(ctx)):
            found.append(shape)
    return found


# --- shapes the meaning stage falls back on ------------------------------------------

# Broader than the shapes, for when nothing else decided: "what is the X", "who is X".
_LOOKUP = re.compile(
    r"^(?:who (?:is|are|was|were)\b|what (?:is|was|are|were) (?:a|an|the)\b"
    r"|how (?:does|do|did)\b.*\b(?:work|end|start|begin|happen|form|evolve)\b)"
)
_ARTICLES = frozenset(["a", "an", "the"])
MAX_TOPIC = 2  # content words of a bare topic ("black holes", "ancient egypt")


def encyclopedic(question: str, names: dict[str, list[str]] | None = None) -> bool:
    """An encyclopedia question: one of kiwix's shapes, or a bare topic ("volcanoes").

    The meaning stage falls back on this when neither the tables nor similarity decided.
    """
    text = normalize(question).strip(" ?!.")
    toks = tokens(text)
    ctx = Context(text, toks, names or {})
    if any(
        sh.source == "kiwix" and sh.matches(text) and sh.guard is not None and sh.guard(ctx)
        for sh in SHAPES
    ):
        return True
    if _LOOKUP.match(text) and _encyclopedic_guard(ctx):
        return True  # "what is the Great Barrier Reef", "who is Ada Lovelace"
    bare = [t for t in toks if t not in _ARTICLES]
    if not 0 < len(bare) <= MAX_TOPIC or len(content_words(bare)) != len(bare):
        return False
    return _encyclopedic_guard(ctx)


# The shape of a question about what happened in the home over a while: past tense and a
# window of time ("which doors were opened this afternoon", "who came by since noon").
_HAPPENED = re.compile(
    r"\b(?:was|were|did|has been|have been|came|went|left|\w+ed)\b.*"
    r"\b(?:today|this (?:morning|afternoon|evening)|since|overnight|last night|while|earlier|"
    r"in the (?:last|past) (?:\d+ |few |couple of )?(?:minutes?|hours?))\b",
    re.IGNORECASE,
)
_NOT_HAPPENED = re.compile(r"\b(?:will|tomorrow|tonight|forecast|news|headlines?)\b")


def happened(question: str) -> bool:
    """True for a past-tense question bounded by a window of time today."""
    return _happened(normalize(question))


def _happened(text: str) -> bool:
    return bool(_HAPPENED.search(text)) and not _NOT_HAPPENED.search(text)
