"""A full disk under the data folder: writes say so (507, naming the folder), never a 500.

The data folder lives on a real 24 MB tmpfs, filled to the last byte; needs root
(mount), as in the CI container and the add-on's own tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from .conftest import ServerProcess


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 24 MB tmpfs, unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(folder: Path) -> None:
    """Write until the disk refuses another byte."""
    fd = os.open(folder / "filler.bin", os.O_WRONLY | os.O_CREAT)
    try:
        for size in (1 << 20, 4096, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)


async def test_writes_on_a_full_disk_are_507_naming_the_folder(
    start_server: Callable[..., ServerProcess], small_disk: Path
) -> None:
    data = small_disk / "data"
    server = start_server("--data-dir", str(data))
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        first = await http.post(f"{server.url}/api/memories", json={"content": "Bins: Tuesday"})
        assert first.status in (200, 201), await first.text()
        fill(small_disk)
        statuses: list[int] = []
        body: Any = None
        for n in range(40):  # until SQLite has to grow the file
            resp = await http.post(
                f"{server.url}/api/memories", json={"content": f"note {n} " + "x" * 19_000}
            )
            statuses.append(resp.status)
            body = await resp.json()
            if resp.status >= 500:
                break
        assert statuses[-1] == 507, (statuses, body)
        assert body["error"]["code"] == "unavailable"
        message = body["error"]["message"]
        assert "disk" in message and "full" in message and str(data) in message, message
        # Reads keep working, and the server is alive.
        listed = await http.get(f"{server.url}/api/memories")
        assert listed.status == 200
        assert (await http.get(f"{server.url}/api/health")).status == 200
        (small_disk / "filler.bin").unlink()
        again = await http.post(f"{server.url}/api/memories", json={"content": "Bins: Friday"})
        assert again.status in (200, 201), await again.text()
    assert "Traceback" not in server.logs()


async def test_a_database_that_failed_to_open_on_a_full_disk_opens_once_there_is_room(
    start_server: Callable[..., ServerProcess], small_disk: Path, tmp_path: Path
) -> None:
    """No manual reindex: the server tries again by itself and catches the index up."""
    import json
    import shutil

    roots = tmp_path / "roots"
    docs = roots / "house"
    docs.mkdir(parents=True)
    (docs / "bins.md").write_text("# Bins\n\nThe bins go out on Tuesday.\n")
    data = small_disk / "data"
    env = {"MNEMOLIS_RAG__ROOTS": json.dumps([str(roots)])}
    server = start_server("--data-dir", str(data), env=env)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        resp = await http.post(f"{server.url}/api/rag", json={"name": "house", "path": str(docs)})
        assert resp.status == 201, await resp.text()
    assert server.stop() == 0
    # The index is gone (deleted, or never built) and the disk is full at the next start.
    shutil.rmtree(data / "rag" / "house")
    fill(small_disk)
    server = start_server("--data-dir", str(data), env=env)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        status = await (await http.get(f"{server.url}/api/rag/house")).json()
        assert status["loaded"] is False and "full" in status["error"], status
        ready = await (await http.get(f"{server.url}/api/health/readiness")).json()
        knowledge = ready["components"]["knowledge"]
        assert knowledge["status"] == "degraded" and "house" in knowledge["detail"], ready
        resp = await http.post(f"{server.url}/api/rag/house/search", json={"q": "bins"})
        assert resp.status == 503, await resp.text()
        (small_disk / "filler.bin").unlink()
        found: Any = None
        for _ in range(150):  # retried with a back-off of 5 s doubling to 60 s
            resp = await http.post(
                f"{server.url}/api/rag/house/search", json={"q": "bins", "mode": "keyword"}
            )
            if resp.status == 200 and (found := await resp.json()):
                break
            await asyncio.sleep(0.2)
        assert found and found["keyword"][0]["source"].endswith("bins.md"), found
        # The memory store, which could not open either, is back too.
        for _ in range(150):
            resp = await http.post(f"{server.url}/api/memories", json={"content": "Bins: Tue"})
            if resp.status != 503:
                break
            await asyncio.sleep(0.2)
        assert resp.status == 201, await resp.text()
        ready = await (await http.get(f"{server.url}/api/health/readiness")).json()
        assert ready["components"]["knowledge"]["status"] == "ok", ready
    assert "Traceback" not in server.logs()
