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
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from homeassistant.components import conversation
from homeassistant.config_entries import SOURCE_HASSIO, SOURCE_USER, ConfigEntryState
from homeassistant.const import CONF_API_KEY, CONF_URL
from homeassistant.core import Context, HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import llm
from homeassistant.helpers.service_info.hassio import HassioServiceInfo
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


Launcher = Callable[[dict[str, str], Callable[[dict], bool] | None], Awaitable[RealServer]]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
async def launch(socket_enabled: None, tmp_path: Path) -> AsyncIterator[Launcher]:
    """Start `mnemolis serve` processes from the server venv; all stopped afterwards."""
    binary = SERVER_VENV / "bin" / "mnemolis"
    assert binary.exists(), f"server venv missing: {binary} (run make test)"
    procs: list[subprocess.Popen[bytes]] = []

    async def factory(
        env: dict[str, str], ready: Callable[[dict], bool] | None = None
    ) -> RealServer:
        port = _free_port()
        full_env = {
            k: v for k, v in os.environ.items() if not k.startswith(("MNEMOLIS_", "SUPERVISOR"))
        }
        # Without the default embedding model: converting and loading it, then
        # embedding the bundled docs, would cost seconds of CPU beside HA.
        full_env["MNEMOLIS_LLM__EMBEDDING_MODEL"] = "off"
        full_env.update(env)
        log = tmp_path / f"server-{port}.log"
        args = ["serve", "--host", "127.0.0.1", "--port", str(port)]
        args += ["--data-dir", str(tmp_path / f"data-{port}")]
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [str(binary), *args], env=full_env, stdout=out, stderr=subprocess.STDOUT
            )
        procs.append(proc)
        server = RealServer(proc, f"http://127.0.0.1:{port}", log)
        # Poll without blocking HA's loop: the server may be talking to this HA meanwhile.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        async with aiohttp.ClientSession() as session:
            while proc.poll() is None and loop.time() < deadline:
                try:
                    if ready is None:
                        async with session.get(f"{server.url}/api/health") as resp:
                            if resp.status == 200:
                                return server
                    else:
                        async with session.get(f"{server.url}/api/sources") as resp:
                            if resp.status == 200 and ready(await resp.json()):
                                return server
                except (aiohttp.ClientError, ValueError):
                    pass
                await asyncio.sleep(0.2)
        raise AssertionError(f"server did not become ready:\n{server.logs()}")

    yield factory
    for proc in procs:
        proc.terminate()
    # Wait without blocking the loop: the servers close their websockets to this HA.
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 15
    while any(p.poll() is None for p in procs) and loop.time() < deadline:
        await asyncio.sleep(0.1)
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


def _ha_healthy(body: dict) -> bool:
    return any(s["name"] == "ha" and s["healthy"] for s in body["sources"])


@pytest.fixture
async def ha_websocket_url(
    socket_enabled: None, hass: HomeAssistant, aiohttp_client: ClientSessionGenerator
) -> str:
    """HA's own HTTP/websocket API on a loopback port, with the registry commands."""
    # Everything that registers HTTP views must load before the server freezes its router.
    for component in ("websocket_api", "config", "conversation", "assist_pipeline"):
        assert await async_setup_component(hass, component, {})
    client = await aiohttp_client(hass.http.app)
    return f"http://127.0.0.1:{client.server.port}"


@pytest.fixture
async def real_server(
    ha_websocket_url: str, hass_access_token: str, launch: Launcher
) -> RealServer:
    """`mnemolis serve` with its `ha` source pointed at this HA instance.

    `launch` comes last so the server stops before HA's HTTP server closes.
    """
    env = {"MNEMOLIS_HA__URL": ha_websocket_url, "MNEMOLIS_HA__TOKEN": hass_access_token}
    return await launch(env, _ha_healthy)


async def _pipeline_answer(base_url: str, token: str, text: str, language: str = "en") -> str:
    """Create a text pipeline with Mnemolis as its agent and run it over HA's websocket API."""
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"{base_url}/api/websocket") as ws,
    ):
        assert (await ws.receive_json())["type"] == "auth_required"
        await ws.send_json({"type": "auth", "access_token": token})
        assert (await ws.receive_json())["type"] == "auth_ok"
        await ws.send_json(
            {
                "id": 1,
                "type": "assist_pipeline/pipeline/create",
                "name": f"Mnemolis {language}",
                "language": language,
                "conversation_engine": "conversation.mnemolis",
                "conversation_language": language,
                "stt_engine": None,
                "stt_language": None,
                "tts_engine": None,
                "tts_language": None,
                "tts_voice": None,
                "wake_word_entity": None,
                "wake_word_id": None,
            }
        )
        created = await ws.receive_json()
        assert created["success"], created
        await ws.send_json(
            {
                "id": 2,
                "type": "assist_pipeline/run",
                "start_stage": "intent",
                "end_stage": "intent",
                "input": {"text": text},
                "pipeline": created["result"]["id"],
            }
        )
        assert (await ws.receive_json(timeout=30))["success"]
        events: dict[str, dict[str, Any]] = {}
        while "run-end" not in events:
            msg = await ws.receive_json(timeout=30)
            events[msg["event"]["type"]] = msg["event"]["data"]
    assert "error" not in events, events["error"]
    assert events["intent-start"]["engine"] == "conversation.mnemolis"
    return str(events["intent-end"]["intent_output"]["response"]["speech"]["plain"]["speech"])


