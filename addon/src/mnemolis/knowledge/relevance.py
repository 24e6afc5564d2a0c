"""How well a passage or a memory answers a question, on one 0..1 scale for both.

Two signals, the better of which counts:

* **words** — the share of the question's content words a text contains, each word
  weighted by how rare it is in the home's own documents and memories (a word the
  home never uses, like "router" for a boiler manual, weighs the most): "how do I
  reset the router?" shares "reset" with the boiler manual but not its meaning.
* **meaning** — the embedding model's cosine similarity, mapped so that what
  all-MiniLM-L6-v2 gives unrelated texts is 0 and a clear paraphrase is 1.

Documents and memories are compared on this scale, so a memory that answers beats
a document that merely shares a word, and the router's fusion can drop evidence
much weaker than the best.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from .. import textmatch, wordlist
from ..language import (
    HEAD_MIN,
    LINKING,
    MODIFIER_MIN,
    cached_by_language,
    first_part_in,
    fold,
    foreign,
    heads,
    joins_compounds,
    names_a_phone,
    root_in,
    stem_in,
    stop_words_of,
)
from ..llm import bundled as bundled_model
from ..sentences import SENTENCE_BREAK
from . import foreign_thesaurus, thesaurus
from .foreign_kinds import DAY_SPAN, Kind, kind_asked, names_a_day, other_day
from .text import STOPWORDS, joined, query_tokens

_WORD = re.compile(r"\w+", re.UNICODE)
# all-MiniLM-L6-v2's cosine for unrelated texts, and for a plain answer to a question.
SIMILARITY_NONE = 0.25
SIMILARITY_FULL = 0.75
# A passage or memory answers when either signal reaches this.
ANSWERS = 0.5
# Below this meaning the model calls a text unrelated: then only words this sure answer.
UNRELATED = 0.1
AGREE = 0.4  # words and the model both at least this far also answer: two signals agree
# The cosine at which the passage the model ranks nearest of all answers on its own,
# calibrated on the eval suites' questions nothing answers (tune and dev halves): one came
# this near, and its passage did not say what it asked for (``names_what_is_asked``).
NEAREST_SIMILARITY = 0.42
WORDS_SURE = 0.75
# In another language the bundled model's cosine says little: words weigh this much.
FOREIGN_WORDS_SHARE = 0.65


def stem(word: str) -> str:
    """A light English stem for matching: plurals, -ing, -ed and a final e go.

    "codes" and "code", "resetting" and "reset", "serviced" and "service" meet;
    words of three letters or fewer stay as they are.
    """
    w = word
    if len(w) <= 3 or not w.isalpha():
        return w
    if w == "another":
        return "other"  # "another pet" is any other pet
    if w.endswith("ies") and len(w) > 5:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "shes", "ches", "xes", "zes")):
        w = w[:-2]
    elif (w.endswith("s") and not w.endswith(("ss", "us", "is", "ys"))) or w.endswith("eys"):
        w = w[:-1]
    if w.endswith("ing") and len(w) > 5:
        w = w[:-3]
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    return w


_NUMBER_TOKEN = re.compile(r"\d+(?:[.,:]\d+)+")


_OPEN_COMPOUND = re.compile(r"(?=\b([^\W\d_]{2,5})[ -]([^\W\d_]{2,5})\b)")


@functools.lru_cache(maxsize=4096)
def words_of(text: str) -> frozenset[str]:
    """Stems of a text's words, and its numbers whole ("0.5", "6:30") as a question holds
    them (passages come back question after question)."""
    words = _WORD.findall(text)
    one = joined(text)
    if one != text:  # "Wi-Fi" holds "wi", "fi" and "wifi"
        words += _WORD.findall(one)
    # A compound written open holds the closed one too: "Air con" says "aircon", "lock
    # box" says "lockbox" (two short words side by side, as the question may join them).
    # Never of a function word: "we are" is no "weare" (nor, stemmed, "wear").
    words += [
        a + b
        for a, b in _OPEN_COMPOUND.findall(text)
        if fold(a) not in STOPWORDS and fold(b) not in STOPWORDS
    ]
    return frozenset(stem(fold(w)) for w in words) | frozenset(_NUMBER_TOKEN.findall(text))


@functools.lru_cache(maxsize=4096)
def stems_in(language: str, text: str) -> frozenset[str]:
    """A text's words by their stems in the language a question is in (Snowball's): a
    question in German meets its documents' inflections, which English stems do not."""
    return frozenset(stem_in(language, w) for w in _WORD.findall(joined(text)))


@cached_by_language(512)
def content_words(question: str) -> tuple[str, ...]:
    """The question's words that carry meaning (stop words dropped), folded."""
    return tuple(dict.fromkeys(fold(w) for w in query_tokens(question)))


@functools.lru_cache(maxsize=1)
def _synonym_groups() -> tuple[tuple[tuple[frozenset[str], tuple[str, ...]], ...], ...]:
    """The thesaurus's groups; each member as (the stems of its content words, the words)."""
    groups = []
    for group in thesaurus.GROUPS:
        members: dict[frozenset[str], tuple[str, ...]] = {}
        for member in group:
            words = [fold(w) for w in _WORD.findall(member)]
            kept = tuple(w for w in words if w not in STOPWORDS)
            if len(kept) < min(len(words), 2):
                # "for nothing", "set up": a phrase whose one word says something else alone
                # ("it does nothing" is not free) keeps its small words.
                kept = tuple(words)
            members.setdefault(frozenset(stem(w) for w in kept), kept)
        groups.append(tuple(members.items()))
    return tuple(groups)


@functools.lru_cache(maxsize=512)
def _synonyms(
    question: str,
) -> tuple[dict[str, tuple[frozenset[str], ...]], dict[str, tuple[str, ...]]]:
    asked = words_of(question)
    out: dict[str, list[frozenset[str]]] = {}
    spelled: dict[str, list[str]] = {}
    for members in _synonym_groups():
        held = [m for m, _ in members if m <= asked]
        if not held:
            continue
        head = members[0]
        for m in held:
            others = [(o, words) for o, words in members if not o <= m]
            for s in m:
                # "model number" is said by "model SMS4HVI33G": the group's own name, a
                # part of the member asked, says the rest of it ("meter" says no
                # "electricity": it is no head).
                says = [*others, head] if head[0] < m and s not in head[0] else others
                out.setdefault(s, []).extend(o for o, _ in says)
                spelled.setdefault(s, []).extend(" ".join(words) for _, words in others)
    alternatives = {s: tuple(dict.fromkeys(alts)) for s, alts in out.items()}
    return alternatives, {s: tuple(dict.fromkeys(ws)) for s, ws in spelled.items()}


@functools.lru_cache(maxsize=1)
def _thesaurus_words() -> frozenset[str]:
    """Stems of the thesaurus's words."""
    return frozenset(w for members in _synonym_groups() for m, _ in members for w in m)


def _things_named(text: str) -> frozenset[str]:
    """Stems of the thesaurus things the text names whole: "fabric conditioner" is one,
    the "first" of "for the first time" is no part of "first aid kit"."""
    have = words_of(text)
    things = _synonym_groups()[: len(thesaurus.THINGS)]
    return frozenset(s for members in things for m, _ in members if m <= have for s in m)


@functools.lru_cache(maxsize=1)
def _rival_sets() -> tuple[frozenset[int], ...]:
    """thesaurus.RIVALS as indexes of THINGS groups."""
    heads = {group[0]: i for i, group in enumerate(thesaurus.THINGS)}
    return tuple(frozenset(heads[h] for h in rivals) for rivals in thesaurus.RIVALS)


def things_of(text: str) -> frozenset[int]:
    """The household things a text names, by any of their names: indexes of THINGS."""
    have = words_of(text)
    things = _synonym_groups()[: len(thesaurus.THINGS)]
    return frozenset(i for i, members in enumerate(things) if any(m <= have for m, _ in members))


def names_a_rival(question: str, *texts: str) -> bool:
    """Whether the texts are about another thing of the kind the question asks about:
    the dishwasher's warranty for "when does the microwave's warranty end?", customer
    service's number for the vet's (thesaurus.RIVALS); never while they name it too."""
    told = _aside_words(question)
    asked = things_of(" ".join(w for w in _WORD.findall(question) if w.lower() not in told))
    if not asked:
        return False
    have = frozenset().union(*(things_of(t) for t in texts))
    return any(
        (asked & rivals) and not (asked & rivals & have) and (have & rivals)
        for rivals in _rival_sets()
    )


def in_thesaurus(word: str) -> bool:
    """Whether the thesaurus names this word (a household word, never a typing slip)."""
    return stem(fold(word)) in _thesaurus_words()


def synonyms(question: str) -> dict[str, tuple[frozenset[str], ...]]:
    """For each stem of the question that is part of a thesaurus member it holds whole,
    the other members of that group: any one of them in a text says that word.

    "turn off the water" holds the member {turn, off, water}, so a text with
    "stopcock" says all three words.
    """
    return _synonyms(question)[0]


def synonym_words(question: str, word: str | None = None) -> tuple[str, ...]:
    """Those other members (for one question word, or all) as words or phrases, for a
    keyword search to look for too ("water heater" as a phrase, never "water" alone)."""
    spelled = _synonyms(question)[1]
    tongue = foreign(question)
    if tongue:
        # "plomero" looks for "fontanero" too (the language's own thesaurus).
        asked = stems_in(tongue, question)
        words = [word] if word is not None else list(content_words(question))
        own = [m for w in words for m in foreign_thesaurus.words_for(tongue, w, asked)]
    else:
        own = []
    if word is not None:
        return tuple(dict.fromkeys([*spelled.get(stem(fold(word)), ()), *own]))
    return tuple(dict.fromkeys([*(w for ws in spelled.values() for w in ws), *own]))


# "What's the address here? I need to tell the taxi", "…, I'm booking a taxi home",
# "…, I need it for a form", "…, like the manual for the fridge": why the person asks,
# or an example, after the question itself says less about which passage answers than
# the question does; so does a part named after "including" ("the full address
# including the postcode"), which a record may not hold while it holds the whole.
_PURPOSE = re.compile(
    r"(?:[,.;!?]\s*|\s)(?:(?:because|as|since|so that|so)\s+)?(?:i|we)(?:'ve| have)?"
    r"\s+(?:need|have|want|got|must)\s+to\b(?P<tail>.*)$"
    r"|[,.;!?]\s*(?:need|have|want|got)\s+to\b(?P<bare>.*)$"
    r"|[,;]\s*(?:like|such as|for example|for instance|e\.g\.)\s+(?P<example>.*)$"
    r"|\s(?:so|so that) (?:i|we|you) (?:can|could)\s+(?P<able>.*)$"
    # "… at night so our gas bill stays low?": what they want it to bring about.
    r"|\s(?:so|so that) (?:the|my|our|their) (?P<result>.*)$"
    r"|[,.;!?]\s*(?:i|we)(?:'m| am|'re| are)\s+(?P<doing>\w+ing\b.*)$"
    r"|[,.;!?]\s*(?:(?:i|we)(?:'ll| will)? (?:need|want) (?:it|them|this|that)|it's|it is)"
    r" for\b(?P<use>.*)$"
    r"|\s(?:including|incl\.?)\s+(?P<part>.*)$"
    # "Which network should I pick when I connect my laptop?": when they will use it.
    r"|\s(?:when|whenever|once) (?:i|we|they|you) (?P<when>(?!\w+ed\b)\w+\b.*)$"
    # "What temp should it be on if we don't want a huge gas bill?": what they wish
    # for, not what is asked (a condition on the thing, "if the toilet overflows", is).
    r"|\s(?:if|as|since|because) (?:i|we) (?:really )?(?:don't |do not |dont )?"
    r"(?:want|wanna)\b(?P<wish>.*)$"
    # "What's the number for Bosch? The dishwasher's making a noise.": told after it.
    r"|\?\s+(?P<after>[^?]+)$"
    # "how do I get you to remember that …": what is to be remembered, not what is asked.
    r"|(?<=\bremember)\s+that\b(?P<content>.*)$"
    # "Who's the plumber we normally use?": a habit says whom, not what about.
    r"|\s(?:that |who |whom )?(?:i|we|you) (?:normally|usually|always|generally|typically"
    r"|regularly) (?P<habit>(?:use|call|ring|get|have|go to|see)\b.*)$"
    # "Is there a locksmith who'll come out now?": the person asked for, then what they do.
    r"|\swho(?:'ll| will| can| could| would)\s+(?P<who>.*)$",
    re.IGNORECASE,
)
# "My sister is staying and needs to get online, what's the wifi password?": the
# situation told before the question, which starts after a break (or, unpunctuated as
# speech comes, at "how do I …", or after "she's asking for" / "wants to know").
_OPENER = (
    r"(?:what|what's|whats|which|who|who's|whose|where|where's|wheres|when|when's|whens"
    r"|how|why|is|are|can|could|should|do|does|did|will|would|has|have|any|anything"
    r"|(?:at|by|until|from|on|for) (?:what|which))\b"
)
_ASKED = re.compile(
    rf"(?:[,;:.!?]|\s[-\u2013\u2014])\s*(?={_OPENER})"
    r"|\s(?=(?:how|what|where) (?:do|can|should|would) (?:i|we)\b)"
    r"|\s(?=(?:(?:can|could|would|will) you (?:please )?(?:tell|give|show|remind) (?:me|us)"
    r"|do you know)\b)"
    r"|\s(?:asking (?:me |you )?(?:for|about)(?= (?:our|my|the|your)\b)"
    r"|(?:wants|needs|wanted|needed) to know)\s",
    re.IGNORECASE,
)
# A question that refers back ("my mum's boiler has stopped, how do I reset it?") needs
# the thing told before it: that thing is no aside.
BACK_WORDS = frozenset(
    {"it", "its", "they", "them", "their", "this", "that", "these", "those"}
    | {"he", "him", "his", "she", "her"}
)
LEAD_WORDS = 4  # a shorter lead ("the dishwasher, when did we buy it?") is the topic
ASIDE_SHARE = 0.25  # what they told first, or why they ask, weighs at most this much


# Verbs that say little on their own: "where can I take her?" asks about her.
_LIGHT_VERBS = frozenset(["take", "get", "go", "put", "do", "make", "have", "bring", "send"])


# What the thing asked is wanted for, in another language: "Wie sperre ich das Kochfeld,
# damit Ben nicht an die Drehregler kommt?", "para que", "pour que", "zodat", to the end.
_FOREIGN_PURPOSE = re.compile(
    r"[\s,](?:para que|pour que|afin que|affinch[ée]|perch[ée] non|damit|sodass|so dass"
    r"|zodat|opdat)\s+(?P<tail>.*)$",
    re.I,
)

# A clause asking, in the other languages: its question word first ("qual è …", "wo …",
# "¿dónde …", "et quel …").
_FOREIGN_ASKS = re.compile(
    r"[\s\u00bf\u00a1]*(?:(?:und|en|et|y|e|ma|mais|pero|aber|maar)\s+)?(?:wer|wen|wem|was|wo|wann"
    r"|wie|welche[nmrs]?|warum|wieso|wat|waar|wanneer|hoe|welke?|waarom|qui|quoi|o[uù]|quand"
    r"|comment|quel(?:le)?s?|pourquoi|combien|qu[ií]en(?:es)?|d[oó]nde|cu[aá]ndo|c[oó]mo"
    r"|cu[aá]l(?:es)?|cu[aá]nt[oa]s?|chi|cosa|dove|quando|come|qual(?:e|i)?|perch[eé]"
    r"|quant[oaie]|quem|onde|porque|o que)\b",
    re.I,
)


def _foreign_lead(question: str) -> frozenset[str]:
    """In another language, the words of a story told before the clause that asks
    ("Matilde sta male e deve uscire prima, qual è il numero della segreteria?"): the
    last clause opens with a question word and says two words of its own; what came
    before asks nothing."""
    clauses = [c for c in _CLAUSE_END.split(question) if c.strip()]
    if len(clauses) < 2 or "?" in question.rstrip(" ?!."):  # the lead asks as well
        return frozenset()
    ask = clauses[-1]
    # The question's own words, by the question's language (a clause alone may not tell).
    said = {fold(w) for w in _WORD.findall(ask)}
    own = {w for w in content_words(question) if w in said}
    if not _FOREIGN_ASKS.match(ask) or len(own) < 2 or _FOREIGN_ASKS.match(clauses[0]):
        return frozenset()
    return frozenset(w for w in content_words(question) if w not in own)


