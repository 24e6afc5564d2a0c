"""Real ZIM books written with libzim, served by a real ``kiwix-serve`` process."""

from __future__ import annotations

import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from libzim.writer import (  # type: ignore[import-untyped]
    Creator,
    Hint,
    Item,
    StringProvider,
)

KIWIX_SERVE = shutil.which("kiwix-serve") or "/usr/bin/kiwix-serve"

# Two small books. Article bodies are real-looking HTML: scripts, styles,
# navigation and tables that must never leak into an extracted answer.
_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body {{ font-family: sans-serif; }} .hatnote {{ color: #555; }}</style>
<script>window.trackingId = "do-not-show-this-script";</script>
</head><body>
<nav class="navbar"><a href="Main_Page">Main page</a> | <a href="Random">Random</a></nav>
<h1 id="firstHeading">{title}</h1>
<div class="hatnote">This article is about {title}.</div>
{body}
<script type="text/javascript">console.log("footer-script-marker");</script>
</body></html>
"""

WIKI_ARTICLES: dict[str, tuple[str, str]] = {
    "Photosynthesis": (
        "Photosynthesis",
        "<p><b>Photosynthesis</b> is the process by which green plants, algae and "
        "cyanobacteria convert light energy into chemical energy. It takes place "
        "mainly in the chloroplasts of leaf cells, which contain chlorophyll.</p>"
        "<p>During photosynthesis, carbon dioxide and water are turned into glucose "
        "and oxygen. The oxygen in Earth's atmosphere comes almost entirely from "
        "photosynthesis.</p>"
        "<table class='infobox'><tr><th>Inputs</th><td>CO<sub>2</sub>, water, light</td>"
        "</tr></table>",
    ),
    "Mount_Everest": (
        "Mount Everest",
        "<p><b>Mount Everest</b> is Earth's highest mountain above sea level, located "
        "in the Mahalangur Himal sub-range of the Himalayas. Its elevation is "
        "8,849 metres.</p><p>The first confirmed ascent was made in 1953 by Tenzing "
        "Norgay and Edmund Hillary.</p>",
    ),
    "Ada_Lovelace": (
        "Ada Lovelace",
        "<p><b>Augusta Ada King, Countess of Lovelace</b> was an English mathematician "
        "and writer, chiefly known for her work on Charles Babbage's proposed "
        "mechanical general-purpose computer, the Analytical Engine.</p><p>She is "
        "often regarded as the first computer programmer, because she published an "
        "algorithm intended to be carried out by the machine.</p>",
    ),
    "Main_Page": (
        "Main Page",
        "<p>Welcome to the small test encyclopedia.</p>",
    ),
}

COOKING_ARTICLES: dict[str, tuple[str, str]] = {
    "Sourdough_bread": (
        "Sourdough bread",
        "<p><b>Sourdough</b> bread is made by the fermentation of dough using a "
        "leaven of wild yeast and lactobacilli. The lactic acid gives it a slightly "
        "sour taste and improves its keeping qualities.</p><p>A starter is fed with "
        "flour and water every day to keep the culture alive.</p>",
    ),
    "Risotto": (
        "Risotto",
        "<p><b>Risotto</b> is a northern Italian rice dish cooked with broth until it "
        "reaches a creamy consistency. Arborio and carnaroli are the usual "
        "varieties of rice.</p>",
    ),
    "Main_Page": (
        "Main Page",
        "<p>Welcome to the test cookbook.</p>",
    ),
}


NOINDEX_ARTICLES: dict[str, tuple[str, str]] = {
    "Lighthouse": (
        "Lighthouse",
        "<p>A <b>lighthouse</b> is a tower designed to emit light to guide ships at sea.</p>",
    ),
    "Main_Page": ("Main Page", "<p>A book without a search index.</p>"),
}


class _Article(Item):  # type: ignore[misc]
    """One HTML article, indexed for full-text search."""

    def __init__(self, path: str, title: str, body: str) -> None:
        super().__init__()
        self._path = path
        self._title = title
        self._html = _PAGE.format(title=title, body=body)

    def get_path(self) -> str:
        return self._path

    def get_title(self) -> str:
        return self._title

    def get_mimetype(self) -> str:
        return "text/html"

    def get_contentprovider(self) -> StringProvider:
        return StringProvider(self._html)

    def get_hints(self) -> dict[Hint, int]:
        return {Hint.FRONT_ARTICLE: True}


def write_zim(
    path: Path,
    name: str,
    title: str,
    articles: dict[str, tuple[str, str]],
    *,
    index: bool = True,
) -> Path:
    """Write one ZIM book (with a full-text index unless ``index`` is false)."""
    with Creator(str(path)).config_indexing(index, "eng") as creator:
        creator.set_mainpath("Main_Page")
        for key, value in {
            "Name": name,
            "Title": title,
            "Language": "eng",
            "Creator": "Mnemolis tests",
            "Publisher": "Mnemolis tests",
            "Description": f"{title} for the kiwix source tests",
            "Date": "2026-01-01",
        }.items():
            creator.add_metadata(key, value)
        for slug, (art_title, body) in articles.items():
            creator.add_item(_Article(slug, art_title, body))
    return path


@dataclass(slots=True)
class KiwixServer:
    """A running kiwix-serve and the book names it serves."""

    url: str
    books: list[str]
    proc: subprocess.Popen[bytes]


def _wait_catalog(url: str, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"kiwix-serve exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/catalog/v2/entries", timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, OSError) as err:
            last = err
        time.sleep(0.1)
    raise TimeoutError(f"kiwix-serve at {url} did not answer within {timeout}s: {last}")


@contextmanager
def running_kiwix(root: Path) -> Iterator[KiwixServer]:
    """kiwix-serve on a free port with freshly written books, stopped on exit."""
    from .conftest import free_port  # imported late: conftest imports this module

    wiki = write_zim(root / "testwiki.zim", "testwiki_en", "Test Wiki", WIKI_ARTICLES)
    cook = write_zim(root / "cookbook.zim", "cookbook_en", "Test Cookbook", COOKING_ARTICLES)
    # Many real ZIMs (small or old ones) ship without a full-text index.
    plain = write_zim(root / "noindex.zim", "noindex_en", "No Index", NOINDEX_ARTICLES, index=False)
    port = free_port()
    log = (root / "kiwix-serve.log").open("wb")
    proc = subprocess.Popen(
        [KIWIX_SERVE, "--address=127.0.0.1", f"--port={port}", str(wiki), str(cook), str(plain)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_catalog(url, proc)
        yield KiwixServer(url=url, books=["testwiki", "cookbook", "noindex"], proc=proc)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()


@pytest.fixture(scope="session")
def kiwix_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KiwixServer]:
    """The shared kiwix-serve with two indexed books and one without an index."""
    with running_kiwix(tmp_path_factory.mktemp("zim")) as server:
        yield server
