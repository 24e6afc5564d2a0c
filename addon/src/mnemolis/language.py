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

Documents and memories read a question in one of those languages with its own
stop words (python-stop-words' lists, which also tell the language when the
everyday function words above are too few) and its Snowball stems.
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
import unicodedata
from collections.abc import Callable, Container, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, cast

import snowballstemmer
from home_assistant_intents import get_intents
from stop_words import get_stop_words

ENGLISH = "en"

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
        return _by_stop_lists(words)  # the common case: English
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


# A question whose everyday function words are few but whose language's full list
# ("welchen", "soll", "haben") holds at least this many of its words, more than twice
# as many as English's does, is in that language.
_STOP_HITS = 3


def _by_stop_lists(words: list[str]) -> Language:
    """The language whose stop-word list holds most of the words, when clearly not English."""
    english = _stop_list(ENGLISH)
    in_english = sum(1 for w in words if w in english)
    best, hits = "", 0
    for name in _STOP_LISTS:
        if name != ENGLISH:
            stop = _stop_list(name)
            n = sum(1 for w in words if w in stop and w not in english)
            if n > hits:
                best, hits = name, n
    if hits >= _STOP_HITS and hits > 2 * in_english:
        return Language(best, f"looks like {best} ({hits} {best} function words)")
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


# The stop-word lists (python-stop-words, from the Snowball and ranks.nl lists) of each
# detected language: a family stands for every language in it.
_STOP_LISTS: dict[str, tuple[str, ...]] = {
    ENGLISH: ("english",),
    "German": ("german",),
    "French": ("french",),
    "Spanish": ("spanish",),
    "Italian": ("italian",),
    "Portuguese": ("portuguese",),
    "Dutch": ("dutch",),
    "Polish": ("polish",),
    "Scandinavian": ("swedish", "danish", "norwegian"),
    "Turkish": ("turkish",),
}


# The Snowball stemmer of each detected language (a family's first language).
_STEMMERS: dict[str, str] = {
    "German": "german",
    "French": "french",
    "Spanish": "spanish",
    "Italian": "italian",
    "Portuguese": "portuguese",
    "Dutch": "dutch",
    "Polish": "polish",
    "Scandinavian": "swedish",
    "Turkish": "turkish",
}


@functools.lru_cache(maxsize=16)
def _stop_list(name: str) -> frozenset[str]:
    words = {w.strip().lower() for lang in _STOP_LISTS.get(name, ()) for w in get_stop_words(lang)}
    # Folded too: the full-text index and the word matching drop diacritics ("für", "fur").
    return frozenset(w for w in words | {unaccented(w) for w in words} if w)


# The language the request being answered named ("de" from Home Assistant's pipeline),
# by ``detect``'s names; None when it named none, or one this module does not know.
_ASKED_IN: ContextVar[str | None] = ContextVar("mnemolis_asked_in", default=None)


def named(tag: str | None) -> str | None:
    """The language a tag stands for, by ``detect``'s names ("de-CH" → "German")."""
    base = (tag or "").replace("_", "-").split("-")[0].lower()
    if not base:
        return None
    if base == ENGLISH:
        return ENGLISH
    return next(
        (name for name, codes in _CODES.items() if any(c.split("-")[0] == base for c in codes)),
        None,
    )


@contextlib.contextmanager
def asked_in(tag: str | None) -> Iterator[None]:
    """Questions read inside are in the language a request named, whatever their words
    look like: "Welchen Reifendruck braucht das Lastenrad?" has too few German function
    words to tell, and Home Assistant's pipeline says it is German."""
    token = _ASKED_IN.set(named(tag))
    try:
        yield
    finally:
        _ASKED_IN.reset(token)


def language_of(text: str) -> str:
    """The language a question is in: the one its request named, else ``detect``'s guess."""
    return _ASKED_IN.get() or _detected(text)


@functools.lru_cache(maxsize=1024)
def _detected(text: str) -> str:
    return detect(text).code


def cached_by_language[F: Callable[..., Any]](maxsize: int) -> Callable[[F], F]:
    """``functools.lru_cache`` for a reading of a question that depends on its language:
    the same words asked in a German request and an English one are read apart."""

    def wrap(fn: F) -> F:
        @functools.lru_cache(maxsize=maxsize)
        def cached(language: str, *args: Any) -> Any:
            return fn(*args)

        @functools.wraps(fn)
        def read(*args: Any) -> Any:
            return cached(language_of(args[0]) if args else ENGLISH, *args)

        read.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        return cast(F, read)

    return wrap


def stop_words_of(text: str) -> frozenset[str]:
    """The function words of the language a question is in, when it is not English
    (English's own are the knowledge store's): "wie", "das", "soll" carry no subject."""
    name = language_of(text)
    return frozenset() if name == ENGLISH else _stop_words(name)


