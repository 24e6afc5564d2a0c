"""A conditional question's verdict said the way a person would (issue 29 item 5).

"If it rains tomorrow, is the bedroom window open?" is answered "It will rain
tomorrow, and yes, the bedroom window is open." — not "Condition met: it rains
tomorrow. The bedroom window is open." A condition not met is said with what is
so ("The garage door isn't open, so that doesn't apply for now."), one that could
not be checked says so ("I couldn't check whether it will rain tomorrow.").
"""

from __future__ import annotations

import re

from .vocabulary import AUXILIARIES as _AUXILIARIES

# What ends a verdict that is no answer of its own: the integration's short form keeps
# the answer after it (custom_components/mnemolis/conversation.py, _LEAD_IN).
DOES_NOT_APPLY = ", so that doesn't apply for now."
NOT_CHECKED = "I couldn't check whether"

_ALREADY_FUTURE = re.compile(r"\b(?:will|going to|won't)\b", re.IGNORECASE)
# "it's windy tomorrow", "there is a storm on Friday": the verb "be".
_BE = re.compile(r"^(it|there)(?:\s+is|\s+are|'s)\s+", re.IGNORECASE)
# "it rains tomorrow", "it snows on Saturday", "it goes below zero": a verb with -s.
_IT_VERB = re.compile(r"^(it)\s+([a-z]+s)\b", re.IGNORECASE)
_AUX = re.compile(r"\b(is|are|was|were|has|have|can|will)\b|'s\b", re.IGNORECASE)
_NOT = {"is": "isn't", "are": "aren't", "was": "wasn't", "were": "weren't"}
_NOT |= {"has": "hasn't", "have": "haven't", "can": "can't", "will": "won't"}
# A question that opens with an auxiliary is answered yes or no ("is the window open?").
_YES_NO = _AUXILIARIES
_NEGATIVE = re.compile(r"\b(?:not|no|never|none|nobody)\b|n't\b", re.IGNORECASE)
# Words a sentence opens with that are lower-cased after "…, and".
_COMMON_OPENERS = frozenset(
    {"the", "it", "there", "a", "an", "your", "our", "this", "that", "these", "those"}
    | {"yes", "no", "nobody", "somebody", "someone", "everyone", "everything", "nothing"}
    | {"all", "both", "each", "every", "some", "most"}
)


def _base(verb: str) -> str:
    """ "rains" → "rain", "goes" → "go", "freezes" → "freeze", "fries" → "fry"."""
    lower = verb.lower()
    if lower.endswith("ies"):
        return verb[:-3] + "y"
    if lower.endswith(("oes", "sses", "shes", "ches", "xes")):
        return verb[:-2]
    return verb[:-1]


def _future(text: str) -> str | None:
    """The weather condition said of the time it is about: "it rains tomorrow" → "it will
    rain tomorrow"; None when it is not said in one of those shapes."""
    if _ALREADY_FUTURE.search(text):
        return text
    if (m := _BE.match(text)) is not None:
        return f"{m.group(1)} will be {text[m.end() :]}"
    if (m := _IT_VERB.match(text)) is not None:
        return f"{m.group(1)} will {_base(m.group(2))}{text[m.end() :]}"
    return None


def _negated(statement: str) -> str | None:
    """ "the garage door is open" → "the garage door isn't open"; None without a verb
    to put "not" to."""
    m = _AUX.search(statement)
    if m is None:
        return None
    word = m.group(0).lower()
    if word == "'s":  # "the garage's open" → "the garage isn't open"
        return f"{statement[: m.start()]} isn't{statement[m.end() :]}"
    return f"{statement[: m.start()]}{_NOT[word]}{statement[m.end() :]}"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def verdict_said(text: str, kind: str, verdict: bool | None) -> str:
    """The condition's verdict alone: a statement, without a full stop."""
    text = text.replace("\u2019", "'")
    future = _future(text) if kind == "forecast" else text
    if verdict is None:
        return f"{NOT_CHECKED} {future or text}"
    if future is None:  # a forecast condition in another shape
        said = f"the forecast says {text}"
        return _sentence(said if verdict else f"the forecast doesn't say {text}")
    if verdict:
        return _sentence(future)
    negated = _negated(future)
    return _sentence(negated if negated is not None else f"it's not so that {future}")


def _affirms(question: str, answer: str) -> bool:
    """Whether a yes/no question's answer says yes ("is the bedroom window open?" —
    "The bedroom window is open."): it says the thing asked, without a "not"."""
    words = re.findall(r"[\w']+", question.lower())
    if len(words) < 2 or words[0] not in _YES_NO or re.match(r"(?i)(?:yes|no)\b", answer):
        return False  # not a yes/no question, or the answer says which itself
    asked = words[-1]
    said = re.findall(r"[\w']+", answer.lower())
    return asked in said and _NEGATIVE.search(answer) is None


def _lowered(sentence: str) -> str:
    first = sentence.split(" ", 1)[0].rstrip(",.;:!?")
    if first.lower() in _COMMON_OPENERS and first[:1].isupper() and first[1:].islower():
        return sentence[:1].lower() + sentence[1:]
    return sentence


def with_verdict(text: str, kind: str, verdict: bool | None, asked: str, said: list[str]) -> str:
    """The spoken answer of a conditional: the verdict, then what was asked, joined as
    one sentence when the condition holds ("It will rain tomorrow, and yes, the bedroom
    window is open.")."""
    lead = verdict_said(text, kind, verdict)
    answer = " ".join(s for s in said if s).strip()
    if verdict is None:
        return f"{lead}. {answer}".strip()
    if not verdict:
        return f"{lead}{DOES_NOT_APPLY} {answer}".strip()
    if not answer:
        return f"{lead}."
    first, _, rest = answer.partition(". ")
    yes = "yes, " if _affirms(asked, first) else ""
    joined = f"{lead}, and {yes}{_lowered(first)}"
    return f"{joined}. {rest}".strip() if rest else joined