async def _ask(hass: HomeAssistant, text: str, conversation_id: str | None = None) -> str:
    result = await conversation.async_converse(
        hass, text, conversation_id, Context(), language="en", agent_id="conversation.mnemolis"
    )
    return str(result.response.speech["plain"]["speech"])


@pytest.mark.slow
async def test_ask_home_assistant_about_an_entity(
    hass: HomeAssistant, real_server: RealServer, ha_websocket_url: str, hass_access_token: str
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
    assert speech.startswith("Yes,"), speech
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
                return (await resp.json())["result"].startswith("No,")

        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while not await closed_seen():
            assert loop.time() < deadline, real_server.logs()
            await asyncio.sleep(0.2)

    speech = await _ask(hass, "Is the garage door open?")
    assert speech.startswith("No,"), speech
    assert "closed" in speech

    # The same question through an Assist pipeline, as the frontend runs it.
    speech = await _pipeline_answer(ha_websocket_url, hass_access_token, "Is the garage door open?")
    assert speech.startswith("No"), speech

    # The entities saw the questions.
    await entry.runtime_data.coordinator.async_refresh()
    await hass.async_block_till_done()
    assert int(hass.states.get("sensor.mnemolis_queries").state) >= 4
    assert hass.states.get("sensor.mnemolis_last_source_used").state == "ha"


@pytest.mark.slow
async def test_addon_discovery_sets_up_the_integration(
    hass: HomeAssistant, launch: Launcher
) -> None:
    """The real server announces itself to a (stub) Supervisor; HA's flow takes it from there.

    The stub stands in for the Supervisor only: it answers /addons/self/info and
    records POST /discovery, whose config the hassio integration would hand to
    this flow as HassioServiceInfo.
    """
    announced: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

    async def info(request: web.Request) -> web.Response:
        return web.json_response({"result": "ok", "data": {"hostname": "127.0.0.1"}})

    async def discovery(request: web.Request) -> web.Response:
        assert request.headers["Authorization"] == "Bearer supervisor-token"
        if not announced.done():
            announced.set_result(await request.json())
        return web.json_response({"result": "ok", "data": {"uuid": "0f1e2d3c"}})

    app = web.Application()
    app.router.add_get("/addons/self/info", info)
    app.router.add_post("/discovery", discovery)
    supervisor = TestServer(app, host="127.0.0.1")
    await supervisor.start_server()
    try:
        server = await launch(
            {
                "SUPERVISOR_TOKEN": "supervisor-token",
                "SUPERVISOR_URL": str(supervisor.make_url("")).rstrip("/"),
                "MNEMOLIS_API_KEY": "addon-full-key",
            },
            None,
        )
        message = await asyncio.wait_for(announced, 30)
        assert message["service"] == "mnemolis"
        config = message["config"]
        assert config == {
            "host": "127.0.0.1",
            "port": int(server.url.rsplit(":", 1)[1]),
            "api_key": "addon-full-key",
        }

        result = await hass.config_entries.flow.async_init(
            DOMAIN,
            context={"source": SOURCE_HASSIO},
            data=HassioServiceInfo(
                config=config, name="Mnemolis", slug="local_mnemolis", uuid="0f1e2d3c"
            ),
        )
        assert result["step_id"] == "hassio_confirm"
        result = await hass.config_entries.flow.async_configure(result["flow_id"], {})
        assert result["type"] is FlowResultType.CREATE_ENTRY
        entry = result["result"]
        assert entry.data == {CONF_URL: server.url, CONF_API_KEY: "addon-full-key"}
        await hass.async_block_till_done()
        assert entry.state is ConfigEntryState.LOADED
        # The keyed server accepted the discovered key for a real question, answered from
        # its bundled documentation.
        speech = await _ask(hass, "How do I connect Claude Desktop?")
        assert "claude_desktop_config.json" in speech and "{" not in speech, speech
        await entry.runtime_data.coordinator.async_refresh()
        await hass.async_block_till_done()
        assert hass.states.get("sensor.mnemolis_last_source_used").state == "rag"

        # The write actions and the LLM API's recall against the real memory store.
        stored = await hass.services.async_call(
            DOMAIN,
            "remember",
            {
                "config_entry_id": entry.entry_id,
                "content": "The spare key is in the blue flower pot.",
                "tags": ["keys"],
            },
            blocking=True,
            return_response=True,
        )
        assert stored is not None and stored["memory"]["tags"] == ["keys"]
        api = await llm.async_get_api(
            hass,
            f"{DOMAIN}-{entry.entry_id}",
            llm.LLMContext("test", Context(), None, "en", "conversation", None),
        )
        recalled = await api.async_call_tool(
            llm.ToolInput(tool_name="recall", tool_args={"query": "spare key", "tags": ["KEYS"]})
        )
        assert [m["id"] for m in recalled["results"]] == [stored["memory"]["id"]]
        reindexed = await hass.services.async_call(
            DOMAIN,
            "reindex",
            {"config_entry_id": entry.entry_id},
            blocking=True,
            return_response=True,
        )
        assert reindexed == {"reindexed": ["mnemolis-docs"]}
    finally:
        await supervisor.close()


@pytest.fixture
async def ha_with_frontend_url(
    socket_enabled: None, hass: HomeAssistant, aiohttp_client: ClientSessionGenerator
) -> str:
    """HA's API with its frontend loaded (its translations say how a state is said)."""
    for component in ("websocket_api", "config", "conversation", "assist_pipeline", "frontend"):
        assert await async_setup_component(hass, component, {})
    for component in ("binary_sensor", "lock"):
        assert await async_setup_component(hass, component, {})
    client = await aiohttp_client(hass.http.app)
    return f"http://127.0.0.1:{client.server.port}"


@pytest.mark.slow
async def test_a_german_home_is_answered_in_german(
    hass: HomeAssistant, ha_with_frontend_url: str, hass_access_token: str, launch: Launcher
) -> None:
    """HA set to German, an entity named "Haustür": the Assist pipeline with the Mnemolis
    agent answers "Ist die Haustür offen?" in German, from Home Assistant's own grammar."""
    await hass.config.async_update(language="de")
    hass.states.async_set(
        "binary_sensor.haustur", "on", {"friendly_name": "Haustür", "device_class": "door"}
    )
    env = {"MNEMOLIS_HA__URL": ha_with_frontend_url, "MNEMOLIS_HA__TOKEN": hass_access_token}
    server = await launch(env, _ha_healthy)
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_USER})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: server.url}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    await hass.async_block_till_done()
    agent = hass.states.get("conversation.mnemolis")
    assert agent is not None
    # The agent declares the languages the server reads, German among them.
    languages = result["result"].runtime_data.coordinator.data.languages
    assert {"de", "nl", "fr", "es", "en"} <= set(languages)

    speech = await _pipeline_answer(
        ha_with_frontend_url, hass_access_token, "Ist die Haustür offen?", language="de"
    )
    # HA's German grammar answered, the state said with HA's own German word for it.
    assert speech.startswith("Ja"), speech
    assert "Haustür ist geöffnet" in speech, speech
    for english in ("Yes", "open", " is ", "door", " on"):
        assert english not in speech, speech

    hass.states.async_set(
        "binary_sensor.haustur", "off", {"friendly_name": "Haustür", "device_class": "door"}
    )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while True:
        speech = await _pipeline_answer(
            ha_with_frontend_url, hass_access_token, "Ist die Haustür offen?", language="de"
        )
        if speech.startswith("Nein") or loop.time() > deadline:
            break
        await asyncio.sleep(0.3)
    assert speech.startswith("Nein"), speech
    assert "Haustür ist geschlossen" in speech, speech


