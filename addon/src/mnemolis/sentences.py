"""Where sentences end, shared by chunking, extracts and spoken answers ("Dr. Patel" is one)."""

from __future__ import annotations

import re
from collections.abc import Sequence

# Abbreviations after which a full stop never ends a sentence ("Dr. Patel", "e.g. the
# filter"), and those that end one only before a capital ("No. 5", "etc. 3" go on).
_NEVER_ENDS = [
    "Dr",
    "Mr",
    "Mrs",
    "Ms",
    "Mx",
    "St",
    "Mt",
    "Jr",
    "Sr",
    "Prof",
    "Rev",
    "Gen",
    "Capt",
    "Lt",
    "Sgt",
    "Ave",
    "Blvd",
    "Rd",
    "approx",
    "Approx",
    "vs",
    "Vs",
    "e.g",
    "E.g",
    "i.e",
    "I.e",
    "cf",
    "ca",
    "Inc",
    "Ltd",
    "Co",
    "Corp",
    "dept",
    "Dept",
    "est",
    "Est",
    # German, French, Spanish and Dutch abbreviations a household's notes use
    # ("bzw.", "inkl.", "Hr. Meier", "env. 20 €", "aprox.", "bijv.").
    "bzw",
    "usw",
    "inkl",
    "exkl",
    "ggf",
    "evtl",
    "vgl",
    "Str",
    "str",
    "Hr",
    "Hrn",
    "Mme",
    "Mlle",
    "env",
    "aprox",
    "Sra",
    "Srta",
    "Dra",
    "Ud",
    "Uds",
    "bijv",
    "dhr",
    "Dhr",
    "mevr",
    "Mevr",
]
_BEFORE_CAPITAL = [
    "No",
    "no",
    "Nr",
    "nr",
    "etc",
    "Etc",
    "Vol",
    "vol",
    "Fig",
    "fig",
    "Sec",
    "sec",
    "Ch",
    "ch",
    "Pt",
    "pt",
    "Tel",
    "tel",
]


def _not_after(words: Sequence[str]) -> str:
    return "".join(rf"(?<!\b{re.escape(w)}\.)" for w in words)


# A capital of the Latin-1 letters too ("Ärzte", "École", "Über"), a section sign
# ("§ 15 Kündigung") that opens a contract's next clause, and the marks other languages
# open a sentence with ("¿", "¡", "«", "„").
_OPENS = "A-Z\u00c0-\u00d6\u00d8-\u00de\u00a7\u00bf\u00a1\u00ab\u201e"

#: Where one sentence ends and the next begins: after ".", "!" or "?" and a space, before
#: a capital, digit or opening quote — but never after a title or abbreviation ("Dr.",
#: "approx.", "e.g."), an initial ("J. Smith") or "No."/"etc." before a number.
SENTENCE_BREAK = re.compile(
    r"(?<=[.!?])"
    + _not_after(_NEVER_ENDS)
    + r"(?<!\b[A-Z]\.)"
    # A letter alone before the stop is an abbreviation's ("z. B.", "d. h.", "u. a.").
    + r"(?<!(?<![^\W\d_])[a-z]\.)"
    + r"(?:"
    + _not_after(_BEFORE_CAPITAL)
    + rf"|(?=\s+[\"'\u201c\u2018(\[]?[{_OPENS}]))"
    + rf"\s+(?=[{_OPENS}0-9\"'\u201c\u2018(\[])"
)


def split_sentences(text: str) -> list[str]:
    """The sentences of a passage, not cut at abbreviations, titles or initials."""
    return [s.strip() for s in SENTENCE_BREAK.split(text) if s.strip()]
