"""Supervisor discovery against a stub Supervisor speaking its documented API.

The Supervisor cannot run here; the stub answers `/addons/self/info` and
`/discovery` the way the Supervisor's REST API does (`{"result": "ok", "data": …}`).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from mnemolis.discovery import SupervisorDiscovery, start_discovery
from mnemolis.settings import Settings

from .conftest import ServerProcess

TOKEN = "supervisor-token-123"


@dataclass
class StubSupervisor:
    """Records discovery calls; fails the first `fail_posts` announcements."""

    url: str = ""
    fail_posts: int = 0
    info_fails: bool = False
    posts: list[tuple[str, Any]] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)
    posted: asyncio.Event = field(default_factory=asyncio.Event)
    deleted: asyncio.Event = field(default_factory=asyncio.Event)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/addons/self/info", self.info)
        app.router.add_post("/discovery", self.discovery)
        app.router.add_delete("/discovery/{uuid}", self.delete)
        return app

    @staticmethod
    def _authorized(request: web.Request) -> bool:
        return request.headers.get("Authorization") == f"Bearer {TOKEN}"

    async def info(self, request: web.Request) -> web.Response:
        if self.info_fails or not self._authorized(request):
            return web.json_response({"result": "error", "message": "nope"}, status=403)
        return web.json_response(
            {"result": "ok", "data": {"hostname": "a0d7b954-mnemolis", "slug": "a0d7b954_mnemolis"}}
        )

    async def discovery(self, request: web.Request) -> web.Response:
        self.posts.append((request.headers.get("Authorization", ""), await request.json()))
        if not self._authorized(request):
            return web.json_response({"result": "error", "message": "forbidden"}, status=403)
        if self.fail_posts:
            self.fail_posts -= 1
            return web.json_response(
                {"result": "error", "message": "Supervisor is starting"}, status=500
            )
        self.posted.set()
        return web.json_response({"result": "ok", "data": {"uuid": "f1e2d3c4"}})

    async def delete(self, request: web.Request) -> web.Response:
        self.deletes.append(request.match_info["uuid"])
        self.deleted.set()
        return web.json_response({"result": "ok", "data": {}})


@pytest.fixture
async def supervisor() -> AsyncIterator[StubSupervisor]:
    stub = StubSupervisor()
    server = TestServer(stub.app(), host="127.0.0.1")
    await server.start_server()
    stub.url = str(server.make_url("")).rstrip("/")
    yield stub
    await server.close()


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


async def test_server_announces_itself_and_withdraws(
    supervisor: StubSupervisor, start_server: Callable[..., ServerProcess]
) -> None:
    """A real `mnemolis serve` in add-on mode posts its host, port and key, and withdraws."""
    server = await asyncio.to_thread(
        start_server,
        env={
            "SUPERVISOR_TOKEN": TOKEN,
            "SUPERVISOR_URL": supervisor.url,
            "MNEMOLIS_API_KEY": "full-key-for-ha",
        },
    )
    await asyncio.wait_for(supervisor.posted.wait(), 30)
    auth, body = supervisor.posts[-1]
    assert auth == f"Bearer {TOKEN}"
    assert body == {
        "service": "mnemolis",
        "config": {"host": "a0d7b954-mnemolis", "port": server.port, "api_key": "full-key-for-ha"},
    }
    assert TOKEN not in server.logs() and "full-key-for-ha" not in server.logs()

    assert await asyncio.to_thread(server.stop) == 0
    assert supervisor.deletes == ["f1e2d3c4"]


async def test_no_supervisor_no_announcement(
    make_settings: Callable[..., Settings], supervisor: StubSupervisor
) -> None:
    """Outside the add-on (no SUPERVISOR_TOKEN) nothing is posted."""
    from mnemolis.core import Mnemolis

    core = Mnemolis(make_settings())
    await core.start()
    try:
        assert start_discovery(core, environ={"SUPERVISOR_URL": supervisor.url}) is False
        assert core.services.discovery is None
    finally:
        await core.stop()
    assert supervisor.posts == []


async def test_retries_with_backoff(
    make_settings: Callable[..., Settings],
    supervisor: StubSupervisor,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A Supervisor that is still starting: retried until it accepts."""
    supervisor.fail_posts = 2
    async with aiohttp.ClientSession() as session:
        discovery = SupervisorDiscovery(
            make_settings(port=9999),
            session,
            TOKEN,
            supervisor_url=supervisor.url,
            retry_delays=(0.01, 0.01, 0.01),
        )
        with caplog.at_level(logging.INFO, logger="mnemolis.discovery"):
            assert await discovery.announce_with_retries() is True
    assert len(supervisor.posts) == 3
    assert discovery.uuid == "f1e2d3c4"
    assert caplog.text.count("retrying in") == 2
    assert "Supervisor is starting" in caplog.text
    # Without an api_key setting, no key is announced.
    assert supervisor.posts[-1][1]["config"] == {"host": "a0d7b954-mnemolis", "port": 9999}


async def test_gives_up_and_logs_but_never_raises(
    make_settings: Callable[..., Settings], caplog: pytest.LogCaptureFixture
) -> None:
    """No Supervisor at all: an error in the log, no exception."""
    async with aiohttp.ClientSession() as session:
        discovery = SupervisorDiscovery(
            make_settings(),
            session,
            TOKEN,
            supervisor_url=_closed_port_url(),
            retry_delays=(0.01, 0.01),
        )
        with caplog.at_level(logging.WARNING, logger="mnemolis.discovery"):
            assert await discovery.announce_with_retries() is False
    assert "Supervisor discovery failed after 3 attempts" in caplog.text
    await discovery.withdraw()  # nothing announced: nothing to withdraw


async def test_hostname_falls_back_to_container_name(
    make_settings: Callable[..., Settings], supervisor: StubSupervisor
) -> None:
    """When /addons/self/info is refused, the container's hostname is announced."""
    supervisor.info_fails = True
    async with aiohttp.ClientSession() as session:
        discovery = SupervisorDiscovery(
            make_settings(), session, TOKEN, supervisor_url=supervisor.url
        )
        assert await discovery.announce() == "f1e2d3c4"
    assert supervisor.posts[-1][1]["config"]["host"] == socket.gethostname()


async def test_refused_token_is_an_error(
    make_settings: Callable[..., Settings], supervisor: StubSupervisor
) -> None:
    """A wrong token is refused by the Supervisor and reported, not crashed on."""
    async with aiohttp.ClientSession() as session:
        discovery = SupervisorDiscovery(
            make_settings(), session, "wrong", supervisor_url=supervisor.url, retry_delays=()
        )
        assert await discovery.announce_with_retries() is False


async def test_server_keeps_serving_without_supervisor(
    start_server: Callable[..., ServerProcess], http: aiohttp.ClientSession
) -> None:
    """The add-on keeps serving while the Supervisor cannot be reached."""
    server = start_server(env={"SUPERVISOR_TOKEN": TOKEN, "SUPERVISOR_URL": _closed_port_url()})
    async with http.get(f"{server.url}/api/health") as resp:
        assert resp.status == 200
    await asyncio.sleep(1.5)  # at least one failed attempt and a retry
    async with http.get(f"{server.url}/api/health") as resp:
        assert resp.status == 200
    assert "Supervisor discovery failed" in server.logs()
    assert TOKEN not in server.logs()
