"""The MCP SDK is loaded by the first MCP request, not at start (issue 30)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS

from mnemolis.mcp.identity import PROTOCOL_VERSIONS

SRC = Path(__file__).resolve().parents[2] / "addon" / "src"

# A fresh interpreter: build the app (as `mnemolis serve` does), answer a REST
# question, then one MCP request; print whether the SDK was imported at each step.
SCRIPT = """
import asyncio, json, sys, tempfile
from aiohttp.test_utils import TestClient, TestServer
from mnemolis.app import create_app
from mnemolis.settings import load_settings

async def main():
    data = tempfile.mkdtemp()
    settings = load_settings(environ={}, overrides={
        "data_dir": data, "llm": {"embedding_model": "off"}, "rag": {"watch": False}})
    client = TestClient(TestServer(create_app(settings)))
    await client.start_server()
    try:
        steps = {"built": "mcp" in sys.modules}
        resp = await client.get("/api/health")
        steps["rest"] = resp.status == 200 and "mcp" not in sys.modules
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}
        resp = await client.post("/mcp", json=init,
            headers={"Accept": "application/json, text/event-stream"})
        body = await resp.text()
        steps["mcp"] = resp.status == 200 and "mcp" in sys.modules and "mnemolis" in body
    finally:
        await client.close()
    print(json.dumps(steps))

asyncio.run(main())
"""


def test_the_sdk_loads_with_the_first_mcp_request_not_at_start() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == '{"built": false, "rest": true, "mcp": true}'


def test_protocol_versions_are_the_sdks() -> None:
    assert list(PROTOCOL_VERSIONS) == list(SUPPORTED_PROTOCOL_VERSIONS)