@cached_by_language(512)
def _aside_words(question: str) -> frozenset[str]:
    """Content words of what surrounds the question itself: the situation told before it,
    and a trailing "I need to …" clause; words the question itself says, and the thing
    it refers back to ("… what make is it?"), stay whole."""
    if foreign(question):
        why = _FOREIGN_PURPOSE.search(question)
        if why is None:
            return _foreign_lead(question)
        head = set(content_words(question[: why.start()]))
        return frozenset(w for w in content_words(why.group("tail")) if w not in head)
    if story_before_call(question):
        # "The toilet overflowed, who do I call?": whom to ring is all the story says; the
        # babysitter's number answers no overflowing toilet.
        return frozenset()
    lead, text = _told(question)
    aside: list[str] = [lead] if lead else []
    kept: set[str] = set()
    if lead and _refers(text):
        # "… for the dishwasher. What make is it?": the thing "it" is stays whole (a person
        # told of is no "it": "the electrician asked where the fuse box is, where is it?").
        # "… I need the internet code to get my tablet working, what is it?": "it" is the
        # code needed, not the tablet it is for.
        need = _NEEDED_FOR.search(lead)
        meant = lead[: need.start("purpose")] if need is not None else lead
        named = _things_named(meant) - (_persons_named(meant) if _refers_to_thing(text) else set())
        kept = {w for w in content_words(meant) if stem(w) in named}
    referents: frozenset[str] = frozenset()
    if lead and not _whole_words(text).isdisjoint(_PERSON_PRONOUNS) and not _persons_named(text):
        # "Biscuit's really sick, where do I take her?": "her" is Biscuit, asked about
        # (but "his" in "who's our plumber and what's his number?" is the plumber, and
        # "Toilet's running" names no one).
        referents = names_in(lead)
        kept |= referents
    said = text
    to = _TOLD_TO.search(text)
    if to is not None and not _things_named(to.group("to")) - _persons_named(to.group("to")):
        # "What should I tell the taxi …?": whom it is for is not what is asked (but
        # "what should I give the cat?" asks about the cat's food).
        aside.append(to.group("to"))
        rest = text[to.end("to") :]
        purpose = _TOLD_FOR.match(rest)
        if purpose is not None:
            # "… give the taxi to get home?": what they will do with it is no part either.
            aside.append(purpose.group(0))
            rest = rest[purpose.end() :]
        said = text[: to.start("to")] + rest
    m = _PURPOSE.search(said)
    if m is not None and m.group("when") is not None and not _things_named(said[: m.start()]):
        m = None  # "what happens when I press the reset button?": the when is what is asked
    if m is not None:
        aside.append(m.group(0))  # its marker too: the "like" of ", like the manual …"
        said = said[: m.start()]
    frame = _frame_words(question)
    head = {
        w
        for w in (_own_words(said) | kept) - readings_checked(text)
        if stem(w) not in frame and w not in FUNCTION_WORDS
    }
    if not head or (referents and head <= referents | _LIGHT_VERBS):
        # "…, any tricks?", "Biscuit's vomiting, where can I take her?": the question
        # says nothing of its own but whom it refers back to; what was told is asked.
        return frozenset()
    # A fault code told first is what the question is about ("Split system's showing F3.
    # Can I fix that myself?"): it names exactly one thing, never an aside.
    codes = _codes(question)
    return frozenset(
        w for part in aside for w in content_words(part) if w not in head and w not in codes
    )


# What a thing told of is needed for: "I need the internet code *to get my tablet working*".
_NEEDED_FOR = re.compile(
    r"\bneeds? (?:the|a|an|our|your|my|some|that) [\w'-]+(?: [\w'-]+){0,2}?"
    r" (?P<purpose>to \w+\b.*)$",
    re.IGNORECASE,
)


# Whom the answer is for: "what address should I give the taxi?", "what should I tell
# the babysitter about …?".
_TOLD_TO = re.compile(
    r"\b(?:what|which)\b[\w' ]{0,30}?\b(?:should|do|shall|can|must|would) (?:i|we)"
    r" (?:tell|give|send|say to|pass on to) (?P<to>(?:(?:the|our|my|a|an|any) )?[\w-]+"
    r"(?: (?:service|driver|people|company|man|woman))?)",
    re.IGNORECASE,
)
# What they will do with it, after whom it is for ("… give the taxi to get home?").
_TOLD_FOR = re.compile(r"\s+(?:so as )?to\s+[a-z]+\b[^?]*", re.IGNORECASE)


# A lead ending in "and" joins two asks ("who was that plumber and how do I ring him?").
JOINED = re.compile(r"\b(?:and|or|but)\s*$", re.IGNORECASE)


def _persons_named(text: str) -> frozenset[str]:
    """Stems of the people and trades of the thesaurus the text names ("the electrician")."""
    people = _person_groups()
    return frozenset(
        s for i in things_of(text) if i in people for m, _ in _synonym_groups()[i] for s in m
    )


@functools.lru_cache(maxsize=1)
def _person_groups() -> frozenset[int]:
    """Indexes of the THINGS groups that are people (thesaurus.PERSONS)."""
    return frozenset(i for i, g in enumerate(thesaurus.THINGS) if g[0] in thesaurus.PERSONS)


def _refers_to_thing(asked: str) -> bool:
    """Whether the question refers back with "it" (never a person), not "him" or "them"."""
    words = {w.lower() for w in _WORD.findall(asked)}
    return not words.isdisjoint({"it", "its"}) and words.isdisjoint(
        _PERSON_PRONOUNS | {"they", "them", "their"}
    )


def _told(question: str) -> tuple[str, str]:
    """(the situation told before the question, the question itself); no situation when
    the lead is a few words ("the dishwasher, when did we buy it?") or the question is
    about what was just said ("The gauge says 1.2, is that ok?")."""
    end = question.rfind("?")
    after = question[end + 1 :]
    # Only a question mark that ends a sentence: 'What does "Ready?" mean' asks it whole.
    if end > 0 and after[:1].isspace() and _WORD.search(after) and not ASKS_CHECK.match(after):
        # "How do I use it? When I type procmail it does nothing.": what follows the
        # question mark is told after the question, not asked.
        lead, itself = _told(question[: end + 1])
        return f"{lead} {after.strip()}".strip(), itself
    cuts = [] if ASKS_CHECK.match(question) else list(_ASKED.finditer(question))
    while cuts and JOINED.search(question[: cuts[-1].start()]):
        cuts.pop()  # "…, who was that plumber and how do I ring him?": both are asked
    if cuts:
        lead, asked = question[: cuts[-1].start()], question[cuts[-1].end() :]
        if len(_WORD.findall(lead)) >= LEAD_WORDS and (_own_words(asked) or _refers(asked)):
            return lead, asked
    return "", question


def only_tells(question: str) -> bool:
    """Whether the question only tells of a fault, asking nothing ("hot water's cold"):
    what to do about it is what is asked."""
    text = _GREETING.sub("", question).strip()
    return "?" not in text and re.match(rf"(?:{_OPENER}|{_OPENING.pattern})", text, re.I) is None


_HOPED = ("able", "result", "wish")  # ``_PURPOSE``'s groups saying why they ask


def without_hopes(question: str) -> str | None:
    """The question without what they hope it brings about, when it ends with that ("What
    should I set it to at night so our gas bill stays low?"); else None."""
    if foreign(question) or _told(question)[0]:
        return None
    why = _PURPOSE.search(question)
    if why is None or all(why.group(g) is None for g in _HOPED):
        return None
    head = question[: why.start()].rstrip(" ,;")
    return f"{head}?" if len(_own_words(head)) >= 2 else None


def asked_alone(question: str) -> str | None:
    """The question itself, when a story leads it and it names what it asks about on its
    own ("Lachie's running a temp. Who's the kids' GP?"), not by referring back to the
    story ("The boiler's stopped. How do I reset it?"), nor when the story names the
    thing it is about ("I'm looking at the boiler gauge. What should the pressure be?")."""
    lead, itself = _told(question)
    if not lead or _refers(itself) or len(_own_words(itself)) < 2 or _things_named(lead):
        return None  # "…, what's wrong?" asks about the story
    return asked(question)


# "Where did we get the dishwasher from?" asks where it was bought.
_GOT_FROM = re.compile(
    r"\b(where did (?:we|you|i|they|he|she)) get\b(.+?)\s+from\s*(?=[?.!]*\s*$)", re.I
)


# "Where can I stop the water?", "water off - where?": turning the water off, which the
# thesaurus names (a bare "water" and "off" in a text are no stopcock: never its member).
_WATER_OFF = re.compile(
    r"\b(?:stop|cut off|cut|kill|switch off|switch) the (?:mains )?water(?: off)?\b"
    r"|(?<!hot )(?<!turn the )(?<!shut the )(?<!switch the )\bwater off\b",
    re.I,
)


def plainly_put(question: str) -> str:
    """The question with an idiom said in the words a record uses ("where did we get it
    from?" → "where did we buy it?", "stop the water" → "turn off the water")."""
    return _WATER_OFF.sub("turn off the water", _GOT_FROM.sub(r"\1 buy\2", question))


def asked(question: str) -> str:
    """The question itself, without the situation told first: what "how do I …?" or
    "when …?" is matched against ("The boiler has stopped. How do I reset it?")."""
    text = _GREETING.sub("", _told(question)[1])
    m = _OPENING.match(text)
    if m is not None and _ASKING_WORD.match(text, m.end()):
        return text[m.end() :]
    return text


# "hey, when does …": a greeting before the question.
_GREETING = re.compile(r"^\s*(?:(?:hey|hi|hello|ok|okay|so|right|well|oh)\b[\s,!.]*)+", re.I)
# "Can you tell me when …", "I wonder whether you might know which …", "I can't remember
# where …": a way into the question, which is asked by the "when …" that follows.
_OPENING = re.compile(
    r"\s*(?:please\s+)?(?:"
    r"(?:(?:can|could|would|will) you\s+(?:please\s+)?)?(?:tell|remind|show) (?:me|us)"
    r"|(?:would|do) you mind (?:explaining|telling|showing)(?: (?:me|us))?"
    r"|(?:can|could|would|will) you (?:please )?explain(?: to (?:me|us))?"
    r"|(?:do|does) (?:you|anyone|anybody) (?:happen to )?know|any idea"
    r"|i(?: was| am|'m)? wonder(?:ing|ed)? (?:whether|if)(?: you)?"
    r"(?: (?:might|could|would|can|may))?(?: possibly)?(?: happen to)?(?: be able to)?"
    r"(?: (?:know|tell (?:me|us)|remind (?:me|us)|say))?"
    r"|i(?: really)? (?:need|want|would like|'d like) to know"
    r"|i (?:can't|cant|cannot|can not|don't|dont|do not) (?:remember|recall)"
    r"|i(?:'ve| have)? (?:forgotten|forgot)|i forget"
    r")\b[\s,:]*(?:please\b[\s,]*)?",
    re.IGNORECASE,
)
_ASKING_WORD = re.compile(
    r"(?:(?:at|on|in|by|from|until|for|to) )?(?:what|which|who|whose|where|when|how|why)\b", re.I
)
_POINTING = frozenset({"this", "that", "these", "those"})
_PERSON_PRONOUNS = frozenset({"he", "him", "his", "she", "her"})


def _refers(asked: str) -> bool:
    """Whether the question refers back to what was told before it ("… reset it?", "is
    that ok?"); "that plumber" points at what it names, and "him" at the plumber the
    question names itself."""
    words = [w.lower() for w in _WORD.findall(asked)]
    for i, w in enumerate(words):
        after = words[i + 1] if i + 1 < len(words) else ""
        if w in _POINTING:
            if not (after and in_thesaurus(after)):
                return True  # "that plumber" names the plumber; "how is that done?" refers
        elif w in _PERSON_PRONOUNS:
            if not _things_named(asked):
                return True
        elif w in BACK_WORDS:
            if w == "it" and after == "all":
                continue  # "shut it all off", "how does it all work": everything, no thing
            return True
    return False


def readings_checked(question: str) -> frozenset[str]:
    """The figures of "the gauge says 1.2, is that ok?" (what the person reads off) and
    the judgement asked for: neither says where the answer (what it should be) is written."""
    guessed = _DAY_GUESSED.match(asked(question))
    if guessed is not None:
        return frozenset(content_words(guessed.group("guess")))
    check = ASKS_CHECK.match(question)
    if check is None:
        return frozenset()
    # "bad" in "is that bad?" is the judgement asked for, which the answer need not say.
    return frozenset(_READING.findall(question)) | frozenset(content_words(check.group("check")))


def _own_words(text: str) -> set[str]:
    """The text's content words that are not stop words."""
    return {w for w in content_words(text) if w not in STOPWORDS}


TYPO_MIN = 5  # stems shorter than this are never read as a misspelling of another word


def one_edit(a: str, b: str) -> bool:
    """Whether b is a one-letter slip of a: one letter added, dropped, changed or two swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        rest_a, rest_b = a[i + 1 :], b[i + 1 :]
        swapped = (
            i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
        )
        return rest_a == rest_b or swapped
    return a[i:] == b[i + 1 :]


def misspelt_in(word: str, have: frozenset[str]) -> bool:
    """Whether a text holds this word with a typing slip ("dishwahser", "pasword"); a
    word of English is never a slip ("chuck in" is no "check")."""
    if len(word) < TYPO_MIN or word in bundled_model.english_words():
        return False
    return any(t[:1] == word[:1] and one_edit(word, t) for t in have if len(t) >= TYPO_MIN)


# Prepositions and adverbs of time and degree: they say how the question is put, not
# what it is about ("is the dishwasher *still under* warranty?"). A household's few
# documents make any word look rare, so rarity alone would weigh them like the subject.
# Particles of phrasal verbs ("turn off", "run out", "top up") are not among them.
_FUNCTION = (
    "about above across after against along among around before behind below beneath "
    "beside besides between beyond during except including inside near onto outside over "
    "past since through throughout toward towards under underneath until upon while whilst "
    "within without "
    "already also again actually currently even ever just only quite really still too very yet "
    "exactly roughly approximately honestly basically probably definitely maybe perhaps "
    "supposed might ought whether shall wonder wondering wondered possibly kindly "
    "rather than instead ourselves myself yourself yourselves themselves here "
    "any something anything everything nothing someone anyone everyone somebody anybody "
    "whole entire full complete exact abouts whereabouts hey hiya hello guys folks yall"
)
# What a question calls the thing it asks for, which the answer itself does not write
# ("what's the network name?" is answered by "Network: Meadowlark", "what make is the
# dishwasher?" by "Bosch Serie 4 dishwasher"), like "called".
_FRAME = (
    "name names make brand bit way instruction instructions detail details info information "
    "forgot forgotten people person"
)
FUNCTION_WORDS = frozenset(_FUNCTION.split()) | frozenset(_FRAME.split())
FUNCTION_SHARE = 0.0  # a function word counts this much of its rarity


def idf_weights(
    words: Iterable[str], doc_freq: Callable[[list[str]], tuple[Mapping[str, int], int]]
) -> dict[str, float]:
    """log(1 + N / (1 + df)) per word (function words none of it, codes twice); ``doc_freq``
    gives df per word and N."""
    wanted = list(dict.fromkeys(words))
    if not wanted:
        return {}
    freq, total = doc_freq(wanted)
    return {
        w: math.log1p(max(total, 1) / (1 + freq.get(w, 0)))
        * (
            FUNCTION_SHARE
            if w in FUNCTION_WORDS
            else CODE_BOOST
            if _IDENTIFIER.fullmatch(w)
            else 1.0
        )
        for w in wanted
    }


# A code or model number ("F75", "SMS4HVI33G") names exactly one thing: in "the display
# shows F75, is that something I can fix?" it outweighs the words around it.
_IDENTIFIER = re.compile(r"(?=\w*\d)(?=\w*[^\W\d])\w{2,}")
CODE_BOOST = 2.0


# A word found only in the file's name (which heads every chunk of the file, e.g.
# "dishwasher warranty") counts this much: it says which document, the passage
# and its own section heading must say the answer.
CONTEXT_SHARE = 0.5


_CODE_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def _identifier_words(text: str) -> frozenset[str]:
    """The stems of the words in a text's lower-case names joined by underscores."""
    return frozenset(
        stem(part) for name in _CODE_NAME.findall(text) for part in name.split("_") if part
    )


