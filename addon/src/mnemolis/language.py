"""Is a question English, and if not, which language may it be?

The router's own tables and examples are English; Home Assistant's grammar reads
home questions in every language it has (``mnemolis.assist``). This tells the two
apart cheaply and deterministically: the share of letters outside the Latin
script, then a count of common function words of English against those of the
languages users of a home assistant most often try (German, French, Spanish,
Italian, Portuguese, Dutch, Polish, the Scandinavian languages, Turkish). A
question with no clear foreign signal is English: names, product words and typos
never trip it. The guess only orders the languages the grammar tries; a request
or the home's own language can name it outright.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..assist.grammar import AND_WORDS

ENGLISH = "en"
ONLY_ENGLISH = "Sorry, I could not understand that."

# The grammar languages a detected language (family or script) may be, likeliest first.
_CODES: dict[str, tuple[str, ...]] = {
    "German": ("de",),
    "French": ("fr",),
    "Spanish": ("es",),
    "Italian": ("it",),
    "Portuguese": ("pt", "pt-BR"),
    "Dutch": ("nl",),
    "Polish": ("pl",),
    "Scandinavian": ("sv", "da", "nb"),
    "Turkish": ("tr",),
    "Cyrillic": ("ru", "uk", "bg", "sr"),
    "Greek": ("el",),
    "Chinese/Japanese": ("zh-CN", "ja", "zh-HK", "zh-TW"),
    "Japanese": ("ja",),
    "Korean": ("ko",),
    "Arabic": ("ar",),
    "Hebrew": ("he",),
    "Georgian": ("ka",),
    "Armenian": ("hy",),
    "Thai": ("th",),
    "Devanagari": ("hi", "ne"),
}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?", re.UNICODE)

# Function words common in everyday English questions (never names of things).
_ENGLISH = _words(
    "a about an and any are at be but can could did do does find for from give had has "
    "have he how i if in is it it's many me much my no not of on or our please search "
    "shall she should show some tell than that the their them then there there's these "
    "they this those to us was we were what what's when where which who whom whose why "
    "will with would you your"
)

# Frequent function words per language that are not also English words.
_FOREIGN: dict[str, frozenset[str]] = {
    "German": _words(
        "auch bitte das dem den der des die du ein eine einen es gibt hat heute ich ihr im "
        "ist jemand kein keine mir morgen nicht niemand noch oder schon sie sind und uns "
        "wann warum was welche welcher wer wie wir wird wo zu"
    ),
    "French": _words(
        "au aujourd'hui aux ce ces cette comment demain des du elles est et fait fera il "
        "ils je la le les ne nous ou où pas pourquoi quand que quel quelle qui quoi sont "
        "tu un une vous"
    ),
    "Spanish": _words(
        "al cuándo cómo de del dónde el es está están hace hará hoy la las los mañana no "
        "nosotros o por porqué que quién qué son tú un una y yo"
    ),
    "Italian": _words(
        "che chi come cosa del della domani dove e fa farà gli il io la le lo noi non o "
        "oggi perché quando sono tu un una è"
    ),
    "Portuguese": _words(
        "a amanhã as como da das de do dos e eu hoje não nós o onde os ou porque quais "
        "quando que quem são tu um uma vai vão é"
    ),
    "Dutch": _words(
        "aan de een en er geen het hoe ik is jij morgen niet nog of op vandaag waar waarom "
        "wanneer wat wie wij zijn"
    ),
    "Polish": _words(
        "co czy dlaczego dzisiaj gdzie i ja jak jaka jaki jakie jest jutro kiedy kto lub my "
        "na nie się są ty"
    ),
    "Scandinavian": _words(
        "att blir bliver det du er finns för hur hva hvad hvor hvordan i idag ikke imorgon "
        "inte jag jeg kommer med morgen morgon nu när når och og om på skal ska vad var vi "
        "är"
    ),
    "Turkish": _words("bugün kim mi mu mü mı nasıl ne nerede var ve yarın yok"),  # noqa: RUF001
}
# Every foreign function word that is not also an English word.
_ANY_FOREIGN = frozenset().union(*_FOREIGN.values()) - _ENGLISH
# Letters only these languages use (with foreign function words, a further signal).
_FOREIGN_LETTERS = frozenset("¡¿ßàâãäåæçèéêëîïñôõöøùûüąćęğ\u0131łńœśşźż")


@dataclass(frozen=True, slots=True)
class Language:
    """What the detector decided, and on what evidence."""

    code: str  # "en", or the name of the language (family) it looks like
    reason: str

    @property
    def english(self) -> bool:
        """True when the router's English tables apply."""
        return self.code == ENGLISH


_ENGLISH_RESULT = Language(ENGLISH, "English")


def detect(text: str) -> Language:
    """English, or the language a question looks like and why (never raises)."""
    if not text.isascii():
        letters = [c for c in text if c.isalpha()]
        other = [c for c in letters if not c.isascii() and not _latin(c)]
        if len(other) >= 2 and len(other) / len(letters) > 0.5:
            script = _script(other[0])
            return Language(script, f"written in {script} script")
    words = [w.lower() for w in _WORD.findall(text)]
    foreign_words = [w for w in words if w in _ANY_FOREIGN]
    if len(foreign_words) < 2:
        return _ENGLISH_RESULT  # the common case: nothing foreign to weigh
    english = sum(1 for w in words if w in _ENGLISH)
    best, hits = "", 0
    for name, vocab in _FOREIGN.items():
        n = sum(1 for w in foreign_words if w in vocab)  # foreign_words exclude English
        if n > hits:
            best, hits = name, n
    accents = sum(1 for c in text.lower() if c in _FOREIGN_LETTERS)
    if text.lstrip().startswith(("¿", "¡")):
        accents += 2
    foreign = hits + min(accents, 2)
    # Clearly foreign: at least two foreign signals and more of them than English words.
    if hits >= 2 and foreign > english:
        return Language(best, f"looks like {best} ({hits} common {best} words)")
    return _ENGLISH_RESULT


def _latin(c: str) -> bool:
    return "LATIN" in unicodedata.name(c, "")


def _script(c: str) -> str:
    name = unicodedata.name(c, "UNKNOWN")
    first = name.split()[0]
    return {
        "CJK": "Chinese/Japanese",
        "HIRAGANA": "Japanese",
        "KATAKANA": "Japanese",
        "HANGUL": "Korean",
    }.get(first, first.title())


def code_of(name: str) -> tuple[str, ...]:
    """The language codes a detected language (or script) name may stand for."""
    if name == ENGLISH:
        return ()
    return _CODES.get(name, ())


def split_and(text: str, language: str | None) -> list[str]:
    """A question in one breath cut at commas and the language's "and" (the caller
    keeps the cut only when every piece reads as a question of its own)."""
    words = AND_WORDS.get(language or "", ())
    if not words:
        return [text]
    joined = "|".join(re.escape(w) for w in words)
    pieces = re.split(rf"\s*,\s*(?:(?:{joined})\s+)?|\s+(?:{joined})\s+", text, flags=re.I)
    return [p.strip(" ,") for p in pieces if p and p.strip(" ,")]
