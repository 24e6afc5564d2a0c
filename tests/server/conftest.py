"""Shared fixtures for server tests: settings, an in-process app, a real server process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

from mnemolis.app import create_app
from mnemolis.settings import Settings, load_settings

from .hass_fixture import hass_core  # noqa: F401  (fixture: real Home Assistant core)
from .model_fixture import chat_model, embedding_model, models_folder  # noqa: F401  (real GGUFs)
from .zim_fixture import kiwix_server  # noqa: F401  (fixture: real kiwix-serve)

REPO = Path(__file__).resolve().parents[2]
SERVER_BIN = Path(sys.executable).parent / "mnemolis"
# The default (converting and loading all-MiniLM-L6-v2, then embedding every
# database in the background) costs seconds of CPU per server; tests that do not
# ask for the model (the ``embedding_model`` fixture) run without it.
NO_EMBEDDING_MODEL = {"embedding_model": "off"}
NO_EMBEDDING_ENV = {"MNEMOLIS_LLM__EMBEDDING_MODEL": "off"}


def server_env() -> dict[str, str]:
    """The environment of a Mnemolis process: the host's without MNEMOLIS_*, no model."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOLIS_")}
    env.update(NO_EMBEDDING_ENV)
    return env


@pytest.fixture
def make_settings(tmp_path: Path) -> Callable[..., Settings]:
    """Settings isolated from the host: temp data dir, no env, no options file."""

    def factory(**overrides: Any) -> Settings:
        data = {"data_dir": str(tmp_path / "data"), **overrides}
        data["llm"] = {**NO_EMBEDDING_MODEL, **data.get("llm", {})}
        return load_settings(environ={}, overrides=data)

    return factory


@pytest.fixture
async def make_client(
    make_settings: Callable[..., Settings],
) -> AsyncIterator[Callable[..., Any]]:
    """Start the real aiohttp app in-process and hand out a test client."""
    clients: list[TestClient[Any, Any]] = []

    async def factory(**overrides: Any) -> TestClient[Any, Any]:
        app = create_app(make_settings(**overrides))
        client: TestClient[Any, Any] = TestClient(TestServer(app))
        await client.start_server()
        clients.append(client)
        return client

    yield factory
    for client in clients:
        await client.close()


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """A real ``mnemolis serve`` process on a free port."""

    def __init__(self, proc: subprocess.Popen[str], port: int, log: Path) -> None:
        self.proc = proc
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.log = log

    def logs(self) -> str:
        """Everything the server wrote to stderr/stdout so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> int:
        """SIGTERM and wait; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return self.proc.returncode


def wait_http(url: str, timeout: float = 60.0) -> None:
    """Poll a URL until it answers (any status) or fail."""
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError as err:
            last = err
            time.sleep(0.1)
    raise TimeoutError(f"{url} did not answer within {timeout}s: {last}")


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start real server processes with extra env/args; all stopped afterwards."""
    procs: list[ServerProcess] = []

    def factory(*args: str, env: dict[str, str] | None = None, wait: bool = True) -> ServerProcess:
        port = free_port()
        log = tmp_path / f"server-{port}.log"
        full_env = server_env()
        full_env.update(env or {})
        cmd = [str(SERVER_BIN), "serve", "--port", str(port), "--host", "127.0.0.1"]
        if "--data-dir" not in args:
            cmd += ["--data-dir", str(tmp_path / f"data-{port}")]
        with log.open("w") as fh:
            proc = subprocess.Popen(
                [*cmd, *args], env=full_env, stdout=fh, stderr=subprocess.STDOUT, text=True
            )
        server = ServerProcess(proc, port, log)
        procs.append(server)
        if wait:
            try:
                wait_http(f"{server.url}/api/health")
            except TimeoutError:
                server.stop()
                raise AssertionError(f"server did not start:\n{server.logs()}") from None
        return server

    yield factory
    for p in procs:
        p.stop()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    """A plain HTTP client for talking to real server processes."""
    async with aiohttp.ClientSession() as session:
        yield session


# Last: the MCP client fixture uses SERVER_BIN, ServerProcess and server_env above.
from .mcp_client_fixture import connect  # noqa: E402, F401  (fixture: official MCP client)