def word_coverage(
    question: str,
    weights: Mapping[str, float] | None,
    *texts: str,
    weak: Iterable[str] = (),
    parts: bool = True,
) -> float:
    """Weighted share of the question's content words found (by stem) in the texts;
    a word found only in the ``weak`` texts counts ``CONTEXT_SHARE``, one found as a
    synonym (thesaurus.py), with a typing slip or (unless not ``parts``) as a compound's
    part ``SYNONYM_SHARE`` of that. In another language the kind of fact asked for must
    be given by the first text, the passage's own: the year in a heading over it
    ("Agenda da biblioteca 2026") dates none of its lines."""
    wanted = content_words(question)
    if not wanted:
        return 0.0
    weak = tuple(weak)
    have: frozenset[str] = frozenset().union(*(words_of(t) for t in texts))
    around: frozenset[str] = frozenset().union(*(words_of(t) for t in weak))
    # "acks_late" asked is the words "acks" and "late" (text.py splits it), and a name
    # written in code's lower case says its words: "AsyncResult(task_id)" the task's id.
    # A constant's parts say nothing of them (MNEMOLIS_OPTIONS_FILE is no "mnemolis").
    have |= frozenset().union(*(_identifier_words(t) for t in texts))
    around |= frozenset().union(*(_identifier_words(t) for t in weak))
    given = weights or {w: FUNCTION_SHARE if w in FUNCTION_WORDS else 1.0 for w in wanted}
    total = sum(given.get(w, 1.0) for w in wanted)
    alternatives = synonyms(question)
    aside = _aside_words(question)
    if aside:
        # What was told weighs a quarter of what is asked — all of it together, so a
        # long story ("I'm filling in a long form on a website for a parcel") does not
        # outweigh the question ("what is our address?").
        own = sum(v for w, v in given.items() if w in wanted and w not in aside)
        told = sum(v for w, v in given.items() if w in wanted and w in aside)
        share = min(ASIDE_SHARE, ASIDE_SHARE * own / told) if told else ASIDE_SHARE
        given = {w: v * share if w in aside else v for w, v in given.items()}
    read = readings_checked(question)
    if read:
        given = {w: 0.0 if w in read else v for w, v in given.items()}
    if aside or read:
        total = sum(given.get(w, 1.0) for w in wanted)
    found = 0.0
    frame = _frame_words(question)
    clock = clock_words(question)
    who = _asks_who_does(question)
    # "F22 and F28" asks the same of each code: a row holding one is not short the other.
    codes = _codes(question)
    held = codes & frozenset().union(*(_codes(t) for t in texts)) if len(codes) > 1 else codes
    # A name is said only as itself: the dog Biscuit is not in a recipe's "biscuits".
    names = names_in(question)
    tongue = foreign(question)
    # The texts' words by their stems in the question's language, when it is not English.
    inflected: frozenset[str] = frozenset()
    inflected_around: frozenset[str] = frozenset()
    asked_stems = stems_in(tongue, question) if tongue else frozenset()
    if tongue:
        inflected = frozenset().union(*(stems_in(tongue, t) for t in texts))
        inflected_around = frozenset().union(*(stems_in(tongue, t) for t in weak))
    joined_up = parts and joins_compounds(tongue)
    # Stems of compounds are cut apart from their parts' ("Gasheizung" "gasheiz",
    # "Heizung" "heizung"): the parts are also looked for in the words as written.
    whole: frozenset[str] = frozenset()
    whole_around: frozenset[str] = frozenset()
    joined: frozenset[str] = frozenset()
    if joined_up:
        whole = frozenset().union(*(_whole_words(t) for t in texts))
        whole_around = frozenset().union(*(_whole_words(t) for t in weak))
        joined = _joined_in(tongue or "", wanted, whole)
    said_words: set[str] = set()  # the words the texts say, fully or in part
    # "wie viele Stunden", "combien de temps", "hoe lang": what kind of fact is asked for,
    # as English's "how long" (the kind is checked below), not what about.
    asking = kind_asked(tongue, question) if tongue else None
    kind_frame = {fold(k) for k in asking.words} if asking else set()
    for w in wanted:
        before = found
        key = stem(w)
        if w in names:
            if _say_all((w,), tuple(texts)):
                found += given.get(w, 1.0)
            elif _say_all((w,), tuple(weak)):
                found += CONTEXT_SHARE * given.get(w, 1.0)
        elif key in frame or (held and w in codes - held) or w in kind_frame:
            # "how long"/"how often" says what kind of fact is asked for, not what about:
            # the wool programme's line answers "how long does the wool programme take?"
            # better than the cottons' line that gives a duration.
            total -= given.get(w, 1.0)
        elif key in have or (key in _KIND_WORDS and gives_what_is_asked(question, *texts)):
            found += given.get(w, 1.0)
        elif tongue and stem_in(tongue, w) in inflected:
            found += given.get(w, 1.0)  # "Tonnen" is said by "Tonne" (in German)
        elif w in _NUMBER_WORDS and any(_NUMBER_MARK.search(t) for t in texts):
            found += given.get(w, 1.0)  # "o número do lugar" is the "lugar n.º 14"
        elif tongue and _root_said(tongue, w, texts):
            found += thesaurus.SYNONYM_SHARE * given.get(w, 1.0)  # "geimpft" by "Impfung"
        elif joined_up and (
            w in joined
            or _compound_met(stem_in(tongue or "", w), inflected)
            or _compound_met(w, whole)
            or _short_head_met(tongue or "", w, whole)
            or _first_part_compounded(
                stem_in(tongue or "", w), inflected, inflected | inflected_around
            )
        ):
            # "Druck" is said by "Wasserdruck", "Kaltmiete" by "kalt" and "Grundmiete", as a
            # synonym is; "Fahrradkeller" never by "Keller" alone, another cellar.
            found += thesaurus.SYNONYM_SHARE * given.get(w, 1.0)
        elif (
            key in _COST_WORDS
            and _ASKS_COST.match(asked(question))
            and any(_COST.search(t) for t in texts)
        ):
            found += given.get(w, 1.0)  # "free" says what paying for it costs
        elif w in _PHONE_WORDS and _asks_phone(question) and any(_PHONE.search(t) for t in texts):
            found += given.get(w, 1.0)  # "how do I ring him?" is answered by his number
        elif tongue and names_a_phone(tongue, w) and any(has_phone_number(t) for t in texts):
            found += given.get(w, 1.0)  # "le numéro du plombier" is the number on his row
        elif names_a_day(w) and any(DAY_SPAN.search(t) for t in texts):
            # "on Saturday" is what "at weekends" or "werktags" rules on, as a synonym is.
            found += thesaurus.SYNONYM_SHARE * given.get(w, 1.0)
        elif w in clock and any(_CLOCK.search(t) for t in texts):
            # "at quarter past ten" is a time of day, which "after 22:00" speaks of.
            found += thesaurus.SYNONYM_SHARE * given.get(w, 1.0)
        elif (
            any(_said(alt, have, texts) for alt in alternatives.get(key, ()))
            or _pet_said(tongue, w, inflected if tongue else have)
            or (who and _doer(key, have))
            or misspelt_in(key, have)
            or misspelt_in(w, have)  # "modle": a slip the stem would shorten past the limit
            or (tongue and foreign_thesaurus.said_by(tongue, w, asked_stems, inflected))
        ):
            found += thesaurus.SYNONYM_SHARE * given.get(w, 1.0)  # "frigo": "réfrigérateur"
        elif key in around or (tongue and stem_in(tongue, w) in inflected_around):
            found += CONTEXT_SHARE * given.get(w, 1.0)
        elif (
            (
                joined_up
                and (
                    _compound_met(stem_in(tongue or "", w), inflected_around)
                    or _compound_met(w, whole_around)
                )
            )
            or any(_said(alt, have | around, (*texts, *weak)) for alt in alternatives.get(key, ()))
            or (tongue and foreign_thesaurus.said_by(tongue, w, asked_stems, inflected_around))
        ):
            found += CONTEXT_SHARE * thesaurus.SYNONYM_SHARE * given.get(w, 1.0)
        if found > before:
            said_words.add(w)
    share = found / total if total > 0 else 0.0
    if tongue:
        # In another language a text that does not say the thing asked ("le numéro" of "le
        # numéro du dentiste"), or gives no fact of the kind asked ("¿cuánto cuesta?" and
        # no figure), is worth half its words for each.
        thing = _thing_of(question)
        if thing and not said_words.intersection(thing):
            share *= THING_UNSAID
        kind = kind_asked(tongue, question)
        if kind is not None and not (texts and kind.given_by(texts[0])):
            share *= KIND_UNGIVEN
        elif kind is not None and texts and other_day(question, texts[0]):
            # Saturday's swimming lesson gives no Sunday's hours (a yes/no question asks
            # whether a day is the one, which another day's line answers).
            share *= KIND_UNGIVEN
        elif (
            _ASKS_WHO_OR_WHICH.search(question)
            and any(names_a_phone(tongue, w) for w in wanted)
            and not any(has_phone_number(t) for t in texts)
        ):
            # "Comment on appelle Tonton Marcel ?" asks for a number, as "how do I ring
            # him?": the note on his party gives none.
            share *= KIND_UNGIVEN
        # "Quando scade il passaporto di Matilde?" is not answered by Luca's passport row.
        owners = _owners_of(question)
        if owners and not _say_all(owners, (*texts, *weak)):
            share *= OWNER_UNSAID
    return share


# A question word asking who, which or how, in the other languages ("qui", "welche",
# "¿cuál?", "come"): with a word for ringing, a question for a number; "Können wir den
# Schlüsseldienst anrufen?" asks whether.
_ASKS_WHO_OR_WHICH = re.compile(
    r"\b(?:wer|wen|wem|welche[nmrs]?|wie|wat|welke?|hoe|qui|quel(?:le)?s?|comment|qu[ií]en(?:es)?"
    r"|cu[áa]l(?:es)?|c[óo]mo|chi|quale|qual|come|quem|como|quais)\b",
    re.I,
)


# The word for a number in the other languages, and its abbreviations before a figure:
# "n.º 14", "nº 3", "Nr. 12", "núm. 5", "n. 7".
_NUMBER_WORDS = frozenset({"numero", "numeros", "nummer", "nummern", "nummers"})
_NUMBER_MARK = re.compile(r"(?<!\w)(?:n\.?\s?[º°]|nr\.?|n[úu]m\.|no\.|n\.)\s?(?=\d)", re.I)


def _root_said(tongue: str, word: str, texts: tuple[str, ...]) -> bool:
    """Whether a text says the word's root ("Impfung" of "geimpft"), in German."""
    if tongue != "German":
        return False
    root = root_in(tongue, word)
    return any(root in roots_in(tongue, t) for t in texts)


@functools.lru_cache(maxsize=4096)
def roots_in(language: str, text: str) -> frozenset[str]:
    """A text's words by their roots (``root_in``) in a language."""
    return frozenset(root_in(language, w) for w in _WORD.findall(joined(text)))


THING_UNSAID = 0.5
KIND_UNGIVEN = 0.5
OWNER_UNSAID = 0.5
# In French, Spanish, Italian and Portuguese the thing asked comes before whose it is:
# "le numéro de l'orthodontiste", "la contraseña de Netflix", "el filtro de la campana".
# Without an article after "de" the two words name one thing ("femme de ménage",
# "número de póliza"), which either of them says; not when the second is a name
# ("contraseña de Netflix": Netflix's password, which "Netflix: perfiles …" never says).
_OF = re.compile(
    r"(?P<thing>\w[\w-]*)\s+(?:(?P<bare>de|di|da|do)\s+(?P<next>\w[\w-]*)"
    r"|(?:du|des|del|della|dello|dei|degli|delle|dos|das|d')(?=\s|\b))",
    re.I,
)
# A place the thing is at, before its noun: "sur l'écran du four il y a F3", "en la
# pantalla del aire", "no visor da caldeira".
_WHERE_BEFORE = re.compile(
    r"\b(?:sul|sulla|sullo|sui|sulle|nel|nella|nello|nei|nelle|sur|dans|en|no|na|nos|nas"
    r"|em)\s+(?:(?:le|la|les|el|los|las|il|lo|o|a|os|as)\s+|l['\u2019]\s*)?$",
    re.I,
)
# What may open the words after "de": an article, a possessive or a demonstrative.
_DETERMINERS = (
    "le la les l un une el los las lo il gli i o a os as uma um mon ma mes ton ta tes son "
    "sa ses notre nos votre vos leur leurs mi mis tu tus su sus nuestro nuestra nuestros "
    "nuestras ce cet cette ces este esta estos estas ese esa mio mia"
)
_ARTICLES = frozenset(_DETERMINERS.split())
_ROMANCE = frozenset({"French", "Spanish", "Italian", "Portuguese"})
# German and Dutch put whose it is after "von", "für", "van", "voor": "das Passwort
# für die Fritzbox", "het wachtwoord van de wifi".
_OF_GERMANIC = re.compile(r"(?P<thing>\w[\w-]*)\s+(?:von|vom|für|fürs|van|voor)\b", re.I)
_GERMANIC = frozenset({"German", "Dutch"})
# "Welche Batterie braucht …?", "Welke bandenmaat heeft …?": the noun "which" opens with.
_WHICH_GERMANIC = re.compile(r"\W*(?:welche[nmrs]?|welke|welk)\s+(?P<thing>\w[\w-]*)", re.I)


@cached_by_language(512)
def _thing_of(question: str) -> tuple[str, ...]:
    """The thing a question asks for, in a language that names it before whose it is:
    the content word before the first "de" ("¿Cuál es el teléfono del colegio?":
    "teléfono"), "von", "für" or "van", never a question word ("combien de temps");
    both words of a compound ("femme de ménage"). None in English, which has its own."""
    tongue = foreign(question)
    if tongue not in _ROMANCE and tongue not in _GERMANIC:
        return ()
    wanted = content_words(question)
    kind = kind_asked(tongue, question)
    asking = {fold(w) for w in kind.words} if kind else set()
    if tongue in _GERMANIC:
        which = _WHICH_GERMANIC.match(question)
        if which is not None and fold(which.group("thing")) in set(wanted) - asking:
            return (fold(which.group("thing")),)  # "Welche Batterie …?", "Welke bandenmaat …?"
        for m in _OF_GERMANIC.finditer(question):
            word = fold(m.group("thing"))
            if word in wanted and word not in asking:
                return (word,)
        return ()
    head = _WHICH_IS.match(question)
    if head is not None:
        # "¿Cuál es la contraseña para entrar en la app de …?": the noun after "which is
        # the" is the thing, though a "de" comes only later.
        phrase = [fold(w) for w in _WORD.findall(head.group("np"))]
        after_of = next((fold(m.group("thing")) for m in _OF.finditer(question)), None)
        if phrase[0] in wanted and phrase[0] not in asking and after_of not in phrase:
            return (phrase[0],)
    for m in _OF.finditer(question):
        word = fold(m.group("thing"))
        if _WHERE_BEFORE.search(question, 0, m.start()):
            continue  # "sur l'écran du four": where it shows, not the thing asked
        if word in wanted and word not in asking:
            after = fold(m.group("next") or "")
            # "la contraseña de Netflix": a name after "de" says whose it is, no compound.
            name = (m.group("next") or "")[:1].isupper()
            if (
                m.group("bare")
                and after
                and after not in _ARTICLES
                and after in wanted
                and not name
            ):
                return (word, after)
            # "la tessera per la piscina di Luca": what it is for comes
            # between the thing and whose it is; either names it.
            purpose = _FOR_WHAT.search(question, 0, m.start())
            if purpose is not None and fold(purpose.group("thing")) in wanted:
                return (word, fold(purpose.group("thing")))
            return (word,)
    return ()


# The noun a purpose follows: "la tessera per la …", "la llave para el …".
_FOR_WHAT = re.compile(
    r"(?P<thing>\w[\w-]*)\s+(?:per|para|pour|por|pra)\s+(?:(?:il|lo|la|el|le|les|o|a|os"
    r"|as|los|las|i|gli)\s+|l')?$",
    re.I,
)


