"""Per-file limits: a huge file is indexed up to a cap, reported as cut, and never holds
the indexing worker past a shutdown (issue 15, PDFs and the SIGTERM that never exited)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from mnemolis.settings import load_settings

from .conftest import SERVER_BIN, ServerProcess
from .knowledge_helpers import store_of, text_pdf

Client = Callable[..., Any]


async def test_files_over_a_limit_are_indexed_up_to_it_and_reported(
    make_client: Client, tmp_path: Path
) -> None:
    roots = tmp_path / "roots"
    docs = roots / "house"
    docs.mkdir(parents=True)
    (docs / "manual.pdf").write_bytes(text_pdf(120, "boiler manual page", fanout=16))
    log = ("The heat pump ran fine. " * 200) + "\n\nfinalword at the end.\n"
    (docs / "log.txt").write_text(log)
    (docs / "many.md").write_text("".join(f"# Part {n}\n\nsection{n} text.\n\n" for n in range(40)))
    (docs / "small.md").write_text("# Bins\n\nThe bins go out on Tuesday.\n")
    client = await make_client(
        rag={
            "roots": [str(roots)],
            "watch": False,
            "max_pdf_pages": 20,
            "max_file_chars": 2000,
            "max_file_chunks": 25,
        }
    )
    resp = await client.post("/api/rag", json={"name": "house", "path": str(docs)})
    assert resp.status == 201
    store = store_of(client)
    await store.wait_idle()
    status = await (await client.get("/api/rag/house")).json()
    assert status["files_indexed"] == 4 and status["files_failed"] == 0, status
    assert status["files_cut"] == 3, status
    reasons = {c["path"]: c["reason"] for c in status["cut"]}
    assert reasons["manual.pdf"] == (
        "PDF has 120 pages; only the first 20 are indexed (rag.max_pdf_pages)"
    )
    assert "rag.max_file_chars" in reasons["log.txt"] and "2000" in reasons["log.txt"]
    assert reasons["many.md"] == "40 chunks; only the first 25 are indexed (rag.max_file_chunks)"

    async def found(q: str) -> dict[str, Any]:
        resp = await client.post("/api/rag/house/search", json={"q": q, "mode": "keyword"})
        assert resp.status == 200
        result: dict[str, Any] = await resp.json()
        return result

    def pages(result: dict[str, Any]) -> list[str]:
        return [
            m["content"]
            for groups in result.values()
            for g in groups
            if g["source"].endswith("manual.pdf")
            for m in g["matches"]
        ]

    assert pages(await found("20")) == ["boiler manual page 20"]
    assert pages(await found("21")) == []
    assert await found("finalword") == {}
    assert await found("section24") != {} and await found("section25") == {}
    assert await found("Tuesday") != {}
    # A file brought under the limits is no longer listed as cut.
    (docs / "many.md").write_text("# Part\n\nshort now.\n")
    await store.reindex("house")
    status = await (await client.get("/api/rag/house")).json()
    assert sorted(c["path"] for c in status["cut"]) == ["log.txt", "manual.pdf"]


def test_limits_are_settings_with_bounds() -> None:
    settings = load_settings(environ={"MNEMOLIS_RAG__MAX_PDF_PAGES": "300"})
    assert settings.rag.max_pdf_pages == 300
    assert settings.rag.max_file_chars == 10_000_000 and settings.rag.max_file_chunks == 20_000
    from mnemolis.errors import ConfigError

    with pytest.raises(ConfigError, match=r"rag\.max_pdf_pages"):
        load_settings(environ={"MNEMOLIS_RAG__MAX_PDF_PAGES": "0"})


async def test_sigterm_exits_while_a_huge_pdf_is_indexing(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    """100,000 pages, with the page cap lifted: minutes of work; SIGTERM still exits at once."""
    roots = tmp_path / "roots"
    docs = roots / "house"
    docs.mkdir(parents=True)
    (docs / "huge.pdf").write_bytes(text_pdf(100_000))
    env = {
        "MNEMOLIS_RAG__ROOTS": json.dumps([str(roots)]),
        "MNEMOLIS_RAG__MAX_PDF_PAGES": "1000000",
    }
    server = start_server("--data-dir", str(tmp_path / "data"), env=env)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        resp = await http.post(f"{server.url}/api/rag", json={"name": "house", "path": str(docs)})
        assert resp.status == 201, await resp.text()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            status = await (await http.get(f"{server.url}/api/rag/house")).json()
            if status.get("indexing"):
                break
            await asyncio.sleep(0.2)
        assert status.get("indexing"), status
        await asyncio.sleep(3)  # well inside the file
        # The server still answers while the worker is busy.
        assert (await http.get(f"{server.url}/api/health")).status == 200
    server.proc.send_signal(signal.SIGTERM)
    try:
        code = await asyncio.to_thread(server.proc.wait, 30)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        raise AssertionError("SIGTERM did not end the server within 30 s") from None
    assert code == 0, server.logs()[-3000:]
    assert "Traceback" not in server.logs()
    # Nothing half-written: the next start opens the database cleanly.
    import sqlite3

    conn = sqlite3.connect(tmp_path / "data" / "rag" / "house" / "data.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def test_rag_add_names_the_cut_files(tmp_path: Path) -> None:
    """``mnemolis rag add`` (and ``rag list``) print which file was cut and why."""
    roots = tmp_path / "roots"
    docs = roots / "house"
    docs.mkdir(parents=True)
    (docs / "manual.pdf").write_bytes(text_pdf(30, "boiler manual page"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOLIS_")}
    env["MNEMOLIS_RAG__ROOTS"] = json.dumps([str(roots)])
    env["MNEMOLIS_RAG__MAX_PDF_PAGES"] = "10"
    out = subprocess.run(
        [str(SERVER_BIN), "rag", "add", "house", str(docs), "--data-dir", str(tmp_path / "data")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    expected = (
        "cut: manual.pdf: PDF has 30 pages; only the first 10 are indexed (rag.max_pdf_pages)"
    )
    assert expected in out.stdout, out.stdout
