"""The CLI and the real server process: version, bad config, start and SIGTERM."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mnemolis import __version__

from .conftest import SERVER_BIN, server_env


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = server_env()
    full.update(env or {})
    return subprocess.run(
        [str(SERVER_BIN), *args], env=full, capture_output=True, text=True, timeout=60
    )


def test_version() -> None:
    out = run_cli("--version")
    assert out.returncode == 0
    assert out.stdout.strip() == f"mnemolis {__version__}"


@pytest.mark.parametrize(
    ("env", "key"),
    [
        ({"MNEMOLIS_PORT": "abc"}, "port"),
        ({"MNEMOLIS_LOG_LEVEL": "shout"}, "log_level"),
        ({"MNEMOLIS_OPTIONS_FILE": "/nonexistent/options.json"}, "options file"),
    ],
)
def test_bad_config_exits_with_one_line(env: dict[str, str], key: str, tmp_path: Path) -> None:
    out = run_cli("serve", "--data-dir", str(tmp_path), env=env)
    assert out.returncode != 0
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, out.stderr
    assert key in lines[0]
    assert "Traceback" not in out.stderr


def test_retired_option_is_one_warning_and_the_server_serves(
    start_server: Callable[..., Any], tmp_path: Path
) -> None:
    """An add-on options.json from before ha.allow_writes was retired still starts the server."""
    options = tmp_path / "options.json"
    options.write_text(json.dumps({"log_level": "info", "ha": {"allow_writes": True}}))
    server = start_server(env={"MNEMOLIS_OPTIONS_FILE": str(options)})
    with urllib.request.urlopen(f"{server.url}/api/health") as resp:
        assert json.load(resp)["status"] == "ok"
    assert server.stop() == 0
    notes = [ln for ln in server.logs().splitlines() if "allow_writes" in ln]
    assert len(notes) == 1, server.logs()
    assert "WARNING" in notes[0] and "ignored" in notes[0]


def test_serve_answers_and_stops_on_sigterm(start_server: Callable[..., Any]) -> None:
    started = time.monotonic()
    server = start_server()
    assert time.monotonic() - started < 10
    with urllib.request.urlopen(f"{server.url}/api/health") as resp:
        assert json.load(resp)["status"] == "ok"
    assert server.stop() == 0


def test_secrets_never_logged(start_server: Callable[..., Any]) -> None:
    server = start_server(env={"MNEMOLIS_API_KEY": "sekrit-key-987", "MNEMOLIS_LOG_LEVEL": "debug"})
    req = urllib.request.Request(
        f"{server.url}/api/sources", headers={"X-API-Key": "sekrit-key-987"}
    )
    with urllib.request.urlopen(req) as resp:
        assert resp.status == 200
    server.stop()
    assert "sekrit-key-987" not in server.logs()


def test_ask_prints_trace(tmp_path: Path) -> None:
    out = run_cli("ask", "hello there", "--source", "web", "--json", "--data-dir", str(tmp_path))
    body = json.loads(out.stdout)
    assert body["sources"][0]["name"] == "web"
    assert body["sources"][0]["status"] == "skipped"