# "¿Cuál es el número …", "Quel est le code …", "Qual è il numero …": the noun phrase
# after the article, up to a preposition, is the thing asked; "de la tarjeta sanitaria",
# "del colegio", "do nosso lugar" after it say whose it is.
_PREPOSITIONS = (
    r"de|del|des|du|d'|di|della|dello|dei|degli|delle|da|do|dos|das|para|por|pour|par|per"
    r"|en|em|no|na|nos|nas|dans|au|aux|al|a|à|in|nel|nella|con|avec|com|sur|sobre|su"
)
_PHRASE = rf"(?P<np>\w[\w-]*(?:\s+(?!(?:{_PREPOSITIONS})\b)\w[\w-]*){{0,2}})"
# An article or a possessive before a noun; "l'" and "d'" join it.
_BEFORE_NOUN = (
    r"(?:(?:l'|d')\s*|(?:el|la|los|las|le|les|il|lo|gli|i|o|a|os|as|mi|mis|su|sus|nuestro"
    r"|nuestra|notre|nos|mon|ma|mes|mio|mia|nosso|nossa|nossos|nossas)\s+)"
)
_WHICH_IS = re.compile(
    r"\W*(?:cu[áa]l(?:es)? (?:es|son|era)|qual (?:[ée]|era)|quais s[ãa]o|qual è|quali sono"
    rf"|quel(?:le)?s? (?:est|sont|était)(?:-ce)?"
    # "Comment on nettoie le filtre …", "¿Cómo se cambia la pila …?": how to do a thing to it.
    r"|(?:come|comment|c[óo]mo)\s+(?:si\s+|se\s+|on\s+)?[^\W\d_]+)"
    rf"\s+{_BEFORE_NOUN}+{_PHRASE}",
    re.I,
)
# "¿Qué código tiene la alarma …?", "Quel code a le portail ?": the thing, then what has it.
_WHAT_HAS = re.compile(
    r"\W*(?:qu[eé]|quel(?:le)?s?|che|quale|qual|quais)\s+\w[\w-]*"
    r"(?:\s+(?:de|di|da|do)\s+\w[\w-]*)?\s+(?:tiene|tienen|tem|t[êe]m|ha|hanno|a|ont)\s+"
    rf"{_BEFORE_NOUN}{_PHRASE}",
    re.I,
)
_WHOSE = re.compile(
    rf"\s+(?:(?P<bare>de|di|da|do)\s+(?P<art>{_BEFORE_NOUN}*)|d'\s*{_BEFORE_NOUN}*"
    rf"|(?:del|du|des|della|dello|dei|degli|delle|dos|das)\s+{_BEFORE_NOUN}*){_PHRASE}",
    re.I,
)


# German says whose after "von", "vom", "für", "fürs": "das Passwort für Netflix", "der
# Schlüssel fürs Gartenhaus". (Dutch's "van"/"voor" the same way lost a held-out answer.)
_WHOSE_GERMAN = re.compile(
    r"\b(?:von|vom|für|fürs)\s+(?:(?:der|die|das|den|dem|des|ein|eine|einen|einem|einer"
    r"|unser\w*|mein\w*|dein\w*)\s+)?(?P<np>\w[\w-]*)",
    re.I,
)


# "What's the code for the garage door?", "which is the number of the vet?": an English
# question whose every word after "for"/"of"/"on the" says whose the thing asked is.
_WHOSE_ENGLISH = re.compile(
    r"\W*(?:what|which)(?:'s|s| is| are| was)? (?:the|our|my) [a-z]+(?: [a-z]+)? (?:for|of|on)"
    r" (?:the|our|my) (?P<np>[a-z]+(?: [a-z]+)?)\W*$",
    re.I,
)


def names_whose(question: str, *texts: str) -> bool:
    """Whether the texts say at least half of the common nouns of each phrase that says
    whose the thing asked is (``_whose_of``; in English the phrase's last noun): a
    doctor's phone number is no health card's number, though it is a number and names
    the same child. True for other questions."""
    chain = _whose_of(question)
    if not chain:
        return True
    tongue = foreign(question) or ""
    if not tongue:
        # In English the phrase's head, its last noun, must be said (or a synonym of it):
        # "the house alarm" is not the lockbox a line tagged "house" speaks of.
        english = frozenset().union(*(words_of(t) for t in texts))
        alternatives = synonyms(question)

        def said(word: str) -> bool:
            head = stem(fold(word))
            return head in english or any(m <= english for m in alternatives.get(head, ()))

        return all(said(phrase[-1]) for phrase in chain)
    have: frozenset[str] = frozenset().union(*(stems_in(tongue, t) for t in texts))
    joined = joins_compounds(tongue)

    asked = stems_in(tongue, question)

    def says(w: str) -> bool:
        return (
            stem_in(tongue, w) in have
            or (joined and _compound_said(stem_in(tongue, w), have))
            or (joined and _modifies(stem_in(tongue, w), have))
            or foreign_thesaurus.said_by(tongue, w, asked, have)  # "del plomero": "Fontanero"
        )

    # "do seguro da mota": each owner in a chain is said (the motorbike's insurance, not the
    # house's insurance nor a line about the motorbike's helmet).
    if not all(2 * sum(says(w) for w in phrase) >= len(phrase) for phrase in chain):
        return False
    if tongue not in _ROMANCE:
        return True
    thing = {stem_in(tongue, w) for w in _thing_of(question)}
    owners = {stem_in(tongue, w) for phrase in chain for w in phrase}
    function = {stem_in(tongue, w) for w in stop_words_of(question)}
    return not any(_others_thing(t, tongue, thing, owners, function) for t in texts)


def _modifies(word: str, stems: frozenset[str]) -> bool:
    """Whether a word is the first part of a compound of the stems: whose a thing is, as
    German and Dutch join it ("der Schlüssel vom Briefkasten" is the "Briefkastenschlüssel")."""
    return len(word) > MODIFIER_MIN and any(
        len(s) >= len(word) + HEAD_MIN and s.startswith(word) for s in stems
    )


def _others_thing(
    text: str, tongue: str, thing: set[str], owners: set[str], function: set[str]
) -> bool:
    """Whether a text names the thing asked (its stems) as another's: "le filtre de la
    hotte" is the hood's filter, though the line says "lave-vaisselle" too (it is washed
    in one). Only an owner with its article counts: "fijo de trabajo" is a kind of phone."""
    for word in _WORD.finditer(text):
        if stem_in(tongue, word.group()) not in thing:
            continue
        whose = _WHOSE.match(text, word.end())
        if whose is None or _bare(whose):
            continue  # "fijo de trabajo", "filtre de 30 cm": a kind of it, or its figure
        said = {stem_in(tongue, w) for w in _WORD.findall(whose.group("np")) if w.isalpha()}
        if said - function and not said & owners:
            return True
    return False


def _bare(whose: re.Match[str]) -> bool:
    """Whether a ``_WHOSE`` phrase follows a bare "de" with no article ("número de
    póliza", "fijo de trabajo"): one thing or a kind of it, not whose it is."""
    return bool(whose.group("bare")) and not whose.group("art")


def _compound_said(word: str, stems: frozenset[str]) -> bool:
    """Whether the stems say a compound: as a compound's part (``_compound_met``), by its
    two parts as words ("Fensterputzen": "putzt die Fenster"), or by a longer compound of
    the same first and last part ("Gashahn": "Gasabsperrhahn")."""
    if _compound_met(word, stems) or _first_part_compounded(word, stems, stems):
        return True
    if any(
        len(s) > len(word) and s.startswith(word[:3]) and heads(word[-HEAD_MIN:], s) for s in stems
    ):
        return True
    return any(
        any(len(s) >= PART_MIN and word[:i].startswith(s) for s in stems)
        and any(_inflected(word[i:], s) for s in stems)
        for i in range(PART_MIN, len(word) - PART_MIN + 1)
    )


PART_MIN = 3  # "Rasen" is "ras" to the stemmer, "mähen" "mah"


# What German's stemmer cuts from a word's end ("Keller" "kell") and the letters between
# a compound's parts ("Gemeinschaft-s-arbeit").
_CUT_OR_LINKING = frozenset({*LINKING, "er", "ern", "em", "ens"})


def _first_part_compounded(word: str, lasts: frozenset[str], firsts: frozenset[str]) -> bool:
    """Whether a compound ("Kellertür") is said by its last part ("die Tür", in ``lasts``)
    and its first as the last part of another compound (the "Fahrradkeller" the door is
    of, in ``firsts``): the stems are cut ("fahrradkell"), so what follows the first
    part's stem in the compound's may be the ending the stemmer cut."""
    for s in firsts:
        for j in range(MODIFIER_MIN, len(s) - HEAD_MIN + 1):
            tail = s[j:]
            if not word.startswith(tail):
                continue
            rest = word[len(tail) :]
            for r in (rest, *(rest[len(k) :] for k in _CUT_OR_LINKING if rest.startswith(k))):
                if any(_inflected(r, t) for t in lasts):
                    return True
    return False


def _inflected(a: str, b: str) -> bool:
    """Whether two stems are one word but for an ending ("mah", "maht")."""
    short, long = sorted((a, b), key=len)
    return len(short) >= PART_MIN and long.startswith(short) and len(long) - len(short) <= 2


# The household's own people as a whole ("el pediatra de los niños", "l'école des
# enfants"): whose the thing is, but no household writes it on its own lines.
_OUR_PEOPLE = frozenset(
    {"ninos", "nenes", "hijos", "hijas", "ninas", "criancas", "miudos", "filhos", "filhas"}
    | {"enfants", "gosses", "petits", "bambini", "figli", "ragazzi", "familia", "famille"}
    | {"famiglia"}
)


@cached_by_language(512)
def _whose_of(question: str) -> tuple[tuple[str, ...], ...]:
    """The common nouns that say whose the thing asked is, phrase by phrase: after "de" in
    a Romance "which is the …?" ("¿Cuál es el número de la tarjeta sanitaria?":
    "tarjeta", "sanitaria"; "… do seguro da mota": "seguro", then "mota"), names being
    ``_owners_of``'s; after "von"/"für" in German ("fürs Gartenhaus")."""
    tongue = foreign(question)
    # "het wifi-wachtwoord bij oma en opa", "le code chez Odette": whose house it is at.
    at_home = _at_home_of(question, tongue)
    if tongue == "German":
        # Its capitals mark every noun, so no name is told apart: the noun is whose.
        after = _WHOSE_GERMAN.search(question)
        return ((content_words(after.group("np")),) if after else ()) + at_home
    if tongue == "Dutch":
        return at_home
    if tongue is None:
        # "What's the code for the house alarm?": the alarm's code, not the lockbox's.
        m = _WHOSE_ENGLISH.match(question)
        np = m.group("np") if m is not None else ""
        words = tuple(w for w in content_words(np) if w not in FUNCTION_WORDS)
        return ((words,) if words else ()) + at_home
    head = _WHICH_IS.match(question) if tongue in _ROMANCE else None
    start = head.end() if head else 0
    whose = _WHOSE.match(question, start) if head else None
    wanted = content_words(question)
    chain: list[tuple[str, ...]] = []
    has = _WHAT_HAS.match(question) if tongue in _ROMANCE and head is None else None
    if has is not None:
        # "¿Qué código tiene la alarma del garaje?": what has it is whose it is.
        owner = tuple(w for w in content_words(has.group("np")) if w in wanted)
        if owner and not any(w[:1].isupper() for w in _WORD.findall(has.group("np"))):
            chain.append(owner)
            start = has.end()
            whose = _WHOSE.match(question, start)
    while whose is not None:
        phrase = whose.group("np")
        if any(w[:1].isupper() for w in _WORD.findall(phrase)):
            break  # "della signora Bassi": a name, with its title, is ``_owners_of``'s
        # "el número de póliza": one thing, which ``_thing_of`` reads as such; whose it
        # is may follow ("… del seguro del coche").
        one_thing = _bare(whose) and whose.start() == start
        nouns = tuple(w for w in content_words(phrase) if w in wanted and w not in _OUR_PEOPLE)
        if nouns and not one_thing:
            chain.append(nouns)
        whose = _WHOSE.match(question, whose.end())
    return tuple(chain) + at_home


def _at_home_of(question: str, tongue: str | None) -> tuple[tuple[str, ...], ...]:
    """The people at whose home the thing asked is ("bij oma en opa": oma, opa), when
    they are kin, neighbours or friends, or (outside German, which capitalises every
    noun) named; "bij storing" ("in case of a fault") is no one's."""
    home = _AT_HOME_OF.search(question)
    if home is None:
        return ()
    words = content_words(home.group("np"))
    named = tongue != "German" and any(w[:1].isupper() for w in _WORD.findall(home.group("np")))
    return (words,) if words and (named or not _KIN.isdisjoint(words)) else ()


# Kin, neighbours and friends, folded, in the languages besides English: at whose home.
_KIN_WORDS = (
    "oma opa omi opi grosseltern eltern nachbarn nachbar nachbarin tante onkel "
    "schwiegereltern freunden freund freundin mama papa mutter vater schwester bruder "
    "grootouders ouders buren buurman buurvrouw oom schoonouders vrienden moeder zus broer "
    "mamie papi papy grands-parents parents voisins voisin voisine oncle beaux-parents amis "
    "maman mere pere soeur frere abuela abuelo abuelos padres vecinos vecino vecina tia tio "
    "tios suegros amigos madre padre hermana hermano nonna nonno nonni genitori vicini vicino "
    "vicina zia zio zii suoceri amici mamma sorella fratello avo avos pais vizinhos vizinho "
    "vizinha sogros mae pai irma irmao"
)
_KIN = frozenset(_KIN_WORDS.split())


# At whose home, with no article ("bij een storing" is "in case of"): "bij oma en opa",
# "bei Oma", "chez mes parents", "a casa dei nonni", "en casa de la abuela", "em casa dos
# avós". Whose the thing asked is, as "de" says it; a pronoun ("bei uns") is no one else.
_AT_HOME_OF = re.compile(
    r"\b(?:bij|bei|chez|a casa d(?:i|el|ella|ei|egli|elle)|en casa de(?:l| la| los| las)?"
    r"|em casa d[aoe]s?)\s+(?:(?:mijn|onze|ons|meiner|meinen|meinem|unserer|unseren|unserem"
    r"|mes|nos|ma|mon|mis|nuestros?|nuestras?|miei|mia|nostri|meus|minhas|nossos)\s+)?"
    r"(?P<np>(?!(?:een|ein|eine|einer|einem|einen|der|dem|den|de|het|la|le|les|un|une"
    r"|uns|ons|nous|mir|mich|dir|ihm|ihr|ihnen|hem|haar|hen|jou|moi|toi|lui|eux|elle|noi|nos)\b)"
    r"[^\W\d][\w-]*(?:\s+(?:en|und|et|y|e)\s+[^\W\d][\w-]*)?)",
    re.I,
)


# Whose the thing asked is, in a Romance language: a name (written with its capital) after
# "de", "di", "da", "do", "du", "del", "d'" ("le numéro de l'orthodontiste de Léa", "il
# passaporto di Matilde", "o telemóvel do Sr. Lopes"), a title between them. German and
# Dutch capitals mark every noun, and Dutch "de" is "the": neither tells a name.
_OWNER_OF = re.compile(
    r"(?<=\w)[\s,]+(?:de|di|da|do|du|del|della|dello|dos|das|d['\u2019])\s*"
    r"(?:(?:Sr|Sra|Sig|Sig\.ra|Dr|Dra|Dott|M|Mme|Mlle)\.?\s+"
    # The titles spelled out: "della signora Bassi", "do senhor Lopes".
    r"|(?i:se[ñn]or|se[ñn]ora|se[ñn]orita|don|do[ñn]a|senhor|senhora|dona|signor|signore"
    r"|signora|signorina|monsieur|madame|mademoiselle|doctor|doctora|docteur|dottore"
    r"|dottoressa|doutor|doutora)\s+)?"
    r"([A-ZÀ-ÖØ-Þ][\w-]*)"
)


def names_named_owner(question: str, *texts: str) -> bool:
    """Whether the texts say every name whose thing a question in a Romance language asks
    about ("la password della Netflix"); True in other languages."""
    return _say_all(_owners_of(question), texts)


@cached_by_language(512)
def _owners_of(question: str) -> tuple[str, ...]:
    """The names whose thing a question in a Romance language asks about (folded)."""
    if foreign(question) not in _ROMANCE:
        return ()
    names = (fold(m) for m in _OWNER_OF.findall(question))
    return tuple(w for w in names if w not in STOPWORDS)


@functools.lru_cache(maxsize=8)
def _pets(language: str) -> tuple[frozenset[str], frozenset[str]]:
    """A language's kinds of pet and its words for pets in general, by their stems."""
    kinds, pets = thesaurus.PETS.get(language, ("", ""))

    def cut(words: str) -> frozenset[str]:
        found = _WORD.findall(words)
        if language == "English":
            return frozenset(stem(fold(w)) for w in found)
        return frozenset(stem_in(language, w) for w in found)

    return cut(kinds), cut(pets)


