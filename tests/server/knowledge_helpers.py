"""Helpers shared by the knowledge-store tests: folders, polling and the core behind a client."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from mnemolis.core import Mnemolis
from mnemolis.errors import Unavailable
from mnemolis.knowledge.store import KnowledgeStore
from mnemolis.knowledge.vectors import HashingEmbedder
from mnemolis.rest import keys


def core_of(client: Any) -> Mnemolis:
    """The service layer behind an in-process test client."""
    core: Mnemolis = client.server.app[keys.CORE]
    return core


class StandInModel:
    """An embedding model that is not the fallback: its own name, hashing's vectors, and
    a switch that makes it unavailable (a model that went away)."""

    name = "test-model"
    dim = 64

    def __init__(self) -> None:
        self._words = HashingEmbedder(self.dim)
        self.gone = False

    async def embed(self, texts: list[str]) -> list[Any]:
        if self.gone:
            raise Unavailable("the embedding model is not running")
        return self._words.embed_sync(texts)


def store_of(client: Any) -> KnowledgeStore:
    """The knowledge store the running app opened."""
    store = core_of(client).services.knowledge
    assert isinstance(store, KnowledgeStore)
    return store


# One household's plain-text notes and warranty record, as the household tests ask them.
HOUSE_NOTES = """House notes - 14 Elm Road

Wifi
Network: Meadowlark
Password: tulip-harbour-42

Bins
The general waste (black bin) is collected every Tuesday morning.
Recycling (blue bin) goes out every other Friday.
Garden waste (green bin) is collected on the first Monday of the month.

Water
The main stopcock is under the kitchen sink, behind the bleach.

Electricity
The fuse box is in the garage, left of the door.
The electricity meter is in the cupboard under the stairs.

Neighbours
Ruth at number 12 has a spare set of car keys and feeds the cat when we are away.
"""

WARRANTY = """WARRANTY RECORD

Appliance: Bosch Serie 4 dishwasher, model SMS4HVI33G
Serial number: FD 0123 456789
Bought: 14 March 2023 at Currys, Leeds

Cover
Two years of guarantee, extended to five years by registering the dishwasher online.
The warranty runs out on 14 March 2028.

Claims
To make a claim, call Bosch customer service on 0344 892 8979 and quote the serial number.
Repairs under warranty are free; the engineer needs access to the back of the machine.
"""


def write_docs(folder: Path) -> Path:
    """A small household folder: Markdown, HTML and plain text."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "garden.md").write_text(
        "# Garden\n\n## Watering\n\nWater the tomatoes every morning in July.\n\n"
        "## Pruning\n\nPrune the roses in March, just above an outward bud.\n",
        encoding="utf-8",
    )
    (folder / "boiler.html").write_text(
        "<html><head><title>Boiler</title><script>var hidden = 'scriptword';</script></head>"
        "<body><h1>Boiler manual</h1><p>Reset the boiler by holding the red button for five "
        "seconds.</p><h2>Pressure</h2><p>Keep the pressure gauge between 1 and 1.5 bar.</p>"
        "</body></html>",
        encoding="utf-8",
    )
    sub = folder / "notes"
    sub.mkdir(exist_ok=True)
    (sub / "wifi.txt").write_text(
        "The guest wifi network is called Meadowlark.\n\n"
        "The router sits in the hallway cupboard.\n",
        encoding="utf-8",
    )
    return folder


