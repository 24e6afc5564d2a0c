"""HA client pieces that need no running HA: URLs, connection choice, registries, diffs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemolis.errors import ConfigError, SourceBadResponse
from mnemolis.hass import SUPERVISOR_WS_URL, HAClient, matching, resolve_connection, websocket_url
from mnemolis.hass.client import Registries
from mnemolis.hass.compressed import apply_event
from mnemolis.hass.matching import Candidate, CandidateIndex, match
from mnemolis.settings import Settings

from .hass_fixture import HassCore


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://homeassistant.local:8123", "ws://homeassistant.local:8123/api/websocket"),
        ("https://ha.example.org/", "wss://ha.example.org/api/websocket"),
        ("https://example.org/ha", "wss://example.org/ha/api/websocket"),
        ("ws://10.0.0.2:8123/api/websocket", "ws://10.0.0.2:8123/api/websocket"),
        ("ws://supervisor/core/websocket", "ws://supervisor/core/websocket"),
    ],
)
def test_websocket_url(url: str, expected: str) -> None:
    assert websocket_url(url) == expected


def test_connection_choice(make_settings: Callable[..., Settings]) -> None:
    supervisor = {"SUPERVISOR_TOKEN": "sv-token"}
    assert resolve_connection(make_settings(), environ={}) is None
    # URL without token is not enough.
    assert resolve_connection(make_settings(ha={"url": "http://h:8123"}), environ={}) is None
    conn = resolve_connection(make_settings(addon=True), environ=supervisor)
    assert conn is not None
    assert (conn.ws_url, conn.token, conn.via_supervisor) == (SUPERVISOR_WS_URL, "sv-token", True)
    explicit = make_settings(addon=True, ha={"url": "http://h:8123", "token": "t"})
    conn = resolve_connection(explicit, environ=supervisor)
    assert conn is not None
    assert (conn.ws_url, conn.token, conn.via_supervisor) == (
        "ws://h:8123/api/websocket",
        "t",
        False,
    )
    with pytest.raises(ConfigError, match="invalid setting ha.url='ftp://h'"):
        resolve_connection(make_settings(ha={"url": "ftp://h", "token": "t"}), environ={})


def test_compressed_events() -> None:
    states: dict[str, dict[str, Any]] = {}
    apply_event(
        states,
        {
            "a": {
                "light.x": {
                    "s": "on",
                    "a": {"brightness": 10, "friendly_name": "X"},
                    "c": "c1",
                    "lc": 100.0,
                }
            }
        },
    )
    assert states["light.x"]["last_changed"] == states["light.x"]["last_updated"]
    changed = apply_event(
        states,
        {
            "c": {
                "light.x": {
                    "+": {"lu": 160.5, "a": {"brightness": 20}},
                    "-": {"a": ["friendly_name"]},
                }
            }
        },
    )
    assert changed == {"light.x"}
    light = states["light.x"]
    assert light["state"] == "on"
    assert light["attributes"] == {"brightness": 20}
    assert light["last_changed"].startswith("1970-01-01T00:01:40")
    assert light["last_updated"].startswith("1970-01-01T00:02:40.5")
    apply_event(states, {"c": {"light.x": {"+": {"s": "off", "lc": 200.0, "c": {"user_id": "u"}}}}})
    assert states["light.x"]["last_updated"] == states["light.x"]["last_changed"]
    assert states["light.x"]["context"] == {"id": "c1", "user_id": "u"}
    assert apply_event(states, {"r": ["light.x", "light.never"]}) == {"light.x"}
    assert states == {}


async def test_area_through_device_and_vocabulary() -> None:
    async with aiohttp.ClientSession() as session:
        client = HAClient(session, "ws://unused/api/websocket", "t")
    client.states = {
        "sensor.probe_temperature": {
            "entity_id": "sensor.probe_temperature",
            "state": "19.0",
            "attributes": {"friendly_name": "Probe Temperature", "unit_of_measurement": "°C"},
        },
        "switch.kettle": {
            "entity_id": "switch.kettle",
            "state": "off",
            "attributes": {"friendly_name": "Kettle"},
        },
    }
    client.registries = Registries(
        areas={"attic": {"area_id": "attic", "name": "Attic", "aliases": ["Loft"]}},
        devices={"dev1": {"id": "dev1", "area_id": "attic"}},
        entities={
            "sensor.probe_temperature": {
                "entity_id": "sensor.probe_temperature",
                "device_id": "dev1",
                "area_id": None,
                "aliases": [],
            },
            "switch.kettle": {
                "entity_id": "switch.kettle",
                "area_id": None,
                "aliases": ["Tea Maker"],
                "hidden_by": None,
            },
        },
    )
    assert client.area_of("sensor.probe_temperature") == "Attic"
    assert client.area_of("switch.kettle") is None
    loft = client.match_entities("how cold is the loft")
    assert [(m.entity_id, m.matched_on, m.area) for m in loft] == [
        ("sensor.probe_temperature", "area", "Attic")
    ]
    assert client.match_entities("is the tea maker on")[0].matched_on == "alias"
    assert client.vocabulary() == {"probe temperature", "kettle", "tea maker", "attic", "loft"}


async def test_removed_entities_leave_the_cache(hass_core: HassCore) -> None:
    hass_core.set_state("sensor.short_lived", "1")
    async with aiohttp.ClientSession() as session:
        client = HAClient(session, hass_core.ws_url, hass_core.token)
        await client.start(wait=10)
        try:
            await client.wait_ready(10)
            assert "sensor.short_lived" in client.states
            hass_core.remove_state("sensor.short_lived")
            for _ in range(200):
                if "sensor.short_lived" not in client.states:
                    break
                await asyncio.sleep(0.05)
            assert "sensor.short_lived" not in client.states
        finally:
            await client.stop()


async def test_ping_keeps_the_connection(hass_core: HassCore) -> None:
    async with aiohttp.ClientSession() as session:
        client = HAClient(
            session, hass_core.ws_url, hass_core.token, ping_interval=0.1, request_timeout=1.0
        )
        sent: list[str] = []
        real_send = client._send

        async def spy(message: dict[str, Any], *, msg_id: int | None = None) -> Any:
            sent.append(str(message.get("type")))
            return await real_send(message, msg_id=msg_id)

        client._send = spy  # type: ignore[method-assign]
        await client.start(wait=10)
        try:
            await client.wait_ready(10)
            await asyncio.sleep(1.5)
            assert sent.count("ping") >= 5  # each answered by a pong, or we would reconnect
            assert client.connected
            assert client.connect_count == 1
        finally:
            await client.stop()


@pytest.fixture
async def not_home_assistant(aiohttp_server: Any) -> Any:
    """Servers that are not HA: a plain web page, and websockets speaking nonsense."""
    from aiohttp import web

    async def nonsense(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        if request.path.startswith("/garbage"):
            await ws.send_str("<html>hello</html>")
        else:
            await ws.send_json({"type": "auth_required", "ha_version": "2025.4.4"})
            await ws.receive()
            await ws.send_json({"type": "welcome"})
        await ws.receive()
        return ws

    app = web.Application()
    app.router.add_get("/garbage/api/websocket", nonsense)
    app.router.add_get("/odd/api/websocket", nonsense)
    return await aiohttp_server(app)


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/", "answered HTTP 404 instead of a websocket (is ha.url a Home Assistant?)"),
        ("/garbage", "Home Assistant sent a frame that is not JSON"),
        ("/odd", "unexpected auth reply from HA: 'welcome'"),
    ],
)
async def test_something_else_than_home_assistant(
    not_home_assistant: Any, path: str, message: str
) -> None:
    url = websocket_url(str(not_home_assistant.make_url(path)))
    async with aiohttp.ClientSession() as session:
        client = HAClient(session, url, "t")
        await client.start(wait=5)
        try:
            with pytest.raises(SourceBadResponse) as caught:
                await client.wait_ready(5)
        finally:
            await client.stop()
    assert caught.value.kind == "bad_response"
    assert message in caught.value.message


async def test_backoff_doubles_caps_and_resets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retry waits: 1, 2, 4, 8, 8 (cap); after a working connection drops: back to 1."""
    from mnemolis.errors import SourceAuthFailed, SourceUnreachable

    outcomes = iter(["fail"] * 5 + ["connected", "fail", "auth", "fail"])
    waits: list[float] = []
    real_sleep = asyncio.sleep

    async with aiohttp.ClientSession() as session:
        client = HAClient(session, "ws://h/api/websocket", "t", backoff_initial=1, backoff_max=8)

        async def connect_once() -> None:
            outcome = next(outcomes)
            if outcome == "connected":
                client.connect_count += 1
            if outcome == "auth":
                raise SourceAuthFailed("Home Assistant rejected the access token")
            raise SourceUnreachable("connection lost")

        async def sleep(seconds: float) -> None:
            waits.append(seconds)
            if len(waits) == 9:
                client._stopping = True
            await real_sleep(0)

        client._connect_once = connect_once  # type: ignore[method-assign]
        monkeypatch.setattr("mnemolis.hass.client.random.uniform", lambda a, b: 1.0)
        monkeypatch.setattr("mnemolis.hass.client.asyncio.sleep", sleep)
        await client._run()
    # Auth failures wait the maximum: retrying a rejected token quickly only locks users out.
    assert waits == [1, 2, 4, 8, 8, 1, 2, 8, 8]