def _pet_said(tongue: str | None, word: str, stems: frozenset[str]) -> bool:
    """Whether a kind of pet asked about ("a rabbit", "einen Hund") is said by a word for
    pets in general among the text's stems ("any other pet", "Tierhaltung")."""
    language = tongue or "English"
    kinds, pets = _pets(language)
    asked = stem_in(language, word) if tongue else stem(word)
    return asked in kinds and not stems.isdisjoint(pets)


# "When is the next service due?", "Wann muss der Wagen wieder zur HU?": when a thing
# comes round again, which the line naming the next one says, not a past log entry.
_ASKS_NEXT = re.compile(
    r"^[\s\u00bf\u00a1]*(?:when|wann|wanneer|quand|cu[aá]ndo|quando)\b.*\b(?:next|due|again"
    r"|wieder|nächste[nmrs]?|fällig|erneut|weer|volgende|opnieuw|prochaine?s?|de nouveau"
    r"|à nouveau|pr[oó]xim[oa]s?|otra vez|de nuevo|prossim[oaie]|di nuovo|outra vez|de novo)\b",
    re.I,
)
_SAYS_NEXT = re.compile(
    r"\b(?:next|due|nächste[nmrs]?|fällig|volgende|prochaine?s?|pr[oó]xim[oa]s?"
    r"|prossim[oaie])\b",
    re.I,
)


def asks_next(question: str) -> bool:
    """Whether a question asks when a thing comes round again ("when is it due?")."""
    return _ASKS_NEXT.match(asked(question)) is not None


def says_next(text: str) -> bool:
    """Whether a text names the next time of a thing ("Nächste HU: …", "due on …")."""
    return _SAYS_NEXT.search(text) is not None


def joins_words(question: str) -> bool:
    """Whether a question is in a language that writes its compounds as one word."""
    return joins_compounds(foreign(question))


def _compound_met(word: str, stems: frozenset[str]) -> bool:
    """Whether a stem is said by the stems as a compound's part: it is the last part of one
    of them ("druck" by "wasserdruck"), or they hold its first part and a compound of its
    last ("kaltmiet" by "kalt" and "grundmiet"). Its last part alone ("keller" for
    "fahrradkeller") names another thing of the kind."""
    return any(heads(word, s) for s in stems) or any(
        first_part_in(word[:i], stems) and any(heads(word[i:], s) for s in stems)
        for i in range(3, len(word) - 3)
    )


def _short_head_met(tongue: str, word: str, whole: frozenset[str]) -> bool:
    """Whether a short word ("Öl", "Tor") is the last part of a compound of the texts whose
    first part is a word of the language ("Motor|öl", "Garten|tor"): too short to be
    taken for a compound's head by its letters alone ("Alkohol", "Motor")."""
    if not HEAD_MIN > len(word) >= 2 or not word.isalpha():
        return False
    words = wordlist.words_of(tongue)
    if words is None or word not in words:
        return False
    return any(
        t.endswith(word) and first_part_in(t[: -len(word)], words, least=HEAD_MIN)
        for t in whole
        if len(t) >= len(word) + HEAD_MIN
    )


def _joined_in(tongue: str, words: tuple[str, ...], whole: frozenset[str]) -> frozenset[str]:
    """The question's words that a compound of the texts joins ("Strom" and "verbraucht"
    in "Stromverbrauch", "Garten" and "Wasserhahn" in "Gartenwasserhahn"), also behind
    a first part of its own ("Hecke schneiden" in "Akkuheckenschneider")."""
    found: set[str] = set()
    stems = {w: stem_in(tongue, w) for w in words}
    for t in whole:
        if len(t) < 2 * HEAD_MIN:
            continue
        for a in words:
            for first in {a, stems[a]}:
                at = t.find(first)
                if len(first) < 3 or at < 0 or 0 < at < MODIFIER_MIN:
                    continue
                rest = t[at + len(first) :]
                for r in (rest, *(rest[len(k) :] for k in LINKING if rest.startswith(k))):
                    if len(r) < HEAD_MIN:
                        continue
                    for b in words:
                        if b != a and (b.startswith(r) or r.startswith(stems[b])):
                            found |= {a, b}
    return frozenset(found)


_HYPHENATED = re.compile(r"[^\W\d_]{2,}(?:-[^\W\d_]{2,})+")


def names_compounds(question: str, *texts: str) -> bool:
    """In another language, a thing named by a compound with a hyphen ("Netflix-Passwort",
    "Kfz-Versicherung") is there only when each of its parts is (the wifi's "Passwort" is
    no Netflix password); English questions have their own checks for this."""
    tongue = foreign(question)
    if tongue is None:
        return True
    # A text's own hyphenated words by their parts too: its "Wi-fi" says "wi-fi".
    stems = frozenset().union(
        *(stems_in(tongue, t) | stems_in(tongue, t.replace("-", " ")) for t in texts)
    )
    function = stop_words_of(question)
    # A verb with its pronoun ("dá-me", "peut-on", "diz-me") names no thing; a compound
    # is said written as one word too ("baby-sitter" by "babysitter").
    return all(
        all(stem_in(tongue, part) in stems for part in compound.split("-"))
        or stem_in(tongue, compound.replace("-", "")) in stems
        for compound in _HYPHENATED.findall(question)
        if not any(p.lower() in function for p in compound.split("-"))
    )


def names_no_sibling(question: str, *texts: str) -> bool:
    """In German and Dutch, whether the texts never name another thing of the kind a
    question's compound names: "die Zorgverzekering" asked, a text that says only the
    "Inboedelverzekering" (Inboedel + Verzekering: another first part before the same
    last one) speaks of another insurance. The compound is split by the language's word
    list; a text that says the compound asked, or its first part, is not checked."""
    tongue = foreign(question)
    if not joins_compounds(tongue):
        return True
    stems = frozenset().union(*(stems_in(tongue or "", t) for t in texts))
    for w in content_words(question):
        split = _compound_split(tongue or "", fold(w))
        if split is None:
            continue
        first, last = split
        asked_stem, head = stem_in(tongue or "", w), stem_in(tongue or "", last)
        if asked_stem in stems or any(first_part_in(s, frozenset({first})) for s in stems):
            continue
        # "Außenwasserhahn" is a kind of "Wasserhahn", "Gasabsperrhahn" a "Gashahn" named
        # more closely: only another first part before the same last names another thing.
        if any(
            s.endswith(head)
            and len(s) - len(head) >= MODIFIER_MIN
            and not s.endswith(asked_stem)
            and not s.startswith(first)
            for s in stems
        ):
            return False
    return True


@functools.lru_cache(maxsize=4096)
def _compound_split(tongue: str, word: str) -> tuple[str, str] | None:
    """A compound's first part and its last, each a word of the language (the last of
    ``HEAD_MIN`` letters or more, the first with or without linking letters); asked
    for each passage judged, so kept."""
    words = wordlist.words_of(tongue)
    return None if words is None else wordlist.split(words, word, HEAD_MIN)


def _said(alt: frozenset[str], have: frozenset[str], texts: tuple[str, ...]) -> bool:
    """Whether the texts say a synonym, a phrase's words side by side: "switch off" is
    not said by "Switch the boiler off", which turns off no water."""
    return alt <= have and (
        len(alt) == 1 or any(_side_by_side(alt, _stems_in_order(t)) for t in texts)
    )


_HOURS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\\d{1,2}"
# A time of day as people say it: "quarter past ten", "half ten", "10pm", "six o'clock".
_SAID_CLOCK = re.compile(
    rf"\b(?:(?:quarter|half|\d{{1,2}}|twenty|five|ten) (?:past|to) (?:{_HOURS})"
    rf"|half (?:{_HOURS})|(?:{_HOURS}) ?(?:am|pm|o'?clock)|\d{{1,2}}[:.]\d{{2}})\b",
    re.IGNORECASE,
)
# A time of day as a note writes it: "22:00", "6:30", "10pm".
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b|\b\d{1,2} ?(?:am|pm)\b", re.IGNORECASE)


def clock_words(question: str) -> frozenset[str]:
    """The words of the times of day a question names ("quarter past ten")."""
    return frozenset(w for m in _SAID_CLOCK.finditer(question) for w in content_words(m.group(0)))


