"""Splitting compound questions into independent parts without breaking names."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from .. import textmatch
from ..knowledge import relevance
from ..knowledge.relevance import JOINED, LEAD_WORDS  # a shorter lead is the subject
from .text import content_words, normalize, tokens
from .vocabulary import AUXILIARIES, CLAUSE_STARTERS, GENERIC_WORDS, NAMING, WORDS

MAX_PARTS = 8
MAX_SENTENCES = 12  # more sentences than this stay in the last part
MAX_CANDIDATES = 16  # conjunctions examined per sentence (bounds the work on long text)
# What is read of each side of a conjunction: a 4,000-character question read whole at
# each of its conjunctions took a fifth of a second of the event loop (issue 29).
SIDE_CHARS = 300
FIRST_CHARS = 64  # where a text's first word is

_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "st",
        "prof",
        "sr",
        "jr",
        "vs",
        "etc",
        "eg",
        "ie",
        "no",
        "approx",
        "dept",
        "est",
        "fig",
        "inc",
        "ltd",
        "co",
        "mt",
        "ft",
    ]
)
_SENTENCE_END = re.compile(r"[?!;]+\s*|\.\s+(?=[\"'(\[]?[A-Z0-9])")
_CONJUNCTION = re.compile(
    r"\s*,?\s+(?:and also|and then|and what about|and|also|plus|as well as)\s+|\s*,\s+then\s+"
    r"|\s*,\s+(?=\S)",
    re.IGNORECASE,
)
# A clause saying when or on what condition, not asking: "when I ask you …", "if the
# boiler locks out …", "when backing up …", "if something …" (as against "when is bin
# day").
_SUBORDINATE = re.compile(
    r"\s*(?:when|whenever|if|once|after|before|while|since|because|unless)\s+"
    r"(?:i|we|you|he|she|it|they|the|my|our|your|this|that|there|\w+ing)\b",
    re.IGNORECASE,
)
_SEQUENCE = re.compile(r"\b(?:then|also|plus)\b", re.IGNORECASE)
_THEN = re.compile(r"\bthen\b", re.IGNORECASE)
_LEADING_FILLER = re.compile(
    r"^(?:and|also|plus|then|oh|so|ok|okay|by the way|btw|and also|and then|"
    r"(?:hey|hi|ok|okay)\s+mnemolis)\b[\s,]*",
    re.IGNORECASE,
)
# Cues after which the next "and" joins the two things being compared or ranged.
_PAIR_CUE = re.compile(
    r"\b(?:between|both|compare|compared|comparing|comparison|differences?|vs|versus|"
    r"similarities|relationship|either|neither)\b",
    re.IGNORECASE,
)
_PAIR_CLOSED = re.compile(r"\b(?:and|or|with|to)\b", re.IGNORECASE)
_CAPITALISED = re.compile(r"^[A-Z][\w'\u2019.-]*$")

SourcesOf = Callable[[str], list[str]]

# Words that only name a source ("news", "web", "weather"): a side made of these and
# verbs has no subject of its own, so "search the web and the news for X" stays one
# question (a fusion) instead of two halves.
_SOURCE_WORDS = frozenset(
    [w for words in WORDS.values() for w, v in words.items() if v >= 2]
    + [w for names in NAMING.values() for n in names for w in n.split()]
)


def split_sentences(text: str) -> list[str]:
    """Sentences of a question; abbreviations ("Dr.", "St.") do not end one."""
    return [p for p, _ in _sentences(text)]


# A sentence telling how things are ("The pressure's dropped since we bled the
# radiators.") rather than asking: it opens with its subject.
_TOLD = re.compile(
    r"(?:i|i'm|i've|i'd|we|we're|we've|we'd|it|it's|its|the|my|our|there|there's|this|that"
    r"|he|she|they|they're|someone|somebody|everything|nothing)\b",
    re.IGNORECASE,
)


def _sentences(text: str) -> list[tuple[str, str]]:
    """(sentence, the mark that ended it: "?", "." …, "" at the end of the text)."""
    pieces: list[tuple[str, str]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        end = m.start()
        if text[m.start()] == ".":
            words = text[start:end].split()
            last = words[-1].lower().rstrip(".") if words else ""
            if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
                continue
        pieces.append((text[start:end], m.group().strip()[:1]))
        start = m.end()
    pieces.append((text[start:], ""))
    return [(c, mark) for c, mark in ((_clean(p), mark) for p, mark in pieces) if c]


def _told_then_asked(text: str) -> list[tuple[str, str]]:
    """(what was told before, the sentence): a statement is joined to the question after
    it — what the person tells ("The dishwasher's leaking all over the floor.") is the
    context of what they ask next ("Who do I call?"), not a question of its own."""
    out: list[tuple[str, str]] = []
    told = ""
    sentences = _sentences(text)
    for n, (sentence, mark) in enumerate(sentences):
        asked_next = any(m == "?" for _, m in sentences[n + 1 :])
        after_question = out and not told and sentences[n - 1][1] == "?"
        if after_question and not asked_next and mark in (".", "!", "") and _tells(sentence):
            # "What's the number for Bosch? The dishwasher's making a noise.": why they ask,
            # told after the question, is no question of its own (nor part of the one
            # asked, whose meaning it would blur).
            continue
        if mark in (".", "!") and (_TOLD.match(sentence) or (asked_next and _says(sentence))):
            told = f"{told} {sentence}." if told else f"{sentence}."
            continue
        lead, sentence = _said_first(sentence)
        if lead:  # "It's freezing and the boiler has stopped, what should I do?"
            told = f"{told} {lead}." if told else f"{lead}."
        out.append((told, sentence))
        told = ""
    if told:
        out.append(("", told.rstrip(".")))
    return out


# What a statement after a question says it with ("My laptop keeps dropping off."), which
# a further ask in a few words ("And the network name.") does not.
_TELLING = re.compile(
    r"\b(?:i|we|my|our|is|are|was|were|has|have|had|keeps?|needs?|wants?)\b|\w'(?:s|m|re|ve)\b",
    re.IGNORECASE,
)
_FURTHER = frozenset({"and", "also", "plus", "or", "but"})


def _tells(sentence: str) -> bool:
    """A statement, not a further ask ("and the network name") nor a request."""
    return (
        _says(sentence)
        and _first_token(sentence) not in _FURTHER
        and bool(_TELLING.search(sentence))
    )


# Verbs that open a request rather than a statement: "Turn the lights on. Is it raining?"
_ORDERS = frozenset(
    {"turn", "switch", "set", "play", "open", "close", "lock", "unlock", "start", "stop"}
    | {"add", "remember", "send", "call", "get", "put", "run", "make", "please"}
)


def _says(sentence: str) -> bool:
    """A sentence that neither asks nor orders ("Freezing morning and the boiler's
    stopped."): before a question, it tells the situation."""
    first = _first_token(sentence)
    return _has_content(sentence) and first not in CLAUSE_STARTERS and first not in _ORDERS


# Where a question starts after what is told in the same sentence: ", what should I do".
_ASKS_AFTER = re.compile(
    r",\s+(?=(?:what|what's|which|who|where|where's|when|how|why|can|could|should|do|does|is"
    r"|are)\b)"
    r"|\s(?=(?:how|what|where) (?:do|can|should|would) (?:i|we)\b)",  # speech has no commas
    re.IGNORECASE,
)


def _said_first(sentence: str) -> tuple[str, str]:
    """(what the sentence tells before its question, the question): "The boiler has
    stopped and it's gurgling, what do I do?" is one question with its situation."""
    if not _TOLD.match(sentence):
        return "", sentence
    cuts = list(_ASKS_AFTER.finditer(sentence))
    while len(cuts) > 1 and JOINED.search(
        sentence[max(0, cuts[-1].start() - 30) : cuts[-1].start()]
    ):
        cuts.pop()  # "…, who was that plumber we used and how do I ring him?": both asked
    if not cuts:
        return "", sentence
    lead, asked = sentence[: cuts[-1].start()], sentence[cuts[-1].end() :]
    if len(lead.split()) < LEAD_WORDS:
        return "", sentence
    return lead.strip(), asked.strip()


def _clean(piece: str) -> str:
    piece = piece.strip().strip(",;:").strip()
    prev = None
    while prev != piece:
        prev = piece
        piece = _LEADING_FILLER.sub("", piece).strip()
    return textmatch.number_written(piece).rstrip("?!.").strip()


def _has_content(text: str) -> bool:
    return bool(content_words(tokens(normalize(text))))


def _first_token(text: str) -> str:
    toks = tokens(normalize(text[:FIRST_CHARS]))
    return toks[0] if toks else ""


def _head(text: str) -> str:
    """The opening of a side, up to SIDE_CHARS (cut at a word end)."""
    if len(text) <= SIDE_CHARS:
        return text
    return text[:SIDE_CHARS].rsplit(None, 1)[0]


def _tail(text: str) -> str:
    """The end of a side, up to SIDE_CHARS (cut at a word start): what it names last."""
    if len(text) <= SIDE_CHARS:
        return text
    cut = text[-SIDE_CHARS:]
    return cut.split(None, 1)[-1]


def _proper_pair(left: str, right: str) -> bool:
    """ "Tom and Jerry", "Simon and Garfunkel", "Barnes and Noble": names on both sides."""
    lw = left.rsplit(None, 1)
    rw = right[:FIRST_CHARS].split(None, 1)
    if not lw or not rw:
        return False
    return bool(_CAPITALISED.match(lw[-1]) and _CAPITALISED.match(rw[0]))


# What follows an auxiliary that goes on with a statement's own subject: "won't eat",
# "has been sick", "is running a temp", "has just stopped" (never a subject: "are
# services up?" asks).
_GOES_ON = frozenset(
    ["not", "been", "got", "gone", "had", "just", "also", "still", "always", "never", "already"]
)


def _goes_on(left: str, right: str) -> bool:
    """Whether the right side says more of the statement on the left, its subject left
    out ("Lachie's running a temp | and won't eat"), rather than asking a question of
    its own ("… and are the services up?": an auxiliary, then its subject)."""
    if _first_token(left) in CLAUSE_STARTERS:
        return False  # the left side asks: what follows it may ask too
    toks = tokens(normalize(right[:FIRST_CHARS]))
    if len(toks) < 2 or toks[0] not in AUXILIARIES:
        return False
    words = re.findall(r"[\w'\u2019]+", right)
    if len(words) > 1 and words[1][:1].isupper():
        return False  # "isn't Mia home?"
    return toks[1] in _GOES_ON or toks[1].endswith(("ing", "ed"))


def split_clauses(sentence: str, sources_of: SourcesOf, room: int = MAX_PARTS) -> list[str]:
    """Split one sentence on conjunctions that join independent questions (into at most
    ``room`` parts: the question's other sentences took the rest)."""
    parts: list[str] = []
    left_start = 0
    listed = False
    # Whether the left side has content, read one stretch at a time (each once).
    left_said, read_to = False, 0
    for n, m in enumerate(_CONJUNCTION.finditer(sentence)):
        if n >= MAX_CANDIDATES or len(parts) + 1 >= room:
            break
        if not left_said:
            left_said = _has_content(sentence[max(read_to, left_start) : m.start()])
            read_to = m.start()
        left = sentence[left_start : m.start()]
        right = _head(sentence[m.end() :])
        if not left_said or not _has_content(right):
            continue
        if _first_token(right) == "not":
            continue  # "just hot water and not the heating": what is not wanted, no ask
        is_comma = "," in m.group(0) and not re.search(r"[a-z]", m.group(0), re.IGNORECASE)
        starter = _first_token(right) in CLAUSE_STARTERS
        if starter and is_comma and not listed and _first_token(left) not in CLAUSE_STARTERS:
            continue  # "According to the manual, how do I …": one question
        if starter and is_comma and not listed and _SUBORDINATE.match(left):
            continue  # "When I ask you to remember something, how do you keep it?": one
        if starter and _goes_on(left, right):
            continue  # "Lachie's running a temp and won't eat, …": one story, told
        if starter:
            parts.append(left)
            left_start, left_said = m.end(), False
            continue
        side = _tail(left)
        cues = list(_PAIR_CUE.finditer(side))
        cue = cues[-1] if cues else None
        if cue is not None and not _PAIR_CLOSED.search(side[cue.end() :]):
            continue  # "difference between X and Y", "both X and Y", "compare X and Y"
        if _proper_pair(side, right):
            continue
        clause = _right_clause(right)
        mine = sources_of(side)
        theirs = sources_of(clause)
        # Two asks for different sources ("the forecast, the headlines and my services"),
        # or a bare topic beside an ask for a source: one that opens like an ask
        # ("volcanoes and the latest headlines") or only names the source ("volcanoes and
        # news"). A list whose items name no source ("salt, pepper and oil") never splits;
        # after "then", "also" or "plus" two sources are two asks ("the news, then the
        # weather").
        sequenced = listed or bool(_SEQUENCE.search(m.group(0)))
        differ = bool(
            mine and theirs and not set(mine) & set(theirs) and (sequenced or _own_subject(side))
        )
        asks = _opens_ask(right) or not _own_subject(clause)
        topic = bool(not mine and theirs and _topic(side) and asks)
        # "Check the weather, then the news, then my servers": "then" starts another ask.
        then = bool(_THEN.search(m.group(0))) and _own_subject(clause)
        if differ or topic or then or _parallel(side, clause, right):
            parts.append(left)
            left_start, left_said = m.end(), False
            listed = listed or is_comma  # "Everest, the news and my servers": a list of asks
    parts.append(sentence[left_start:])
    return [p for p in (_clean(p) for p in parts) if p]


_POSSESSIVE_S = re.compile(r"\w['\u2019]s\b", re.IGNORECASE)


def _parallel(left: str, clause: str, rest: str) -> bool:
    """Two things named in the same words, each whole: "the kitchen temperature and the
    fridge temperature", "X status and Y status". Each side ends in the same word with
    its own words before it, and nothing after them is shared across the "and" ("the
    front door and the back door locked", "the kitchen light, the porch light and the
    hall light off" share what ends them: one question; so does a possessor said only
    on the left, "the dishwasher's model number and serial number"). ``rest`` is all of the right
    side, ``clause`` its part up to the next conjunction."""
    if _POSSESSIVE_S.search(left) and not _POSSESSIVE_S.search(clause):
        return False  # "the dishwasher's model number and serial number": both its own
    left_toks, right_toks = tokens(normalize(left)), tokens(normalize(clause))
    mine = content_words(left_toks)[-MAX_TOPIC_WORDS:]
    theirs = content_words(right_toks)
    if not (
        len(mine) >= 2
        and 2 <= len(theirs) <= MAX_TOPIC_WORDS
        and left_toks[-1] == right_toks[-1] == mine[-1]  # the head ends both, said last
        and mine[:-1] != theirs[:-1]
    ):
        return False
    after = rest[len(clause) :]
    if not after.strip() or tokens(normalize(rest))[-1:] == [mine[-1]]:
        return True  # the sentence ends there, or its list ends in the same word
    more = _CONJUNCTION.match(after)
    return more is not None and _first_token(after[more.end() :]) in CLAUSE_STARTERS


MAX_TOPIC_WORDS = 4


def _topic(text: str) -> bool:
    """A bare subject ("volcanoes", "black holes"): a few words, none of them a question."""
    toks = tokens(normalize(text))
    if not toks or len(toks) > MAX_TOPIC_WORDS or toks[0] in CLAUSE_STARTERS:
        return False
    return _own_subject(text)


# How an ask for a source begins after a bare topic: "…and the news", "…and today's weather".
_ASK_OPENERS = frozenset(
    ["the", "today", "tomorrow", "tonight", "this", "my", "our", "a", "an", "any", "some"]
)


def _opens_ask(right: str) -> bool:
    first = _first_token(right)
    return first in _ASK_OPENERS or first in CLAUSE_STARTERS


def _own_subject(text: str) -> bool:
    """True when a side says more than which source to ask."""
    words = content_words(tokens(normalize(text)))
    return any(w not in _SOURCE_WORDS and w not in GENERIC_WORDS for w in words)


def _right_clause(right: str) -> str:
    """The right side up to the next conjunction, to route it on its own."""
    m = _CONJUNCTION.search(right)
    return right[: m.start()] if m else right


def decompose(question: str, sources_of: SourcesOf) -> list[str]:
    """Independent parts of a question, in order; one part when it is one question."""
    parts: list[str] = []
    sentences = _told_then_asked(question)
    if len(sentences) > MAX_SENTENCES:
        rest = " ".join(f"{t} {s}".strip() for t, s in sentences[MAX_SENTENCES - 1 :])
        sentences = [*sentences[: MAX_SENTENCES - 1], ("", rest)]
    meaningful = [(t, s) for t, s in sentences if t or _has_content(s)] or sentences
    for told, sentence in meaningful:  # "Hi!", "Thanks." carry no question
        # What was told is never split ("The boiler has stopped and a red light flashes.
        # How do I reset it?"): it leads the first part of the question it tells about.
        room = max(1, MAX_PARTS - len(parts))  # past it, parts are joined into the last
        clauses = split_clauses(sentence, sources_of, room) or [sentence]
        parts.extend([f"{told} {clauses[0]}", *clauses[1:]] if told else clauses)
    merged: list[str] = []
    for part in parts:
        if (merged and not _has_content(part)) or (merged and not _has_content(merged[-1])):
            merged[-1] = f"{merged[-1]} {part}"
        else:
            merged.append(part)
    if not merged:
        return [question.strip()]
    if len(merged) > MAX_PARTS:
        merged = [*merged[: MAX_PARTS - 1], " ".join(merged[MAX_PARTS - 1 :])]
    return merged


# A name: capitalised words, never the one opening a sentence ("… nothing. What …").
_NAME = re.compile(
    r"(?<!^)(?<![.!?] )\b([A-Z][a-z][\w'-]*(?:\s+(?:[A-Z][a-z][\w'-]*|de|van|von|da))*)"
)
_PRONOUN = re.compile(r"\b(he|she|him|they|them|his|her|hers|their|theirs)\b", re.IGNORECASE)
_POSSESSIVE = frozenset({"his", "their", "theirs", "hers"})


def carry_subject(parts: list[str], sources_of: SourcesOf | None = None) -> list[str]:
    """Give a later part's pronoun the one name of the part before it (no guessing).

    "it" takes the name unless it is the weather's "it": "When was the Magna Carta
    signed and what did it say?" asks "what did the Magna Carta say", but "Who was
    Isaac Newton and will it rain?" asks about the weather.
    """
    out: list[str] = []
    for i, part in enumerate(parts):
        if i and (_PRONOUN.search(part) or _IT.search(part)):
            weather = sources_of is not None and "forecast" in sources_of(part)
            # "Thursday" or "March" names no one a "she" could be; "Mia's" names Mia.
            names = [n for n in _NAME.findall(out[-1]) if n.strip().lower() not in _CALENDAR]
            if len(names) == 1:  # exactly one named: no guessing between two
                name = re.sub(r"['\u2019]s$", "", names[0].strip())
                if _PRONOUN.search(part):
                    part = _PRONOUN.sub(functools.partial(_replace, name=name), part, count=1)
                elif sources_of is not None and not weather:
                    article = "the " if _THE_NAME.search(out[-1][: out[-1].find(name)]) else ""
                    part = _IT.sub(article + name, part, count=1)
            elif not names and not weather and _first_token(part) in CLAUSE_STARTERS:
                # "Who's our plumber and what's their number?": no name to put in, so the
                # question that refers back is asked with the one it refers to, never alone.
                out[-1] = f"{out[-1]} and {part}"
                continue
        elif (
            i
            and _THAT.search(part)
            and _first_token(part) in CLAUSE_STARTERS
            and not (sources_of is not None and "forecast" in sources_of(part))
        ):
            # "can it search the web? how do I switch that on": "that" is the web search.
            out[-1] = f"{out[-1]} and {part}"
            continue
        elif i and _bare_attribute(part) and _ASKS_WHO.search(out[-1]):
            # "Who's the kids' GP and what's the number?": the number is the GP's; asked
            # alone it is anyone's number.
            out[-1] = f"{out[-1]} and {part}"
            continue
        out.append(part)
    return out


# "Who's the kids' GP", "which locksmith do you use": a part asking for someone.
_ASKS_WHO = re.compile(r"\b(?:who|whom|which)\b", re.IGNORECASE)


def _bare_attribute(part: str) -> bool:
    """Whether the part asks only for an attribute, of nothing it names ("what's the
    number?", "and the address?")."""
    words = relevance.content_words(part)
    return bool(words) and all(w in relevance.ATTRIBUTE_WORDS for w in words)


_CALENDAR = frozenset(
    [
        *("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
        *("january", "february", "march", "april", "may", "june", "july", "august"),
        *("september", "october", "november", "december", "christmas", "easter"),
    ]
)
_IT = re.compile(r"\bit\b", re.IGNORECASE)
# "that"/"this" standing for a thing, not before one: "switch that on", "is this safe?".
_THAT = re.compile(
    r"\b(?:that|this)\b(?=\s*(?:[?.!,;]|$)|\s+(?:on|off|up|down|in|out|back|again|over|for"
    r"|to|with|at|about|from|by|safe|ok|okay|normal|right|wrong|bad|good|true)\b)",
    re.IGNORECASE,
)
_THE_NAME = re.compile(r"\bthe\s*$", re.IGNORECASE)


def _replace(match: re.Match[str], *, name: str) -> str:
    return f"{name}'s" if match.group(1).lower() in _POSSESSIVE else name