async def wait_for(
    check: Callable[[], Awaitable[bool]], timeout: float = 15.0, what: str = "condition"
) -> None:
    """Poll ``check`` until it is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{what} not reached within {timeout} s")


def sources_of(result: dict[str, Any]) -> list[str]:
    """File names in a search_rag result, in order."""
    return [Path(group["source"]).name for groups in result.values() for group in groups]


def text_pdf(pages: int, words: str = "boiler pressure page", fanout: int = 0) -> bytes:
    """A real PDF of ``pages`` pages, each one line "WORDS N", written directly.

    Fast enough for 100,000 pages (pypdf's writer is not). ``fanout`` > 0 puts
    the pages under intermediate ``/Pages`` nodes of that many kids each, as
    large real documents do; 0 keeps one flat ``/Kids`` array.
    """
    import io

    out = io.BytesIO()
    offsets: dict[int, int] = {}

    def obj(n: int, body: bytes) -> None:
        offsets[n] = out.tell()
        out.write(b"%d 0 obj\n" % n + body + b"\nendobj\n")

    out.write(b"%PDF-1.4\n")
    first = 4  # 1 catalog, 2 root /Pages, 3 font; then page and content objects
    page_ids = [first + 2 * i for i in range(pages)]
    nxt = first + 2 * pages
    parents: dict[int, int] = {}
    if fanout and pages > fanout:
        groups = [page_ids[i : i + fanout] for i in range(0, pages, fanout)]
        group_ids = list(range(nxt, nxt + len(groups)))
        nxt += len(groups)
        for gid, members in zip(group_ids, groups, strict=True):
            kids = b" ".join(b"%d 0 R" % m for m in members)
            node = b"<< /Type /Pages /Parent 2 0 R /Kids [%s] /Count %d >>"
            obj(gid, node % (kids, len(members)))
            parents.update(dict.fromkeys(members, gid))
        root_kids = group_ids
    else:
        root_kids = page_ids
    obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = b" ".join(b"%d 0 R" % k for k in root_kids)
    obj(2, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages))
    obj(3, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, pid in enumerate(page_ids):
        stream = b"BT /F1 12 Tf 72 720 Td (%s %d) Tj ET" % (words.encode("latin-1"), i + 1)
        obj(
            pid,
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>"
            % (parents.get(pid, 2), pid + 1),
        )
        obj(pid + 1, b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % nxt)
    for n in range(1, nxt):
        out.write(b"%010d 00000 n \n" % offsets[n])
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (nxt, xref))
    return out.getvalue()


def make_pdf_lines(pages: list[list[str]]) -> bytes:
    """A real PDF with several text lines per page (Helvetica, 14 pt leading)."""
    writer = PdfWriter()
    for lines in pages:
        page = writer.add_blank_page(width=612, height=792)
        font = DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        stream = DecodedStreamObject()
        body = " ".join(f"({line}) Tj T*" for line in lines)
        stream.set_data(f"BT /F1 11 Tf 14 TL 72 720 Td {body} ET".encode("latin-1"))
        page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def household_folder(root: Path, files: dict[str, str | bytes]) -> Path:
    """``root``/household holding these files (text, or bytes as a PDF's)."""
    folder = root / "household"
    folder.mkdir(parents=True)
    for name, text in files.items():
        if isinstance(text, bytes):
            (folder / name).write_bytes(text)
        else:
            (folder / name).write_text(text, encoding="utf-8")
    return folder


async def household_client(
    make_client: Callable[..., Any], root: Path, files: dict[str, str | bytes], **overrides: Any
) -> Any:
    """A server with these files (text, or bytes as a PDF's) registered as the "household"
    database (and the bundled docs); ``overrides`` are settings (``llm=`` for the
    embedding model)."""
    folder = household_folder(root, files)
    client = await make_client(rag={"roots": [str(root)], "watch": False}, **overrides)
    resp = await client.post("/api/rag", json={"name": "household", "path": str(folder)})
    assert resp.status == 201, await resp.text()
    await store_of(client).wait_idle()
    return client


async def model_household_client(
    make_client: Callable[..., Any],
    tmp_path: Path,
    embedding_model: Path,
    files: dict[str, str | bytes],
) -> Any:
    """These files searched as "household" with the real embedding model (as by default),
    once every passage is embedded; the bundled docs left out (embedding them takes
    minutes)."""
    folder = household_folder(tmp_path / "roots", files)
    client = await make_client(
        rag={"roots": [str(tmp_path / "roots")], "watch": False},
        llm={"embedding_model": str(embedding_model)},
        routing={"source_timeout": 120, "deadline": 240},  # a busy machine is no failure here
    )
    assert (await client.delete("/api/rag/mnemolis-docs")).status == 200
    resp = await client.post("/api/rag", json={"name": "household", "path": str(folder)})
    assert resp.status == 201
    store, core = store_of(client), core_of(client)

    async def embedded() -> bool:
        if core.services.embedder is None:
            return False
        await store.search_rag("household", "plumber", 1, "semantic")  # re-embeds
        await store.wait_idle()
        status = await store.status("household")
        emb = status["embedder"]
        return bool(
            emb["name"] == core.services.embedder.name and emb["vectors"] == status["chunks"]
        )

    await wait_for(embedded, 180, "household embedded with the model")
    return client


async def notes_client(
    make_client: Callable[..., Any], tmp_path: Path, files: dict[str, str | bytes]
) -> Any:
    """A server with the house notes, the warranty record and these files (which may
    replace them) registered as "household"."""
    notes = {"house-notes.txt": HOUSE_NOTES, "dishwasher-warranty.txt": WARRANTY}
    return await household_client(make_client, tmp_path / "roots", notes | files)


async def ask(client: Any, question: str) -> dict[str, Any]:
    """POST /search with the question; the answer's JSON body (200 asserted)."""
    resp = await client.post("/search", json={"query": question})
    body: dict[str, Any] = await resp.json()
    assert resp.status == 200, body
    return body
