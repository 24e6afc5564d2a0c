"""The ``rag`` source: the home's document databases answer with the passage that answers.

* Only the household's own databases are searched, unless the question is about
  Mnemolis itself; the bundled ``mnemolis-docs`` (full of household examples) are
  a last resort, used only when nothing of the household's matches and they
  answer plainly — so "how do I reset the boiler?" never comes from Mnemolis's docs.
* A passage answers when its relevance (knowledge/relevance.py: rare question
  words it holds, or the embedding model's similarity) reaches
  ``relevance.ANSWERS``; when a memory answers the question better, the documents
  step aside so the ``memory`` source answers it.
* The answer quotes the best passage — a paragraph, list item or record line, or
  for a long one the sentences that answer — with its citation, never its
  neighbours: the bin days are read out without the wifi password beside them.
"""

from __future__ import annotations

import functools
import itertools
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import SourceError, SourceNotConfigured, Unavailable
from ..knowledge import foreign_kinds, relevance
from ..knowledge.chunking import (
    ENDS_SENTENCE,
    QUESTION_LABEL,
    fact_per_line,
    file_title,
    names_columns,
    unmarked_list,
)
from ..knowledge.inline import off_loop
from ..knowledge.parsing import PAGE_HEADING, title_line
from ..knowledge.registry import BUNDLED_NAME
from ..knowledge.text import INLINE_QUERY_CHARS, STOPWORDS, query_text
from ..language import ENGLISH, fold, foreign, language_of, stem_in
from ..models import Evidence, SourceAnswer, cited
from ..sentences import SENTENCE_BREAK
from .base import INSTEAD_OF, QueryContext, Source, SourceHealth

if TYPE_CHECKING:
    from ..knowledge.store import KnowledgeStore, Passage
    from ..services import Services

    Scored = tuple[relevance.Match, float, float, int, Passage]

# The bundled docs answer a question not about Mnemolis only when they plainly do.
BUNDLED_FALLBACK = 0.85
QUOTE_CHARS = 320  # a passage of one sentence or line is quoted up to this long
QUOTE_MAX = 480  # the sentences quoted from a long passage stop before this length
QUOTE_MIN = 60  # a quote this short that ends no sentence goes on to the next one
STEPS_MAX = 900  # numbered steps up to this long answer "how do I …?" whole
CODE_WEIGHT = 0.85  # a code block answers less well than prose about the same
POINTER_WEIGHT = 0.7  # a list entry linking to another page only points at the answer
TECHNICAL_WEIGHT = 0.8  # a passage of commands and API paths, for a question in plain words
STEPS_WEIGHT = 1.15  # "how do I …?" is answered best by steps or a command to run
GIVES_WEIGHT = 1.1  # "why …?"/"when should I …?": by what a thing means, or the case it is for
SIBLING_WEIGHT = 0.7  # a record line beside one that names what was asked
FOREIGN_GRAIN = 0.025  # values this near are a tie in another language (the model's noise)
FORBIDS_WEIGHT = 0.6  # "how do I reset …?" is not answered by "do not keep resetting it"
YES_NO_WEIGHT = 1.1  # "is it …?": an answer that opens "Yes, …" or "No, …" answers it
DEFINES_WEIGHT = 1.1  # "what is X?": the sentence saying "X is …", not one that mentions X
FAQ_WEIGHT = 1.15  # the answer under a heading that asks the question (a FAQ), like steps
ENTRY_FIRST = 1.0  # added to the rating under a heading that is the question word for word
LABEL_WORDS = 2.0  # a label's words in the question weigh this much more
LABEL_WEIGHT = 1.3  # "what serial number …?": the line labelled "Serial number"
FAQ_COVERED = 0.75  # of the question's words such a heading says
ENTRY_TIE = 0.03  # an FAQ entry's paragraphs this close to its best are read from the first
READ_ON = 2  # a one-sentence "Yes, …"/"No, …" is judged with this many paragraphs after it
KIND_SHARE = 0.34  # a sentence giving the kind of fact asked beats one up to 3x better
_LEAD_IN = r"\s*(?:(?:hey|hi|ok|okay|so|um|please)\b[\s,]*)*"  # "hey, so, how do I …"
# "How do I …?" ("what am I supposed to do?", "how I make …"), and the same asked as an
# instruction: "remove a folder from Mnemolis".
_HOW = re.compile(
    _LEAD_IN + r"(?:how (?:(?:do|can|should|would|could) )?(?:i|we|you)\b"
    r"|what (?:(?:should|do|can|must) (?:i|we)|(?:am i|are we) (?:supposed|meant) to) do\b"
    r"|what (?:are|is) the (?:steps|way|procedure|process|instructions?) (?:to|for)\b"
    r"|(?:add|remove|delete|connect|install|uninstall|set up|reset|register"
    r"|reindex|configure|update|upgrade|enable|disable|clean|top up|drain|bleed|unblock)"
    r"\s+(?:a|an|the|my|our|this|it|\w+)\b)",
    re.IGNORECASE,
)
# The action a "how do I …?" question asks about: its first word after the "how do I".
_ACTION = re.compile(
    _LEAD_IN + r"(?:how (?:do|can|should|would|could) (?:i|we|you)\s+)?([a-z]+)",
    re.IGNORECASE,
)
# A sentence that tells what to do: a verb of doing opens it or a clause of it ("If the
# display shows a code, press and hold …"), as against one that says what then happens.
_DOING = (
    "press hold turn switch open close pour call ring contact check run put unscrew screw "
    "rinse remove replace vacuum clean wipe top set push pull unplug plug wait leave keep use "
    "add fill drain bleed reset restart select choose have let try take empty lift move "
    "tighten loosen twist insert connect register send make"
)
_INSTRUCTION = re.compile(
    rf"(?:^|[,;:.]\s+|\bthen\s+)(?:please\s+)?(?:{'|'.join(_DOING.split())})\b", re.IGNORECASE
)
_NEGATION = re.compile(r"\b(?:do not|don't|never|stop|avoid)\b", re.IGNORECASE)
# The same in the other languages: "Wie mache ich …?", "Hoe zet ik …?", "Comment on …?",
# "¿Cómo se …?", "Come si …?", "Como é que se …?", and what to do ("Was soll ich tun?", "je
# fais quoi ?", "cosa devo fare?"); never what a thing is called ("come si chiama").
_HOW_FOREIGN = re.compile(
    r"\b(?:wie\s+\w+\s+(?:ich|man|wir)|was\s+(?:muss|soll|sollte|kann)\s+(?:ich|man|wir)"
    r"\s+(?:tun|machen)|hoe\s+(?:\w+\s+)?(?:ik|je|we|men)|wat\s+(?:moet|kan|moeten)\s+"
    r"(?:ik|we|je)\s+doen|comment\s+(?:est-ce\s+qu'?\s*)?(?:on|je|j'|nous|faire)|(?:je|on)\s+"
    r"fai[st]\s+quoi|que\s+(?:dois-je|faire)|c[oó]mo\s+(?:se|puedo|podemos|hago|hacemos"
    r"|debo|tengo)|qu[eé]\s+(?:hago|hacemos|tengo\s+que\s+hacer|debo\s+hacer)|come\s+"
    r"(?:si|posso|possiamo|faccio|facciamo|devo)|(?:cosa|che)\s+(?:devo|dobbiamo|posso"
    r"|faccio|facciamo)|como\s+(?:[eé]\s+que\s+)?(?:se|posso|podemos|fa[cç]o|fazemos"
    r"|devo)|o\s+que\s+(?:fa[cç]o|fazemos|devo\s+fazer))\b"
    r"(?!\s+(?:chiama|chiamano|llama|llaman|chama|chamam|appelle|heißt|heet)\b)",
    re.IGNORECASE,
)
# A sentence that tells what to do, in the other languages, by its form: German's polite
# imperative ("Halten Sie …"), French's ("Appuyez …"), and the infinitive that opens a
# manual's step in French, Italian, Spanish and Portuguese ("Premere il tasto …",
# "Abrir la llave …"). Dutch's imperative is a bare stem, which no form tells.
_STEP_START = r"(?:^\s*(?:[-*•]|\d{1,2}[.)])?\s*|[,;:.]\s+|\b(?:dann|danach|zuerst|puis"
_STEP_START += r"|ensuite|luego|después|poi|quindi|depois)\s+)"
_INSTRUCTION_FOREIGN = {
    "German": re.compile(_STEP_START + r"[A-ZÄÖÜ]\w+e?n\s+Sie\b"),
    "French": re.compile(_STEP_START + r"(?!chez\b|premier\b|dernier\b)\w+(?:ez|er|ir)\b", re.I),
    "Italian": re.compile(_STEP_START + r"\w{3,}(?:are|ere|ire)\b", re.I),
    "Spanish": re.compile(_STEP_START + r"\w{2,}(?:ar|er|ir)\b", re.I),
    "Portuguese": re.compile(_STEP_START + r"\w{2,}(?:ar|er|ir)\b", re.I),
}


def asks_how(question: str) -> bool:
    """Whether a question asks how to do something, or what to do, in any language."""
    if _HOW.match(relevance.asked(question)) is not None:
        return True
    return foreign(question) is not None and _HOW_FOREIGN.search(question) is not None


def instructs(question: str, text: str) -> bool:
    """Whether a sentence tells what to do, in the question's language."""
    tongue = foreign(question)
    pattern = _INSTRUCTION if tongue is None else _INSTRUCTION_FOREIGN.get(tongue)
    return pattern is not None and pattern.search(text) is not None


_STEPS = re.compile(r"```|^\s*\d{1,2}[.)]\s", re.MULTILINE)
_POINTER = re.compile(r"\s*(?:[-*+]\s+)?\[[^\]]+\]\(([^)\s]+)\)")
ENTRY_WORDS = 4  # a heading of this many words ending a sentence is an FAQ's entry
SHORT_RECORD = 80  # a record line this short is read with its heading ("Wifi — Password: …")
WRAPPED_LINE = 64  # a line this long that stops mid-sentence is wrapped prose
CANDIDATES = 10
# In another language the words lead the ranking (the model reads English), and a line
# that says the answer by a compound or an inflection ranks lower: more are judged.
FOREIGN_CANDIDATES = 15
FAQ_CANDIDATES = 30  # how far down a passage under a heading asking a question is looked for
ENTRY_LOOKUP = 5  # keyword hits looked through for the entry of a question asked word for word


def _asks(heading: str) -> bool:
    """Whether a passage's own heading is a question ("Which types of files can it read?"),
    one followed by a remark too ("How can I make it smaller? This is too bloated!")."""
    own = heading.rsplit(" > ", 1)[-1].rstrip()
    return own.endswith("?") or "? " in own


