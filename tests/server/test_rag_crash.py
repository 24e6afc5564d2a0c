"""kill -9 during indexing, then a clean restart: the index opens, deleted files never return."""

from __future__ import annotations

import json
import sqlite3
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def call(url: str, method: str = "GET", body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def poll(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what} not reached within {timeout} s")


def make_corpus(folder: Path, files: int) -> None:
    """Files with a unique marker word each and enough text for many chunks."""
    folder.mkdir(parents=True)
    filler = " ".join(f"word{i % 97}" for i in range(180))
    for n in range(files):
        paragraphs = [f"Paragraph {p} of document {n}. {filler}." for p in range(12)]
        (folder / f"doc{n:04d}.md").write_text(
            f"# Document {n}\n\nmarker{n:04d} is the unique word.\n\n" + "\n\n".join(paragraphs)
        )


@pytest.mark.slow
def test_kill_during_indexing_then_restart(
    start_server: Callable[..., Any], tmp_path: Path
) -> None:
    roots = tmp_path / "roots"
    corpus = roots / "big"
    make_corpus(corpus, 600)
    data_dir = tmp_path / "data"
    env = {"MNEMOLIS_RAG__ROOTS": json.dumps([str(roots)])}
    server = start_server("--data-dir", str(data_dir), env=env)
    status, body = call(f"{server.url}/api/rag", "POST", {"name": "big", "path": str(corpus)})
    assert status == 201, body

    def some_indexed() -> bool:
        return call(f"{server.url}/api/rag/big")[1]["files_indexed"] >= 20

    poll(some_indexed, 60, "indexing under way")
    status, body = call(f"{server.url}/api/memories", "POST", {"content": "acknowledged write"})
    assert status == 201
    memory_id = body["id"]
    progress = call(f"{server.url}/api/rag/big")[1]
    server.proc.kill()  # SIGKILL, mid-indexing
    server.proc.wait(10)
    assert progress["files_indexed"] < 600, "indexing finished before the kill; grow the corpus"

    # While down: delete files that were indexed (doc0000…) and some that were not yet.
    deleted = [0, 1, 2, 3, 4, 598, 599]
    for n in deleted:
        (corpus / f"doc{n:04d}.md").unlink()

    restarted = start_server("--data-dir", str(data_dir), env=env)
    status, listing = call(f"{restarted.url}/api/list")
    assert status == 200 and "big" in listing["loaded"]
    # Right away (the catch-up scan may still run): no chunk of a deleted file.
    for n in deleted:
        status, found = call(
            f"{restarted.url}/api/rag/big/search",
            "POST",
            {"q": f"marker{n:04d}", "mode": "keyword"},
        )
        assert status == 200 and found == {}, (n, found)
    status, kept = call(
        f"{restarted.url}/api/rag/big/search", "POST", {"q": "marker0005", "mode": "keyword"}
    )
    assert kept and kept["keyword"][0]["source"].endswith("doc0005.md")
    # The acknowledged memory survived the kill.
    status, memory = call(f"{restarted.url}/api/memories/{memory_id}")
    assert status == 200 and memory["content"] == "acknowledged write"

    def resumed() -> bool:
        st = call(f"{restarted.url}/api/rag/big")[1]
        return st["files_indexed"] == 600 - len(deleted) and not st["indexing"]

    poll(resumed, 240, "indexing resumed and finished")
    status, late = call(
        f"{restarted.url}/api/rag/big/search", "POST", {"q": "marker0597", "mode": "keyword"}
    )
    assert late["keyword"][0]["source"].endswith("doc0597.md")
    assert restarted.stop() == 0
    conn = sqlite3.connect(data_dir / "rag" / "big" / "data.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")
        paths = {p for (p,) in conn.execute("SELECT path FROM files")}
        assert paths == {f"doc{n:04d}.md" for n in range(600) if n not in deleted}
        orphans = conn.execute(
            "SELECT count(*) FROM chunks WHERE file_id NOT IN (SELECT id FROM files)"
        ).fetchone()[0]
        assert orphans == 0
    finally:
        conn.close()
