"""HA 2025.4's MCP client side against a real `mnemolis serve` process.

Two consumers that ship with Home Assistant 2025.4: the `mcp==1.5.0` SDK
client it pins (legacy HTTP+SSE, protocol 2024-11-05), and HA's own `mcp`
integration (config flow with the SSE URL, tools exposed as an LLM API).
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import llm
from mcp import ClientSession
from mcp.client.sse import sse_client

REPO = Path(__file__).resolve().parents[2]


def _server_bin() -> Path:
    venv = os.environ.get("MNEMOLIS_SERVER_VENV") or str(REPO / ".venv" / "server")
    return Path(venv) / "bin" / "mnemolis"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def mnemolis_url(socket_enabled: None, tmp_path: Path) -> Iterator[str]:
    """A real Mnemolis server from the server venv, on a free loopback port."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOLIS_")}
    env["MNEMOLIS_LLM__EMBEDDING_MODEL"] = "off"  # the default model is not what is tested
    log = (tmp_path / "mnemolis.log").open("w")
    proc = subprocess.Popen(
        [
            str(_server_bin()),
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--data-dir",
            str(tmp_path / "data"),
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/health", timeout=2):
                    break
            except (urllib.error.URLError, OSError):
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise AssertionError(
                        "mnemolis did not start:\n" + (tmp_path / "mnemolis.log").read_text()
                    ) from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()


async def test_mcp_1_5_client_over_sse(mnemolis_url: str) -> None:
    """The SDK client HA pins speaks to Mnemolis over the legacy SSE transport."""
    async with (
        sse_client(f"{mnemolis_url}/mcp/sse") as streams,
        ClientSession(*streams) as session,
    ):
        init = await session.initialize()
        assert init.protocolVersion == "2024-11-05"
        assert init.serverInfo.name == "mnemolis"
        assert init.instructions is not None and "search" in init.instructions

        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert {"search", "docs"} <= set(tools)
        assert tools["search"].inputSchema["required"] == ["query"]

        docs = await session.call_tool("docs", {"page": "mcp"})
        assert docs.isError is False
        assert "### `search`" in docs.content[0].text  # type: ignore[union-attr]

        answer = await session.call_tool("search", {"query": "what is on the news today?"})
        # 1.5.0 predates structuredContent; the field still arrives as an extra.
        structured = (answer.model_extra or {}).get("structuredContent")
        assert structured is not None
        assert {"source_used", "fallback", "sources", "citations"} <= set(structured)

        unknown = await session.call_tool("teleport", {})
        assert unknown.isError is True
        assert "unknown tool 'teleport'" in unknown.content[0].text  # type: ignore[union-attr]
        bad = await session.call_tool("search", {"query": ""})
        assert bad.isError is True
        assert "query" in bad.content[0].text  # type: ignore[union-attr]


async def test_ha_mcp_integration_uses_mnemolis(hass: HomeAssistant, mnemolis_url: str) -> None:
    """HA's own `mcp` integration: config flow with the SSE URL, then its LLM API."""
    result = await hass.config_entries.flow.async_init("mcp", context={"source": "user"})
    assert result["type"] is FlowResultType.FORM
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: f"{mnemolis_url}/mcp/sse"}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    assert result["title"] == "mnemolis"
    await hass.async_block_till_done()
    entry = result["result"]
    assert entry.state is ConfigEntryState.LOADED

    context = llm.LLMContext(
        platform="test",
        context=None,
        user_prompt=None,
        language="en",
        assistant=None,
        device_id=None,
    )
    api = await llm.async_get_api(hass, f"mcp-{entry.entry_id}", context)
    names = {tool.name for tool in api.tools}
    assert {"search", "docs"} <= names

    listing = await api.async_call_tool(llm.ToolInput(tool_name="docs", tool_args={}))
    assert listing.get("isError") is not True
    assert "mcp" in listing["content"][0]["text"]  # type: ignore[index]

    assert await hass.config_entries.async_unload(entry.entry_id)
    await hass.async_block_till_done()
