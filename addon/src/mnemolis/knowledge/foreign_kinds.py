"""What kind of fact a question in another language asks for.

English's kinds live in ``relevance._KINDS``: "how long" is answered by a duration,
"when" by a day or a time. The other languages ask the same with their own question
words ("wie lange", "combien de temps", "¿cuándo?"); the facts are written with their
own units, days and months ("35 minutes", "17h30", "dienstags", "14 de octubre").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_NUMBER_WORDS = (
    r"un|une|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|douze|quinze|vingt|trente|demi"
    r"|eine?[nmr]?|zwei|drei|vier|fünf|sechs|sieben|acht|zehn|zwölf|fünfzehn|zwanzig|halbe?n?"
    r"|een|twee|drie|vijf|zes|zeven|negen|tien|twaalf|vijftien|twintig|half|halve"
    r"|una?|uno|dos|tres|cuatro|seis|siete|ocho|nueve|diez|doce|quince|veinte|media|medio"
    r"|due|quattro|cinque|sette|otto|nove|dieci|dodici|quindici|venti|mezz[oa]"
    r"|um|uma|dois|duas|tr[êe]s|cinco|sete|oito|dez|doze|quinze|vinte|meia|meio"
)
_UNITS = (
    r"sec(?:onde|unde|onde|undo)?n?s?|min(?:ute|uten|utos?)?s?|h|std|heures?|stunden?|uur"
    r"|horas?|jours?|tage?n?|dagen?|d[ií]as?|semaines?|wochen?|weken|week|semanas?|mois"
    r"|monate?n?|maanden?|maand|mes(?:es)?|ans?|ann[ée]es?|jahre?n?|jaar|jaren|a[ñn]os?"
    r"|secondi|minuti|or[ae]|giorni|giorno|settimane?|mes[ei]|ann[io]|segundos?|dias?|m[êe]s"
)
# "35 minutes", "1h20", "zwei Wochen", "un mois", "dos días".
_DURATION = re.compile(
    rf"\b(?:\d+(?:[.,]\d+)?|{_NUMBER_WORDS})\s*(?:-\s*)?(?:{_UNITS})\b|\b\d{{1,2}}h\d\d\b",
    re.I,
)
# "17h30", "18:30", "8 Uhr", "om 8 uur", "a las 20"; never "24 heures", a duration.
_TIME_OF_DAY = re.compile(
    r"\b\d{1,2}\s?h(?:\s?\d\d)?\b|\b\d{1,2}[:.]\d\d\b"
    r"|\b\d{1,2}\s?uhr\b|\bom \d{1,2} uur\b|\ba las? \d{1,2}\b|\balle \d{1,2}\b|\b[àa]s \d{1,2}\b"
    r"|\b(?:midi|minuit|mittags?|mitternacht|middernacht|mediod[ií]a|medianoche|mezzogiorno"
    r"|mezzanotte|meio-dia|meia-noite)\b",
    re.I,
)
_WEEKDAYS = (
    r"lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|week-end"
    r"|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonnabend|sonntag|wochenende"
    r"|maandag|dinsdag|woensdag|donderdag|vrijdag|zaterdag|zondag|weekend"
    r"|lunes|martes|mi[ée]rcoles|jueves|viernes|s[áa]bados?|domingos?|fin de semana"
    r"|luned[iì]|marted[iì]|mercoled[iì]|gioved[iì]|venerd[iì]|sabato|domenica|fine settimana"
    r"|segunda|ter[çc]a|quarta|quinta|sexta|(?:segunda|ter[çc]a|quarta|quinta|sexta)-feira"
    r"|fim de semana"
)
# A day named, in English or another language ("Samstag", "sábado", "sundays").
_A_DAY = re.compile(
    rf"(?:{_WEEKDAYS}|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?", re.I
)
# The days a rule or a timetable speaks of together: "at weekends", "werktags", "sonn-
# und feiertags", "en semaine", "los días laborables", "fim de semana".
DAY_SPAN = re.compile(
    r"\b(?:week-?ends?|weekdays?|wochenenden?|werktags?|werktagen?|wochentags?|feiertags?"
    r"|unter der woche"
    r"|fin(?:es)? de semana|entre semana|laborables|festivos|fine settimana|(?:giorni )?feriali"
    r"|festivi|fi(?:m|ns) de semana|dias [úu]teis|feriados|doordeweeks|werkdagen|weekdagen"
    r"|feestdagen|en semaine|jours? (?:ouvrables|fériés))\b",
    re.I,
)


# A day of the week or a span of them, said in a question or a text.
_DAYS = re.compile(rf"\b(?:{_A_DAY.pattern})\b|{DAY_SPAN.pattern}", re.I)


# Each day of the week by its names in the six languages, Monday first; a weekend is
# Saturday and Sunday.
_EACH_DAY = tuple(
    re.compile(rf"\b(?:{names})s?\b", re.I)
    for names in (
        r"lundi|montag|maandag|lunes|luned[iì]|segunda(?:-feira)?",
        r"mardi|dienstag|dinsdag|martes|marted[iì]|ter[çc]a(?:-feira)?",
        r"mercredi|mittwoch|woensdag|mi[ée]rcoles|mercoled[iì]|quarta(?:-feira)?",
        r"jeudi|donnerstag|donderdag|jueves|gioved[iì]|quinta(?:-feira)?",
        r"vendredi|freitag|vrijdag|viernes|venerd[iì]|sexta(?:-feira)?",
        r"samedi|samstag|sonnabend|zaterdag|s[áa]bado|sabato|week-?ends?|wochenenden?"
        r"|fin(?:es)? de semana|fine settimana|fi[mn]s? de semana",
        r"dimanche|sonntag|zondag|domingo|domenica|week-?ends?|wochenenden?"
        r"|fin(?:es)? de semana|fine settimana|fi[mn]s? de semana",
    )
)
# "du lundi au vendredi", "Montag bis Freitag", "de lunes a viernes", "ma t/m vr":
# the days between are named too.
_DAY_RANGE = re.compile(
    rf"\b(?:{_WEEKDAYS})\w*\s*(?:[-\u2013]\s*|(?:au|bis|a|al|à|t/m|tot|até|ao|to)\s+)"
    rf"(?:{_WEEKDAYS})",
    re.I,
)


def other_day(question: str, text: str) -> bool:
    """Whether a text speaks only of other days of the week than the question names
    ("le samedi de 10h15 à 11h" for "… le dimanche ?"); False when either names none,
    or the text names a span or a range of days."""
    asked = {i for i, day in enumerate(_EACH_DAY) if day.search(question)}
    if not asked or DAY_SPAN.search(text) or _DAY_RANGE.search(text):
        return False
    said = {i for i, day in enumerate(_EACH_DAY) if day.search(text)}
    return bool(said) and not asked & said


def names_a_day(word: str) -> bool:
    """Whether a (folded) question word names a day of the week, in any language."""
    return _A_DAY.fullmatch(word) is not None


_MONTHS = (
    r"janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[ûu]t|septembre|octobre|novembre"
    r"|d[ée]cembre|januar|jänner|februar|m[äa]rz|april|juni|juli|august|oktober|dezember"
    r"|januari|februari|maart|mei|augustus|enero|febrero|marzo|abril|mayo|junio|julio"
    r"|agosto|se(?:p|t)tiembre|octubre|noviembre|diciembre"
    r"|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre"
    r"|janeiro|fevereiro|mar[çc]o|maio|junho|julho|setembro|outubro|dezembro"
)
# A day, a date, a month, a year or a time: what answers "wann", "quand", "¿cuándo?".
_WHEN = re.compile(
    rf"\b(?:{_WEEKDAYS})s?\b|\b(?:{_MONTHS})\b|\b(?:19|20)\d\d\b"
    r"|\b\d{1,2}[/.-]\d{1,2}(?:[/.-]\d{2,4})?\b|\b1(?:er|º|°)\b"
    r"|\b(?:aujourd'hui|demain|heute|morgen|vandaag|hoy|mañana|oggi|domani|hoje|amanh[ãa])\b"
    rf"|{_TIME_OF_DAY.pattern}",
    re.I,
)
# A date written with its month or in figures ("1 januari", "3. März", "12/03/2025"): a
# figure in it is no amount.
_DATE = re.compile(
    rf"\b\d{{1,2}}(?:\.|er|º|°)?\s*(?:de\s+)?(?:{_MONTHS})\b|\b\d{{1,2}}[/.-]\d{{1,2}}[/.-]\d{{2,4}}\b",
    re.I,
)
# A day of every month, no amount either: "le 1er de chaque mois", "el día 5 de cada mes",
# "am 3. jedes Monats", "de 1e van elke maand"; French writes no amount "1er".
_MONTHLY_DAY = re.compile(
    r"\b\d{1,2}(?:er|e|ème|º|°|ª|\.)?\s+(?:de|di|du|van|des)?\s*(?:chaque|cada|ogni|jede[ns]?"
    r"|elke|iedere)\b|\b\d{1,2}er\b",
    re.I,
)
# A phone number's groups of digits ("06 99 00 73 62", "+49 351 4412345") are no amount.
_PHONE_LIKE = re.compile(
    r"(?<![\w.,])(?:\+\d{1,3}[\s.-]?)?\d{2,5}(?:[ .-]\d{2,8}){2,5}(?![\w,]|\.\d|\s?[€%])"
)
# "tous les mois", "jede Woche", "elke dag", "cada seis meses", "dreimal", "deux fois".
_OFTEN = re.compile(
    r"\b(?:tou(?:te)?s les|chaque|par (?:jour|semaine|mois|an)|fois|alle|jede[nmrs]?"
    r"|t[äa]glich|w[öo]chentlich|monatlich|j[äa]hrlich|(?:ein|zwei|drei|vier|jedes )mal"
    r"|\d+ ?mal|elke|iedere?|dagelijks|wekelijks|maandelijks|jaarlijks|keer|cada|todos los"
    r"|todas las|veces|diario|semanal|mensual|anual|ogni|tutti i|tutte le|volte|al (?:giorno"
    r"|mese|anno)|alla settimana|quotidian[oa]|settimanale|mensile|annuale|todos os|todas as"
    rf"|vezes|por (?:dia|semana|m[êe]s|ano)|di[áa]rio|mensal)\b|\b(?:{_WEEKDAYS})s\b",
    re.I,
)
# A figure, or a number in words past one (never "un", "een", "una": an article too).
_AMOUNT = re.compile(
    r"\d|\b(?:deux|trois|quatre|cinq|dix|zwei|drei|vier|fünf|zehn|twee|drie|vijf|tien"
    r"|dos|tres|cuatro|cinco|diez|demi|halbe?|half|media|medio|due|quattro|cinque|dieci"
    r"|mezz[oa]|dois|duas|tr[êe]s|dez|meia|meio)\b",
    re.I,
)

# A temperature: "24 °C", "19°", "20 Grad", "21 graden", never a "grado" without a figure.
_TEMPERATURE = re.compile(r"\d\s*°|°\s*[CF]\b|\b\d+(?:[.,]\d+)?\s*(?:grad|degr|graus|gradi)", re.I)

# What a code or a word means: a label or row giving it ("E35: Fiamma parassita",
# "Significato: …"), or a sentence saying what it means or why.
_MEANING = re.compile(
    r":|\||=|\s[-\u2013\u2014]\s|signif|veut dire|vuol dire|quiere decir|quer dizer|bedeut"
    r"|hei(?:ß|ss)t|betek|wil zeggen|parce que|\bcar\b|perch[ée]|porque|weil|omdat",
    re.I,
)

# What a value should be: "entre 1 e 1,5 bar", "zwischen 1,5 und 2 bar", "mindestens
# 20 Grad", or a sentence saying what it should be ("soll", "doit", "deve").
_CHECK = re.compile(
    r"\b(?:entre|zwischen|tussen|tra|fra|mindestens|höchstens|minstens|hoogstens|au moins"
    r"|au plus|al menos|como m[áa]ximo|almeno|al massimo|pelo menos|no m[áa]ximo|normal\w*"
    r"|soll\w*|moet\w*|doi(?:t|vent)|devr\w*|debe\w*|deve\w*|dovr\w*)\b",
    re.I,
)
# "Che temperatura deve avere il frigo?", "Welchen Druck soll die Heizung haben?": a
# question for what a value should be; only its "should" is the frame.
_WHICH_SHOULD = (
    r"^\W*(?:que|qu[ée]|quel(?:le)?s?|welche[nrms]?|welke?|che|quale|qual|(?P<how>wie hoch"
    r"|hoe hoog))\s[\w' ]{{0,40}}?\b(?P<ask>{})"
)

# Each language's question words for a kind of fact, longest first: "cada cuánto tiempo"
# asks how often before "cuánto tiempo" asks how long, "combien de temps" a duration
# before "combien" an amount.
_ASKS: dict[str, tuple[tuple[str, re.Pattern[str]], ...]] = {
    "French": (
        (r"(?:à|a) quelle fr[ée]quence|tous les combien|combien de fois", _OFTEN),
        (
            r"(?:pendant |depuis |en )?combien de (?:temps|jours|semaines|mois|minutes|heures|ans)",
            _DURATION,
        ),
        (r"(?:jusqu'|à partir d')?(?:à|a) quelle heure|quelle heure", _TIME_OF_DAY),
        (r"(?:jusqu'à |depuis |à partir de )?quand|quel jour|quelle date", _WHEN),
        (_WHICH_SHOULD.format(r"doi(?:t|vent)|devrai(?:t|ent)"), _CHECK),
        (r"(?:à )?combien de degr[ée]s|(?:à )?quelle temp[ée]rature", _TEMPERATURE),
        (r"combien", _AMOUNT),
        (r"veu(?:t|lent) dire|signifi(?:e|ent)", _MEANING),
    ),
    "Spanish": (
        (r"cada cu[áa]nto|con qu[ée] frecuencia|cu[áa]ntas veces", _OFTEN),
        (
            r"(?:durante |desde hace )?cu[áa]nto tiempo|cu[áa]nt[oa]s (?:d[íi]as|semanas|meses"
            r"|minutos|horas|a[ñn]os)",
            _DURATION,
        ),
        (r"(?:hasta |desde )?(?:a )?qu[ée] hora", _TIME_OF_DAY),
        (r"(?:hasta |desde )?cu[áa]ndo|qu[ée] d[íi]a|qu[ée] fecha", _WHEN),
        (_WHICH_SHOULD.format(r"debe(?:n|r[íi]a)?"), _CHECK),
        (r"(?:a )?cu[áa]ntos grados|(?:a )?qu[ée] temperatura", _TEMPERATURE),
        (r"cu[áa]nt[oa]s?", _AMOUNT),
        (r"quieren? decir|significan?", _MEANING),
    ),
    "Italian": (
        (r"ogni quanto|con che frequenza|quante volte", _OFTEN),
        (
            r"(?:per |da )?quanto tempo|quant[ie] (?:giorni|settimane|mesi|minuti|ore|anni)",
            _DURATION,
        ),
        (r"(?:fino |da )?a che or[ae]|che ore sono|che ora", _TIME_OF_DAY),
        (r"(?:fino a |da )?quando|(?:che|quale|in che) giorno|che data", _WHEN),
        (_WHICH_SHOULD.format(r"deve|devono|dovrebbe(?:ro)?"), _CHECK),
        (r"(?:a )?quanti gradi|(?:a )?(?:che|quale) temperatura", _TEMPERATURE),
        (r"quant[oaie]", _AMOUNT),
        (r"vuol(?:e)? dire|vogliono dire|significan?o?", _MEANING),
    ),
    "Portuguese": (
        (r"de quanto em quanto tempo|com que frequ[êe]ncia|quantas vezes|cada quanto", _OFTEN),
        (
            r"(?:durante |h[áa] )?quanto tempo|quant[oa]s (?:dias|semanas|meses|minutos|horas"
            r"|anos)",
            _DURATION,
        ),
        (r"(?:at[ée] |a partir de )?(?:a|[àa]s) que horas|que horas", _TIME_OF_DAY),
        (r"(?:at[ée] |desde )?quando|que dia|qual (?:[ée] )?o dia|que data", _WHEN),
        (_WHICH_SHOULD.format(r"deve(?:m|ria)?"), _CHECK),
        (r"(?:a )?quantos graus|(?:a )?(?:que|qual (?:[ée] )?a) temperatura", _TEMPERATURE),
        (r"quant[oa]s?", _AMOUNT),
        (r"querem? dizer|significam?", _MEANING),
    ),
    "German": (
        (r"wie oft|wie häufig|in welchem abstand|alle wie viel\w*", _OFTEN),
        (r"wie lange|wie viele (?:tage|wochen|monate|minuten|stunden|jahre)", _DURATION),
        (r"(?:um |ab |bis )?wie ?viel uhr|wie spät|(?:um |ab |bis )?welche uhrzeit", _TIME_OF_DAY),
        (r"(?:bis |ab |seit )?wann|(?:an )?welche[mnr]? (?:tag|datum)", _WHEN),
        # "Wie hoch ist die Miete?" asks for a figure, as English "how big/high/deep".
        (_WHICH_SHOULD.format(r"soll(?:te|en|ten)?"), _CHECK),
        (r"(?:auf )?wie ?viel grad|(?:auf )?welche temperatur|wie (?:warm|kalt)", _TEMPERATURE),
        (r"wie ?viele?|wieviele?|wie (?:hoch|groß|gross|klein|breit|tief|schwer)", _AMOUNT),
        (r"bedeute[tn]|hei(?:ß|ss)t das", _MEANING),
    ),
    "Dutch": (
        (r"hoe vaak|hoe dikwijls|om de hoeveel\w*", _OFTEN),
        (r"hoe lang|hoeveel (?:dagen|weken|maanden|minuten|uur|jaar)", _DURATION),
        (r"(?:om |tot |vanaf )?hoe laat|welk tijdstip", _TIME_OF_DAY),
        (r"(?:tot |vanaf |sinds )?wanneer|welke (?:dag|datum)", _WHEN),
        (_WHICH_SHOULD.format(r"moet(?:en)?|zou(?:den)? moeten"), _CHECK),
        (r"(?:op )?hoeveel graden|(?:op )?welke temperatuur|hoe (?:warm|koud)", _TEMPERATURE),
        (r"hoeveel|hoe (?:hoog|groot|klein|breed|diep|zwaar)", _AMOUNT),
        (r"beteken(?:t|en)|wil (?:dat|dit|het) zeggen", _MEANING),
    ),
}
_COMPILED: dict[str, tuple[tuple[re.Pattern[str], re.Pattern[str]], ...]] = {
    name: tuple((re.compile(rf"(?<!\w)(?:{asks})(?!\w)", re.I), gives) for asks, gives in kinds)
    for name, kinds in _ASKS.items()
}
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Kind:
    """The kind of fact asked for: the question's words that ask it, and what gives it."""

    words: frozenset[str]
    gives: re.Pattern[str]
    day_named: bool = False  # "wann … mittwochs?": the day is told, its time is asked

    def given_by(self, text: str) -> bool:
        """Whether the text holds a fact of this kind ("35 minutes" for a duration; an
        amount is no day of a date: "per 1 januari" says no rent; a day of the week
        answers no "when" that names one)."""
        if self.gives is _AMOUNT:
            text = _PHONE_LIKE.sub(" ", _MONTHLY_DAY.sub(" ", _DATE.sub(" ", text)))
        elif self.day_named:
            text = _DAYS.sub(" ", text)
        return self.gives.search(text) is not None


