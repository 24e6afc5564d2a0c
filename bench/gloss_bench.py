"""Would a word-for-word English gloss help the English embedding model read a household
in another language? Measured, not built: the rank of the answering line by cosine.

The bundled embedding model (all-MiniLM-L6-v2) reads English; between German texts its
cosine says little (docs/knowledge.md). FreeDict's bilingual dictionaries (Debian's
``dict-freedict-{deu,nld,fra,spa,ita,por}-eng``, GPL/CC BY-SA, read from
/usr/share/dictd) give each word an English one. For every question of a household
(``bench/eval/docs/household-*.yaml``) that a line answers, this ranks every line of the
household's documents, PDFs and memories by cosine with the question three ways — as
written, both glossed, and the mean of the two — and prints top-1, top-5 and MRR of the
first line holding the answer. Each word's English is the dictionary's most common
English word (pyspellchecker's English counts) among its senses; a word the dictionary
lacks is tried without an inflection ending, then as a compound of two words of the
language's word list; else it stays.

    apt-get install --no-install-recommends dict-freedict-deu-eng dict-freedict-nld-eng \\
        dict-freedict-fra-eng dict-freedict-spa-eng dict-freedict-ita-eng dict-freedict-por-eng
    .venv/server/bin/python bench/gloss_bench.py [--dict-dir /usr/share/dictd]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import html
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "addon" / "src"))

from mnemolis import wordlist  # noqa: E402
from mnemolis.language import HEAD_MIN, fold  # noqa: E402
from mnemolis.llm import bundled  # noqa: E402
from mnemolis.llm.catalog import read_metadata  # noqa: E402
from mnemolis.llm.embedding_model import LocalEmbedder  # noqa: E402
from mnemolis.settings import load_settings  # noqa: E402

DOCS = REPO / "bench" / "eval" / "docs"
# Household, FreeDict's code for its language, the language's name in mnemolis.language.
HOUSEHOLDS = (
    ("household-de", "deu", "German"),
    ("household-de2", "deu", "German"),
    ("household-nl", "nld", "Dutch"),
    ("household-fr", "fra", "French"),
    ("household-es", "spa", "Spanish"),
    ("household-it", "ita", "Italian"),
    ("household-pt", "por", "Portuguese"),
)
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_SKIP = ("Synonyms", "see:", "Note", "Example", '"', "(", "Antonym")
_ENDINGS = ("en", "em", "er", "es", "e", "s", "n")


def _number(text: str) -> int:
    """A dictd index's base-64 offset or length."""
    n = 0
    for c in text:
        n = n * 64 + _B64.index(c)
    return n


def _english_counts() -> dict[str, int]:
    blob = (resources.files("spellchecker") / "resources" / "en.json.gz").read_bytes()
    counts: dict[str, int] = json.loads(gzip.decompress(blob))
    return counts


def read_dictionary(folder: Path, code: str, english: dict[str, int]) -> dict[str, str]:
    """Each headword of one word, lower case, with its most common English sense."""

    def commonness(sense: str) -> float:
        words = sense.lower().split()
        return min(english.get(w, 0) for w in words) / (1 if len(words) == 1 else 4)

    base = folder / f"freedict-{code}-eng"
    data = gzip.decompress((base.with_suffix(".dict.dz")).read_bytes())
    senses: dict[str, set[str]] = {}
    for line in base.with_suffix(".index").read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or not parts[0] or " " in parts[0] or parts[0].startswith("00"):
            continue
        start = _number(parts[1])
        body = data[start : start + _number(parts[2])].decode("utf-8", "replace")
        for raw in body.split("\n")[1:]:
            text = raw.strip()
            if not text or text.startswith(_SKIP):
                continue
            text = re.sub(r"<[^>]*>|\[[^\]]*\]|\{[^}]*\}|\([^)]*\)", "", text)
            for sense in re.split(r"[,;]", re.sub(r"^\d+\.\s*", "", text)):
                sense = sense.strip()
                if sense and re.fullmatch(r"[A-Za-z][A-Za-z' -]*", sense):
                    senses.setdefault(parts[0].lower(), set()).add(sense)
    return {head: max(options, key=commonness) for head, options in senses.items()}


@dataclass
class Glosser:
    """A language's words in English, one word at a time."""

    english: dict[str, str]
    words: wordlist.Words | None

    def word(self, word: str) -> str:
        low = word.lower()
        if low in self.english:
            return self.english[low]
        for ending in _ENDINGS:
            if low.endswith(ending) and low[: -len(ending)] in self.english:
                return self.english[low[: -len(ending)]]
        if self.words is not None:
            split = wordlist.split(self.words, fold(word), HEAD_MIN)
            if split is not None:
                cut = len(split[0])
                head, tail = word[:cut], word[cut:]
                last = self.word(tail)
                if last != tail:
                    first = self.word(head) if head.lower() != low else head
                    return f"{first} {last}"
        return word

    def text(self, text: str) -> str:
        return re.sub(r"[^\W\d_]+", lambda m: self.word(m.group()), text)


