"""What the other languages' word lists cost: read once, on the first question in a
language (``mnemolis.wordlist``), then asked for each of its words.

For each language it prints the words held, the seconds to read the list, the memory it
keeps (its sorted hashes) and the peak while reading (the parsed JSON, freed after), each
in a fresh process so one list's reading does not hide another's; then microseconds per
lookup, for a word that is there and for a compound split into two.

    .venv/server/bin/python bench/wordlist_bench.py [--lookups 20000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

_CHILD = """
import json, sys, time, tracemalloc
from mnemolis import wordlist
name, lookups = sys.argv[1], int(sys.argv[2])
t = time.perf_counter()
words = wordlist.words_of(name)
read = time.perf_counter() - t
tracemalloc.start()
wordlist._READ.clear()
words = wordlist.words_of(name)
kept, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
probe = {"German": "Gartentor", "Dutch": "fietsenstalling", "French": "maison",
         "Italian": "lavatrice", "Portuguese": "caldeira"}[name]
t = time.perf_counter()
for _ in range(lookups):
    "heute" in words
hit = (time.perf_counter() - t) / lookups * 1e6
t = time.perf_counter()
for _ in range(lookups // 10):
    wordlist.is_word(name, words, probe)
split = (time.perf_counter() - t) / (lookups // 10) * 1e6
print(json.dumps([len(words), read, kept / 1e6, peak / 1e6, hit, split]))
"""

LANGUAGES = ("German", "Dutch", "French", "Italian", "Portuguese")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lookups", type=int, default=20000)
    args = parser.parse_args()
    print(
        "| language | words | read (s) | kept (MB) | peak reading (MB) | lookup (µs) "
        "| word or compound (µs) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in LANGUAGES:
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, name, str(args.lookups)],
            capture_output=True,
            text=True,
            check=True,
        )
        n, read, kept, peak, hit, split = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"| {name} | {n:,} | {read:.2f} | {kept:.1f} | {peak:.0f} | {hit:.1f} | {split:.1f} |"
        )


if __name__ == "__main__":
    main()
