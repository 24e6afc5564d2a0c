"""Conversation context: follow-ups ("and tomorrow?") reuse the last question's subject."""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from .signals import DynamicVocabulary
from .text import content_words, normalize, tokens
from .vocabulary import CLAUSE_STARTERS, TIME_PHRASE, TIME_WORDS

TURN_TTL = 30 * 60.0  # a conversation is forgotten after half an hour of silence
MAX_CONVERSATIONS = 1000
MAX_FOLLOW_UP_WORDS = 7

_FOLLOW_UP = re.compile(
    r"^(?:and|but|also|what about|how about|and what about|and how about|what of|"
    r"same for|and for|and in|and on|and at|or|then)\b\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_WH_COPULA = re.compile(
    r"^(?P<head>(?:who|what|where|when)\s+(?:is|was|are|were)\s+|tell me about\s+|"
    r"(?:.*?\b(?:about|on|for|of|in)\s+))(?P<obj>.+?)\s*[?.!]*$",
    re.IGNORECASE,
)
_FILLER = re.compile(r"^(?:the|for|in|on|at|about|with)\s+", re.IGNORECASE)


@dataclass(slots=True)
class Turn:
    """What was asked last in a conversation and which sources answered it."""

    query: str
    sources: list[str]
    at: float


class ConversationStore:
    """The last turn per conversation id, bounded in number and age."""

    def __init__(
        self,
        ttl: float = TURN_TTL,
        max_items: int = MAX_CONVERSATIONS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.max_items = max_items
        self.clock = clock
        self._turns: OrderedDict[str, Turn] = OrderedDict()

    def get(self, conversation_id: str | None) -> Turn | None:
        """The previous turn, if the conversation is still fresh."""
        if not conversation_id:
            return None
        turn = self._turns.get(conversation_id)
        if turn is None:
            return None
        if self.clock() - turn.at > self.ttl:
            del self._turns[conversation_id]
            return None
        return turn

    def put(self, conversation_id: str | None, query: str, sources: list[str]) -> None:
        """Remember a turn."""
        if not conversation_id or not sources:
            return
        self._turns[conversation_id] = Turn(query, list(sources), self.clock())
        self._turns.move_to_end(conversation_id)
        while len(self._turns) > self.max_items:
            self._turns.popitem(last=False)


@dataclass(frozen=True, slots=True)
class FollowUp:
    """A follow-up rewritten into a full question, and the sources it inherits."""

    query: str
    sources: list[str]
    previous: str


def _strip_q(text: str) -> str:
    return text.strip().rstrip("?.!").strip()


def resolve_follow_up(
    question: str,
    previous: Turn,
    dynamic: DynamicVocabulary | None = None,
    strong_of: Callable[[str], list[str]] | None = None,
) -> FollowUp | None:
    """Rewrite "and tomorrow?" / "what about the bedroom?" using the previous question.

    Not a follow-up: a full question after "and" ("and who won the match?") or
    a subject another source owns ("what about the news?" after the weather).
    """
    q = _strip_q(question)
    m = _FOLLOW_UP.match(q)
    words = q.split()
    if m is None or len(words) > MAX_FOLLOW_UP_WORDS:
        return None
    rest = _strip_q(m.group("rest"))
    rest_tokens = tokens(normalize(rest))
    if not content_words(rest_tokens) or rest_tokens[0] in CLAUSE_STARTERS:
        return None
    if strong_of is not None:
        own = strong_of(rest)
        if own and not set(own) & set(previous.sources):
            return None
    prev = _strip_q(previous.query)
    rewritten = (
        _swap_day(prev, rest)
        or _swap_time(prev, rest)
        or _swap_name(prev, rest, dynamic)
        or _swap_object(prev, rest)
        or f"{prev} {rest}"
    )
    return FollowUp(query=rewritten, sources=list(previous.sources), previous=previous.query)


_RELATIVE_DAY = re.compile(
    r"^(?:the\s+)?(?:(?P<after>day after|next day|following day)|(?P<before>day before))"
    r"(?:\s+that)?$",
    re.IGNORECASE,
)
_PREV_DAY = re.compile(
    r"\b(?:(?P<two>(?:on\s+)?the day after tomorrow)|in (?P<n>\d+) days|(?P<one>tomorrow)|"
    r"(?P<zero>today|tonight|right now|now|currently|at the moment))\b",
    re.IGNORECASE,
)


def _day_words(offset: int) -> str:
    return {0: "today", 1: "tomorrow", 2: "the day after tomorrow"}.get(offset, f"in {offset} days")


def _swap_day(prev: str, rest: str) -> str | None:
    """ "And the day after?" is one day after the day the last question was about."""
    m = _RELATIVE_DAY.match(rest.strip())
    if m is None:
        return None
    step = 1 if m.group("after") else -1
    old = _PREV_DAY.search(prev)
    if old is None:
        return f"{prev} {_day_words(max(0, step))}"
    was = (
        2
        if old.group("two")
        else int(old.group("n"))
        if old.group("n")
        else (1 if old.group("one") else 0)
    )
    day = _day_words(max(0, was + step))
    return prev[: old.start()] + day + prev[old.end() :]


def _swap_time(prev: str, rest: str) -> str | None:
    if not set(tokens(normalize(rest))) & TIME_WORDS:
        return None
    new = TIME_PHRASE.search(normalize(rest))
    if new is None:
        return None
    old = TIME_PHRASE.search(prev.lower())
    if old is None:
        return f"{prev} {new.group(0)}"
    return prev[: old.start()] + new.group(0) + prev[old.end() :]


def _swap_name(prev: str, rest: str, dynamic: DynamicVocabulary | None) -> str | None:
    if dynamic is None:
        return None
    new = _FILLER.sub("", rest).strip()
    prev_low = prev.lower()
    for idx in dynamic.all():
        names = sorted({" ".join(k) for k in idx.exact}, key=len, reverse=True)
        new_norm = " ".join(tokens(normalize(new)))
        if (
            not any(new_norm == n or new_norm in n.split(" ") for n in names)
            and new_norm not in names
        ):
            continue
        for name in names:
            m = re.search(rf"\b{re.escape(name)}\b", prev_low)
            if m and name != new_norm:
                return prev[: m.start()] + new + prev[m.end() :]
    return None


def _swap_object(prev: str, rest: str) -> str | None:
    m = _WH_COPULA.match(prev)
    if m is None:
        return None
    return m.group("head") + _FILLER.sub("", rest).strip()