def function_words(name: str) -> frozenset[str]:
    """A language's function words (``foreign``'s names): its stop-word list, the words
    Home Assistant's grammar skips and the fillers around a question."""
    return _stop_words(name)


@functools.lru_cache(maxsize=16)
def _stop_words(name: str) -> frozenset[str]:
    words = _stop_list(name) | _skip_words(name) | frozenset(_SAYING.get(name, "").split())
    # "dá-me" is read as one word, "dáme", as "wi-fi" is "wifi".
    return words | {unaccented(w) for w in words} | {w.replace("-", "") for w in words}


# The words around a question that say how it is put, not what it asks about: the
# knowledge store's English list of adverbs and fillers ("actually", "really",
# "exactly", "tell", "please", "called") said in the languages that write compounds,
# with their particles ("doch", "halt", "toch", "hoor") and the question words and
# modals the stop-word lists above leave out (Dutch's has no "waar" nor "wanneer").
_SAYING: dict[str, str] = {
    "German": (
        "bereits schon auch wieder eigentlich derzeit sogar jemals bloß ganz ziemlich "
        "wirklich echt sehr genau ungefähr etwa circa ehrlich grundsätzlich "
        "wahrscheinlich bestimmt vielleicht eventuell möglicherweise überhaupt nochmal "
        "noch mal denn halt eben wohl ruhig irgendwie irgendwo "
        "sag sage sagen erzähl erzähle weißt wisst wissen heißt heißen bedeutet "
        "brauche brauchen will möchte gib gibst ok okay "
        "wieviel wem wen wessen "
        "nächste nächsten nächster nächstes letzte letzten letzter letztes "
        "ab raus rein rauf runter rüber heraus herein herauf herunter herüber hinaus "
        "hinein hinauf hinunter hinüber zurück "
        "beim ans aufs durchs fürs ums unterm überm hinterm vorm "
        "mach mache machst macht"
    ),
    "Dutch": (
        "al reeds ook weer eigenlijk momenteel zelfs ooit maar alleen slechts best echt "
        "werkelijk nog heel erg precies ongeveer circa eerlijk waarschijnlijk zeker "
        "misschien wellicht nogmaals even toch wel eens gewoon nou hoor ergens "
        "zeg zeggen vertel vertellen weet weten heet heten betekent nodig wil geef ok oké "
        "waar wanneer welke welk waarom hoeveel waarheen wiens moeten mag mogen willen "
        "zullen onze volgende vorige laatste toe terug ten ter"
    ),
    "French": (
        "déjà aussi encore vraiment réellement exactement précisément environ "
        "franchement probablement sûrement peut-être éventuellement même donc "
        "alors bon ben bah hein dis dites raconte sais savez ok okay actuellement svp "
        "prochain prochaine prochains prochaines dernier dernière derniers dernières "
        "devons devez doivent pouvons pouvez peuvent"
    ),
    "Spanish": (
        "ya también todavía aún realmente exactamente aproximadamente francamente "
        "probablemente seguramente quizás quizá acaso incluso pues bueno oye oiga "
        "dime dígame dame deme sabes ok vale actualmente "
        "próximo próxima próximos próximas último última últimos últimas "
        "debo debes debemos"
    ),
    "Italian": (
        "già anche ancora davvero veramente esattamente precisamente circa francamente "
        "probabilmente sicuramente forse magari pure quindi allora beh dai senti scusa "
        "dimmi dammi sai sapete ok okay attualmente "
        "prossimo prossima prossimi prossime ultimo ultima ultimi ultime "
        "devi dobbiamo dovete devono posso può possiamo potete possono bisogna "
        "fa fate"
    ),
    "Portuguese": (
        "já também ainda realmente mesmo exatamente precisamente aproximadamente "
        "francamente provavelmente certamente talvez então bem pois olha olhe "
        "diz-me diga-me dá-me dás sabes ok okay atualmente "
        "próximo próxima próximos próximas último última últimos últimas dum duma "
        "devo deves devemos posso podemos podem tens "
        "faço fazes fazemos fazem"
    ),
}


# How each language names a phone number and ringing someone, as English's "number",
# "phone", "ring" and "call": a number on the line says these words ("Quelle est le
# numéro du plombier ?" is answered by the plumber's row, which never says "numéro").
_PHONE_WORDS: dict[str, str] = {
    "German": (
        "nummer telefonnummer handynummer rufnummer telefon handy anrufen anruf "
        "erreichen erreiche telefonieren"
    ),
    "Dutch": "nummer telefoonnummer mobiel telefoon bellen bel gebeld bereiken",
    "French": "numéro téléphone portable tél appeler appelle appelles joindre contacter",
    "Spanish": "número teléfono móvil llamar llamo llamamos contactar",
    "Italian": "numero telefono cellulare chiamare chiamo contattare",
    "Portuguese": "número telefone telemóvel celular ligar ligo contactar",
}


