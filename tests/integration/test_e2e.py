"""End to end: a real `mnemolis serve` process and the integration in a real HA core.

The loop is closed through real sockets only:
HA's conversation agent (this integration) → REST `POST /search` → the server's
router → its `ha` source → HA's websocket API (served by the same HA instance on a
loopback port, authenticated with a real access token) → the entity state → back
as the spoken answer. The server process runs from its own virtual environment
($MNEMOLIS_SERVER_VENV, default .venv/server), as it does next to a real HA.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest
from homeassistant.components import conversation
from homeassistant.config_entries import SOURCE_USER, ConfigEntryState
from homeassistant.const import CONF_URL
from homeassistant.core import Context, HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from custom_components.mnemolis.const import CONF_RESPONSE_LENGTH, DOMAIN

REPO = Path(__file__).resolve().parents[2]
SERVER_VENV = Path(os.environ.get("MNEMOLIS_SERVER_VENV") or REPO / ".venv" / "server")


@dataclass
class RealServer:
    """A running `mnemolis serve` process."""

    proc: subprocess.Popen[bytes]
    url: str
    log: Path

    def logs(self) -> str:
        """What the server logged so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _wait_for(check: Callable[[], object], timeout: float, what: str) -> None:
    """Poll an async-free condition without blocking HA's loop."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


@pytest.fixture
async def ha_websocket_url(hass: HomeAssistant, aiohttp_client: ClientSessionGenerator) -> str:
    """HA's own HTTP/websocket API on a loopback port, with the registry commands."""
    # Everything that registers HTTP views must load before the server freezes its router.
    for component in ("websocket_api", "config", "conversation"):
        assert await async_setup_component(hass, component, {})
    client = await aiohttp_client(hass.http.app)
    return f"http://127.0.0.1:{client.server.port}"


@pytest.fixture
async def real_server(
    socket_enabled: None, tmp_path: Path, ha_websocket_url: str, hass_access_token: str
) -> AsyncIterator[RealServer]:
    """`mnemolis serve` with its `ha` source pointed at this HA instance."""
    binary = SERVER_VENV / "bin" / "mnemolis"
    assert binary.exists(), f"server venv missing: {binary} (run make test)"
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MNEMOLIS_", "SUPERVISOR"))}
    env.update({"MNEMOLIS_HA__URL": ha_websocket_url, "MNEMOLIS_HA__TOKEN": hass_access_token})
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                str(binary),
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--data-dir",
                str(tmp_path / "data"),
            ],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = RealServer(proc, f"http://127.0.0.1:{port}", log)
    try:
        async with aiohttp.ClientSession() as session:
            ready: dict[str, bool] = {"ha": False}

            async def poll() -> None:
                loop = asyncio.get_running_loop()
                deadline = loop.time() + 60
                while loop.time() < deadline and proc.poll() is None:
                    try:
                        async with session.get(f"{server.url}/api/sources") as resp:
                            body = await resp.json()
                            ha = next(s for s in body["sources"] if s["name"] == "ha")
                            if ha["healthy"]:
                                ready["ha"] = True
                                return
                    except (aiohttp.ClientError, ValueError, KeyError, StopIteration):
                        pass
                    await asyncio.sleep(0.2)

            await poll()
        assert ready["ha"], f"server or its ha source did not come up:\n{server.logs()}"
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


async def _ask(hass: HomeAssistant, text: str, conversation_id: str | None = None) -> str:
    result = await conversation.async_converse(
        hass, text, conversation_id, Context(), language="en", agent_id="conversation.mnemolis"
    )
    return str(result.response.speech["plain"]["speech"])


@pytest.mark.slow
async def test_ask_home_assistant_about_an_entity(
    hass: HomeAssistant, real_server: RealServer
) -> None:
    """Set up through the config flow, ask about the garage door, get its live state."""
    hass.states.async_set(
        "binary_sensor.garage_door",
        "on",
        {"friendly_name": "Garage Door", "device_class": "garage_door"},
    )
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_USER})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: real_server.url}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    entry = result["result"]
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.LOADED
    assert hass.states.get("binary_sensor.mnemolis_home_assistant_source").state == "on"

    speech = await _ask(hass, "Is the garage door open?")
    assert speech.startswith("Yes"), speech
    # The full answer names the entity and its state.
    hass.config_entries.async_update_entry(entry, options={CONF_RESPONSE_LENGTH: "full"})
    speech = await _ask(hass, "Is the garage door open?")
    assert speech.startswith("Yes."), speech
    assert "Garage Door is open" in speech

    # The answer follows the live state: close the door and ask again.
    hass.states.async_set(
        "binary_sensor.garage_door",
        "off",
        {"friendly_name": "Garage Door", "device_class": "garage_door"},
    )
    async with aiohttp.ClientSession() as session:

        async def closed_seen() -> bool:
            async with session.post(
                f"{real_server.url}/search",
                json={"query": "Is the garage door open?", "source": "ha"},
            ) as resp:
                return (await resp.json())["result"].startswith("No.")

        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while not await closed_seen():
            assert loop.time() < deadline, real_server.logs()
            await asyncio.sleep(0.2)

    speech = await _ask(hass, "Is the garage door open?")
    assert speech.startswith("No."), speech
    assert "closed" in speech

    # The entities saw the questions.
    await entry.runtime_data.coordinator.async_refresh()
    await hass.async_block_till_done()
    assert int(hass.states.get("sensor.mnemolis_queries").state) >= 3
    assert hass.states.get("sensor.mnemolis_last_source_used").state == "ha"
