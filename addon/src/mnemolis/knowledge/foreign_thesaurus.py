"""Household words that name the same thing, in the languages besides English.

A Dutch note says "ijskast", the question "koelkast"; a French note
"réfrigérateur", the question "frigo". Each language's groups (``thesauri``) list
names of one thing; a question word of a member the question says whole is said, as
an English synonym is (``thesaurus.SYNONYM_SHARE``), by a text holding another
member, every word of it by its stem in that language.
"""

from __future__ import annotations

import functools
import importlib
from typing import NamedTuple

from ..language import function_words, stem_in

# The modules of ``thesauri`` by the names ``language.foreign`` gives.
_MODULES = {
    "German": "german",
    "Dutch": "dutch",
    "French": "french",
    "Spanish": "spanish",
    "Italian": "italian",
    "Portuguese": "portuguese",
}


class Member(NamedTuple):
    """One name of a thing: its words' stems, and as it is written."""

    stems: frozenset[str]
    written: str


@functools.lru_cache(maxsize=8)
def _groups(language: str) -> tuple[tuple[Member, ...], ...]:
    """A language's groups, each member by the stems of its words (function words
    dropped: "machine à laver" is {machin, lav})."""
    name = _MODULES.get(language)
    if name is None:
        return ()
    module = importlib.import_module(f"{__package__}.thesauri.{name}")
    function = function_words(language)
    out = []
    for group in module.GROUPS:
        members: dict[frozenset[str], Member] = {}
        for written in group:
            words = [w for w in written.replace("-", " ").split() if w.lower() not in function]
            stems = frozenset(stem_in(language, w) for w in words)
            if stems:
                members.setdefault(stems, Member(stems, written))
        if len(members) > 1:
            out.append(tuple(members.values()))
    return tuple(out)


@functools.lru_cache(maxsize=8)
def _by_stem(language: str) -> dict[str, tuple[tuple[Member, tuple[Member, ...]], ...]]:
    """For each stem, (the member holding it, that member's group) of every group."""
    index: dict[str, list[tuple[Member, tuple[Member, ...]]]] = {}
    for group in _groups(language):
        for member in group:
            for s in member.stems:
                index.setdefault(s, []).append((member, group))
    return {s: tuple(v) for s, v in index.items()}


def alternatives(language: str, word: str, asked: frozenset[str]) -> tuple[Member, ...]:
    """The other members of each group one of whose members the question says whole (its
    stems ``asked``) and holds this word: any of them in a text says the word."""
    out: dict[frozenset[str], Member] = {}
    for member, group in _by_stem(language).get(stem_in(language, word), ()):
        if member.stems <= asked:
            for m in group:
                if m is not member and not m.stems <= asked:
                    out.setdefault(m.stems, m)
    return tuple(out.values())


def said_by(language: str, word: str, asked: frozenset[str], have: frozenset[str]) -> bool:
    """Whether a text's stems (``have``) say a question word through another member of
    its group ("koelkast" by "ijskast")."""
    return any(m.stems <= have for m in alternatives(language, word, asked))


def words_for(language: str, word: str, asked: frozenset[str]) -> tuple[str, ...]:
    """The other members as they are written, for a keyword search to look for too."""
    return tuple(m.written for m in alternatives(language, word, asked))