@functools.lru_cache(maxsize=16)
def _phone_stems(name: str) -> frozenset[str]:
    return frozenset(stem_in(name, w) for w in _PHONE_WORDS.get(name, "").split())


def names_a_phone(name: str, word: str) -> bool:
    """Whether a question word in a language (``foreign``'s names) asks for a phone
    number or to ring someone, by its stem ("appelle", "appeler")."""
    return stem_in(name, word) in _phone_stems(name)


@functools.lru_cache(maxsize=16)
def _skip_words(name: str) -> frozenset[str]:
    """The words Home Assistant's grammar skips in a language ("bitte", "mal", "doch"):
    said around a question, never what it asks about."""
    words: set[str] = set()
    for code in _CODES.get(name, ()):
        try:
            said = get_intents(code) or {}
        except (OSError, ValueError):  # a language the installed release lacks
            continue
        words.update(w.lower() for phrase in said.get("skip_words", ()) for w in phrase.split())
    return frozenset(words)


def foreign(text: str) -> str | None:
    """The language a question is in when it is not English and its words can be stemmed
    in it (a name of ``_STEMMERS``); None for English and for scripts without one."""
    name = language_of(text)
    return name if name in _STEMMERS else None


# Each thread's Snowball stemmers: a stemmer keeps the word it works on in itself, so
# one shared by the event loop and a worker thread (the memory search stems on one while
# the documents' judging stems on the other) cut words wrong or raised mid-word.
_THREAD = threading.local()


def _stemmer(name: str) -> Any:  # a snowballstemmer Stemmer (untyped)
    """This thread's stemmer for a language."""
    stemmers: dict[str, Any] | None = getattr(_THREAD, "stemmers", None)
    if stemmers is None:
        stemmers = _THREAD.stemmers = {}
    found = stemmers.get(name)
    if found is None:
        found = stemmers[name] = snowballstemmer.stemmer(_STEMMERS[name])
    return found


@functools.lru_cache(maxsize=65536)
def stem_in(name: str, word: str) -> str:
    """A word's Snowball stem in a language (``foreign``'s names), without diacritics:
    "Tonnen" and "Tonne", "Gäste" and "Gast" meet."""
    return unaccented(_stemmer(name).stemWord(word.lower()))


# German verbs, their participles and the nouns made of them share a root Snowball
# keeps apart: "geimpft", "impfen" and "Impfung"; "eingelagert" and "Einlagerung".
_PREFIXES = "ab an auf aus bei durch ein fest her hin los mit nach uber um vor weg zu zuruck"
_SEPARABLE = frozenset(_PREFIXES.split())  # the prefixes "ge" follows: "ab-ge-holt"
_ROOT_MIN = 3


@functools.lru_cache(maxsize=8192)
def root_in(name: str, word: str) -> str:
    """A German word's root: the stem of what is left without a participle's "ge-…-t"
    or "ge-…-en" (after a separable prefix too) or a noun's "-ung"; other languages'
    words are their stems."""
    if name != "German":
        return stem_in(name, word)
    w = unaccented(word.lower())
    for end in ("ungen", "ung"):
        if w.endswith(end) and len(w) - len(end) >= _ROOT_MIN:
            return stem_in(name, w[: -len(end)])
    for lead in ("", *sorted(_SEPARABLE)):
        if not w.startswith(lead + "ge"):
            continue
        body = w[len(lead) + 2 :]
        for end in ("et", "t", "en"):
            if body.endswith(end) and len(body) - len(end) >= _ROOT_MIN:
                return stem_in(name, lead + body[: -len(end)])
    return stem_in(name, w)