def heading_asks_it(question: str, heading: str) -> bool:
    """Whether a passage's own heading is the question itself, word for word (its number
    or "Q:" aside): the FAQ's entry for it, however few words the two share in meaning
    ("Who's behind this?")."""
    # Any part of the heading that asks: a list's lead-in ("The most recent version is
    # the one I maintain:") or a question the answer opens with may head it below.
    asked = re.findall(r"\w+", question.lower())
    if not asked:
        return False
    for part in heading.split(" > "):
        label = QUESTION_LABEL.match(part)
        own = part[label.end() :] if label else part
        if _asks(own) and re.findall(r"\w+", own.lower()) == asked:
            return True
    return False


# Words that make a question one about Mnemolis itself (its docs answer those first).
MNEMOLIS_WORDS = frozenset(
    {
        "mnemolis", "mcp", "claude", "cursor", "webui", "hacs", "addon", "supervisor",
        "ingress", "openapi", "api", "endpoint", "kiwix", "zim", "searxng", "kuma",
        "freshrss", "gguf", "llama", "llm", "embedding", "embeddings", "rag", "stdio",
        "websocket", "oauth", "cors", "prometheus", "querylog", "reindex", "mcpservers",
        "ui", "chatgpt", "openai", "ollama", "memory", "memories",
    }
)  # fmt: skip
_SENTENCE = SENTENCE_BREAK  # not after "Dr.", "approx." or an initial


_MNEMOLIS_STEMS = frozenset(relevance.stem(w) for w in MNEMOLIS_WORDS)
# Asked of the assistant itself: "what sources can you look things up in?", "how do I
# get you to remember something?" (a "you" and one of these words).
_YOU = frozenset({"you", "your", "yourself"})
_ITSELF = (
    "source sources remember forget memory memories data stored connect documents folder "
    "search look files file formats pdf pdfs link hook database databases index learned "
    "learnt notice computer"
)
_ITSELF_STEMS = frozenset(relevance.stem(w) for w in _ITSELF.split())
# "Does it read spreadsheets?": an "it" with one of these words is the assistant (words a
# household question about a thing says with "it" — "remember", "look" — are not here).
_IT = frozenset({"it", "this"})
_ITS_OWN = (
    "source sources document documents file files pdf pdfs database databases index search "
    "folder spreadsheet spreadsheets port"
)
_ITS_OWN_STEMS = frozenset(relevance.stem(w) for w in _ITS_OWN.split())
# "How do I turn on news?", "set up the weather": one of its sources, being set up.
_SETTING_UP = re.compile(
    r"\b(?:set(?:ting)? (?:it |that |this )?up|setup|configur\w*|install\w*|enabl\w*"
    r"|(?:switch|turn)(?:ing)? (?:it |that |this )?on|connect\w*|hook\w* up)\b",
    re.IGNORECASE,
)
_SOURCE_NAMES = "news feeds rss weather forecast wikipedia web uptime monitors monitor"
_SOURCE_STEMS = frozenset(relevance.stem(w) for w in _SOURCE_NAMES.split())
_THE_ASSISTANT = re.compile(
    r"\b(?:what|who) (?:exactly |actually )?are you\b|(?<!home )\bthe assistant\b"
    r"|\blanguage model\b"
    r"|\b(?:tell|get|make|ask|teach) (?:it|you|this) to (?:remember|forget|learn)\b",
    re.IGNORECASE,
)
# "Can you still answer without the internet?": whether the assistant works offline.
_OFFLINE = re.compile(
    r"\b(?:offline|no internet|cloud|without (?:the |an )?(?:internet|wifi|broadband|connection)"
    r"|(?:internet|wifi|broadband)(?:'s| is| has| goes| went)? (?:gone |going )?(?:down|out))\b",
    re.IGNORECASE,
)


# "Where is my data stored?", "is our data sent anywhere?": the data the assistant keeps.
_OUR_DATA = re.compile(r"\b(?:my|our|the family's|the household's) data\b", re.IGNORECASE)


def about_mnemolis(question: str) -> bool:
    """Whether the question names Mnemolis or one of its own parts, or asks the
    assistant about what it does ("where do you keep your data?")."""
    words = relevance.words_of(question.lower().replace("add-on", "addon"))
    if not words.isdisjoint(_MNEMOLIS_STEMS):
        return True
    if _SETTING_UP.search(question) and not words.isdisjoint(_SOURCE_STEMS):
        return True  # "how do I turn on news?": setting up one of its sources
    if not words.isdisjoint(_IT) and (
        not words.isdisjoint(_ITS_OWN_STEMS) or _OFFLINE.search(question) is not None
    ):
        return True  # "does it read spreadsheets?", "can it run offline?"
    if _THE_ASSISTANT.search(question):
        return True  # "what exactly are you?", "I'd like the assistant to answer …"
    if _OUR_DATA.search(question):
        return True  # "where is my data actually stored?": what the assistant keeps
    if words.isdisjoint(_YOU):
        return False
    return not words.isdisjoint(_ITSELF_STEMS) or _OFFLINE.search(question) is not None


def asked_plainly(question: str) -> bool:
    """Whether the assistant is asked about itself in everyday words ("what can you search
    through?"), naming none of its technical parts: reference passages full of commands
    and API paths answer that less well than prose."""
    words = relevance.words_of(question.lower())
    return words.isdisjoint(_MNEMOLIS_STEMS) and not words.isdisjoint(_YOU)