def household_lines(name: str, spec: dict[str, object]) -> list[str]:
    """Every line of a household's files, PDF pages and memories, as one unit each."""
    lines: list[str] = []
    for path in sorted((DOCS / name).iterdir()):
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix in (".html", ".htm"):
            text = html.unescape(re.sub(r"<[^>]+>", "\n", text))
        lines += [s for raw in text.split("\n") if len(s := raw.strip(" -*#|")) > 3]
    pdf = spec["pdf"]
    assert isinstance(pdf, dict)
    for pages in pdf.values():
        for page in pages:
            lines += [line for line in page if len(line) > 3]
    memories = spec["memories"]
    assert isinstance(memories, list)
    lines += [m["content"] for m in memories]
    return lines


def rank(scores: np.ndarray, answering: list[int]) -> int:
    """The best rank (1 = first) of an answering line by its score."""
    return 1 + min(int((scores > scores[i]).sum()) for i in answering)


def summary(found: list[int]) -> str:
    r = np.array(found, dtype=float)
    return f"{(r == 1).mean():.2f} / {(r <= 5).mean():.2f} / {(1 / r).mean():.3f}"


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dict-dir", type=Path, default=Path("/usr/share/dictd"))
    parser.add_argument("--half", default="tune", help="tune, held or dev (held: scores only)")
    args = parser.parse_args()
    english_counts = _english_counts()
    scratch = Path(tempfile.mkdtemp(prefix="gloss-bench-"))
    model = bundled.ensure_converted(scratch / "models")
    embedder = LocalEmbedder(read_metadata(model), load_settings(environ={}).llm)
    await embedder.wait_loaded()

    def embed(texts: list[str]) -> np.ndarray:
        v = np.array(embedder.embed_sync(texts), dtype=np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    print(f"\n{args.half} half: top-1 / top-5 / MRR of the answering line among the household's\n")
    print("| household | lines | questions | as written | glossed | mean of both | dictionary |")
    print("|---|---:|---:|---:|---:|---:|---|")
    dictionaries: dict[str, tuple[dict[str, str], float]] = {}
    embed_s = glossed_s = 0.0
    embedded = 0
    for name, code, language in HOUSEHOLDS:
        spec = yaml.safe_load((DOCS / f"{name}.yaml").read_text(encoding="utf-8"))
        if code not in dictionaries:
            if not (args.dict_dir / f"freedict-{code}-eng.index").is_file():
                print(f"| {name} | | | | | | freedict-{code}-eng not installed |")
                continue
            start = time.perf_counter()
            dictionaries[code] = (
                read_dictionary(args.dict_dir, code, english_counts),
                time.perf_counter() - start,
            )
        english, read_s = dictionaries[code]
        glosser = Glosser(english, wordlist.words_of(language))
        lines = household_lines(name, spec)
        start = time.perf_counter()
        as_written = embed(lines)
        embed_s += time.perf_counter() - start
        start = time.perf_counter()
        glossed = embed([glosser.text(line) for line in lines])
        glossed_s += time.perf_counter() - start
        embedded += len(lines)
        found: dict[str, list[int]] = {"raw": [], "gloss": [], "both": []}
        for case in spec["questions"]:
            if case["half"] != args.half or case.get("nothing") or not case.get("says"):
                continue
            says = case["says"][0]
            says = says[0] if isinstance(says, list) else says
            answering = [i for i, line in enumerate(lines) if str(says).lower() in line.lower()]
            if not answering:
                continue  # the answer spans lines, or is a table cell the lines cut apart
            q_raw = embed([case["q"]])[0]
            q_gloss = embed([glosser.text(case["q"])])[0]
            raw, gloss = as_written @ q_raw, glossed @ q_gloss
            found["raw"].append(rank(raw, answering))
            found["gloss"].append(rank(gloss, answering))
            found["both"].append(rank((raw + gloss) / 2, answering))
        print(
            f"| {name} | {len(lines)} | {len(found['raw'])} | {summary(found['raw'])} | "
            f"{summary(found['gloss'])} | {summary(found['both'])} | "
            f"{len(english):,} words, read in {read_s:.1f} s |"
        )
    if embedded:
        print(
            f"\nEmbedding {embedded} lines: as written {embed_s:.1f} s, glossed {glossed_s:.1f} s "
            "(the gloss doubles the embedding work of a foreign household's index)."
        )
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