def unaccented(word: str) -> str:
    """A word without its diacritics, as the full-text index reads it ("für", "fur")."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def fold(word: str) -> str:
    """Lower case without diacritics, as the full-text index and the word lists keep words."""
    word = word.lower()
    return word if word.isascii() else unaccented(word)


def code_of(name: str) -> tuple[str, ...]:
    """The language codes a detected language (or script) name may stand for."""
    if name == ENGLISH:
        return ()
    return _CODES.get(name, ())


# Languages that write a compound as one word ("Gastherme", "vaatwasser", "tandborste"),
# its last part naming the kind of thing: "Therme" is said by "Gastherme", and the
# "Druck" asked about by "Wasserdruck".
_CLOSED_COMPOUNDS = frozenset({"German", "Dutch", "Scandinavian"})
#: The shortest last part read as a word of its own: shorter tails (the "ol" of
#: "Motorol", the "tor" of "Motor") end too many unrelated words.
HEAD_MIN = 4
#: The letters German and Dutch put between a compound's parts ("Gemeinschaft-s-arbeit").
LINKING = ("s", "es", "n", "en", "e")
#: The shortest first part: a word two letters longer than another is more often an
#: inflection of it ("Reifen", "Reif") than a compound.
MODIFIER_MIN = 3


def first_part_in(part: str, words: Container[str], least: int = MODIFIER_MIN) -> bool:
    """Whether a compound's first part is one of the words, with or without the linking
    letters German and Dutch put between parts ("Gemeinschaft-s-arbeit")."""
    return len(part) >= least and (
        part in words
        or any(
            part[: -len(link)] in words
            for link in LINKING
            if part.endswith(link) and len(part) - len(link) >= least
        )
    )


def joins_compounds(name: str | None) -> bool:
    """Whether a language (``foreign``'s names) writes its compounds as one word."""
    return name in _CLOSED_COMPOUNDS


def heads(head: str, word: str) -> bool:
    """Whether ``head`` is the last part of the compound ``word`` (both stems, as the
    same stemmer gives them): "therm" of "gastherm"."""
    return len(head) >= HEAD_MIN and len(word) - len(head) >= MODIFIER_MIN and word.endswith(head)


# German's and Dutch's separable verbs leave their particle at the end of a main clause:
# "Wen rufe ich an, wenn …?" asks whom to "anrufen", "Wanneer haal ik het pakket op?"
# when to "ophalen". The verb stands before the subject pronoun, or second after a
# question word.
_SPLIT_VERBS: dict[str, tuple[frozenset[str], frozenset[str], frozenset[str]]] = {
    # the particles, the question words, the subject pronouns
    "German": (
        _SEPARABLE,
        _words("wer wen wem wessen was wann wie wo woher wohin warum wieso weshalb"),
        _words("ich du er sie es wir ihr man"),
    ),
    "Dutch": (
        _words("aan af op uit in mee terug door over toe weg na voor bij om neer langs"),
        _words("wie wat wanneer waar hoe waarom welke welk hoeveel waarheen"),
        _words("ik je jij u hij zij ze we wij jullie men"),
    ),
}
_MAIN_CLAUSE = re.compile(r"(?P<clause>[^,;:?!.]+?)\s+(?P<particle>\w+)(?=\s*(?:[,;:?!.]|$))")
_VERB_ENDING = re.compile(r"(?:e|st|t|en|et|est)$")
_LONG_VOWEL = re.compile(r"(aa|ee|oo|uu)(?=[^aeiou]$)")
_VOICED = str.maketrans({"f": "v", "s": "z"})


def _infinitives(tongue: str, verb: str) -> list[str]:
    """The infinitives a finite verb may be of: German "rufe" "rufen"; Dutch "haalt"
    "halen", "zet" "zetten", "doe" "doen", "leest" "lezen"."""
    if tongue == "German":
        return [_VERB_ENDING.sub("", verb) + "en"]
    stems = [verb] + ([verb[:-1]] if verb.endswith("t") and len(verb) > 3 else [])
    out: list[str] = []
    for stem in stems:
        short = _LONG_VOWEL.sub(lambda m: m.group(1)[0], stem)
        voiced = short[:-1] + short[-1].translate(_VOICED)
        out += [stem + "en", stem + stem[-1] + "en", short + "en", voiced + "en", stem + "n"]
    return list(dict.fromkeys(out))


def separable_verbs(text: str, tongue: str | None) -> list[tuple[str, str]]:
    """For a German or Dutch question whose main clause ends with a separable verb's
    particle ("Wen rufe ich an, wenn …?"), each infinitive the verb may be of with its
    particle ("anrufen") and the question with it in the verb's place; none for other
    text."""
    if tongue not in _SPLIT_VERBS:
        return []
    particles, asking, pronouns = _SPLIT_VERBS[tongue]
    m = _MAIN_CLAUSE.match(text)
    if m is None or unaccented(m.group("particle").lower()) not in particles:
        return []
    words = m.group("clause").split()
    lowered = [w.lower() for w in words]
    subject = next((i for i, w in enumerate(lowered) if i and w in pronouns), None)
    if subject is not None:
        at = subject - 1
    elif len(words) > 1 and lowered[0] in asking:
        at = 1
    else:
        return []
    verb = lowered[at]
    if not verb.isalpha() or len(verb) < 2 or verb in asking:
        return []
    particle = m.group("particle").lower()
    rest = text[m.end() :]
    return [
        (joined, " ".join([*words[:at], joined, *words[at + 1 :]]) + rest)
        for joined in (particle + i for i in _infinitives(tongue, verb))
    ]