@pytest.mark.slow
async def test_spoken_answers_read_no_code_and_say_a_condition_plainly(
    hass: HomeAssistant, real_server: RealServer
) -> None:
    """Issue 29 item 5, through the real server: the *Full* answer to "How do I connect
    Claude Desktop?" says the words, not the JSON (the citation after the code block
    used to keep it from being seen as one), and *Short* says a condition as a person
    would, not "Condition met: …"."""
    hass.states.async_set(
        "binary_sensor.garage_door",
        "on",
        {"friendly_name": "Garage Door", "device_class": "garage_door"},
    )
    hass.states.async_set("light.porch", "on", {"friendly_name": "Porch Light"})
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_USER})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: real_server.url}
    )
    entry = result["result"]
    await hass.async_block_till_done()

    hass.config_entries.async_update_entry(entry, options={CONF_RESPONSE_LENGTH: "full"})
    speech = await _ask(hass, "How do I connect Claude Desktop?")
    assert "claude_desktop_config.json" in speech, speech
    for code in ("{", "mcpServers", "```", "[1"):
        assert code not in speech, speech

    hass.config_entries.async_update_entry(entry, options={CONF_RESPONSE_LENGTH: "short"})
    speech = await _ask(hass, "If the garage door is open, is the porch light on?")
    assert speech.startswith("The garage door is open, and "), speech
    assert "porch light is on" in speech.lower() and "Condition" not in speech, speech
