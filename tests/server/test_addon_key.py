"""The add-on is never open on the LAN: a key is made on first start, kept, shown and discovered.

Real `mnemolis serve` processes in add-on mode (MNEMOLIS_ADDON=true, as the s6
run script sets it) against a stub Supervisor speaking its discovery API.
"""

from __future__ import annotations

import asyncio
import json
import stat
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from mnemolis.settings import GENERATED_KEY_FILE, apply_generated_api_key, load_settings

from .conftest import ServerProcess

TOKEN = "supervisor-token-abc"


class Supervisor:
    """Answers /addons/self/info and records POST /discovery bodies."""

    def __init__(self) -> None:
        self.url = ""
        self.posts: list[dict[str, Any]] = []
        self.posted = asyncio.Event()

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/addons/self/info", self.info)
        app.router.add_post("/discovery", self.discovery)
        app.router.add_delete("/discovery/{uuid}", self.delete)
        return app

    async def info(self, request: web.Request) -> web.Response:
        return web.json_response({"result": "ok", "data": {"hostname": "a0d7b954-mnemolis"}})

    async def discovery(self, request: web.Request) -> web.Response:
        assert request.headers.get("Authorization") == f"Bearer {TOKEN}"
        self.posts.append(await request.json())
        self.posted.set()
        return web.json_response({"result": "ok", "data": {"uuid": "u1"}})

    async def delete(self, request: web.Request) -> web.Response:
        return web.json_response({"result": "ok", "data": {}})


@pytest.fixture
async def supervisor() -> AsyncIterator[Supervisor]:
    stub = Supervisor()
    server = TestServer(stub.app(), host="127.0.0.1")
    await server.start_server()
    stub.url = str(server.make_url("")).rstrip("/")
    yield stub
    await server.close()


def status_of(server: ServerProcess, path: str, key: str | None = None) -> int:
    req = urllib.request.Request(server.url + path)
    if key:
        req.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return err.code


def addon_env(supervisor: Supervisor, **extra: str) -> dict[str, str]:
    return {
        "MNEMOLIS_ADDON": "true",
        "SUPERVISOR_TOKEN": TOKEN,
        "SUPERVISOR_URL": supervisor.url,
        **extra,
    }


async def test_first_start_makes_a_key_that_guards_the_port_and_reaches_ha(
    supervisor: Supervisor, start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    server = await asyncio.to_thread(
        start_server, "--data-dir", str(data), env=addon_env(supervisor)
    )
    key_file = data / GENERATED_KEY_FILE
    key = key_file.read_text().strip()
    assert len(key) >= 43  # 32 random bytes, URL-safe base64
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600

    # The port is guarded by it.
    assert await asyncio.to_thread(status_of, server, "/api/health") == 200
    assert await asyncio.to_thread(status_of, server, "/api/stats") == 401
    assert await asyncio.to_thread(status_of, server, "/api/stats", "wrong-key") == 401
    assert await asyncio.to_thread(status_of, server, "/api/stats", key) == 200

    # Home Assistant receives it through discovery: zero-click set-up.
    await asyncio.wait_for(supervisor.posted.wait(), 30)
    assert supervisor.posts[-1]["config"]["api_key"] == key

    # Shown once, clearly, in the add-on log; no other log line leaks it.
    logs = server.logs()
    assert logs.count(key) == 1
    assert f"kept in {key_file}" in logs
    assert await asyncio.to_thread(server.stop) == 0

    # Restart: the same key (the integration keeps working).
    again = await asyncio.to_thread(
        start_server, "--data-dir", str(data), env=addon_env(supervisor)
    )
    assert key_file.read_text().strip() == key
    assert await asyncio.to_thread(status_of, again, "/api/stats", key) == 200
    assert again.logs().count(key) == 1


async def test_a_key_of_ones_own_wins_and_is_not_printed(
    supervisor: Supervisor, start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    options = tmp_path / "options.json"
    options.write_text(json.dumps({"api_key": "my-own-key-of-enough-length-1234"}))
    env = addon_env(supervisor, MNEMOLIS_OPTIONS_FILE=str(options))
    server = await asyncio.to_thread(start_server, "--data-dir", str(data), env=env)
    assert not (data / GENERATED_KEY_FILE).exists()
    assert await asyncio.to_thread(status_of, server, "/api/stats") == 401
    assert (
        await asyncio.to_thread(status_of, server, "/api/stats", "my-own-key-of-enough-length-1234")
        == 200
    )
    await asyncio.wait_for(supervisor.posted.wait(), 30)
    assert supervisor.posts[-1]["config"]["api_key"] == "my-own-key-of-enough-length-1234"
    assert "my-own-key-of-enough-length-1234" not in server.logs()


async def test_outside_the_addon_nothing_changes(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    """Plain `mnemolis serve`: no key unless one is set, and no key file."""
    data = tmp_path / "data"
    server = await asyncio.to_thread(start_server, "--data-dir", str(data))
    assert await asyncio.to_thread(status_of, server, "/api/stats") == 200
    assert not (data / GENERATED_KEY_FILE).exists()
    logs = server.logs()
    assert "made on first start" not in logs
    # The start-up summary says plainly that the server is open.
    assert "no API key set" in logs


def test_key_file_that_cannot_be_written_is_a_clear_error(tmp_path: Path) -> None:
    from mnemolis.errors import ConfigError

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    settings = load_settings(
        environ={"MNEMOLIS_ADDON": "true"}, overrides={"data_dir": str(blocker)}
    )
    with pytest.raises(ConfigError, match="API key file .*cannot write"):
        apply_generated_api_key(settings)


def test_short_or_empty_key_file_is_replaced(tmp_path: Path) -> None:
    (tmp_path / GENERATED_KEY_FILE).write_text("\n")
    settings = load_settings(
        environ={"MNEMOLIS_ADDON": "true"}, overrides={"data_dir": str(tmp_path)}
    )
    assert apply_generated_api_key(settings) == tmp_path / GENERATED_KEY_FILE
    assert settings.api_key is not None
    assert len(settings.api_key.get_secret_value()) >= 43
    assert (
        tmp_path / GENERATED_KEY_FILE
    ).read_text().strip() == settings.api_key.get_secret_value()