# "may" is the month only as "May" or beside a day's number: "the renter may arrange
# urgent repairs" gives no time.
_MONTHS = (
    r"january|february|march|april|(?-i:May)|may(?=\s+\d)|(?<=\d\s)may|june|july|august"
    r"|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DAYS = "(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekdays?|weekends?"  # "on Tuesdays" too
_UNITS = r"seconds?|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?"
# What answers "when": a day, a date, a time of day, a year.
_WHEN = re.compile(
    rf"\b(?:{_MONTHS}|{_DAYS}|(?:19|20)\d\d|\d{{1,2}}[:.]\d\d|\d{{1,2}} ?(?:am|pm)"
    r"|today|tomorrow|tonight|morning|evening|night|noon|midnight|every|once)\b",
    re.I,
)
# A date as a note writes it: "02/09/2026", "on the 1st of each month".
_DATE_WRITTEN = r"\b\d{1,2}[/.-]\d{1,2}(?:[/.-]\d{2,4})?\b|\b\d{1,2}(?:st|nd|rd|th)\b"
# What answers a "when …?": a time or a day, in words or figures.
_WHEN_GIVEN = re.compile(rf"{_WHEN.pattern}|{_DATE_WRITTEN}", re.I)
_GUESS = rf"{_DAYS}|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|{_MONTHS}"
_GUESS += r"|\d{1,2}(?:st|nd|rd|th)"
_DAY_GUESSED = re.compile(
    rf"\s*(?:is|are|does|do|will|should|can)\b(?=.*\b(?P<guess>{_GUESS})\b)", re.I
)
_NUMBER = r"\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|a|an"
# "Why …?", and "what does that mean?" of what was told: what a thing means or causes.
ASKS_WHY = re.compile(
    r"\s*(?:why\b|what (?:does|do|did|could|can|might) (?:that|this|it|they|those|these)"
    r" (?:mean|signify|indicate)\b|what(?:'s| is) (?:that|this|it) (?:about|telling me)\b)",
    re.IGNORECASE,
)
# "When should we call an engineer?" asks for a circumstance as much as for a time.
ASKS_WHEN_TO = re.compile(
    r"\s*(?:at what point|when) (?:should|must|do|would|could|can|ought) (?:i|we|you)\b", re.I
)
# "The gauge says 1.2, is that ok?": a reading the person gives, asking whether it is
# right, is answered by what it should be, not by a line that happens to hold the figure.
ASKS_CHECK = re.compile(
    r".*\bis (?:that|this|it|\d+(?:[.,]\d+)?(?: ?[a-z\u00b0]+)?) (?P<check>ok|okay|normal|fine"
    r"|right|alright|bad|good|safe|dangerous|true|correct|wrong|allowed|possible|legal"
    r"|(?:(?:hot|cold|warm|high|low|long) )?enough"
    r"|(?:a|the) problem|an issue|too (?:low|high|much|little|hot|cold|long|short))\b",
    re.IGNORECASE,
)
_READING = re.compile(r"\d+(?:[.,]\d+)?")
# "Do we have to pay for the repair?" is answered by "Repairs … are free".
_ASKS_COST = re.compile(
    r"\s*(?:(?:do|will|would|does|did|shall) (?:we|i|you|it|they) (?:\w+ )?"
    r"(?:have to |need to |got to )?(?:pay|cost|charge)"
    r"|how much (?:does|will|would|did|is) (?:it|that|this|the \w+) (?:cost|charge)"
    r"|is (?:it|that|this|the \w+) free)\b",
    re.I,
)
_COST = re.compile(r"\b(?:free|no charge|charged?|costs?|£\s?\d[\d.,]*|\d+ pounds)\b", re.I)
_COST_WORDS = frozenset({"pay", "cost", "charge", "price"})
# "How do I ring him?", "what's their number?" is answered by a phone number; "how do I
# call external programs from a function?" calls no one: whom is called is a person, a
# name or a short "the …", and the question ends there.
_WHOM = (
    r"(?:\s+(?:him|her|them|you|us|someone|somebody|anyone|anybody"
    r"|(?-i:[A-Z][\w'-]*)(?:\s+(?-i:[A-Z][\w'-]*))?"
    r"|(?:the|our|my|your|his|her|their|a|an)\s+[\w'-]+(?:\s+[\w'-]+)?))?(?=\s*[?.!]*\s*$)"
)
_ASKS_PHONE = re.compile(
    r"\s*(?:how (?:do|can|should|would|could) (?:i|we) (?:ring|call|phone|contact|reach|text"
    rf"|get hold of){_WHOM}|what(?:'s| is) (?:his|her|their|the) (?:\w+'s )?(?:phone |mobile |cell "
    r"|telephone |contact )?number"
    r"|(?:what|which) (?:phone |telephone )?number (?:do|should|can|shall|would|must) (?:i|we)"
    r" (?:dial|ring|call|phone|give)"
    # "who do we ring to get the aircon serviced?": whoever it is, rung on their number.
    r"|who (?:do|should|can|shall|would|could|will|must) (?:i|we) (?:ring|call|phone|text))\b",
    re.I,
)
_PHONE_WORDS = frozenset({"ring", "call", "phone", "number", "contact", "reach", "dial"})
# "Give me Dave's phone number": named as what it is; "the doctor's number", "number for
# the sparky": a person's number, or the number one rings (never a "model number for …").
_PHONE_NUMBER = re.compile(
    r"\b(?:phone|mobile|cell|telephone|contact) (?:number|no)\b"
    r"|\b\w+'s number\b|(?:^\s*|\b(?:the|a|his|her|their) )number (?:for|to ring|to call)\b",
    re.I,
)
# Never a serial number's digits after its letters ("FD 0123 456789").
# A North American number too: "(555) 201-3344", "555-201-3344", a local "555-0147";
# an Australian one with a one-digit area code, "(03) 5550 3300", or "1300 975 707".
_PHONE = re.compile(
    r"(?<![A-Z] )(?<![A-Z]{2} )(?<![A-Z]{3} )"
    r"(?:(?:\+\d{1,3}[\s-]?)?(?:\(0\d{1,4}\)|\b0\d{2,4})[\s-]?\d{3,4}[\s-]?\d{3,4}\b"
    r"|\b1[38]00[\s-]?\d{3}[\s-]?\d{3}\b"  # Australian: "(03) 5550 3300", "1300 975 707"
    r"|(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\b\d{3}[\s.-])?\b\d{3}[.-]\d{4}\b)"
)
# A phone number as Europe writes them as well: "01 99 00 90 71", "06 2345 6801",
# "91 000 12 34", "+49 351 4412345" - groups of digits apart by single spaces, dots or
# dashes, never after a letter nor before a lone one (a serial number: "9438 7721 C"),
# a currency, a per cent or a decimal comma (a comma that ends a clause is no decimal
# one: "partes: 91 000 92 00, o en la app").
_DIGIT_GROUPS = re.compile(
    r"(?<![\w.,/])(?:\+\d{1,3}[\s.-]?)?(?:\(0\d{1,4}\)[\s.-]?)?\d{2,5}(?:[ .-]\d{2,8}){1,5}"
    r"(?![\w/]|[.,-]\d|\s?(?:€|%|°|[a-zA-Z](?!\w)))"
)


def has_phone_number(text: str) -> bool:
    """Whether a text gives a phone number, written as any country writes one (9 to 13
    digits in groups, or one English's pattern reads)."""
    if _PHONE.search(text):
        return True
    return any(9 <= sum(c.isdigit() for c in m.group()) <= 13 for m in _DIGIT_GROUPS.finditer(text))


# "Is it still under warranty?", "is it too late to claim?", "how long is left on it?":
# until when it holds, which a date answers.
ASKS_UNTIL = re.compile(
    r"\s*(?:is|are|am|do|does|will|has|have)\b(?:\s+\w+){0,5}?\s+still\s+(?:be\s+)?"
    r"(?:under|in|within|covered|valid|guaranteed|insured|have|has|got)\b"
    r"|\s*(?:is|am|are) (?:it|we|i) (?:too late|still in time)\b"
    r"|\s*how (?:long|much time|many (?:days|weeks|months|years))"
    r" (?:is |are |have we |do we have )?(?:got )?left\b",
    re.I,
)
# "What temperature do I bake them at?", "how hot should the water be?": a temperature
# ("60 degrees", "180°C", "oven to 160"), never a count ("makes about 24").
ASKS_TEMPERATURE = re.compile(r"\s*(?:(?:what|which) (?:temperature|temp)|how hot)\b", re.I)
_TEMPERATURE = re.compile(
    r"\d\s*(?:\u00b0|\u00ba|degrees?\b|deg\b|[CF]\b)"
    r"|\b(?:oven|set|heat|preheat|bake|thermostat)\w*\b[^.\n]{0,20}?\b(?:to|at) \d{2,3}\b",
    re.I,
)
# "What should the pool pH be?", "what should the gauge read?": the value it should have.
ASKS_TARGET = re.compile(
    r"\s*what (?:should|must|ought to) (?:the |our |my |a |an |its )?[\w' -]{1,40}?"
    r" (?:be|read|say|show|sit at)\b",
    re.I,
)
_TARGET = re.compile(
    r"\b(?:should|between|normal|ideal|at least|no more than|no less than|keep it)\b", re.I
)
# "How big's the hot water tank?", "what size is the pool?": a size, a figure with its
# unit ("315 litre tank", "7.1 kW", "12 m"), never a count or a price.
ASKS_SIZE = re.compile(
    r"\s*(?:how (?:big|large|small|wide|tall|high|deep|heavy)\b|(?:what|which) (?:size|capacity)\b"
    r"|how much (?:does|can|will) (?:it|the [\w -]{1,30}?) hold\b)",
    re.I,
)
_SIZE = re.compile(
    r"\d[\d.,]*\s*(?:-\s*)?(?:litres?|liters?|l|ml|gallons?|kw|kilowatts?|w|watts?|m\u00b2|m2"
    r"|sq(?:uare)?\s*(?:m|metres?|meters?|ft|feet)|metres?|meters?|m|cm|mm|inch(?:es)?|ft|feet"
    r"|kg|kilos?|kilograms?|tonnes?|lbs?|kb|mb|gb|tb)\b",
    re.I,
)
# "How much can we spend on it?", "how much money …": a sum of money.
ASKS_MONEY = re.compile(
    r"\s*how much (?:money\b|(?:can|could|may|should|do|did|will|would|are) (?:we|i|you|they)"
    r" (?:\w+ )?(?:spend|pay|claim|charge|borrow|save|owe|get back|be paid)\b)",
    re.I,
)
_MONEY = re.compile(
    r"[$\u00a3\u20ac]\s?\d|\b\d[\d,.]*\s?(?:dollars|pounds|euros|bucks|cents)\b", re.I
)
# What each kind of question is answered by: "when" by a time or a date, "how long" by
# a duration, "how much/many/often" by an amount or a frequency.
_KINDS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (ASKS_MONEY, _MONEY),
    (ASKS_TEMPERATURE, _TEMPERATURE),
    (ASKS_SIZE, _SIZE),
    (ASKS_TARGET, _TARGET),
    (_ASKS_COST, _COST),
    (_ASKS_PHONE, _PHONE),
    (ASKS_UNTIL, re.compile(rf"\b(?:(?:19|20)\d\d|{_MONTHS})\b", re.I)),
    (
        re.compile(r"\s*how (?:long|much time)\b", re.I),
        re.compile(rf"\b(?:{_NUMBER})\s*(?:{_UNITS})\b", re.I),
    ),
    (
        re.compile(r"\s*how (?:often|frequently)\b|.*\b(?:interval|frequency)\b", re.I),
        re.compile(rf"\b(?:every|once|twice|each|daily|weekly|monthly|yearly|{_DAYS})\b", re.I),
    ),
    (
        re.compile(r"\s*(?:how (?:much|many)|what (?:number|figure|reading))\b", re.I),
        re.compile(r"\d|\b(?:one|two|three|four|five|six|ten|half|quarter|handful)\b", re.I),
    ),
    (
        ASKS_CHECK,
        re.compile(r"\b(?:should|between|normal|at least|no more than|no less than)\b", re.I),
    ),
    (
        ASKS_WHY,
        re.compile(
            r"\b(?:means?|meaning|because|due to|caused by|so that|to protect|the reason)\b",
            re.I,
        ),
    ),
    (
        ASKS_WHEN_TO,
        re.compile(
            rf"\b(?:if|when|whenever|unless|once|as soon as|{_DAYS}|{_MONTHS}|every|daily|weekly"
            r"|monthly|yearly|morning|evening|night|before|after)\b",
            re.I,
        ),
    ),
    (
        re.compile(
            r"\s*(?:when|(?:what|which) (?:time|times|day|days|date|hours)"
            r"|by when|until when|how (?:late|early)"
            r"|what(?:'s| is) the (?:latest|earliest))\b",
            re.I,
        ),
        _WHEN_GIVEN,
    ),
    # "Is bin day a Monday?", "is her birthday on the 12th?": the day guessed is checked
    # against the day the text gives.
    (_DAY_GUESSED, _WHEN),
)


# What a "when"/"how long" question calls the fact it asks for ("when is recycling
# day?"): a text that gives a day or a time says these words.
_KIND_WORDS = frozenset(
    stem(w)
    for w in (
        *("day", "days", "date", "time", "number", "figure", "interval", "frequency"),
        *("temperature", "temp"),  # "oven to 220" says the temperature asked for
    )
)
# Words that only say what kind of fact is asked for ("how long", "at what point").
_FRAMES = (
    (re.compile(r"\s*how (?:long|often|frequently)\b", re.I), {"long", "often", "frequently"}),
    # "What hours does the hot water heat?" asks for times: "10 am to 4 pm", not "3 hours".
    (re.compile(r"\s*(?:what|which) (?:hours|times)\b", re.I), {"hours", "times"}),
    # "How big's the tank?" asks for a size: the answer says "250 litre", never "big".
    (ASKS_SIZE, {"big", "large", "small", "wide", "tall", "high", "deep", "heavy", "size"}),
    (re.compile(r"\s*at what point\b", re.I), {"point"}),
    # "Anything weird about the oven I should know?", "any tricks?": a request for what
    # the notes say of it, whatever they call it.
    (
        re.compile(
            r".*?\bany(?:thing)?\s+(?:(?:weird|odd|strange|special|unusual|important|tricky"
            r"|funny|different)\b|(?:tips|tricks|advice|ideas|suggestions|hints|pointers)\b)",
            re.I,
        ),
        {"weird", "odd", "strange", "special", "unusual", "important", "tricky", "funny"}
        | {"different", "tips", "tricks", "advice", "ideas", "suggestions", "hints"}
        | {"pointers"},
    ),
    # "What are the steps to clean the filter?" asks how, not about steps.
    (
        re.compile(r"\s*what (?:are|is) the (?:steps|procedure|process) (?:to|for)\b", re.I),
        {"steps", "procedure", "process"},
    ),
    # "Who lives at number 12?" is answered by a name at number 12.
    (
        re.compile(
            r"\s*who (?:\w+ ){0,3}?(?:lives?|living|stays?|staying|occup(?:y|ies|ied|ying))\b",
            re.I,
        ),
        {"live", "lives", "living", "stay", "stays", "staying"}
        | {"occupy", "occupies", "occupied", "occupying"},
    ),
    # "Where do I go to switch it back on?" asks where it is switched on.
    (
        re.compile(
            r"\s*where (?:do|can|should|shall|must|would) (?:i|we|you) (?:go|head) to\b", re.I
        ),
        {"go", "head"},
    ),
    # "Which network do I pick?" asks which network.
    (
        re.compile(
            r"\s*which [\w ]{1,30}? (?:do|should|shall|can|must) (?:i|we|you) (?:pick|choose|select"
            r"|use|join)\b",
            re.I,
        ),
        {"pick", "choose", "select", "use", "join"},
    ),
    # "What address should I give the taxi?" asks for the address; giving it is theirs.
    (
        re.compile(
            r"\s*(?:what|which)\b[\w' ]{0,30}?\b(?:should|do|shall|can|must|would) (?:i|we)"
            r" (?:tell|give|send|say|pass on)\b",
            re.I,
        ),
        {"tell", "give", "send", "say", "pass"},
    ),
    # "Would you mind explaining how …", "could you explain why …": a way of asking.
    (
        re.compile(
            r"\s*(?:(?:would|do) you mind (?:explaining|telling|showing)"
            r"|(?:can|could|would|will) you (?:please )?explain)\b",
            re.I,
        ),
        {"mind", "explaining", "telling", "showing", "explain"},
    ),
    # A request instead of a question ("give me the model number", "remind me which day",
    # "Query: garage code") asks as "what is" does.
    (
        re.compile(
            r"\s*(?:please\s+)?(?:(?:can|could|would|will) you\s+(?:please\s+)?)?"
            r"(?:(?:give|tell|read|show|send|remind|text)\s+(?:me|us)"
            r"|look up|lookup|find|search for|query|question)\b",
            re.I,
        ),
        {"give", "tell", "read", "show", "send", "remind", "text", "look", "lookup", "find"}
        | {"search", "query", "question"},
    ),
)


# "… the birthday I asked you to remember", "the code we told you": where the fact was
# put, which a memory itself never says.
_TOLD_YOU = re.compile(
    r"\b(?:i|we) (?:asked|told|got) you to (?:remember|save|store|keep|note)\b"
    r"|\b(?:i|we)(?:'ve| have)? (?:told|given|gave) you\b",
    re.I,
)
_TOLD_YOU_SAID = "asked told got given gave remember save store keep note"
_TOLD_YOU_STEMS = frozenset(stem(w) for w in _TOLD_YOU_SAID.split())


@cached_by_language(512)
def _frame_words(question: str) -> frozenset[str]:
    """The question's words that say what kind of fact it asks for, not what about."""
    told = {stem(w) for m in _TOLD_YOU.finditer(question) for w in _WORD.findall(m.group(0))}
    told &= _TOLD_YOU_STEMS
    return (
        frozenset(
            stem(w)
            for asks, words in _FRAMES
            for text in dict.fromkeys([question, asked(question)])
            if (m := asks.match(text)) is not None
            for w in _WORD.findall(m.group(0).lower())
            if w in words
        )
        | told
    )


def _asks_phone(question: str) -> bool:
    """Whether the question, or one of its asks, wants a phone number ("who was the
    plumber and how do I ring him?")."""
    asks = [asked(question), *clause_asks(question)]
    return any(_ASKS_PHONE.match(c) for c in asks) or _PHONE_NUMBER.search(question) is not None


# "Biscuit ate chocolate! Who do I call?", "Pistache vomit, j'appelle qui ?": a story told,
# then a last clause that asks only whom to ring, by a question word ("who", "chi",
# "para onde") and words for ringing.
_CLAUSE_END = re.compile(r"[,;:.!?\u00a1\u00bf]+\s*")
# Whom or where, never how one rings someone already named ("what's his number?").
_ASKS_WHOM = re.compile(
    r"\b(?:who|whom|which|wer|wen|wem|welche[nmrs]?|welke?|wo|waar|qui|quel(?:le)?s?|o[uù]"
    r"|qu[ií]en(?:es)?|cu[áa]l(?:es)?|d[oó]nde|chi|quale|qual|dove|quem|quais|onde)\b",
    re.I,
)


@cached_by_language(512)
def story_before_call(question: str) -> tuple[str, ...]:
    """The content words told before a last clause that asks nothing but whom to ring
    ("biscuit", "ate", "chocolate"): who or what the call is for is among them. Empty
    when the question asks anything else ("the toilet's number, who do I call?" names
    the thing in its ask)."""
    clauses = [c for c in _CLAUSE_END.split(question) if c.strip()]
    if len(clauses) < 2:
        return ()
    last = clauses[-1]
    ringing = content_words(last)
    tongue = foreign(question)
    if tongue:
        if not all(names_a_phone(tongue, w) for w in ringing):
            return ()
    elif not _ASKS_PHONE.match(last) or not set(ringing) <= _PHONE_WORDS:
        return ()
    if not ringing or not _ASKS_WHOM.search(last):
        return ()
    return tuple(w for w in content_words(question) if w not in ringing)


def labels_the_story(question: str, label: str) -> bool:
    """Whether a record's label ("Vet (Biscuit)") says a word of the story told before
    whom to ring is asked (``story_before_call``)."""
    told = story_before_call(question)
    tongue = foreign(question)
    if tongue:
        return bool({stem_in(tongue, w) for w in told} & stems_in(tongue, label))
    return bool({stem(w) for w in told} & words_of(label))


def asks_kind(question: str) -> bool:
    """Whether the question asks for a kind of fact (a date, a duration, an amount)."""
    said = asked(question)
    return any(asks.match(said) for asks, _ in _KINDS) or _kind_in_tongue(question) is not None


def gives_what_is_asked(question: str, *texts: str) -> bool:
    """Whether the text holds the kind of fact the question asks for (a date for "when",
    a duration for "how long", an amount for "how much"); False for other questions.

    "When does the guarantee end?" is answered by "The warranty runs out on 14 March
    2028." although it shares none of the question's words.
    """
    said = asked(question)
    for asks, answer in _KINDS:
        if asks.match(said):
            return any(answer.search(text) is not None for text in texts)
    kind = _kind_in_tongue(question)
    return kind is not None and any(kind.given_by(text) for text in texts)


def _kind_in_tongue(question: str) -> Kind | None:
    """The kind of fact a question in another language asks for ("wie lange": a duration)."""
    tongue = foreign(question)
    return kind_asked(tongue, question) if tongue else None


_ASKS_WHEN = _KINDS[-2][0]
# A time a "when …?" is answered by: a day, a month, a time of day, "every …", a date
# written in figures ("02/09/2026", "the 1st"), or a point given by a figure with its unit
# ("at 102,000 km", "in 3 weeks"); never the digits of a code or a number plate ("ZQR
# 218"), nor a length of time alone ("at least 28 days' notice").
_A_TIME = re.compile(
    rf"{_WHEN_GIVEN.pattern}"
    rf"|\b(?:at|in|after|within|by|every)\s+\d[\d,.]*\s?(?:{_UNITS}|km|kms|miles|mi)\b",
    re.I,
)


def gives_a_time(question: str, *texts: str) -> bool:
    """Whether the texts give a time, when a plain "when …?" (or "what time …?") is all
    the question asks: a log's title naming the car and "rego" is no answer to "when is
    the rego due?". The time is said of whose it is asked: in "Next Kluger service due
    at 102,000 km. Mazda tyres getting low" no time is the Mazda's (a heading naming it
    names it for every line). True for any other question."""
    said = asked(question)
    if len(clause_asks(question)) > 1 or not _ASKS_WHEN.match(said) or ASKS_WHEN_TO.match(said):
        return True
    owners = owners_named(question)
    last = _ASKS_LAST.search(said) is not None
    when = _A_DAY if _ASKS_DAY.match(said) else _A_TIME
    for text in texts:
        for piece in _pieces(text):
            # A figure with its unit is a size, not a date: "7.1 kW" is no 7 January.
            piece = _SIZE.sub(" ", piece)
            if last:
                piece = _HOW_OFTEN.sub(" ", piece)  # "every 12 months" says no last time
            if when.search(piece) and (
                not owners
                or names_owners(question, piece)
                or names_owners(question, *(t for t in texts if t is not text))
            ):
                return True
    return False


# "What day does the pool lady come?", "which date …": a day, which a time of day ("9am
# to 3pm") or a season's months alone do not give.
_ASKS_DAY = re.compile(r"\s*(?:what|which) (?:day|days|date)\b", re.I)
_A_DAY = re.compile(
    rf"\b(?:{_DAYS}|today|tomorrow|tonight|daily)\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b"
    rf"|\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
    r"|\b\d{1,2}[/.-]\d{1,2}(?:[/.-]\d{2,4})?\b|\b\d{1,2}(?:st|nd|rd|th)\b"
    r"|\bevery\s+(?:day|morning|night)\b",
    re.I,
)


# "When were the smoke alarms last checked?", "when did we last …": a time it happened,
# which how often it is done ("checked every 12 months") does not give.
_ASKS_LAST = re.compile(r"^\s*when\b(?:\s+\w+){1,6}?\s+last\b(?!\s+(?:for|long)\b)", re.I)
_HOW_OFTEN = re.compile(
    rf"\bevery\s+(?:(?:\d+|other|few|two|three|four|six|twelve)\s+)?(?:{_UNITS}|{_DAYS})\b",
    re.I,
)


# "How much butter goes in …?": the thing measured.
# "How many times/weeks/k's …" counts in a unit, which the answer need not name.
_ASKS_MEASURED = re.compile(
    r"\s*how much (?P<what>[a-z]+)\b"
    # "How long is the warranty on the heat pump?": the warranty is what is measured,
    # the heat pump whose it is; "every 6 months" said of its valve is no answer.
    r"|\s*how (?:long|much|big|old|far|high|wide|deep|heavy) (?:is|are|was|were) "
    r"(?:the|our|my|your) (?P<of>[a-z]+)(?= (?:on|of|for|at|in) )",
    re.I,
)
# What follows "how much" without naming a thing: "how much does it cost?", "how much
# longer", "how much of the …".
_NOT_MEASURED = frozenset(
    [
        "do",
        "does",
        "did",
        "is",
        "are",
        "was",
        "were",
        "be",
        "can",
        "could",
        "will",
        "would",
        "should",
        "shall",
        "may",
        "might",
        "must",
        "has",
        "have",
        "had",
        "of",
        "more",
        "less",
        "longer",
        "shorter",
        "further",
        "extra",
        "else",
        "time",
        "money",
    ]
)


# An amount: a figure, or one written out ("two 20 kg bags", "half a cup").
_AMOUNT = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|half|quarter|dozen)\b",
    re.I,
)