ROOMS = ["Kitchen", "Living Room", "Bedroom", "Garage", "Hallway", "Office", "Attic", "Garden"]
KINDS = ["Ceiling Light", "Lamp", "Temperature", "Humidity", "Motion", "Door", "Window", "Plug"]
HOME = [
    Candidate(
        f"sensor.{r.lower().replace(' ', '_')}_{k.lower().replace(' ', '_')}",
        f"{r} {k}",
        ["Tea Maker"] if k == "Plug" and r == "Kitchen" else [],
        r,
        [r, "Loft"] if r == "Attic" else [r],
    )
    for r in ROOMS
    for k in KINDS
]
WORDS = sorted({w for c in HOME for p, _ in c.phrases for w in p} | {"is", "the", "on", "what"})


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(WORDS),
            # typos of real words, and noise
            st.sampled_from(WORDS).map(lambda w: w[:-1] if len(w) > 3 else w + "s"),
            st.text(alphabet="abcdefghijklmnopqrstuvwxyz._", min_size=1, max_size=8),
        ),
        min_size=1,
        max_size=7,
    )
)
def test_the_word_index_never_changes_an_answer(question_words: list[str]) -> None:
    """Scoring only the candidates that share a fuzzy word gives exactly the full scan's result."""
    question = " ".join(question_words)
    index = CandidateIndex.build(HOME)
    assert len(HOME) < matching.INDEX_FROM  # the small-home path scans; force the index too
    big = CandidateIndex.build(HOME * 4)
    assert match(big, question, limit=10) == match(HOME * 4, question, limit=10)
    for domains in (None, {"sensor"}, {"light"}):
        assert match(index, question, domains=domains, limit=10) == match(
            HOME, question, domains=domains, limit=10
        )
    dotted = f"is {HOME[5].entity_id} on"
    assert match(index, dotted)[0].entity_id == HOME[5].entity_id


