"""The words of the other languages Mnemolis reads (pyspellchecker's word lists), so a
word of the language is never taken for a typing slip of a household's word."""

from __future__ import annotations

import gzip
import json
import logging
import threading
from importlib import resources

import numpy as np

from .language import LINKING, joins_compounds, unaccented

_LOGGER = logging.getLogger(__name__)

# The lists pyspellchecker ships, by ``language.foreign``'s names. Its Spanish list holds
# headwords only ("mueble", not "muebles"; "llamar", not "llamo"): every plural and verb
# would look like a slip, so Spanish has none.
_LISTS = {
    "German": "de",
    "Dutch": "nl",
    "French": "fr",
    "Italian": "it",
    "Portuguese": "pt",
}
#: A compound's parts are each at least this long ("Garten|tor", never "G|artentor").
PART_MIN = 3
_LOCK = threading.Lock()
_READ: dict[str, Words | None] = {}


class Words:
    """A language's words, folded (lower case, no diacritics), kept as their sorted hashes:
    340,000 German words in under 3 MB, where a set of them takes ten times that. (Python's
    own string hash: the list is read and asked in one process.)"""

    def __init__(self, words: list[str]) -> None:
        self._hashes = np.unique(np.fromiter(map(hash, words), dtype=np.int64, count=len(words)))

    def __len__(self) -> int:
        return int(self._hashes.size)

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not self._hashes.size:
            return False
        key = hash(fold(word))
        i = int(np.searchsorted(self._hashes, key))
        return i < self._hashes.size and int(self._hashes[i]) == key


def fold(word: str) -> str:
    """Lower case without diacritics, as the lists are kept and the index reads words."""
    word = word.lower()
    return word if word.isascii() else unaccented(word)


def words_of(name: str) -> Words | None:
    """The words of a language (``language.foreign``'s names), read once on first use; None
    for a language without a list, or when the list cannot be read."""
    if name not in _LISTS:
        return None
    if name not in _READ:
        with _LOCK:  # two threads asking at once read the list once
            if name not in _READ:
                _READ[name] = _read(name)
    return _READ[name]


def is_read(name: str) -> bool:
    """Whether asking for a language's words costs nothing now (read, or there are none)."""
    return name not in _LISTS or name in _READ


def _read(name: str) -> Words | None:
    code = _LISTS[name]
    try:
        blob = (resources.files("spellchecker") / "resources" / f"{code}.json.gz").read_bytes()
        counts = json.loads(gzip.decompress(blob))
    except (ModuleNotFoundError, OSError, ValueError) as err:
        _LOGGER.warning("the %s word list could not be read: %s", name, err)
        return None
    return Words([fold(w) for w in counts if isinstance(w, str)])


def is_word(name: str, words: Words, word: str) -> bool:
    """Whether a word is one of the language's, or (in a language that writes compounds as
    one word) two of them joined, with or without linking letters: "Gartentor" is a word,
    "Spülmaschiene" a slip."""
    if word in words:
        return True
    if not joins_compounds(name):
        return False
    w = fold(word)
    for i in range(PART_MIN, len(w) - PART_MIN + 1):
        first, last = w[:i], w[i:]
        if last not in words:
            continue
        if first in words or any(
            first.endswith(k) and len(first) - len(k) >= PART_MIN and first[: -len(k)] in words
            for k in LINKING
        ):
            return True
    return False