def names_the_measured(question: str, *texts: str) -> bool:
    """Whether a line or sentence of the texts names the thing a "how much X …?" question
    measures with an amount: the recipe's title "Nan's Anzac biscuits (makes about 24)"
    gives an amount, but not of butter, and its method's "Melt the butter" none."""
    if not _names_the_priced(question, texts):
        return False
    unit = _ASKS_IN_UNITS.match(asked(question))
    if unit is not None:
        # "How many kW does the heat pump draw?": a figure in kW, not its 315 litre tank.
        written = _UNIT_WRITTEN.get(unit.group("unit").lower(), re.escape(unit.group("unit")))
        said = re.compile(rf"\d\s?(?:{written})(?![^\W\d_])", re.I)
        return any(said.search(t) for t in texts)
    m = _ASKS_MEASURED.match(asked(question))
    what = m.group("what") or m.group("of") if m else None
    if what is None or what.lower() in _NOT_MEASURED:
        return True
    word = stem(fold(what))
    if word in STOPWORDS or word in FUNCTION_WORDS:
        return True
    alternatives = synonyms(question)
    for piece in (p for t in texts for p in _pieces(t)):
        have = words_of(piece)
        named = (
            word in have
            or misspelt_in(word, have)
            or any(alt <= have for alt in alternatives.get(word, ()))
        )
        if named and _AMOUNT.search(piece):
            return True  # "125 g butter", not "Melt the butter and golden syrup"
    return False


# "How many kW …?", "how many litres …?": a figure in that unit answers.
_ASKS_IN_UNITS = re.compile(
    r"\s*how many (?P<unit>kw|kwh|watts|volts|amps|litres|liters|ml|kg|kilos|grams|km|kms"
    r"|kilometres|kilometers|metres|meters|cm|mm|psi|kpa|ppm|mb|gb|tb)\b",
    re.I,
)


_LITRES = r"l|litres?|liters?"
_KILOS = r"kg|kgs|kilos?|kilograms?"
_METRES = r"m|metres?|meters?"
_KM = r"km|kms|kilometres?|kilometers?"
# How a unit asked for is written after a figure ("42,000 L").
_UNIT_WRITTEN = {
    "litres": _LITRES,
    "liters": _LITRES,
    "kg": _KILOS,
    "kilos": _KILOS,
    "metres": _METRES,
    "meters": _METRES,
    "km": _KM,
    "kms": _KM,
    "kilometres": _KM,
    "kilometers": _KM,
    "watts": r"w|watts?",
    "volts": r"v|volts?",
    "amps": r"a|amps?",
    "grams": r"g|grams?",
}


# "How much is our contents insurance premium a year?": what the sum is of, named by its
# noun (the last of the words before any small word).
_ASKS_PRICED = re.compile(
    r"\s*how much (?:is|are|was|were) (?:the|our|my|your|their|his|her) (?P<np>[a-z].*)$", re.I
)


def _names_the_priced(question: str, texts: tuple[str, ...]) -> bool:
    """Whether the texts name what a "how much is the X?" asks the sum of: the sum insured
    is no premium. True for questions of other shapes."""
    m = _ASKS_PRICED.match(asked(question))
    if m is None or len(clause_asks(question)) > 1:
        return True
    words: list[str] = []
    for word in _WORD.findall(m.group("np")):
        if fold(word) in STOPWORDS:
            break
        words.append(fold(word))
    if not words or words[-1] in FUNCTION_WORDS:
        return True
    have: frozenset[str] = frozenset().union(*(words_of(t) for t in texts))
    return _named(words[-1], have, synonyms(question))


def names_what_happens(question: str, *texts: str) -> bool:
    """Whether the texts (a file's title among them) name what a "when …?" question asks
    the time of, by any word of it but whose it is: Lachie's bath time is no answer to
    "what time is Lachie's swimming lesson?". True for any other question."""
    said = asked(question)
    when = _ASKS_WHEN.match(said)
    if len(clause_asks(question)) > 1 or when is None or ASKS_WHEN_TO.match(said):
        return True
    # What "it" is ("the heating keeps coming on, when is it set to start?") is asked too.
    opening, aside = frozenset(content_words(when.group(0))), _aside_words(question)
    frame, names = _frame_words(question), names_in(question)
    wanted = [
        stem(w)
        for w in content_words(question)
        if w not in names
        and w not in opening
        and w not in aside
        and w not in FUNCTION_WORDS
        and stem(w) not in frame
    ]
    if not wanted:
        return True
    have: frozenset[str] = frozenset().union(*(words_of(t) for t in texts))
    alternatives = synonyms(question)
    return any(
        w in have or misspelt_in(w, have) or any(alt <= have for alt in alternatives.get(w, ()))
        for w in wanted
    )


def named_asked(question: str, text: str) -> frozenset[str]:
    """The words the question asks with (function words aside) that the text says."""
    have = words_of(text)
    return frozenset(
        w for w in content_words(question) if w not in FUNCTION_WORDS and stem(w) in have
    )


def names_any_asked(question: str, text: str) -> bool:
    """Whether the text says any word the question asks with (function words aside)."""
    return bool(named_asked(question, text))


def _pieces(text: str) -> list[str]:
    """A text's lines and sentences."""
    return [s for line in text.splitlines() for s in SENTENCE_BREAK.split(line) if s.strip()]


# The question words of the other languages ("… und wie ist das Passwort?").
_ASKING = (
    r"(?:wer|wen|wem|wessen|was|wann|wie|wo|warum|wieso|welche[nmrs]?"
    r"|wat|wanneer|waar|waarom|hoe|hoeveel|welke?"
    r"|qui|que|quoi|quand|comment|o[uù]|pourquoi|combien|quel(?:le)?s?"
    r"|qui[eé]n(?:es)?|qu[eé]|cu[aá]ndo|c[oó]mo|d[oó]nde|cu[aá]nt[oa]s?|cu[aá]l(?:es)?"
    r"|chi|che|cosa|quando|come|dove|perch[eé]|quant[oaie]|qual[ei]?"
    r"|quem|onde|porqu[eê]|quais)\b"
)
_CLAUSE_BREAK = re.compile(
    r",?\s+and\s+|[,;]\s+|\s+(?:compared (?:to|with)|versus|vs\.?)\s+"
    # "… und wie ist das Passwort?", "… et quel est le code ?": another ask.
    rf"|\s+(?:und|en|et|y|e)\s+(?={_ASKING})",
    re.IGNORECASE,
)


def clause_asks(question: str) -> list[str]:
    """The asks of the question itself, split at "and" and commas: "how long is the
    warranty and when does it end?" asks two things."""
    return [c for c in _CLAUSE_BREAK.split(asked(question)) if c.strip()]


def gives_more(question: str, quoted: str, text: str) -> bool:
    """Whether the text gives a kind of fact one of the question's asks wants and the
    quote does not yet: "how long is the warranty and when does it end?" asks for a
    duration and for a date."""
    clauses = [question, *clause_asks(question)]
    return any(gives_what_is_asked(c, text) and not gives_what_is_asked(c, quoted) for c in clauses)


_QUOTED = re.compile(r'"[^"\n]{1,200}"|\u201c[^\u201d\n]{1,200}\u201d')


def mentions(text: str) -> tuple[str, str]:
    """(the text without its quoted phrases, the quoted phrases).

    A phrase in quotation marks is mentioned, not said: a page listing example
    questions ("how do I reset the router?") does not answer them, so its quoted
    words count as context only.
    """
    quoted = _QUOTED.findall(text)
    return (_QUOTED.sub(" ", text), " ".join(quoted)) if quoted else (text, "")


def meaning(similarity: float | None) -> float:
    """A model's cosine on the 0..1 relevance scale (0 when it did not rank the text)."""
    if similarity is None:
        return 0.0
    span = SIMILARITY_FULL - SIMILARITY_NONE
    return min(1.0, max(0.0, (similarity - SIMILARITY_NONE) / span))


@dataclass(frozen=True, slots=True)
class Match:
    """How a text answers a question: its word coverage and, with a model, its meaning."""

    words: float
    meaning: float | None = None
    unrelated: bool = False  # the model ranked the text and called it unrelated
    things: bool = True  # the text says every household thing the question names
    codes: bool = True  # the text holds every fault code the question names ("E15")
    rival: bool = False  # the text is about another appliance, person or door
    owner: bool = True  # it names whose it is and whom it is about ("Tom's birthday": Tom)
    time: bool = True  # the text gives a time when "when …?" is all that is asked
    number: bool = True  # the text gives a phone number when only that is asked
    attribute: bool = True  # the text holds the attribute asked for (the *password*)
    alone: bool = True  # the model's meaning may answer on its own (an English question)

    @property
    def answers(self) -> bool:
        """Either signal says the text is about what was asked, or both nearly do; and
        the model, when it ranked the text, does not call it unrelated while the words
        say little more than enough ("when was the roof last replaced?" shares "last"
        and "replace" with the smoke alarm's battery line)."""
        if not (self.codes and self.number and self.attribute and self.owner and self.time):
            return False
        if self.rival:
            return False  # "what does E15 mean?" is never answered by F22's row
        if self.unrelated and self.words < WORDS_SURE:
            return False
        if self.things and min(self.words, self.meaning or 0.0) >= AGREE:
            return True  # never when a thing asked about is missing (the car's *insurance*)
        return max(self.words, (self.meaning or 0.0) if self.alone else 0.0) >= ANSWERS

    @property
    def near(self) -> bool:
        """The model puts the text near the question, though short of answering, and no
        check says it is about another thing: as the nearest of all, it answers."""
        if not self.alone or self.meaning is None or self.meaning < meaning(NEAREST_SIMILARITY):
            return False
        checks = (self.things, self.codes, self.number, self.attribute, self.owner, self.time)
        return all(checks) and not self.rival

    @property
    def value(self) -> float:
        """One figure to compare texts by (documents against memories too)."""
        if self.meaning is None:
            return self.words
        if not self.alone:
            return FOREIGN_WORDS_SHARE * self.words + (1 - FOREIGN_WORDS_SHARE) * self.meaning
        return (self.words + self.meaning) / 2


def match(
    question: str,
    weights: Mapping[str, float] | None,
    texts: Iterable[str],
    similarity: float | None = None,
    *,
    model: bool = False,
    weak: Iterable[str] = (),
) -> Match:
    """Word coverage of the texts (``weak`` ones counting less), plus the model's
    meaning when a real model ranked them."""
    texts, weak = list(texts), list(weak)
    held = attribute_held(question, *texts, *weak)
    if held is not None and held[1]:
        # "What's the vet number?" is answered by the vet's line holding a phone number,
        # though it never says "number": the value stands for the word.
        texts.append(" ".join(held[1]))
    words = word_coverage(question, weights, *texts, weak=weak)
    codes = holds_named_codes(question, *texts, *weak)
    rival = names_a_rival(question, *texts, *weak)
    number = gives_the_number(question, *texts)
    attribute = (
        (held is None or held[0])
        and names_the_measured(question, *texts, *weak)
        and names_compounds(question, *texts, *weak)
        and names_no_sibling(question, *texts, *weak)
        and names_the_role(question, *texts, *weak)
    )
    owner = (
        names_owners(question, *texts, *weak, strict=False)
        and names_subjects(question, *texts, *weak)
        and names_whose(question, *texts, *weak)
    )
    time = gives_a_time(question, *texts) and names_what_happens(question, *texts, *weak)
    if not model:
        return Match(
            words,
            codes=codes,
            rival=rival,
            owner=owner,
            time=time,
            number=number,
            attribute=attribute,
        )
    said = meaning(similarity)
    unrelated = similarity is not None and said < UNRELATED
    things = names_every_thing(question, *texts, *weak)
    # The bundled model reads English: between a German question and German notes its
    # cosine is nearly as high for unrelated sentences as for the answer, so in another
    # language it only confirms what the words say, never answers alone.
    alone = foreign(question) is None
    return Match(
        words, said, unrelated, things, codes, rival, owner, time, number, attribute, alone
    )


# "What's the Netflix password?", "what is the vet's number?": the question asks for one
# attribute (the last noun of what it asks about, before any "for"/"of"/"in"), which the
# passage must hold — by its name, or for some by a value of its kind.
_ASKS_ATTRIBUTE = re.compile(
    r"\s*(?:what|which)(?:'s|s|\s+is|\s+are|\s+was)\s+(?:the\s+|our\s+|my\s+|your\s+"
    r"|his\s+|her\s+|their\s+)?(?P<np>[\w'.-]+(?:\s+[\w'.-]+){0,4}?)"
    r"(?P<of>\s+(?:for|of|to|on|at|in)\s+[\w' .-]+)?\s*[?.!]*\s*$",
    re.I,
)
# "contents insurance policy number?", "guest wifi password?": the noun phrase alone.
_BARE_ATTRIBUTE = re.compile(
    r"\s*(?:the\s+|our\s+|my\s+)?(?P<np>[\w'.-]+(?:\s+[\w'.-]+){1,4}?)"
    r"(?P<of>\s+(?:for|of|to|on|at)\s+[\w' .-]+)?\s*[?.!]*\s*$",
    re.I,
)
_PHONE_HEADS = frozenset({"phone", "mobile", "cell", "telephone", "contact"})
# Which number, written as its figures alone: "SafeHome SA-10" gives the model number.
_CODE_HEADS = frozenset({"model"})
# Attributes and the values that hold them without their name. Only these are checked:
# other nouns ("what's the recycling day?") name what the passage is about.
_SECRET = re.compile(r"\b(?:pass(?:word|code|phrase)?|pwd?|pin|key|code)\b", re.I)
_ATTRIBUTES: dict[str, re.Pattern[str] | None] = {
    "password": _SECRET,
    "passcode": _SECRET,
    "passphrase": _SECRET,
    "pin": re.compile(r"\b(?:pin|code)\b|\b\d{4,8}\b", re.I),
    "code": re.compile(r"\b(?:code|pass(?:word|code)?|pin|key)\b|\b\d{3,8}\b", re.I),
    "number": re.compile(r"\d{3}|\b(?=[\w-]*\d[\w-]*\d)[\w-]{3,}\b"),  # or "SMS4HVI33G"
    "email": re.compile(r"@|\be-?mail\b", re.I),
    "username": re.compile(r"\b(?:user ?name|login|user|account)\b|@", re.I),
    "address": re.compile(
        r"\baddress\b|\bP\.?O\.? Box\b|(?-i:\b\d+[A-Za-z]?(?:\s+[A-Z][a-z]+)+)\s+"
        r"(?:st|street|rd|road|ave|avenue|ct|court|cres|crescent|dr|drive|ln|lane|way|pl"
        r"|place|pde|parade|blvd|boulevard|tce|terrace|hwy|highway|cl|close|gr|grove)\b",
        re.I,
    ),
}


# The words that name an attribute of something, not a thing ("what's the number?").
ATTRIBUTE_WORDS = frozenset(_ATTRIBUTES) | _PHONE_HEADS


# Words that say which one of a thing's attributes, not whose: "our *full* address".
_WHICH_ONE = frozenset(
    [
        "full",
        "whole",
        "complete",
        "exact",
        "entire",
        "current",
        "correct",
        "right",
        "actual",
        "proper",
        "street",
        "postal",
        "mailing",
    ]
)


# The object of a "to …" clause: "(to turn off) the house alarm".
_OBJECT = re.compile(r"\b(?:the|our|my|your|a|an)\s+(?:[\w'-]+\s+)?(?P<head>[\w'-]+)\s*$", re.I)