async def test_only_names_coming_going_or_changing_rebuild_the_match_index() -> None:
    """A sensor's new value keeps the index; a new entity or a rename rebuilds it."""
    async with aiohttp.ClientSession() as session:
        client = HAClient(session, "ws://unused/api/websocket", "t")
    client._on_entities({"a": {"sensor.attic": {"s": "19", "a": {"friendly_name": "Attic"}}}})
    client._on_entities({"a": {"sensor.attic": {"s": "19", "a": {"friendly_name": "Attic"}}}})
    first = client.candidates()
    client._on_entities({"c": {"sensor.attic": {"+": {"s": "20"}}}})
    assert client.candidates() is first and client.states["sensor.attic"]["state"] == "20"
    client._on_entities({"c": {"sensor.attic": {"+": {"a": {"friendly_name": "Loft"}}}}})
    renamed = client.candidates()
    assert renamed is not first and renamed[0].name == "Loft"
    assert client.match_entities("how warm is the loft")[0].entity_id == "sensor.attic"
    client._on_entities({"a": {"light.porch": {"s": "on", "a": {"friendly_name": "Porch"}}}})
    assert {c.entity_id for c in client.candidates()} == {"sensor.attic", "light.porch"}
    client._on_entities({"r": ["light.porch"]})
    assert [c.entity_id for c in client.candidates()] == ["sensor.attic"]
