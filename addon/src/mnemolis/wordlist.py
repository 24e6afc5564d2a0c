"""The words of the other languages Mnemolis reads (pyspellchecker's word lists), so a
word of the language is never taken for a typing slip of a household's word."""

from __future__ import annotations

import gzip
import json
import logging
import threading
from importlib import resources

import numpy as np

from .language import MODIFIER_MIN, first_part_in, fold, joins_compounds

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
    return word in words or (joins_compounds(name) and split(words, fold(word)) is not None)


def split(words: Words, word: str, last_min: int = MODIFIER_MIN) -> tuple[str, str] | None:
    """A folded compound's first part and its last, each a word of the list (the first
    with or without linking letters, the last of ``last_min`` letters or more): "Garten"
    and "tor", never "G" and "artentor"."""
    for i in range(MODIFIER_MIN, len(word) - last_min + 1):
        first, last = word[:i], word[i:]
        if last in words and first_part_in(first, words):
            return first, last
    return None