def clip(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word boundary."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip() + "…"


def standing_in(ctx: QueryContext) -> bool:
    """Whether the router asks in place of a home source (the forecast, HA): then only
    the household's own documents answer, never Mnemolis's docs about that source."""
    return bool(ctx.hints.get(INSTEAD_OF))


def knowledge_store(services: Services) -> KnowledgeStore | None:
    """The running store, if any."""
    return services.knowledge


_LINE_UNIT = re.compile(r"\s*(?:[-*+\u2022]|\d{1,3}[.)])\s|[^\s:|][^:\n|]{0,40}:\s+\S|.* \| ")


def _split_title(heading: str, path: str) -> tuple[str, str]:
    """(the section heading, the file-name words heading every chunk of the file)."""
    title = file_title(path)
    if title and heading == title:
        return "", title
    if title and heading.startswith(f"{title} > "):
        return heading[len(title) + 3 :], title
    return heading, ""


def _wrapped(line: str, following: str) -> bool:
    """Whether a line that reads like a record ("Yes, for everything kept at home: …")
    is prose wrapped onto the next line: it stops mid-sentence and the next, no record
    itself, goes on in lower case or after a line as long as wrapped prose."""
    return (
        not _BULLET_MARK.match(line)
        and " | " not in line
        and not ENDS_SENTENCE.search(line)
        and bool(following)
        and not _LINE_UNIT.match(following)
        and (following[:1].islower() or len(line) >= WRAPPED_LINE)
    )


# "…read Section 6.1, “How many … are there?”": a pointer to where the answer is.
_CROSS_REFERENCE = re.compile(
    r"\b(?:see|read|refer to|check|consult|look at|described in|explained in|covered in)\b"
    r"[^.;]{0,40}?\b(?:section|chapter|question|faq|part|item|page|\u00a7)\s*\d"
    r"|[\"\u201c][^\"\u201d\n]{3,200}\?[\"\u201d]"
    # A sentence that only sends the reader on: "Siehe Fehlercode E24.", "Zie hieronder.",
    # "Voir la section 3." (not a closing "…, siehe oben" after the answer itself).
    r"|(?:^|(?<=[.!?]\s)|(?<=\n))(?:siehe|zie|voir|v[ée]ase|vedi|veja)\b[^.;]{0,40}?\b(?:\w*code"
    r"|codice|c[óo]digo"
    r"|abschnitt|kapitel|seite|oben|unten|hoofdstuk|pagina|hierboven|hieronder|section"
    r"|chapitre|page|ci-dessus|ci-dessous|secci[óo]n|cap[íi]tulo|p[áa]gina|arriba|abajo"
    r"|sezione|capitolo|sopra|sotto|se[cç][ãa]o|acima|abaixo)\b",
    re.IGNORECASE,
)
_NUMBERING = re.compile(r"\s*(?:\(?[A-Za-z]?\d{1,3}(?:\.\d{1,3})*[.):]?\)?|Q[.:]|[-*+\u2022])\s+")


def asks_instead(unit: str) -> bool:
    """Whether a sentence or line asks a question ("(22) Does it support …?") or points
    to where one is answered: either is never the answer, however like the question it is."""
    text = unit.strip().rstrip("\"'\u201d)")
    return text.endswith("?") or _CROSS_REFERENCE.search(unit) is not None


def answering_part(content: str) -> str:
    """A passage without its questions and cross-references: what it says of its own
    (empty for a passage that only asks, as an FAQ's question line alone does)."""
    units = _units(content)
    if not any(asks_instead(u) for u in units):
        return content
    return "\n".join(u for u in units if not asks_instead(u))


# A table of text columns lined up with spaces ("Date        Item        Cost").
_COLUMNS = re.compile(r"\S(?:\s{2,}|\t+)\S")


def _table_rows(lines: list[str]) -> list[str] | None:
    """The rows of a space-aligned table, each read with its header ("Item: New tires,
    Cost: $612.40"); None when the lines are no such table."""
    cells = [re.split(r"\s{2,}|\t+", line.strip()) for line in lines]
    header = cells[0]
    if not names_columns(header) or len(lines) < 2:
        return None  # two-spaced sentences ("… the answer it?  If you have, …") are prose
    if any(len(c) != len(header) for c in cells[1:]):
        return None
    return [", ".join(f"{h}: {v}" for h, v in zip(header, row, strict=True)) for row in cells[1:]]


def _units(text: str) -> list[str]:
    """Sentences, and the lines of lists, records and tables: what a quote is cut from.

    Wrapped prose lines are joined first, so a sentence broken over two lines of
    a Markdown or text file stays one sentence.
    """
    out: list[str] = []
    prose: list[str] = []

    def flush() -> None:
        if prose:
            out.extend(s.strip() for s in _SENTENCE.split(" ".join(prose)) if s.strip())
            prose.clear()

    item = False  # the last unit is a list item, which indented lines continue
    raws = text.splitlines()
    table = [n for n, raw in enumerate(raws) if _COLUMNS.search(raw.strip())]
    if len(table) >= 2 and table == list(range(table[0], table[-1] + 1)):
        rows = _table_rows([raws[n].strip() for n in table])
        if rows is not None:
            before = _units("\n".join(raws[: table[0]]))
            return before + rows + _units("\n".join(raws[table[-1] + 1 :]))
    listed = unmarked_list(raws) | fact_per_line(raws)
    for n, raw in enumerate(raws):
        line = raw.strip()
        following = raws[n + 1].strip() if n + 1 < len(raws) else ""
        if not line:
            flush()
            item = False
        elif n in listed:
            flush()
            out.append(line)  # "125 g butter" of an ingredient list: a line of its own
            item = False
        elif (
            _LINE_UNIT.match(line)
            and not _wrapped(line, following)
            # "… A folder nobody registered yet is / not searched at all: …" goes on
            # with the sentence before; it is no "key: value" record of its own.
            and not (prose and line[:1].islower() and not ENDS_SENTENCE.search(prose[-1]))
        ):
            flush()
            item = _BULLET_MARK.match(line) is not None
            said = [] if item or " | " in line else _SENTENCE.split(line)
            # A label over sentences ("Nan says: chewy = … 15. Keep in the tin …") is
            # prose under it: each sentence a fact of its own.
            if len(said) > 1:
                out.extend(s.strip() for s in said if s.strip())
            else:
                out.append(line)
        elif item and (
            raw[:1].isspace() or (line[:1].islower() and not ENDS_SENTENCE.search(out[-1]))
        ):
            # A list item wrapped over several lines stays one, its indent kept or not
            # ("* a conversation agent … that sends the whole / question to …").
            out[-1] += " " + line
        else:
            item = False
            prose.append(line)
    flush()
    return out


# A question asking for every item of a kind: "which bin goes out on which day?",
# "what are the bin days?", "list the …".
_ASKS_ALL = re.compile(
    r"\bwhich\b.+\bwhich\b|\b(?:all|each of) the\b|\beach (?:one|of them)\b|\blist\b"
    r"|^\s*what are (?:the|our)\b"
    r"|\bsame \w+ as\b|\bboth\b|\bdifference between\b",  # a comparison needs both lines
    re.IGNORECASE,
)
_BULLET_MARK = re.compile(r"\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+")
# A sentence opening with one of these leans on the one before ("If it still will not
# open, …" after "The door stays locked for two minutes."): quoted with it.
_BACK_REFERENCE = relevance.BACK_WORDS | {"then", "there", "such"}


def _leans_back(unit: str) -> bool:
    """Whether a sentence's first words refer to the sentence before it."""
    first = [w.lower() for w in re.findall(r"[A-Za-z']+", unit)[:3]]
    return any(w in _BACK_REFERENCE for w in first)


def _about_a_person(unit: str) -> bool:
    """Whether a sentence refers back to a person ("He needs Roo …"), not a thing ("It
    re-reads every file …", after "Reindex …" that opens like a name)."""
    first = [w.lower() for w in re.findall(r"[A-Za-z']+", unit)[:3]]
    return any(w in {"he", "she", "him", "her", "his", "hers"} for w in first)


def _named_first(question: str, unit: str) -> str:
    """The name a sentence opens with, when the question says it ("Lachie (5) - bath at
    6.30 …" for "does Lachie have a toy?"): the "He needs Roo …" after it is understood
    without it, the question having said who he is."""
    first = re.match(r"\s*([A-Z][a-z]+)\b", unit)
    if first is None or first.group(1).lower() in relevance.FUNCTION_WORDS:
        return ""
    name = relevance.stem(fold(first.group(1)))
    return first.group(1) if name in relevance.words_of(question) and name not in STOPWORDS else ""


def _telling(
    question: str, weights: dict[str, float], units: list[str], heading: str = ""
) -> dict[str, float]:
    """Weights for choosing among a passage's sentences: a word most of them say (itself
    or by a synonym) tells them apart less ("collected" — or "picked up" — is said of two
    bins, "recycling" of one), and so does one the heading says, which frames them all
    ("## Wifi": the password's sentence answers "the wifi password", not the network's)."""
    held = [relevance.words_of(u) for u in units]
    framed = relevance.words_of(heading.rsplit(" > ", 1)[-1]) if heading else frozenset()
    alternatives = relevance.synonyms(question)
    out = dict(weights)
    for w in relevance.content_words(question):
        key = relevance.stem(w)
        n = sum(
            1
            for words in held
            if key in words or any(alt <= words for alt in alternatives.get(key, ()))
        )
        if n and key in framed:
            n = len(units)
        if n > 1:
            out[w] = out.get(w, 1.0) / n
    return out


_COMMAND_LINES = 3  # a block of this many commands, one per line, is a list of them
_CODE_ONLY = re.compile(r"(?:```|~~~)[^\n]*\n(.*?)\n?\s*(?:```|~~~)", re.DOTALL)


def _command_lines(text: str) -> list[str]:
    """The lines of a passage that is only a block of commands, one per line; none for
    a config file (indented or braced lines) or for code that words come with."""
    block = _CODE_ONLY.fullmatch(text.strip())
    if block is None:
        return []
    lines = [line for line in block.group(1).splitlines() if line.strip()]
    if any(line[:1].isspace() or re.search(r"[{}]|\\\s*$", line) for line in lines):
        return []
    return lines


def _command_asked(question: str, weights: dict[str, float], text: str) -> str | None:
    """Of a block listing one command per line ("mnemolis rag reindex manuals  # re-read
    every file"), the one line the question asks about, still as code; None when the
    passage is no such block or no line alone answers (a config file is read whole)."""
    lines = _command_lines(text)
    if len(lines) < _COMMAND_LINES:
        return None
    # A line answers by its command's own words ("reindex", "remove"); its comment only
    # tells such lines apart: "forget the index" is no way to index a folder.
    split = [(*line.split(" #", 1), "")[:2] for line in lines]
    every = frozenset.intersection(*(relevance.words_of(c) for c, _ in split))
    weighed = {w: weights.get(w, 1.0) for w in relevance.content_words(question)}
    telling = {  # a word every command says ("mnemolis") tells none apart
        w: 0.0 if relevance.stem(w) in every else v
        for w, v in {**weighed, **_telling(question, weights, lines)}.items()
    }
    scores = [
        relevance.word_coverage(question, telling, c, weak=[why])
        if relevance.word_coverage(question, telling, c) > 0
        else 0.0
        for c, why in split
    ]
    best = max(range(len(lines)), key=lambda i: scores[i])
    if scores[best] <= 0 or sum(score == scores[best] for score in scores) > 1:
        return None
    return f"```\n{lines[best]}\n```"


def quote(question: str, weights: dict[str, float], heading: str, content: str) -> str:
    """The part of a passage that answers: the sentence or line that does, and what follows
    it while it still does; never the neighbouring facts before it.

    "Where does the fabric softener go?" is answered by the softener's sentence, not
    the detergent's before it; a sentence that leans on the one before ("If it
    still will not open, …") is quoted with it. Numbered steps are one procedure,
    quoted whole; a short record line is read with its heading ("Wifi — Password: …").
    """
    text = content.strip()
    command = _command_asked(question, weights, text)
    if command is not None:
        return command
    if "```" in text:  # code is quoted as it is written, cut between lines
        if len(text) <= QUOTE_MAX:
            return text
        cut = text.rfind("\n", 0, QUOTE_MAX)
        return text[: cut if cut > 0 else QUOTE_MAX].rstrip() + "\n```"
    how = asks_how(question)
    if not how and relevance.only_tells(question):
        # "hot water's cold" under "The hot water has gone cold, what do I do?": the entry
        # asks what to do, and its answer is read on to that.
        how = any(_HOW.match(part) for part in re.split(r"[,.;:!?]", heading.rsplit(" > ")[-1]))
    if _STEPS.search(text) and len(text) <= (STEPS_MAX if how else QUOTE_MAX):
        return text  # one procedure, read whole
    units = _units(text)
    own = [u for u in units if not asks_instead(u)]
    if own and len(own) < len(units):
        units = own  # never the question read back, nor a pointer to where it is answered
        text = "\n\n".join(units)
    if len(units) <= 1:
        last = heading.rsplit(" > ", 1)[-1].strip()
        if (
            len(text) <= SHORT_RECORD
            and last
            and not PAGE_HEADING.fullmatch(last)  # "page 1 — …" labels nothing
            and not _asks(last)  # the question read back before its answer labels nothing
            and "\n" not in text
            and not ENDS_SENTENCE.search(text)  # a sentence says what it is about itself
            and last.lower() not in text.lower()
        ):
            mark = _BULLET_MARK.match(text)  # only a list mark opening it, never "(555) "
            return f"{last} — {text[mark.end() :] if mark else text}"
        return clip(units[0] if units else text, QUOTE_CHARS)
    telling = _telling(question, weights, units)
    # Which sentence answers is chosen with the heading's words framing them all; whether
    # to read on from it, with every word as it is ("## Battery": the battery's life and
    # "replace the whole alarm" answer together).
    framed = _telling(question, weights, units, heading)
    scores = [relevance.word_coverage(question, telling, u) for u in units]
    # Most headings say none of the question's words: then the two weighings agree.
    chosen = (
        list(scores)
        if framed == telling
        else [relevance.word_coverage(question, framed, u) for u in units]
    )
    # What each sentence says in its own words, whether to read on: "die Biotonne" says
    # a kind of the "gelben Tonnen" asked, but never itself reads on from their line.
    said = (
        [relevance.word_coverage(question, telling, u, parts=False) for u in units]
        if relevance.joins_words(question)
        else list(scores)
    )
    for i in range(1, len(units)):
        name = _named_first(question, units[i - 1]) if _about_a_person(units[i]) else ""
        if name:
            # "He needs Roo or he won't settle" says it of Lachie, named the sentence before.
            scores[i] = relevance.word_coverage(question, telling, units[i], name)
            chosen[i] = (
                scores[i]
                if framed == telling
                else relevance.word_coverage(question, framed, units[i], name)
            )
    # Ties: the unit naming the thing asked ("the blue bin": the recycling line).
    asked_things = relevance.things_of(question)
    named = [len(asked_things & relevance.things_of(u)) for u in units]
    best = max(range(len(units)), key=lambda i: (chosen[i], scores[i], named[i], -i))
    if relevance.asks_kind(question) and not relevance.gives_what_is_asked(question, units[best]):
        # "Is 2.5 bar too high?" is answered by what the gauge should read, not by the
        # sentence sharing more words ("Below 0.5 bar the boiler shuts down").
        giving = [
            i
            for i, u in enumerate(units)
            if scores[i] >= scores[best] * KIND_SHARE > 0
            and relevance.gives_what_is_asked(question, u)
        ]
        if giving:
            best = max(giving, key=lambda i: (scores[i], named[i], -i))
    defining = [i for i, u in enumerate(units) if scores[i] > 0 and defines(question, u)]
    if defining:
        best = defining[0]  # "what is GNU nano?": "GNU nano was designed to be …"
    if how:
        # "How do I reset it?" is answered by what to do ("press and hold the reset button
        # …"), not by what happens then ("The boiler restarts …") though it says "boiler".
        doing = [i for i, u in enumerate(units) if scores[i] > 0 and instructs(question, u)]
        if doing:
            best = max(doing, key=lambda i: (scores[i], -i))
    entry = heading.rsplit(" > ", 1)[-1].strip()
    if (
        best > 0
        and len(entry.split()) >= ENTRY_WORDS
        and entry.endswith(".")
        and relevance.word_coverage(question, weights, entry) >= scores[best] > 0
    ):
        # Under an FAQ's entry put as a statement ("There is a musty smell when the unit
        # starts.") that says the question better than any of its sentences, the answer
        # opens with the first: "Run Fan mode for 30 minutes …", not "If the smell stays,
        # …" for sharing "smell". An entry that asks ("How do I remove it, or wipe
        # everything?") may be answered part by part: its sentences are weighed as ever.
        best = 0
    # Notes written one statement per line hold one fact per line: the next line is
    # another fact ("Garden waste …" after "Recycling …"), read only when the quote
    # does not yet say what was asked and that line does.
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    one_per_line = len(lines) > 1 and all(ENDS_SENTENCE.search(line) for line in lines)
    if one_per_line and _ASKS_ALL.search(question):
        # "Which bin goes out on which day?": every line that says part of it, as one
        # sentence (the spoken form reads two sentences at most).
        every = [u.rstrip(" .") for u, score in zip(units, scores, strict=True) if score > 0]
        if len(every) > 1 and sum(len(u) + 2 for u in every) <= QUOTE_MAX:
            return "; ".join(every) + "."
    each = _each_ask(question, telling, units)
    if len(each) > 1 and sum(len(units[i]) + 1 for i in each) <= QUOTE_MAX:
        # "Which compartment takes the powder, and which one the conditioner?": the
        # sentence each ask is answered by, though the two are neighbouring facts.
        return " ".join(units[i] for i in each)
    start = (
        best - 1
        if best > 0
        and _leans_back(units[best])
        and not (_about_a_person(units[best]) and _named_first(question, units[best - 1]))
        else best
    )
    while (
        how
        and start > 0
        and scores[start - 1] > 0
        and instructs(question, units[start])
        and instructs(question, units[start - 1])
        and sum(len(u) + 1 for u in units[start - 1 : best + 1]) <= QUOTE_MAX
    ):
        start -= 1  # "what are the steps?": a procedure told in sentences, from its first
    if (
        start == best
        and best > 0
        and not one_per_line
        and scores[best - 1] >= scores[best] / 2 > 0
        and len(units[best - 1]) + len(units[best]) < QUOTE_MAX
        and relevance.word_coverage(question, weights, units[best - 1], units[best])
        > scores[best] + relevance.word_coverage(question, weights, units[best - 1]) / 2
    ):
        # The sentence before says the part of the question this one does not: one answer
        # in two sentences ("The sealed battery lasts ten years. Replace the whole alarm
        # by …" for "do I need to change the battery in the alarm?"). A sentence before
        # about the same words is a neighbouring fact ("Liquid detergent goes in the left
        # compartment." before the softener's compartment) and stays out.
        start = best - 1
    if (
        start > 0
        and says_yes_or_no(question, units[0])
        and sum(len(u) + 1 for u in units[: best + 1]) <= QUOTE_MAX
    ):
        start = 0  # "Does it really have 50,000 lines?": "No, …" first, then the figures
    picked = units[start : best + 1]
    length = sum(len(u) + 1 for u in picked)
    # A record line holding the attribute asked ("Guest password: …") is the answer whole.
    held = relevance.attribute_held(question, units[best], heading)
    kinds = [c for c in (question, *relevance.clause_asks(question)) if relevance.asks_kind(c)]

    def asked_kind(text: str) -> bool:
        """Whether the text gives a kind of fact the question (or one of its asks) wants."""
        return any(relevance.gives_what_is_asked(c, text) for c in kinds)

    kind_given = bool(kinds) and asked_kind(" ".join(picked))
    raws = text.splitlines()
    # "Antivol : cadenas à chaîne, code 0-4-2-7", "Paper bin: every second Thursday": a
    # line of its own that is a label and its value is a whole answer, however short;
    # the line after it is the next record, whatever words it shares.
    records = {r.strip() for r in raws if _RECORD_LINE.fullmatch(r.strip())}
    record = units[best] in records or (
        _RECORD_LINE.fullmatch(units[best]) is not None and held is not None and held[0]
    )
    items = {raws[n].strip() for n in unmarked_list(raws)}
    for i in range(best + 1, len(units)):
        # Whole sentences only: continue while it still answers (shares the question's
        # words, or gives what it asks for: a date for "when …?" when the quote has
        # none yet), leans on what came before, or while the quote is a fragment.
        if length + 1 + len(units[i]) > QUOTE_MAX:
            break
        fragment = (
            length < QUOTE_MIN
            and not ENDS_SENTENCE.search(picked[-1])
            and not record
            and picked[-1] not in items  # "125 g butter": an item of a list is whole
        )
        gives = relevance.gives_more(question, " ".join(picked), units[i])
        # "What am I supposed to do?": the quote says what is wrong; what to do follows.
        told_what = how and not any(instructs(question, u) for u in picked)
        gives = gives or (told_what and instructs(question, units[i]))
        # A record line that answers is the answer: the next record is another fact.
        answers = gives or (said[i] > 0 and not one_per_line and not record)
        if answers and not gives and kind_given and not asked_kind(units[i]):
            # "What temperature …?" answered: the next sentence sharing a word ("set")
            # but giving no temperature ("the timer is set to …") is another fact.
            answers = False
        if not answers and not fragment and not _leans_back(units[i]):
            break
        picked.append(units[i])
        length += 1 + len(units[i])
    return clip(" ".join(picked), QUOTE_MAX)


# "What make/model is …?", and "what washing machine do we have?" asked the same way.
_ASKS_MODEL = re.compile(
    r"\b(?:make|model|brand|manufacturer|type)\b"
    r"|^\s*(?:what|which) [\w\s]{1,30}?(?:do (?:we|i|you) have|have (?:we|i) got)\b",
    re.IGNORECASE,
)
# A model name: "WWD 120", "SMS4HVI33G", "SA-10" (capitals and digits, four or more).
_MODEL_NAME = re.compile(
    r"\b[A-Z]{2,}[A-Z0-9-]* \d+\b|\b(?=[\w-]*\d)(?=[\w-]*[A-Z])[A-Z0-9][A-Z0-9-]{3,}\b"
)


def topical(asks: list[str], ask: str) -> str:
    """A bare ask ("… and password?") said with what the first ask is about: "the guest
    wifi network and password" asks for the *guest wifi* password, which tells two
    password lines apart (it never makes a line short of a word it must say)."""
    first = relevance.content_words(asks[0]) if asks else ()
    own = relevance.content_words(ask)
    if ask is asks[0] or len(own) != 1 or len(first) < 2 or own[0] in first:
        return ask
    return f"{' '.join(first[:-1])} {ask}"


def _each_ask(question: str, weights: dict[str, float], units: list[str]) -> list[int]:
    """For a question of several asks, the unit that best answers each, in text order
    (one index when one unit answers them all)."""
    asks = [a for a in relevance.clause_asks(question) if relevance.content_words(a)]
    if len(asks) < 2:
        return []
    picked: set[int] = set()
    for ask in asks:
        scores = [relevance.word_coverage(ask, weights, u) for u in units]
        about = [relevance.word_coverage(topical(asks, ask), weights, u) for u in units]
        top = max(range(len(units)), key=lambda i: (scores[i], about[i], -i))
        if scores[top] <= 0:
            return []  # an ask this passage says nothing of: the usual quote
        picked.add(top)
    return sorted(picked)


ASK_COVERED = 0.6  # share of an ask's own words a passage must say to answer that ask
MAX_ASKS_ANSWERED = 3  # passages one answer quotes, one per ask


def code_asks(question: str) -> list[str]:
    """A question about several fault codes asked of each ("What do F22 and F75 mean on
    the boiler?": "What do F22 mean on the boiler?", then F75's); empty for one code."""
    found = relevance.code_spans(question)
    if len({code for code, _, _ in found}) < 2:
        return []
    start, end = found[0][1], found[-1][2]
    asks = [f"{question[:start]}{question[a:b]}{question[end:]}" for _, a, b in found]
    return list(dict.fromkeys(asks))


def each_ask_answered(
    question: str, weights: dict[str, float], found: list[tuple[relevance.Match, Passage]]
) -> list[tuple[str, Passage]]:
    """For a question of several asks that different passages answer ("the model number
    and serial number", two record lines; "what brand is it and when did we get it?"),
    (the ask, the first passage found that answers it) for each, in the order asked; a
    passage answering no ask is left out. Empty when one passage answers them all."""

    def own(ask: str) -> bool:
        """Whether the ask names anything itself (not only "when did we get it?")."""
        return any(w in weights for w in relevance.content_words(ask))

    if relevance.ASKS_CHECK.match(question):
        return []  # "the gauge says 1.2, is that ok?" asks one thing of what it was told
    asks = [a for a in relevance.clause_asks(question) if own(a) or relevance.asks_kind(a)]
    if len(asks) < 2:
        asks = code_asks(question)  # "what do F22 and F75 mean?": one ask of each code
    if len(asks) < 2:
        return []

    def answers(ask: str, p: Passage) -> bool:
        section, title = _split_title(p.hit.heading, p.hit.path)
        said = relevance.mentions(p.hit.content)[0]
        if not relevance.holds_named_codes(ask, said, section):
            return False  # F22's row never answers what F75 means
        if relevance.names_codes(ask):
            return True  # the row of the code asked says what it means
        if not relevance.names_compounds(ask, said):
            return False  # "Gäste-Passwort: …" is no name of the "Gäste-WLAN"
        if relevance.asks_kind(ask) and not relevance.gives_what_is_asked(ask, said):
            return False  # "how long does it run?" is not answered by the end date
        if _ASKS_MODEL.search(ask) and not _MODEL_NAME.search(f"{section} {said}"):
            return False  # "what brand is it?" is not answered by the cover it has
        if _STEPS.search(p.hit.content) and not _HOW.match(ask):
            return False  # steps say how to do it, not "what should the gauge read?"
        if not own(ask):
            return True  # "… and when did we get it?": a date of what the question is about
        held = relevance.attribute_held(ask, said, section)
        # "… their support number?" is said by the support line's number, as match() reads it.
        value = " ".join(held[1]) if held is not None and held[0] else ""
        covered = relevance.word_coverage(ask, weights, said, section, value, weak=[title])
        return covered >= ASK_COVERED

    def said_of(ask: str, p: Passage) -> float:
        """How much of the ask's own wording a passage says ("get it" as "Bought")."""
        return relevance.word_coverage(ask, weights, p.hit.content, p.hit.heading)

    picked: list[tuple[str, Passage]] = []
    for ask in asks:
        fits = [p for _, p in found if answers(ask, p)]
        if fits and topical(asks, ask) != ask:
            # Of the lines saying "password", the guest network's for the guest's.
            about = topical(asks, ask)
            fits.sort(key=lambda p: -said_of(about, p))
        # The first found answers, unless the ask names nothing of its own ("when did we
        # get it?"): then the one whose words it says ("Bought: …", not the end date).
        p = (
            max(fits, key=lambda p: said_of(ask, p), default=None)
            if not own(ask)
            else (fits[0] if fits else None)
        )
        if p is not None and all(p is not q for _, q in picked):
            picked.append((ask, p))
    if len(picked) < 2:
        return []
    return picked[:MAX_ASKS_ANSWERED]


# "Is Celery dependent on pickle?", "does it support priorities?": asked yes or no.
_ASKS_YES_NO = re.compile(
    r"\s*(?:is|are|was|were|do|does|did|can|could|will|would|should|has|have|may|must)\b"
    r"(?!\s+(?:what|which|who|where|when|how)\b)",
    re.IGNORECASE,
)
# An answer that says which ("No, Celery can support any serialization scheme."), an
# FAQ's "Answer:" label before it or not.
_SAYS_YES_NO = re.compile(
    r"\s*(?:\**answer\**\s*:\**\s*)?(?:yes|no)\b\s*[,.;:!\u2013\u2014-]", re.IGNORECASE
)


def asks_yes_or_no(question: str) -> bool:
    """Whether what the question itself asks is a yes or a no ("is it …?", "does …?")."""
    return _ASKS_YES_NO.match(relevance.asked(question)) is not None


def says_yes_or_no(question: str, unit: str) -> bool:
    """Whether a yes/no question meets a sentence opening with "Yes," or "No,": the
    direct answer of an FAQ entry, where the rest of the entry says why."""
    return asks_yes_or_no(question) and bool(_SAYS_YES_NO.match(unit))


# "What is GNU nano?", "what's fetchmail and why should I bother?": what a thing is.
_ASKS_WHAT_IS = re.compile(
    r"\s*what(?:'s|\s+is|\s+are)\s+(?:(?:a|an|the)\s+)?(?P<thing>\w[\w+./-]*(?:\s+[\w+./-]+){0,3}?)"
    r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=512)  # asked again for every sentence of every candidate
def _thing_defined(question: str) -> str | None:
    """The thing a "what is X?" question (or one of its asks) asks to have defined."""
    for ask in relevance.clause_asks(question):
        m = _ASKS_WHAT_IS.match(ask)
        if m is not None:
            return m.group("thing")
    return None


def defines(question: str, unit: str) -> bool:
    """Whether the sentence opens with the thing a "what is X?" asks about and a verb "to
    be" ("GNU nano was designed to be …", "Fetchmail is a one-stop solution …"): it says
    what the thing is, where another only mentions it ("In February 2001, nano was …")."""
    thing = _thing_defined(question)
    if thing is None:
        return False
    names = {thing, thing.split()[-1]}  # "GNU nano": "nano is …" defines it too
    return any(
        re.match(rf"\s*(?:(?:a|an|the)\s+)?{re.escape(n)}\s+(?:is|are|was|were)\b", unit, re.I)
        for n in names
    )


def forbids(question: str, text: str) -> bool:
    """Whether the text tells you not to do what a "how do I …?" question asks how to do:
    "If it locks out again after two resets, do not keep resetting it" is no way to reset."""
    action = _ACTION.match(question)
    if action is None:
        return False
    verb = relevance.stem(action.group(1).lower())
    for said in _NEGATION.finditer(text):
        after = re.findall(r"[A-Za-z']+", text[said.end() : said.end() + 40])[:3]
        if any(relevance.stem(w.lower()) == verb for w in after):
            return True
    return False


# "Which programme takes the longest?": (the kind of figure compared, True for the most).
_SUPERLATIVES = {
    "longest": ("time", True), "slowest": ("time", True), "shortest": ("time", False),
    "quickest": ("time", False), "fastest": ("time", False), "hottest": ("heat", True),
    "warmest": ("heat", True), "coldest": ("heat", False), "coolest": ("heat", False),
}  # fmt: skip
_SUPERLATIVE = re.compile(rf"\b({'|'.join(_SUPERLATIVES)})\b", re.IGNORECASE)
_MINUTES = {"h": 60.0, "m": 1.0, "s": 1 / 60, "d": 1440.0, "w": 10080.0}  # by first letter
_DURATION = re.compile(
    r"\b(\d+(?:[.,]\d+)?)\s*(h|hrs?|hours?|min(?:ute)?s?|s|secs?|seconds?|days?|weeks?)\b",
    re.IGNORECASE,
)
_DEGREES = re.compile(r"(\d+(?:[.,]\d+)?)\s*\u00b0\s*[CF]\b")


def figure(kind: str, text: str) -> float | None:
    """The text's duration in minutes ("3 h 19 min" is 199) or its highest temperature."""
    if kind == "heat":
        found = [float(n.replace(",", ".")) for n in _DEGREES.findall(text)]
        return max(found) if found else None
    total = sum(
        float(number.replace(",", ".")) * _MINUTES[unit[0].lower()]
        for number, unit in _DURATION.findall(text)
    )
    return total or None


def extreme_sibling(question: str, best: Passage, pool: list[Passage]) -> Passage:
    """For "which … is the longest/quickest?", the item of the best passage's list whose
    figure is the extreme one: the words match every programme, the figures decide."""
    asked = _SUPERLATIVE.search(question)
    if asked is None:
        return best
    kind, most = _SUPERLATIVES[asked.group(1).lower()]
    key = _block(best)
    items = [
        (value, p)
        for p in pool
        if _block(p) == key and (value := figure(kind, p.hit.content)) is not None
    ]
    if len(items) < 2:
        return best
    pick = max if most else min
    return pick(items, key=lambda t: t[0])[1]


LIST_LEAD_WORDS = 6  # a lead over a list this long is a clause leading into it, no label
# A bulleted item's mark; unlike _BULLET_MARK never a number: numbered steps are one
# procedure, chunked and quoted whole.
_ITEM_MARK = re.compile(r"[-*+\u2022]\s+")


def whole_list(
    question: str, weights: dict[str, float], best: Passage, found: list[Passage]
) -> str | None:
    """The clause leading into a list with all its items, when the best passage is one
    item (or the clause over the first) and the clause says what was asked ("We support
    environments through the use of profiles to support: …" for "does it support
    environments?"): an item alone would answer as if it were all there is. None
    otherwise."""
    content = best.hit.content.strip()
    first, _, rest = content.partition("\n")
    if _ITEM_MARK.match(content):
        lead, own = best.hit.heading.rsplit(" > ", 1)[-1].strip(), content
    elif first.endswith(":") and _ITEM_MARK.match(rest.strip()):
        lead, own = first.rstrip(":").strip(), rest  # "… which give you:\n- a night mode"
    else:
        return None
    # A gloss in brackets says when or what for, not that the lead is a clause: "Winterfest
    # machen (Ende Oktober, spätestens vor dem ersten Frost):" is a label.
    if len(_GLOSS.sub("", lead).split()) < LIST_LEAD_WORDS or relevance.word_coverage(
        question, weights, lead
    ) <= relevance.word_coverage(question, weights, own):
        return None  # a label, or the item says it ("the plumber's line" of a contacts list)
    key = _block(best)
    parts = {best.hit.chunk_id: own}
    for p in found:
        if _block(p) == key and _ITEM_MARK.match(p.hit.content.strip()):
            parts.setdefault(p.hit.chunk_id, p.hit.content.strip())
    items = [item for _, text in sorted(parts.items()) for item in _items_of(text)]
    said = "; ".join(items)
    if len(items) < 2 or len(lead) + len(said) > QUOTE_MAX:
        return None
    return f"{lead}: {said}."


_GLOSS = re.compile(r"\s*\([^()]*\)$")  # "CHANGING BLOCKS (consecutive lines)"


def _title_alone(text: str) -> bool:
    """A passage that is a title and nothing else ("SafeHome SA-10 smoke alarm", a
    group's name in capitals with its gloss): it says what a part is about, no answer."""
    line = text.strip()
    if "\n" in line:
        return False
    bare = _GLOSS.sub("", line)  # never "Bell 8.50am, finishes 3.20pm (Fridays …)": a fact
    return (
        title_line(line, "")
        or (bare.isupper() and len(bare.split()) >= 2 and len(bare) <= 60)
        or _BREADCRUMB.fullmatch(line) is not None
        or _title_cased(line)
    )


# "Reclaim Energy > Support > Owner's guide": where a page sits in its site, no answer.
_BREADCRUMB = re.compile(r"[^>\n]{1,40}(?: > [^>\n]{1,40}){1,5}")
_DASHES = "-\u2013\u2014"  # hyphen, en dash, em dash


def _title_cased(line: str) -> bool:
    """A document's name ("Harbourline Insurance - Home Contents Policy summary"): a short
    line of capitalised words in parts set apart by a dash, without a figure, a sentence's
    stop, a label or a list ("Drop Biscuit at Nan's on Saturday" is a sentence)."""
    words = line.split()
    if not 3 <= len(words) <= 10 or len(line) > 80 or re.search(r"[\d.,;:!?|()]", line):
        return False
    if not re.search(rf" [{_DASHES}] ", line):
        return False
    big = [w for w in words if w.lower() not in STOPWORDS and w not in _DASHES]
    return len(big) >= 3 and sum(w[:1].isupper() for w in big) >= 0.75 * len(big)


def _items_of(text: str) -> list[str]:
    """A list's items without their marks, a wrapped item's lines joined."""
    items: list[str] = []
    for line in text.splitlines():
        mark = _ITEM_MARK.match(line.strip())
        if mark:
            items.append(line.strip()[mark.end() :])
        elif items and line.strip():
            items[-1] += " " + line.strip()
    return [item.rstrip(".;") for item in items]


def named_in_heading(question: str, heading: str, content: str) -> str:
    """For "what make/model is …?", the heading that names the model when the passage
    under it does not: "Washing machine (Miele WWD 120)" heads a note whose paragraphs
    never repeat it. Empty otherwise."""
    if not _ASKS_MODEL.search(question) or _MODEL_NAME.search(content):
        return ""
    for part in reversed(heading.split(" > ")):
        if _MODEL_NAME.search(part) and not _asks(part):
            return part.strip()  # never a FAQ's question naming a model ("… HP-UX 11 …?")
    return ""


_RECORD_LINE = re.compile(r"(?:[-*+\u2022]\s+)?([^\s:|][^:\n|]{0,40}):\s+(\S[^\n|]*)")


def labels_what_is_asked(question: str, content: str) -> bool:
    """Whether the passage is a record line whose label the question asks for by name:
    "What serial number goes on the form?" and "Serial number: FD 0123 456789"."""
    line = _RECORD_LINE.fullmatch(content.strip())
    if line is None:
        return False
    label = re.escape(line.group(1).strip().lstrip("-*+\u2022 ").strip())
    return bool(label) and re.match(_ASKS_LABEL.format(label), question, re.IGNORECASE) is not None


def _label_weighed(question: str, weights: dict[str, float], content: str) -> dict[str, float]:
    """The question's word weights with the label's words counting twice: they say what
    is asked; the rest ("goes on the claim form") only where it is wanted."""
    line = _RECORD_LINE.fullmatch(content.strip())
    label = relevance.words_of(line.group(1)) if line else frozenset()
    return {
        w: weight * (LABEL_WORDS if relevance.stem(w) in label else 1.0)
        for w, weight in {w: weights.get(w, 1.0) for w in relevance.content_words(question)}.items()
    }


# "what serial number …", "which email address …", "what's the …": the label asked for.
# "whats the …", typed without its apostrophe, too.
_ASKS_LABEL = r"\s*(?:what|which)(?:['\u2019]?s|\s+is|\s+are)?\s+(?:the\s+|our\s+|my\s+)?{}\b"


def sibling_named(scored: list[Scored]) -> list[Scored]:
    """Of two record lines side by side ("Appliance: … model SMS4HVI33G", "Serial number:
    …"), the one naming every thing asked about ("the model number") answers; the other,
    sharing only the generic word, counts ``SIBLING_WEIGHT``."""
    named = {_block(p) for m, _, _, _, p in scored if m.things and _record(p.hit.content)}
    return [
        (m, v * SIBLING_WEIGHT, about, rank, p)
        if not m.things and _record(p.hit.content) and _block(p) in named
        else (m, v, about, rank, p)
        for m, v, about, rank, p in scored
    ]


def qualified_sibling(question: str, scored: list[Scored]) -> list[Scored]:
    """Of two record lines or table rows side by side that both say what is asked
    ("Password: …", "Guest password: …"), the one whose label adds a word the question
    never says is another thing's: "what was the wifi password?" is not the guests', nor
    is the landlord's number the "Emergency landlord" row's. It counts ``SIBLING_WEIGHT``;
    "the guest wifi password" says the word and keeps it whole."""
    asked = _label_words(question, question)
    labels: dict[int, frozenset[str]] = {}
    plain: dict[tuple[str, str, str], list[frozenset[str]]] = {}
    for _, _, _, rank, p in scored:
        said = _row_label(p.hit.content.strip())
        if said is None:
            continue
        label = _label_words(question, said)
        labels[rank] = label
        if label and label <= asked:
            plain.setdefault(_block(p), []).append(label)
    return [
        (m, v * SIBLING_WEIGHT, about, rank, p)
        if labels.get(rank, frozenset()) - asked
        and any(bare < labels[rank] for bare in plain.get(_block(p), ()))
        else (m, v, about, rank, p)
        for m, v, about, rank, p in scored
    ]


def _label_words(question: str, text: str) -> frozenset[str]:
    """A text's content words by their stems in the question's language."""
    tongue = foreign(question)
    words = relevance.content_words(text)
    if tongue:
        return frozenset(stem_in(tongue, w) for w in words)
    return frozenset(relevance.stem(w) for w in words)


def _block(p: Passage) -> tuple[str, str, str]:
    """The file and section a passage belongs to."""
    return (p.db, p.hit.path, p.hit.heading)


def _record(content: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """(label words, value words) of a one-line ``Label: value`` record, else None."""
    line = _RECORD_LINE.fullmatch(content.strip())
    if line is None:
        return None
    label = frozenset(relevance.stem(w) for w in relevance.content_words(line.group(1)))
    return label, relevance.words_of(line.group(2))


def _known_records(question: str, passages: list[Passage]) -> tuple[dict[int, list[str]], set[int]]:
    """Record lines the question already knows, handed to the sibling it asks for.

    In "what is the password for the Meadowlark network?" the question states the
    value of "Network: Meadowlark" (so that line tells nothing new) and names the
    label of "Password: …" beside it: the password line answers, with the network
    line as its context. Returns ({index of an asked line: texts of its known
    siblings}, indexes of the known lines that step aside); a known line with no
    asked sibling stays ("what is Meadowlark?" is answered by the network line).
    """
    asked = relevance.words_of(question)
    wanted = {relevance.stem(w) for w in relevance.content_words(question)}
    groups: dict[tuple[str, str, str], list[tuple[int, bool, bool]]] = {}
    for i, p in enumerate(passages):
        rec = _record(p.hit.content)
        if rec is None:
            continue
        label, value = rec
        stated = bool(value) and value <= asked
        named = not label.isdisjoint(wanted)
        groups.setdefault(_block(p), []).append((i, stated, named))
    context: dict[int, list[str]] = {}
    aside: set[int] = set()
    for lines in groups.values():
        known = [i for i, k, _ in lines if k]
        targets = [i for i, k, named in lines if named and not k]
        if known and targets:
            for i in targets:
                context[i] = [passages[j].hit.content for j in known]
            aside.update(known)
    return context, aside


async def relevant_passages(
    store: KnowledgeStore,
    question: str,
    names: list[str],
    weights: dict[str, float],
    floor: float | None = None,
    failed: list[str] | None = None,
    search: str | None = None,
) -> list[tuple[relevance.Match, Passage]]:
    """Passages of these databases that answer (value >= ``floor`` if given), best first;
    ``search`` is what to look them up by, when not the question itself.

    The memory source asks it too: a memory steps aside for a document that answers better.
    """
    if not names:
        return []
    pool = await store.search_all(
        search or relevance.without_hopes(question) or question,
        limit=FAQ_CANDIDATES,
        mode="hybrid",
        databases=names,
        failed=failed,
    )
    if search is None:
        # The FAQ's own entry for a question asked word for word, which the words find
        # though the model's ranking of a table's rows buries it (xterm's "Can I improve
        # the scrollbars?" under a dozen rows of scrolling timings).
        seen = {(p.db, p.hit.chunk_id) for p in pool}
        pool += [
            p
            for p in await store.search_all(
                question, limit=ENTRY_LOOKUP, mode="keyword", databases=names, failed=failed
            )
            if heading_asks_it(question, p.hit.heading) and (p.db, p.hit.chunk_id) not in seen
        ]
    alone = relevance.asked_alone(question) if search is None else None
    measured_alone: set[int] = set()  # passages whose similarity is the question alone's
    if alone is not None:
        # "Lachie's running a temp. Who's the kids' GP?": the story leads the search to
        # Lachie's lines; the question itself finds the GP's. Both are judged.
        own = await store.search_all(
            alone, limit=FAQ_CANDIDATES, mode="hybrid", databases=names, failed=failed
        )
        measured_alone = {id(p) for p in own}
        pool = _interleaved(pool, own)[:FAQ_CANDIDATES]
    judge = functools.partial(_judged, question, weights, pool, floor, store.model_embedder())
    # Judging grows with the question: a long one is judged off the event loop (issue 29).
    found = judge() if len(question) <= INLINE_QUERY_CHARS else await off_loop(judge)
    if alone is not None:
        # A passage ranked by the question alone was measured against it in meaning: its
        # words must agree with it too ("… a guinea pig. Are we allowed one under the
        # lease?" is not answered by the lease's "Renters" line).
        found = [
            (m, p)
            for m, p in found
            if id(p) not in measured_alone
            or relevance.word_coverage(alone, weights, p.hit.content, weak=[p.hit.heading])
            >= relevance.AGREE
        ]
    return found


def _interleaved(first: list[Passage], second: list[Passage]) -> list[Passage]:
    """Two rankings taken turn about, each passage once (where it ranks first)."""
    out: dict[tuple[str, int], Passage] = {}
    for pair in itertools.zip_longest(first, second):
        for p in pair:
            if p is not None:
                out.setdefault((p.db, p.hit.chunk_id), p)
    return list(out.values())


def _judged(
    question: str,
    weights: dict[str, float],
    pool: list[Passage],
    floor: float | None,
    model: bool,
) -> list[tuple[relevance.Match, Passage]]:
    """The pool's passages that answer, best first (pure CPU: any thread)."""
    # An answer under a heading that asks a question (a FAQ entry) is one candidate more
    # from further down: "what can you search through?" shares only "search" with it,
    # as it does with a hundred reference passages.
    # So is one that says what a "what is X?" asks ("Fetchmail is a one-stop solution …"):
    # in a folder all about X, every passage naming it is near the question in meaning.
    what_is = _thing_defined(question) is not None
    judged = FOREIGN_CANDIDATES if foreign(question) else CANDIDATES
    passages = pool[:judged] + [
        p
        for p in pool[judged:]
        if _asks(p.hit.heading)
        or heading_asks_it(question, p.hit.heading)
        or (what_is and any(defines(question, u) for u in _units(answering_part(p.hit.content))))
    ]
    itself = relevance.asked(question)  # "The boiler's stopped. How do I reset it?"
    how = asks_how(question)
    why = (
        relevance.ASKS_WHY.match(itself)
        or relevance.ASKS_WHEN_TO.match(itself)
        or relevance.ASKS_UNTIL.match(itself)
        or relevance.ASKS_CHECK.match(question)
        # "What temperature …?", "how big is the tank?", "what should the pH be?", "how
        # much can we spend?": by the figure asked for.
        or relevance.ASKS_TEMPERATURE.match(itself)
        or relevance.ASKS_SIZE.match(itself)
        or relevance.ASKS_TARGET.match(itself)
        or relevance.ASKS_MONEY.match(itself)
    )
    should = foreign(question) is not None and foreign_kinds.asks_what_it_should_be(question)
    again = relevance.asks_next(question)
    files = {Path(p.hit.path).name for p in passages}
    plain = asked_plainly(question) and not how  # "how do I …?" is answered by commands too
    context, aside = _known_records(question, passages)
    for rank, reasons in _reasons_after(question, passages, pool).items():
        context.setdefault(rank, []).extend(reasons)
    # The passage the model ranks nearest the question: near enough, it answers on its
    # own ("the oven seems to burn everything" -> "it runs hot"), though no word agrees.
    nearest = max(
        (p for p in passages if p.similarity is not None),
        key=lambda p: p.similarity or 0.0,
        default=None,
    )
    scored = []
    for rank, p in enumerate(passages):
        pointer = _POINTER.match(p.hit.content)
        if pointer and Path(pointer.group(1).split("#")[0]).name in files:
            continue  # a link to a page whose own passages are here: quote those
        if rank in aside:
            continue  # a record line the question already knows: its sibling answers
        own = answering_part(p.hit.content)
        if not own.strip():
            continue  # a question on its own (an FAQ's question line): its answer answers
        if not any(c.isalnum() for c in own):
            continue  # a rule of dots or dashes under its heading says nothing
        entry = heading_asks_it(question, p.hit.heading)
        if _title_alone(own) and not _ASKS_MODEL.search(question) and not entry:
            # A title alone ("SafeHome SA-10 smoke alarm") says only what it is; under the
            # question asked word for word, a line that short is its answer ("Check here").
            continue
        section, title = _split_title(p.hit.heading, p.hit.path)
        said, quoted = relevance.mentions(own)
        texts = [said, section, *context.get(rank, [])]
        labelled = labels_what_is_asked(question, p.hit.content)
        found = relevance.match(
            question,
            _label_weighed(question, weights, p.hit.content) if labelled else weights,
            texts,
            p.similarity,
            model=model,
            weak=[title, quoted],
        )
        answers = (
            found.answers
            or entry
            or (
                p is nearest
                and found.near
                and relevance.names_what_is_asked(question, *texts, p.hit.heading)
            )
        )
        if answers and (floor is None or found.value >= floor):
            # Ties: the passage whose heading says what was asked is about it.
            # A table row's first cell heads it: the landlord's own row, not the heating
            # engineer's whose notes mention the landlord.
            row = _row_label(own.strip()) if " | " in own else None
            about = relevance.word_coverage(question, weights, p.hit.heading, row or "")
            # The entry that is the question itself says all of it, however few of its
            # words weigh ("Who's behind this?"): it is read from its opening.
            about += float(entry)
            points = bool(pointer or _CROSS_REFERENCE.search(p.hit.content))
            weight = 1.0
            if why and relevance.gives_what_is_asked(question, said):
                weight = GIVES_WEIGHT  # "why …?" is answered by what it means or causes
            elif should and foreign_kinds.gives_a_norm(said):
                weight = GIVES_WEIGHT  # "Wie hoch soll der Druck sein?": "zwischen 1,5 und 2"
            if how and forbids(question, said):
                weight = FORBIDS_WEIGHT  # a warning against it is no way to do it
            elif how and _STEPS.search(p.hit.content):
                weight = STEPS_WEIGHT  # "how do I …?": steps or the command to run
            elif p.hit.content.startswith("```"):
                weight = CODE_WEIGHT
            elif points:
                weight = POINTER_WEIGHT  # it points at where the answer is: that answers
            if about >= FAQ_COVERED and _asks(p.hit.heading) and not points:
                # A heading asking this very question; an entry that sends the reader to
                # another question's answer ("read Section 2.1, …") stays behind that one.
                weight = max(weight, FAQ_WEIGHT)
            if labelled:
                weight = max(weight, LABEL_WEIGHT)
            if says_yes_or_no(question, own):
                weight = max(weight, YES_NO_WEIGHT)
            if what_is and any(defines(question, u) for u in _units(own)):
                weight = max(weight, DEFINES_WEIGHT)
            if plain and ("`" in p.hit.content + p.hit.heading or " | " in p.hit.content):
                weight *= TECHNICAL_WEIGHT  # asked in plain words: answered in plain words
            # The FAQ's own entry for the question, asked word for word, answers before any
            # other ("Why can't I select/paste in xterm?", not "… to/from other programs?").
            first = ENTRY_FIRST if entry and not points else 0.0
            scored.append((found, weight * found.value + first, about, rank, p))
    scored = qualified_sibling(question, sibling_named(scored))
    # The bundled model reads English: in another language a few hundredths of its cosine
    # are noise, and what the passage's heading or row label says decides.
    grain = FOREIGN_GRAIN if foreign(question) else 0.0
    scored.sort(key=lambda t: (-_grained(t[1], grain), -t[2], t[3]))
    if again:
        # "Wann muss der Wagen wieder zur HU?": the line naming the next one ("Nächste HU:
        # Mai 2027") answers before last year's log entry, which says the words too.
        scored.sort(key=lambda t: not relevance.says_next(relevance.mentions(t[4].hit.content)[0]))
    scored = _entry_opening(question, weights, scored)
    ranked = [(m, p) for m, _, _, _, p in scored]
    if ranked:
        top, best = ranked[0]
        pick = extreme_sibling(question, best, passages)
        if pick is not best:
            # The list answers as its best item did; the figures chose the item.
            ranked = [(top, pick)] + [(m, p) for m, p in ranked if p is not pick]
    return ranked


def _grained(value: float, grain: float) -> float:
    """The value to the nearest ``grain`` (itself when 0)."""
    return round(value / grain) * grain if grain else value


def _reasons_after(
    question: str, passages: list[Passage], pool: list[Passage]
) -> dict[int, list[str]]:
    """For each candidate that is a one-sentence "Yes, …" or "No, …" to a yes/no question,
    the paragraphs after it under the same heading that the search also found: the rest
    of the entry says why, in the question's words ("No, Celery can support any
    serialization scheme." — "… the default serialization used to be pickle …")."""
    if not asks_yes_or_no(question):
        return {}
    at = {(p.hit.path, p.hit.ord): p for p in pool}
    found: dict[int, list[str]] = {}
    for rank, p in enumerate(passages):
        own = answering_part(p.hit.content).strip()
        if not says_yes_or_no(question, own) or len(_units(own)) != 1:
            continue
        for step in range(1, READ_ON + 1):
            after = at.get((p.hit.path, p.hit.ord + step))
            if after is not None and after.hit.heading == p.hit.heading:
                found.setdefault(rank, []).append(answering_part(after.hit.content))
    return found


def _entry_opening(question: str, weights: dict[str, float], scored: list[Scored]) -> list[Scored]:
    """Of an FAQ entry's paragraphs at the top, each under the heading that asks this
    question and so matching it whole, its first: an answer opens with what it says
    ("This answer covers sendmail 8.9 and up …"), not with a line further down ("in
    /etc/mail.", a list of the configure options).

    A paragraph further down stands before the first only when it is clearly better and
    also says more of the question in its own words: the heading they share is most of a
    short paragraph's text, so the model finds a line of options nearer the question than
    the paragraph saying what they are for."""
    if not scored or not _asks(scored[0][4].hit.heading) or scored[0][2] < FAQ_COVERED:
        return scored
    value, about, top = scored[0][1], scored[0][2], scored[0][4]

    def own_words(t: Scored) -> float:
        return relevance.word_coverage(question, weights, answering_part(t[4].hit.content))

    says = own_words(scored[0])
    tied = [
        t
        for t in scored
        if t[2] == about
        and t[4].hit.path == top.hit.path
        and t[4].hit.heading == top.hit.heading
        and (t[1] >= value - ENTRY_TIE or own_words(t) >= says)
    ]
    first = min(tied, key=lambda t: t[4].hit.ord)
    return scored if first is scored[0] else [first, *(t for t in scored if t is not first)]


async def _each_ask_found(
    store: KnowledgeStore,
    question: str,
    names: list[str],
    weights: dict[str, float],
    found: list[tuple[relevance.Match, Passage]],
) -> list[tuple[relevance.Match, Passage]]:
    """For a question of two or three asks ("what oil does the car take and when does
    the lease end?"), the best passage for each ask searched alone, when the whole
    question found none for it: each part is answered from its own best passage. When
    the whole question found nothing, only when every ask finds its own ("who's our
    internet provider and what's their support number?": two record lines)."""
    asks = [a for a in relevance.clause_asks(question) if len(relevance.content_words(a)) >= 2]
    coded = len(asks) < 2 and len(code_asks(question)) >= 2
    if coded:
        asks = code_asks(question)  # "what do F22 and F75 mean?": each code's row
    if not 2 <= len(asks) <= MAX_ASKS_ANSWERED:
        return []
    have = {p.hit.chunk_id for _, p in found}
    extra: list[tuple[relevance.Match, Passage]] = []
    for ask in asks:
        if any(
            relevance.holds_named_codes(ask, p.hit.content)
            if coded
            else relevance.word_coverage(ask, weights, p.hit.content) >= ASK_COVERED
            for _, p in found[:3]
        ):
            continue  # the whole question already found this part's passage
        search = None
        if ask is not asks[0] and _refers_back(ask):
            # "… and what's their support number?": about what the first ask is about, so
            # looked up with its words, and judged by its own.
            search = f"{' '.join(relevance.content_words(asks[0]))} {ask}"
        own = await relevant_passages(store, ask, names, weights, search=search)
        if not own and not found:
            return []  # a part nothing answers: no half answer to a question nothing found
        for m, p in own[:1]:
            if p.hit.chunk_id not in have:
                have.add(p.hit.chunk_id)
                extra.append((m, p))
    return extra


def _refers_back(ask: str) -> bool:
    """Whether an ask refers back with a pronoun ("she", "their", "it")."""
    return any(w.lower() in relevance.BACK_WORDS for w in re.findall(r"[A-Za-z]+", ask))


LABEL_SURE = 0.45  # the model's cosine of a question and a record's label that answers
LABEL_MARGIN = 0.15  # over the next label: one line stands out, not a list alike
LABEL_CANDIDATES = 24  # record lines of the search's first passages weighed by meaning
_LABEL_CACHE: dict[tuple[str, str], list[float]] = {}
_LABEL_CACHE_MAX = 4096


async def labelled_by_meaning(
    store: KnowledgeStore, question: str, names: list[str]
) -> list[tuple[relevance.Match, Passage]]:
    """The record line ("Plumber: Joe Ruiz, 555-0199") whose label alone the embedding
    model finds closest to the question, when it stands out from the other labels; a
    whole line's meaning is mostly its name and number, its label is what it is for.
    Empty when no label stands out, the line lacks the attribute asked for, or the
    question asks yes or no (a label's value says which thing, never whether)."""
    if asks_yes_or_no(question):
        return []  # "does anything leave my network?" is not answered by the network's name
    pool = await store.search_all(question, limit=FAQ_CANDIDATES, mode="hybrid", databases=names)
    lines: list[tuple[str, str, Passage]] = []  # (label, the line, its passage)
    for p in pool:
        for unit in _units(p.hit.content):
            rec = _RECORD_LINE.fullmatch(unit)
            if rec is not None and len(lines) < LABEL_CANDIDATES:
                lines.append((rec.group(1).strip(), unit, p))
    labels = list(dict.fromkeys(label.lower() for label, _, _ in lines))
    if not labels:
        return []
    embedder = store.embedder()
    missing = [t for t in labels if (embedder.name, t) not in _LABEL_CACHE]
    vectors = await embedder.embed([question, *missing])
    if len(_LABEL_CACHE) + len(missing) > _LABEL_CACHE_MAX:
        _LABEL_CACHE.clear()
    _LABEL_CACHE.update({(embedder.name, t): v for t, v in zip(missing, vectors[1:], strict=True)})
    asked = vectors[0]
    cosine = {
        t: sum(a * b for a, b in zip(asked, _LABEL_CACHE[(embedder.name, t)], strict=True))
        for t in labels
    }
    ranked = [*sorted(cosine.values(), reverse=True), 0.0]  # one label: the search chose it
    best = max(labels, key=lambda t: cosine[t])
    if ranked[0] < LABEL_SURE or ranked[0] - ranked[1] < LABEL_MARGIN:
        return []
    label, line, p = next(row for row in lines if row[0].lower() == best)
    if foreign(question) and not relevance.word_coverage(question, None, line, p.hit.heading):
        # The bundled model reads English: between a Dutch question and a Dutch label its
        # cosine says little, so the line must say a word of the question itself.
        return []
    if relevance.attribute_held(question, line, p.hit.heading) == (False, ()):
        return []  # "Netflix kids profile" is no Netflix password
    if not relevance.names_the_role(question, line, p.hit.heading):
        return []  # the school office's line never says who the principal is
    if not relevance.names_compounds(question, line, p.hit.heading):
        return []  # "Netflix: Profile …" is no "Netflix-Passwort"
    if not relevance.names_no_sibling(question, line, p.hit.heading):
        return []  # the "Inboedelverzekering"'s policy number is no "Reisverzekering"'s
    if relevance.asks_kind(question) and not relevance.gives_what_is_asked(question, line):
        return []  # "A che ora apre …?" is no "Farmacia di turno: l'elenco è appeso …"
    if not relevance.names_owners(question, line, p.hit.heading):
        return []  # the plumber's line is not "Tom's plumber"'s when it never says Tom
    if not (
        relevance.names_named_owner(question, line, p.hit.heading)
        and relevance.names_whose(question, line, p.hit.heading)
    ):
        return []  # "la password della Netflix" is not the wifi's "Password: …"
    sure = max(relevance.ANSWERS, relevance.meaning(ranked[0]))
    return [(relevance.Match(0.0, sure), p)]


async def called_for(
    store: KnowledgeStore, question: str, names: list[str]
) -> list[tuple[relevance.Match, Passage]]:
    """The one contact line with a phone number whose label names someone or something
    of the story told before "who do I call?": "Biscuit ate chocolate! Who do I call?"
    is answered by "Vet (Biscuit): …", as a friend reading the list would. Empty when
    no story is told, or no label or more than one names it."""
    if not relevance.story_before_call(question):
        return []
    pool = await store.search_all(question, limit=FAQ_CANDIDATES, mode="hybrid", databases=names)
    found: dict[str, Passage] = {}
    for p in pool:
        for unit in _units(p.hit.content):
            label = _row_label(unit)
            if (
                label
                and relevance.has_phone_number(unit)
                and relevance.labels_the_story(question, label)
            ):
                found.setdefault(unit, p)
    if len(found) != 1:
        return []  # the vet and the neighbour who minds the cat: the words cannot tell
    return [(relevance.Match(0.0, relevance.ANSWERS), next(iter(found.values())))]


def _row_label(unit: str) -> str | None:
    """What a record line or a table row is for: a line's label ("Vet (Biscuit)" of
    "Vet (Biscuit): Dr Aubert …"), a row's first cell ("Role: Vet (Biscuit) | Name: …")."""
    first, _, rest = unit.partition(" | ")
    rec = _RECORD_LINE.fullmatch(first.strip())
    if rec is None:
        return None
    return rec.group(2).strip() if rest else rec.group(1).strip()


class RagSource(Source):
    """The household's document databases; the passage that answers, cited."""

    name = "rag"
    description = "Your document databases (manuals, notes, PDFs) and Mnemolis's own docs"
    cache_empty = True

    def cache_version(self) -> object:
        """Re-indexing, a database added or removed, a new embedder or a memory changed."""
        store = knowledge_store(self.deps.services)
        return None if store is None else (store.generation(), store.memories.generation)

    @property
    def configured(self) -> bool:
        store = knowledge_store(self.deps.services)
        return store is not None and bool(store.databases)

    async def health(self) -> SourceHealth:
        """The base health plus which databases are loaded and which failed."""
        health = await super().health()
        store = knowledge_store(self.deps.services)
        if store is not None:
            health.detail = {"databases": store.names(), "failed": sorted(store.failed)}
        return health

    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        store = knowledge_store(self.deps.services)
        if store is None or not store.databases:
            raise SourceNotConfigured("no document database is loaded")
        failed: list[str] = []  # databases whose search failed: answer, never cache it
        question = await store.respelled(query_text(question))
        about = about_mnemolis(question)
        bundled = BUNDLED_NAME in store.databases
        names = store.user_databases() + ([BUNDLED_NAME] if about and bundled else [])
        # Words weigh by their rarity where they are looked for ("mnemolis" is common in
        # Mnemolis's docs, unheard of in a boiler manual).
        weights = await store.term_weights(question, names)
        found = await relevant_passages(store, question, names, weights, failed=failed)
        found += await _each_ask_found(store, question, names, weights, found)
        if not found and store.model_embedder():
            # No passage's words or whole meaning answer: the record line whose label
            # means what is asked ("Plumber" for "who do I call if the toilet overflows?").
            found = await labelled_by_meaning(store, question, names)
        if not found:
            # "Pistache vomit depuis ce matin, j'appelle qui ?": the contact named by the story.
            found = await called_for(store, question, names)
        try:
            memories = await store.memory_matches(question, weights, limit=3)
        except Unavailable:  # a broken memory store: the documents still answer
            memories = []
        remembered = next(((mem, m) for mem, m in memories if m.answers), None)
        memory = remembered[1] if remembered else None
        if not found and failed and memory is None:
            # Never an empty answer (that would be cached): the search did not run.
            raise SourceError(f"database(s) {', '.join(failed)} could not be searched")
        english = language_of(question) == ENGLISH
        if (
            not found
            and bundled
            and not about
            and english
            and memory is None
            and not standing_in(ctx)
        ):
            # Nothing of the household's matches: Mnemolis's docs, when they plainly answer.
            # They are English: a question in another language meets their words only by
            # likeness ("temperatura" read as a slip of "temperature"), so they answer it
            # only when it names Mnemolis (``about``, which searched them above).
            weights = await store.term_weights(question, [BUNDLED_NAME])
            found = await relevant_passages(
                store, question, [BUNDLED_NAME], weights, BUNDLED_FALLBACK
            )
            # A question not about Mnemolis is answered by its prose, never by an example
            # in code ("Never run the dryer after 22:00" is how to store a memory).
            found = [(m, p) for m, p in found if "```" not in p.hit.content]
        if not found:
            # No document: a memory that answers is asked next (router._run_chain).
            # A memory naming all the things asked (not the dryer's rule for its warranty).
            sure = remembered is not None and relevance.names_every_thing(
                question, remembered[0].content, " ".join(remembered[0].tags)
            )
            flag = {"memory_answers": True} if sure else {}
            return SourceAnswer(source=self.name, answer="", data=flag)
        match, best = found[0]
        if memory is not None and memory.value >= match.value:
            # A memory says it as well as any document, or better: the memory source
            # answers (what the household asked to remember is the more specific word).
            return SourceAnswer(source=self.name, answer="", data={"memory_answers": True})
        said = quote(question, weights, best.hit.heading, best.hit.content)
        said = whole_list(question, weights, best, [p for _, p in found]) or said
        named = named_in_heading(question, best.hit.heading, best.hit.content)
        if named:
            # "What washing machine have we got and when did we buy it?": the heading names
            # it; the passage is quoted too only when it says more of what was asked.
            more = relevance.word_coverage(question, weights, named, said) > (
                relevance.word_coverage(question, weights, named)
            ) or relevance.gives_more(question, named, said)
            said = f"{named}: {said}" if more else named
        # "The model number and serial number": one quote for each ask, each cited.
        each = each_ask_answered(question, weights, found)
        asks = [ask for ask, _ in each]
        quotes = [
            (said if p is best else quote(ask, weights, p.hit.heading, p.hit.content), p)
            for ask, p in each
        ] or [(said, best)]
        shown = _heading_once([text for text, _ in quotes])
        values = [next(m.value for m, q in found if q is p) for _, p in quotes]
        score = max(values)
        evidence = [
            Evidence(
                source=self.name,
                title=f"{p.db}: " + _cited_title(p),
                text=text,
                ref=p.source,
                score=p.score,
                relevance=value,
            )
            for (text, p), value in zip(quotes, values, strict=True)
        ]
        return SourceAnswer(
            source=self.name,
            answer=_cited(quotes),
            evidence=evidence,
            # Part of the databases failed: answer, but never cache it (router/cache.py).
            data={
                "databases": list(dict.fromkeys(p.db for _, p in quotes)),
                "relevance": round(score, 3),
                # Each ask with its own quote, so the spoken form says an answer to each.
                **({"asks": [[a, t] for a, t in zip(asks, shown, strict=True)]} if asks else {}),
                **({"partial": True} if failed else {}),
            },
        )


def _cited_title(p: Passage) -> str:
    """The file's name and the passage's heading, as evidence titles read."""
    return Path(p.hit.path).name + (f" — {p.hit.heading}" if p.hit.heading else "")


def _heading_once(texts: list[str]) -> list[str]:
    """Quotes in a row that open with one heading say it once ("Wifi — Network: …;
    Password: …")."""
    out: list[str] = []
    lead = ""
    for text in texts:
        if lead and text.startswith(lead):
            text = text[len(lead) :]
        else:
            lead = text[: text.find(" — ") + 3] if " — " in text else ""
        out.append(text)
    return out


def _cited(quotes: list[tuple[str, Passage]]) -> str:
    """Quotes with their citations, numbered by file; quotes of one file cited once."""
    numbers: dict[tuple[str, str], int] = {}
    out: list[str] = []
    shown = _heading_once([text for text, _ in quotes])
    for i, (text, (_, p)) in enumerate(zip(shown, quotes, strict=True)):
        key = (p.db, p.hit.path)
        n = numbers.setdefault(key, len(numbers) + 1)
        following = quotes[i + 1][1] if i + 1 < len(quotes) else None
        if following is not None and (following.db, following.hit.path) == key:
            out.append(text if ENDS_SENTENCE.search(text) else f"{text};")
        else:
            out.append(cited(text, f"[{n}, {p.db}: {Path(p.hit.path).name}]"))
    return " ".join(out)