@cached_by_language(512)
def _attribute_asked(
    question: str,
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]]:
    """(the attribute a "what's the …?" question asks for — "phone", "number" — if it is
    one whose presence can be checked, the words naming whose it is — "netflix")."""
    if len(clause_asks(question)) > 1:
        return (), ((), ())
    m = _ASKS_ATTRIBUTE.match(asked(question)) or _BARE_ATTRIBUTE.match(asked(question))
    if m is None or not all(fold(w) not in STOPWORDS for w in _WORD.findall(m.group("np"))):
        return (), ((), ())
    phrase = m.group("np").split()
    words = [fold(w) for w in _WORD.findall(m.group("np"))]
    if (len(words) < 2 and not m.group("of")) or words[-1] not in _ATTRIBUTES:
        return (), ((), ())  # "what's the password?" alone names nothing to check it against
    two = len(words) >= 2 and (
        words[-2] in _PHONE_HEADS or (words[-2] in _CODE_HEADS and words[-1] == "number")
    )
    attribute = (words[-2], words[-1]) if two else (words[-1],)
    named = [w for w in content_words(" ".join(phrase[: -len(attribute)])) if w not in _WHICH_ONE]
    of = (m.group("of") or "").strip()
    # "… for the internet in the living room": where the thing is, after whose it is,
    # names no owner (the wifi's line need not say the room).
    of = re.split(r"\s+(?:in|at|on)\s+(?:the|our|my)\s+", of, maxsplit=1)[0]
    # "… for Bosch's customer service line", "… on the wifi set to": said around it; "… to
    # call to file a claim" says what it is for, not whose it is.
    around = content_words(of)
    if of.lower().startswith("to "):
        # What it is for names no owner, unless its object is a thing of the house: the
        # code "to turn off the house alarm" is the alarm's.
        obj = _OBJECT.search(of)
        around = content_words(obj.group(0)) if obj and in_thesaurus(obj.group("head")) else ()
    return attribute, (
        tuple(w for w in named if w not in attribute),
        tuple(w for w in around if w not in attribute),
    )


def names_what_is_asked(question: str, *texts: str) -> bool:
    """Whether the texts say what a "what's the …?" asks for, its last word: the
    dishwasher's model line says nothing of its *rating*. True for other questions."""
    if len(clause_asks(question)) > 1:
        return True
    m = _ASKS_ATTRIBUTE.match(asked(question))
    words = [fold(w) for w in _WORD.findall(m.group("np"))] if m else []
    if not words or words[-1] in STOPWORDS:
        return True
    have: frozenset[str] = frozenset().union(*(words_of(t) for t in texts))
    return _named(words[-1], have, synonyms(question))


def asked_attribute(question: str) -> tuple[str, ...]:
    """The attribute a "what's the …?" question asks for, if one that can be checked."""
    return _attribute_asked(question)[0]


def _named(
    word: str, have: frozenset[str], alternatives: dict[str, tuple[frozenset[str], ...]]
) -> bool:
    """Whether the texts' words say the word, by a synonym or with a typing slip."""
    key = stem(word)
    return (
        key in have
        or any(alt <= have for alt in alternatives.get(key, ()))
        or misspelt_in(key, have)
    )


# "Who's the principal at …?", "who's our plumber?", "who's the kids' dentist again?":
# the role asked for, the last word before what follows it.
_ASKS_WHO_IS = re.compile(
    r"\s*who(?:'s|s|\s+is|\s+was)\s+(?:the|our|my|your)\s+"
    r"(?P<np>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}?)"
    r"(?=\s+(?:at|for|of|in|with|on|from|we|i|you|that|who|again|now|here|there|and|to)\b"
    r"|\s*[?.!]*\s*$)",
    re.I,
)


_ANYONE = frozenset(
    {"company", "provider", "supplier", "firm", "business", "service", "people", "person"}
    | {"guy", "bloke", "man", "woman", "lady", "one", "contact"}
)


@cached_by_language(512)
def _role_asked(question: str) -> str | None:
    """The role an English "who's the …?" asks for ("principal"), or None."""
    m = None if foreign(question) else _ASKS_WHO_IS.match(asked(question))
    if m is None:
        return None
    words = [fold(w) for w in _WORD.findall(m.group("np"))]
    # "our internet company", "the pool lady": a word for any firm or person leaves the
    # role to the word before it.
    while words and words[-1] in _ANYONE:
        words.pop()
    return words[-1] if words and words[-1] not in STOPWORDS else None


def names_the_role(question: str, *texts: str) -> bool:
    """Whether the texts name the role "who's the …?" asks for (by a synonym, or by what
    it does: the window cleaner cleans): the school office's line never says who the
    principal is. True for other questions, and in another language."""
    role = _role_asked(question)
    if role is None:
        return True
    have: frozenset[str] = frozenset().union(*(words_of(t) for t in texts))
    key = stem(role)
    return _named(role, have, synonyms(question)) or (
        key.endswith("er") and len(key) >= 6 and key[:-2] in have
    )


def attribute_held(question: str, *texts: str) -> tuple[bool, tuple[str, ...]] | None:
    """(whether the texts hold the attribute asked for, the attribute's words the texts
    hold only as a value); None when the question asks for no such attribute."""
    attribute, whose = _attribute_asked(question)
    if not attribute:
        return None
    head = attribute[-1]
    have: frozenset[str] = frozenset().union(*(words_of(t) for t in texts))
    alternatives = synonyms(question)
    named, around = whose
    if not all(_named(w, have, alternatives) for w in named) or (
        2 * sum(_named(w, have, alternatives) for w in around) < len(around)
    ):
        return False, ()  # the wifi's password is no answer to "the Netflix password?"
    if stem(head) in have:
        return True, ()
    if head == "number" and any(_PHONE.search(t) for t in texts):
        return True, attribute
    value = _ATTRIBUTES[head]
    # A code or PIN is never a phone number's digits ("contact Reclaim on 1800 160 402").
    bare = [_PHONE.sub(" ", t) for t in texts] if head in ("code", "pin") else list(texts)
    if value is not None and head != "number" and any(value.search(t) for t in bare):
        return True, ()
    if (
        head == "number"
        and (len(attribute) == 1 or attribute[0] in _CODE_HEADS)
        and any(value.search(t) for t in texts if value)
    ):
        return True, attribute  # "the account number", "the model number": its figures
    return False, ()


def gives_the_number(question: str, *texts: str) -> bool:
    """Whether the texts give a phone number when that is all the question asks ("what's
    grandma's phone number?" is never answered by her birthday), or a sum of money or
    "free" when it asks how much may be spent ("within 24 hours" is no sum); True for
    other questions."""
    tongue = foreign(question)
    if tongue and _persons_number(question) and not any(_NUMBER_MARK.search(t) for t in texts):
        # "o número da mãe do Rodrigo, preciso de …", "le numéro de Manon": a person's
        # number is their phone's (a thing's may be any figure: "el número de póliza").
        return any(has_phone_number(t) for t in texts)
    if len(clause_asks(question)) > 1:
        return True
    if tongue:
        # "¿Tienes el teléfono de la academia?", "le portable de Manon": the phone asked
        # is its number (a thing's "número" may be any figure).
        thing = _thing_of(question)
        if thing and all(names_a_phone(tongue, w) and w not in _NUMBER_WORDS for w in thing):
            return any(has_phone_number(t) for t in texts)
        return True
    if ASKS_MONEY.match(asked(question)):
        return any(_MONEY.search(t) or _FREE.search(t) for t in texts)
    if not _asks_phone(question):
        return True
    return any(_PHONE.search(t) for t in texts)


def _persons_number(question: str) -> bool:
    """Whether a question in another language asks for the "número" of kin or of someone
    named ("da mãe do Rodrigo", "de Manon"), which is a phone number."""
    thing = _thing_of(question)
    return not _NUMBER_WORDS.isdisjoint(thing) and (
        not _KIN.isdisjoint(thing) or bool(_owners_of(question) and not _whose_of(question))
    )


_FREE = re.compile(r"\b(?:free|no charge|nothing|not a penny|not a cent)\b", re.I)


# A fault or error code as displays show them: "E15", "F22", and "F 75" read as "F75";
# never a word before a number ("at 12", "by 12 October").
_CODE = re.compile(r"\b([A-Za-z]{1,2})(\d{1,3})\b|\b([A-Z]) (\d{2,3})\b")


def _codes(text: str) -> frozenset[str]:
    return frozenset(f"{a or c}{n or m}".lower() for a, n, c, m in _CODE.findall(text))


def code_spans(text: str) -> list[tuple[str, int, int]]:
    """Each fault code in the text ("F22", "E 15") with where it stands, in order."""
    return [
        (f"{m[1] or m[3]}{m[2] or m[4]}".lower(), m.start(), m.end()) for m in _CODE.finditer(text)
    ]


def names_codes(question: str) -> bool:
    """Whether the question names a fault code."""
    return bool(_codes(question))


def holds_named_codes(question: str, *texts: str) -> bool:
    """Whether the texts hold the code the question names: a dishwasher's E15 is no line
    of the boiler's table, however alike the words around it. Of several ("the
    difference between F22 and F28"), each row answers for its own, so one is enough."""
    named = _codes(question)
    held = frozenset().union(*(_codes(t) for t in texts))
    return not named or (named <= held if len(named) == 1 else bool(named & held))


def names_every_thing(question: str, *texts: str) -> bool:
    """Whether the texts name (by any of its names) every thing of the thesaurus the
    question names: "when is the car insurance due?" names insurance, which the
    MOT's line never does; "model SMS4HVI33G" names the model number, "Serial number"
    does not. What was told before the question ("I've just bought …") need not be."""
    named = words_of(question) - {stem(w) for w in _aside_words(question)}
    have: frozenset[str] = frozenset().union(*(words_of(t) for t in texts))
    who = _asks_who_does(question)
    said = _stems_in_order(question)
    joined = joins_compounds(foreign(question))
    for members in _synonym_groups():
        if any(m <= named and _side_by_side(m, said) for m, _ in members) and not any(
            m <= have
            or (who and len(m) == 1 and _doer(next(iter(m)), have))
            or (joined and len(m) == 1 and _part_of_compound(next(iter(m)), have))
            for m, _ in members
        ):
            return False
    return True


def _part_of_compound(word: str, have: frozenset[str]) -> bool:
    """Whether a word is a part of one of the words, first or last: German's
    "Garagentorantrieb" names the garage, "Wasserdruck" the pressure."""
    return len(word) >= HEAD_MIN and any(
        len(h) - len(word) >= MODIFIER_MIN and (h.startswith(word) or h.endswith(word))
        for h in have
    )


@functools.lru_cache(maxsize=512)
def _stems_in_order(text: str) -> tuple[tuple[str, bool], ...]:
    """A text's words in the order it says them: (stem, whether it is a small word), a
    short hyphenated compound as one word ("wi-fi key" says "wifi", as ``words_of`` reads it)."""
    words = _WORD.findall(joined(textmatch.normalize(text)))
    return tuple((stem(fold(w)), fold(w) in STOPWORDS) for w in words)


def _side_by_side(member: frozenset[str], said: tuple[tuple[str, bool], ...]) -> bool:
    """Whether the words of a thing's name are said together, only small words between
    them ("turn the water off", "for nothing"): "water is pouring non stop out of the
    valve" names no stop valve."""
    if len(member) == 1:
        return True
    for i, (word, _) in enumerate(said):
        if word not in member:
            continue
        found = set()
        for other, small in said[i:]:
            if other in member:
                found.add(other)
            elif not small:
                break
        if member <= found:
            return True
    return False


# "Who cleans the windows?": whoever does it, named by what they do.
_ASKS_WHO_DOES = re.compile(r"\s*who\s+\w+s\b", re.I)


@cached_by_language(512)  # asked again for every text of every candidate
def _asks_who_does(question: str) -> bool:
    """Whether the question asks who does something ("who cleans our windows?")."""
    return _ASKS_WHO_DOES.match(asked(question)) is not None


def _doer(key: str, have: frozenset[str]) -> bool:
    """Whether the stems name who does what the word says: "the window cleaner" cleans
    the windows (asked "who cleans …?" only: a router routes nothing asked)."""
    return len(key) >= 4 and f"{key}er" in have  # "met" is no meter, "tim" no timer


# "Tom's birthday", "the Mazda's service": a name, written with its capital, owning what
# is asked. Not "What's", "Let's" (function words) nor a name told before the question.
_OWNER = re.compile(r"(?<![\w'\u2019])([A-Z][\w-]*)['\u2019]s\b")


def _names_by(pattern: re.Pattern[str], question: str, told: bool = False) -> tuple[str, ...]:
    """The capitalised names the pattern finds in the question (folded, whole), less
    function words ("What's", "Let's", "I") and, unless ``told``, any name it only tells
    of before it asks."""
    aside = frozenset() if told else _aside_words(question)
    out: list[str] = []
    for m in pattern.finditer(question):
        word = fold(next(g for g in m.groups() if g))
        if word in STOPWORDS or word in FUNCTION_WORDS or word in aside or word in ("let", "i"):
            continue
        out.append(word)
    return tuple(dict.fromkeys(out))


@functools.lru_cache(maxsize=4096)
def _whole_words(text: str) -> frozenset[str]:
    """A text's words folded but not stemmed: a name is said only as itself."""
    return frozenset(fold(w) for w in _WORD.findall(text))


def _say_all(names: tuple[str, ...], texts: tuple[str, ...]) -> bool:
    """Whether the texts say every one of the names as that word: "Biscuit" (the dog) is
    not said by a recipe's "biscuits", though a typing slip ("Lachy") still says it. A
    hyphenated name ("Mary-Jane") is said by its parts, as a text's words are split."""
    have: frozenset[str] = frozenset().union(*(_whole_words(t) for t in texts))
    return all(
        w in have or misspelt_in(w, have - {w + "s", w + "es"})
        for name in names
        for w in name.split("-")
        if w
    )


@cached_by_language(512)
def owners_named(question: str) -> tuple[str, ...]:
    """The names that own what the question asks ("when is Tom's birthday?": tom)."""
    return _names_by(_OWNER, question)


# "what does Mia need to take?", "when can Biscuit eat again?", "when's Lachie due at the
# dentist?": a name, written with its capital, doing what is asked. A passage that never
# says it is about someone else.
_SUBJECT = re.compile(
    r"\b(?i:do|does|did|has|had|can|could|should|will|would|must|is|was)\s+([A-Z][\w-]*)\b"
    r"(?!['\u2019]s\b)"  # "is Bec's ring covered?": whose it is (an owner), not who does
    r"|\b(?i:when|where|what|who|how)['\u2019]s\s+([A-Z][\w-]*)\b(?!['\u2019]s\b)"
)


@cached_by_language(512)
def names_in(question: str) -> frozenset[str]:
    """Every name the question says something of or about, told or asked; not a thing
    of the thesaurus written first in its sentence ("Toilet's running")."""
    found = _names_by(_OWNER, question, told=True) + _names_by(_SUBJECT, question, told=True)
    return frozenset(w for w in found if not in_thesaurus(w))


@cached_by_language(512)
def subjects_named(question: str) -> tuple[str, ...]:
    """The names the question asks something of ("what does Mia need?": mia)."""
    return _names_by(_SUBJECT, question)


def names_subjects(question: str, *texts: str) -> bool:
    """Whether the texts (a file's title among them) say whom the question asks about:
    the recipe's "take them out at 12 min" is no answer to "what does Mia need to take?"."""
    return _say_all(subjects_named(question), texts)


def names_owners(question: str, *texts: str, strict: bool = True) -> bool:
    """Whether the texts name everyone and everything the question says something is
    of: Nan's birthday is no answer to "when is Tom's birthday?", nor the Kluger's
    service to the Mazda's (a typing slip still names it). Not ``strict``: a text
    leaving the owner unsaid answers unless it says whose else it is (a recipe's
    method under the title "Nan's biscuits" never repeats "Nan")."""
    owners = owners_named(question)
    if _say_all(owners, texts):
        return True
    return not strict and not any(_others_own(t, owners) for t in texts)


def _others_own(text: str, owners: tuple[str, ...]) -> bool:
    """Whether the text says something is someone else's ("The Kluger's rego …")."""
    for name in _OWNER.findall(text):
        word = fold(name)
        if word not in STOPWORDS and word not in FUNCTION_WORDS and word not in owners:
            return True
    return False