@functools.lru_cache(maxsize=512)
def kind_asked(language: str | None, question: str) -> Kind | None:
    """The kind of fact a question in ``language`` asks for, or None (no such words, or
    a language without them)."""
    found: Kind | None = None
    for asks, gives in _COMPILED.get(language or "", ()):
        m = asks.search(question)
        if m is None:
            continue
        # Only the named parts of a long pattern are its frame ("wie hoch … soll").
        parts = [m.group(g) or "" for g in asks.groupindex] or [m.group(0)]
        words = frozenset(_WORD.findall(" ".join(parts).lower()))
        if found is None:
            found = Kind(words, gives, gives is _WHEN and _DAYS.search(question) is not None)
        else:
            # "Quel jour, et à quelle heure ?": the first kind is asked for, and every
            # kind's words are frame ("jour" is no word a line must say).
            found = Kind(found.words | words, found.gives, found.day_named)
    return found


# "Wie hoch soll der Druck sein?", "Hoeveel bar moet de druk zijn?", "¿A cuánto debe
# estar …?": what a thing should be, as English's "what should the pressure be?".
_SHOULD_BE = re.compile(
    r"\b(?:soll(?:te)?|muss|moet|hoort|doit|devrait|debe(?:r[ií]a)?|tiene que|deve|dovrebbe"
    r"|tem de|tem que)\b.*\b(?:sein|liegen|stehen|zijn|liggen|staan|être|ser|estar|essere"
    r"|stare)\b",
    re.I,
)
# A norm: a range or what is normal, ideal, at least or at most.
_NORM = re.compile(
    r"\b(?:zwischen|tussen|entre|tra|fra|normal\w*|ideal\w*|ideaal|optimal\w*"
    r"|mindestens|höchstens|minstens|hoogstens|au moins|au plus|al menos|como mucho"
    r"|almeno|al massimo|pelo menos|no máximo)\b",
    re.I,
)


def asks_what_it_should_be(question: str) -> bool:
    """Whether a question in another language asks what a thing should be."""
    return _SHOULD_BE.search(question) is not None


def gives_a_norm(text: str) -> bool:
    """Whether a text gives a norm (a range, what is normal or at least), in any of the
    other languages: what a "should be" question is answered by."""
    return _NORM.search(text) is not None
