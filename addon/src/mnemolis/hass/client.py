"""An async Home Assistant websocket client: auth, commands, live states, registries."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import aiohttp

from ..errors import (
    Forbidden,
    SourceAuthFailed,
    SourceBadResponse,
    SourceError,
    SourceTimeout,
    SourceUnreachable,
)
from .compressed import apply_event, history_rows
from .matching import AreaMatch, Candidate, CandidateIndex, EntityMatch, match, match_areas

_LOGGER = logging.getLogger(__name__)

SUPERVISOR_WS_URL = "ws://supervisor/core/websocket"
# Services that only return data: the only ones Mnemolis calls (it never changes HA).
READ_ONLY_SERVICES = frozenset(
    {
        ("weather", "get_forecasts"),
        ("calendar", "get_events"),
        ("todo", "get_items"),
    }
)

# Entity ids per config/entity_registry/get_entries request (aliases live there).
ALIAS_CHUNK = 500

StateListener = Callable[[set[str]], None]
EventCallback = Callable[[dict[str, Any]], None]


def websocket_url(url: str) -> str:
    """The websocket endpoint for an HA base URL (http(s) or ws(s), with or without path)."""
    parts = urlsplit(url.strip())
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    if scheme not in ("ws", "wss") or not parts.netloc:
        raise ValueError(f"not an http(s) or ws(s) URL: {url!r}")
    path = parts.path.rstrip("/")
    if not path.endswith("websocket"):
        path = f"{path}/api/websocket"
    return urlunsplit((scheme, parts.netloc, path, "", ""))


@dataclass(slots=True)
class _Subscription:
    """A subscribe message and its callback; re-sent with a new id after reconnects."""

    message: dict[str, Any]
    callback: EventCallback
    ha_id: int | None = None


@dataclass(slots=True)
class Registries:
    """Areas, devices and entities as HA's registries list them."""

    areas: dict[str, dict[str, Any]] = field(default_factory=dict)
    devices: dict[str, dict[str, Any]] = field(default_factory=dict)
    entities: dict[str, dict[str, Any]] = field(default_factory=dict)
    floors: dict[str, dict[str, Any]] = field(default_factory=dict)


_ABSENT = object()


def _name_attr(state: dict[str, Any] | None) -> object:
    """What of a state the names depend on: whether it exists, its friendly_name and
    device class (the grammar's lists carry it as context)."""
    if state is None:
        return _ABSENT
    attrs = state.get("attributes") or {}
    return (attrs.get("friendly_name"), attrs.get("device_class"))


class HAClient:
    """One websocket connection to HA, kept alive and reconnected with backoff.

    Public API (the router and sources use these):

    * ``states: dict[str, dict]`` — live HA state objects by entity_id
      (entity_id, state, attributes, last_changed, last_updated), kept current
      through ``subscribe_entities``.
    * ``config: dict`` — the ``get_config`` result (unit_system, time_zone,
      latitude, longitude, location_name, ...).
    * ``connected: bool`` — authenticated and initial data loaded.
    * ``match_entities(text, domains=None, limit=5) -> list[EntityMatch]``.
    * ``vocabulary() -> set[str]`` — lower-cased names, aliases and area names.
    * ``service_response``, ``history``, ``logbook``, ``command`` — requests;
      read-only: the only services it calls are those in ``READ_ONLY_SERVICES``.
    """

    def __init__(
        self,
        session: aiohttp.ClientSession,
        ws_url: str,
        token: str,
        *,
        request_timeout: float = 10.0,
        ping_interval: float = 30.0,
        backoff_initial: float = 0.5,
        backoff_max: float = 60.0,
    ) -> None:
        self.ws_url = ws_url
        self.request_timeout = request_timeout
        self.ping_interval = ping_interval
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.states: dict[str, dict[str, Any]] = {}
        self.config: dict[str, Any] = {}
        self.registries = Registries()
        self.connected = False
        self.last_error: SourceError | None = None
        self.connect_count = 0
        self._session = session
        self._token = token
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._next_id = 1
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._subs: list[_Subscription] = []
        self._listeners: list[StateListener] = []
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._attempted = asyncio.Event()
        self._stopping = False
        self._fresh_states = False
        self._candidates: CandidateIndex | None = None
        # Counts changes of names, areas and floors: what is built from them (match
        # candidates, the grammar's slot lists) is rebuilt when it moves.
        self.names_version = 0
        self._exposure: dict[str, bool] | None = None
        self._exposure_at = 0.0
        self._exposure_task: asyncio.Task[None] | None = None
        # Seconds the Assist exposure list is trusted before it is read again.
        self.exposure_ttl = 30.0
        self._registry_reload: asyncio.Task[None] | None = None
        self._refs = 0

    # --- lifecycle -----------------------------------------------------------

    async def start(self, wait: float = 0.0) -> None:
        """Start the connection loop; the starting call may wait up to ``wait`` s for it."""
        if self._task is not None:
            return
        self._stopping = False
        self.subscribe({"type": "subscribe_entities"}, self._on_entities)
        for event_type in (
            "floor_registry_updated",
            "area_registry_updated",
            "device_registry_updated",
            "entity_registry_updated",
        ):
            self.subscribe(
                {"type": "subscribe_events", "event_type": event_type}, self._on_registry
            )
        self._task = asyncio.create_task(self._run(), name="mnemolis-ha-websocket")
        if wait > 0:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self._attempted.wait()

    async def stop(self) -> None:
        """Close the connection and stop reconnecting."""
        self._stopping = True
        task, self._task = self._task, None
        if self._ws is not None:
            await self._ws.close()
        for extra in (task, self._registry_reload, self._exposure_task):
            if extra is not None:
                extra.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await extra
        self._fail_pending(SourceUnreachable("Home Assistant client stopped"))
        self.connected = False

    def acquire(self) -> HAClient:
        """Count one more user (source) of this shared client."""
        self._refs += 1
        return self

    async def release(self) -> None:
        """Drop one user; the last one stops the client."""
        self._refs -= 1
        if self._refs <= 0:
            await self.stop()

    async def wait_ready(self, timeout: float | None = None) -> None:
        """Return once connected; raise the last connection error if the last attempt failed."""
        if self.connected:
            return
        if self._task is None:
            raise SourceUnreachable("Home Assistant client is not running")
        if not self._attempted.is_set():
            try:
                async with asyncio.timeout(timeout or self.request_timeout):
                    await self._attempted.wait()
            except TimeoutError:
                raise SourceTimeout("Home Assistant did not finish connecting in time") from None
        if self._flag("connected"):
            return
        raise self.last_error or SourceUnreachable("not connected to Home Assistant")

    def _flag(self, name: str) -> bool:
        """Re-read a flag another task may have flipped while we awaited."""
        return bool(getattr(self, name))

    @property
    def time_zone(self) -> ZoneInfo | None:
        """HA's configured time zone, when known."""
        name = self.config.get("time_zone")
        if not isinstance(name, str):
            return None
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            return None

    def add_listener(self, listener: StateListener) -> Callable[[], None]:
        """Call listener with changed entity ids after each state update; returns an undo."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    @property
    def subscription_count(self) -> int:
        """How many subscriptions are live on the current connection (one per kind)."""
        return sum(1 for sub in self._subs if sub.ha_id is not None)

    # --- the connection loop -------------------------------------------------

    async def _run(self) -> None:
        delay = self.backoff_initial
        while not self._stopping:
            connects = self.connect_count
            try:
                await self._connect_once()
            except asyncio.CancelledError:
                raise
            except SourceError as err:
                self._set_error(err)
            except TimeoutError:  # before ClientError: aiohttp's timeouts are both
                self._set_error(SourceTimeout("Home Assistant did not answer in time"))
            except aiohttp.WSServerHandshakeError as err:
                self._set_error(
                    SourceBadResponse(
                        f"{self.ws_url} answered HTTP {err.status} instead of a websocket "
                        "(is ha.url a Home Assistant?)"
                    )
                )
            except (aiohttp.ClientError, OSError) as err:
                self._set_error(SourceUnreachable(f"cannot reach Home Assistant: {_describe(err)}"))
            except Exception as err:
                _LOGGER.exception("Home Assistant connection failed unexpectedly")
                self._set_error(SourceBadResponse(f"{type(err).__name__}: {err}"))
            finally:
                self.connected = False
                self._ready.clear()
                self._ws = None
                for sub in self._subs:
                    sub.ha_id = None
                self._fail_pending(SourceUnreachable("connection to Home Assistant lost"))
            if self._flag("_stopping"):
                break
            if self.connect_count > connects:
                delay = self.backoff_initial  # a working connection dropped: retry soon
            wait = min(delay, self.backoff_max) * random.uniform(0.8, 1.2)
            if isinstance(self.last_error, SourceAuthFailed):
                wait = self.backoff_max
            _LOGGER.debug("reconnecting to Home Assistant in %.1f s", wait)
            await asyncio.sleep(wait)
            delay = min(delay * 2, self.backoff_max)

    def _set_error(self, err: SourceError) -> None:
        if self._stopping:
            return  # our own close, not a failure
        if self.last_error is None or str(self.last_error) != str(err):
            _LOGGER.warning("Home Assistant: %s", err.message)
        self.last_error = err
        self._attempted.set()

    async def _connect_once(self) -> None:
        async with asyncio.timeout(self.request_timeout):
            ws = await self._session.ws_connect(self.ws_url, heartbeat=None, max_msg_size=0)
        try:
            async with asyncio.timeout(self.request_timeout):
                await self._authenticate(ws)
            self._ws = ws
            self._next_id = 1
            reader = asyncio.create_task(self._reader(ws), name="mnemolis-ha-reader")
            pinger = asyncio.create_task(self._pinger(), name="mnemolis-ha-ping")
            try:
                await self._initial_load()
                self.connected = True
                self.connect_count += 1
                self.last_error = None
                self._ready.set()
                self._attempted.set()
                _LOGGER.info("connected to Home Assistant %s", self.config.get("version", ""))
                await reader
            finally:
                for task in (reader, pinger):
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
        finally:
            await ws.close()

    async def _authenticate(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        first = await _receive_json(ws)
        if first.get("type") != "auth_required":
            raise SourceBadResponse(f"unexpected first message from HA: {first.get('type')!r}")
        await ws.send_json({"type": "auth", "access_token": self._token})
        reply = await _receive_json(ws)
        kind = reply.get("type")
        if kind == "auth_invalid":
            raise SourceAuthFailed(
                f"Home Assistant rejected the access token ({reply.get('message', 'invalid')})"
            )
        if kind != "auth_ok":
            raise SourceBadResponse(f"unexpected auth reply from HA: {kind!r}")

    async def _initial_load(self) -> None:
        self._fresh_states = True
        config, _ = await asyncio.gather(self._send({"type": "get_config"}), self.load_registries())
        self.config = config if isinstance(config, dict) else {}
        for sub in self._subs:
            await self._activate(sub)

    async def _activate(self, sub: _Subscription) -> None:
        ha_id = self._take_id()
        sub.ha_id = ha_id
        await self._send({**sub.message, "id": ha_id}, msg_id=ha_id)

    async def _reader(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for msg in ws:
            if msg.type == aiohttp.WSMsgType.TEXT:
                try:
                    data = json.loads(msg.data)
                except ValueError:
                    _LOGGER.warning("Home Assistant sent a frame that is not JSON")
                    continue
                for item in data if isinstance(data, list) else [data]:
                    if isinstance(item, dict):
                        self._dispatch(item)
            elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                break
            elif msg.type == aiohttp.WSMsgType.ERROR:
                raise SourceUnreachable(f"websocket error: {ws.exception()}")
        raise SourceUnreachable("Home Assistant closed the connection")

    def _dispatch(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        msg_id = msg.get("id")
        if kind == "event":
            for sub in self._subs:
                if sub.ha_id == msg_id:
                    try:
                        sub.callback(msg.get("event") or {})
                    except Exception:
                        _LOGGER.exception("handling a Home Assistant event failed")
                    break
            return
        fut = self._pending.pop(msg_id, None) if isinstance(msg_id, int) else None
        if fut is None or fut.done():
            return
        if kind == "pong":
            fut.set_result(None)
        elif kind == "result" and msg.get("success"):
            fut.set_result(msg.get("result"))
        elif kind == "result":
            error = msg.get("error") or {}
            fut.set_exception(_command_error(error))
        else:
            fut.set_exception(SourceBadResponse(f"unexpected reply type {kind!r}"))

    async def _pinger(self) -> None:
        while True:
            await asyncio.sleep(self.ping_interval)
            try:
                await self._send({"type": "ping"})
            except SourceError:
                if self._ws is not None:
                    await self._ws.close()
                return

    def _take_id(self) -> int:
        msg_id = self._next_id
        self._next_id += 1
        return msg_id

    async def _send(self, message: dict[str, Any], *, msg_id: int | None = None) -> Any:
        ws = self._ws
        if ws is None or ws.closed:
            raise SourceUnreachable("not connected to Home Assistant")
        if msg_id is None:
            msg_id = self._take_id()
            message = {**message, "id": msg_id}
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = fut
        try:
            await ws.send_str(json.dumps(message))
            async with asyncio.timeout(self.request_timeout):
                return await fut
        except TimeoutError:
            raise SourceTimeout(
                f"Home Assistant did not answer {message.get('type')} "
                f"within {self.request_timeout:g} s"
            ) from None
        except ConnectionError as err:
            raise SourceUnreachable(f"connection to Home Assistant lost: {err}") from None
        finally:
            self._pending.pop(msg_id, None)

    def _fail_pending(self, err: SourceError) -> None:
        pending, self._pending = self._pending, {}
        for fut in pending.values():
            if not fut.done():
                fut.set_exception(err)
                fut.exception()  # mark retrieved; the waiter re-raises it

    # --- subscriptions and the state cache -----------------------------------

    def subscribe(self, message: dict[str, Any], callback: EventCallback) -> None:
        """Register a subscription; it is (re)sent on every connection, once."""
        if any(sub.message == message for sub in self._subs):
            return
        sub = _Subscription(message, callback)
        self._subs.append(sub)
        if self.connected:
            task = asyncio.create_task(self._activate(sub))
            task.add_done_callback(_log_task_error)

    def _on_entities(self, event: dict[str, Any]) -> None:
        if self._fresh_states and "a" in event:
            # First full snapshot after (re)connecting replaces the cache:
            # entities removed while we were away disappear.
            self._fresh_states = False
            fresh: dict[str, dict[str, Any]] = {}
            apply_event(fresh, {"a": event["a"]})
            gone = set(self.states) - set(fresh)
            self.states = fresh
            changed = set(fresh) | gone
            rest = {k: v for k, v in event.items() if k != "a"}
            changed |= apply_event(self.states, rest)
            renamed = bool(changed)
        else:
            ids = [*(event.get("a") or {}), *(event.get("c") or {}), *(event.get("r") or ())]
            before = {eid: _name_attr(self.states.get(eid)) for eid in ids}
            changed = apply_event(self.states, event)
            # A sensor's new value leaves every name as it was: only entities coming,
            # going or renamed make the names (and their match index) stale.
            renamed = any(_name_attr(self.states.get(eid)) != before[eid] for eid in changed)
        if renamed:
            self._names_changed()
        if changed:
            for listener in list(self._listeners):
                try:
                    listener(changed)
                except Exception:
                    _LOGGER.exception("state listener failed")

    def _on_registry(self, event: dict[str, Any]) -> None:
        if self._registry_reload is not None and not self._registry_reload.done():
            return
        self._registry_reload = asyncio.create_task(self._reload_registries())

    async def _reload_registries(self) -> None:
        await asyncio.sleep(0.2)  # coalesce bursts of registry events
        try:
            await self.load_registries()
        except SourceError as err:
            _LOGGER.debug("registry reload failed: %s", err)

    async def load_registries(self) -> None:
        """Fetch the floor, area, device and entity registries."""
        floors, areas, devices, entities = await asyncio.gather(
            self._send({"type": "config/floor_registry/list"}),
            self._send({"type": "config/area_registry/list"}),
            self._send({"type": "config/device_registry/list"}),
            self._send({"type": "config/entity_registry/list"}),
        )
        by_id = {e["entity_id"]: e for e in entities or [] if isinstance(e, dict)}
        # The list is the partial form; aliases only come with the extended entries.
        ids = list(by_id)
        chunks = [ids[i : i + ALIAS_CHUNK] for i in range(0, len(ids), ALIAS_CHUNK)]
        extended = await asyncio.gather(
            *(
                self._send({"type": "config/entity_registry/get_entries", "entity_ids": chunk})
                for chunk in chunks
            )
        )
        for part in extended:
            for entity_id, entry in (part or {}).items():
                if isinstance(entry, dict) and entity_id in by_id:
                    by_id[entity_id]["aliases"] = list(entry.get("aliases") or [])
        self._exposure = await self._load_exposure()
        self._exposure_at = time.monotonic()
        self.registries = Registries(
            areas={a["area_id"]: a for a in areas or [] if isinstance(a, dict)},
            devices={d["id"]: d for d in devices or [] if isinstance(d, dict)},
            entities=by_id,
            floors={f["floor_id"]: f for f in floors or [] if isinstance(f, dict)},
        )
        self._names_changed()

    def _names_changed(self) -> None:
        self._candidates = None
        self.names_version += 1

    async def _load_exposure(self) -> dict[str, bool] | None:
        """Which entities the user exposed to Assist; None if HA does not say (non-admin)."""
        try:
            reply = await self._send({"type": "homeassistant/expose_entity/list"})
        except SourceError as err:
            _LOGGER.debug("exposure settings unavailable: %s", err)
            return None
        listed = (reply or {}).get("exposed_entities") if isinstance(reply, dict) else None
        if not isinstance(listed, dict):
            return None
        return {
            str(eid): bool(opts.get("conversation"))
            for eid, opts in listed.items()
            if isinstance(opts, dict) and "conversation" in opts
        }

    def exposed_to_assist(self) -> dict[str, bool] | None:
        """Entities HA lists as exposed to Assist (conversation); None when HA does not say.

        HA lists the entities it exposes (by its defaults or the user's choice);
        an entity it does not list is not exposed to Assist.
        """
        stale = time.monotonic() - self._exposure_at > self.exposure_ttl
        if stale and self.connected and (self._exposure_task is None or self._exposure_task.done()):
            # HA sends no event when exposure changes: re-read it now and then.
            self._exposure_task = asyncio.create_task(self._refresh_exposure())
        if not self._exposure:
            return None
        return self._exposure

    async def _refresh_exposure(self) -> None:
        self._exposure_at = time.monotonic()
        self._exposure = await self._load_exposure()

    # --- names, areas, matching ----------------------------------------------

    def area_id_of(self, entity_id: str) -> str | None:
        """The entity's area: its own, else its device's."""
        entry = self.registries.entities.get(entity_id)
        if entry is None:
            return None
        if entry.get("area_id"):
            return str(entry["area_id"])
        device = self.registries.devices.get(entry.get("device_id") or "")
        if device and device.get("area_id"):
            return str(device["area_id"])
        return None

    def area_name(self, area_id: str | None) -> str | None:
        """An area's display name."""
        if area_id is None:
            return None
        area = self.registries.areas.get(area_id)
        return str(area.get("name")) if area else None

    def area_of(self, entity_id: str) -> str | None:
        """The display name of the entity's area, if any."""
        return self.area_name(self.area_id_of(entity_id))

    def friendly_name(self, entity_id: str) -> str:
        """What HA shows for the entity: friendly_name, registry name, or the object id."""
        state = self.states.get(entity_id)
        if state:
            name = state.get("attributes", {}).get("friendly_name")
            if name:
                return str(name)
        entry = self.registries.entities.get(entity_id) or {}
        name = entry.get("name") or entry.get("original_name")
        if name:
            return str(name)
        return entity_id.split(".", 1)[-1].replace("_", " ")

    def _build_candidates(self) -> list[Candidate]:
        out: list[Candidate] = []
        for entity_id in self.states:
            entry = self.registries.entities.get(entity_id) or {}
            if entry.get("hidden_by") or entry.get("disabled_by"):
                continue
            aliases = [str(a) for a in entry.get("aliases") or [] if a]
            name = self.friendly_name(entity_id)
            reg_name = entry.get("name")
            if reg_name and reg_name != name:
                aliases.append(str(reg_name))
            area_id = self.area_id_of(entity_id)
            area = self.registries.areas.get(area_id or "") or {}
            area_names = [str(area["name"])] if area.get("name") else []
            area_names += [str(a) for a in area.get("aliases") or [] if a]
            out.append(Candidate(entity_id, name, aliases, area.get("name"), area_names))
        return out

    def _candidate_index(self) -> CandidateIndex:
        if self._candidates is None:
            self._candidates = CandidateIndex.build(self._build_candidates())
        return self._candidates

    def candidates(self) -> list[Candidate]:
        """Every visible entity with its names (cached until entities, names or registries move)."""
        return self._candidate_index().candidates

    def match_entities(
        self, text: str, *, domains: set[str] | None = None, limit: int = 5
    ) -> list[EntityMatch]:
        """Entities the text names (name, alias, area or entity_id), best first, score 0..100."""
        return match(self._candidate_index(), text, domains=domains, limit=limit)

    def match_areas(self, text: str) -> list[AreaMatch]:
        """Areas the text names by name or alias, best first."""
        areas = (
            (area_id, str(a.get("name", "")), [str(x) for x in a.get("aliases") or []])
            for area_id, a in self.registries.areas.items()
        )
        return match_areas(areas, text)

    def match_floors(self, text: str) -> list[AreaMatch]:
        """Floors the text names ("upstairs", "ground floor"), best first."""
        floors = (
            (floor_id, str(f.get("name", "")), [str(x) for x in f.get("aliases") or []])
            for floor_id, f in self.registries.floors.items()
        )
        return match_areas(floors, text)

    def areas_on_floor(self, floor_id: str) -> list[str]:
        """Area ids on a floor."""
        return sorted(
            a for a, area in self.registries.areas.items() if area.get("floor_id") == floor_id
        )

    def vocabulary(self) -> set[str]:
        """Lower-cased friendly names, aliases, area and floor names (routing signals)."""
        vocab: set[str] = set()
        for cand in self.candidates():
            vocab.add(cand.name.lower())
            vocab.update(a.lower() for a in cand.aliases)
        for area in [*self.registries.areas.values(), *self.registries.floors.values()]:
            if area.get("name"):
                vocab.add(str(area["name"]).lower())
            vocab.update(str(a).lower() for a in area.get("aliases") or [])
        vocab.discard("")
        return vocab

    @property
    def language(self) -> str | None:
        """The language the home's Home Assistant is set to (``get_config``)."""
        value = self.config.get("language")
        return str(value) if value else None

    async def state_words(self, language: str) -> dict[str, str]:
        """HA's words for entity states in a language, as its UI shows them
        (``component.<domain>.entity_component.<device_class>.state.<state>``)."""
        reply = await self.command(
            {
                "type": "frontend/get_translations",
                "language": language,
                "category": "entity_component",
            }
        )
        resources = reply.get("resources") if isinstance(reply, dict) else None
        if not isinstance(resources, dict):
            return {}
        return {str(k): str(v) for k, v in resources.items() if isinstance(v, str)}

    # --- requests ------------------------------------------------------------

    async def command(self, message: dict[str, Any], *, timeout: float | None = None) -> Any:
        """Send one websocket command (without id) once connected; return its result.

        Service calls go through ``service_response``, which calls only
        services that return data.
        """
        if message.get("type") == "call_service":
            raise Forbidden("service calls go through service_response (data-only services)")
        await self.wait_ready(timeout)
        return await self._send(dict(message))

    async def service_response(
        self,
        domain: str,
        service: str,
        data: dict[str, Any] | None = None,
        target: dict[str, Any] | None = None,
    ) -> Any:
        """What a data-only service (``weather.get_forecasts``) returns; any other is refused."""
        if (domain, service) not in READ_ONLY_SERVICES:
            raise Forbidden(
                f"calling {domain}.{service} could change Home Assistant; Mnemolis only reads it"
            )
        msg: dict[str, Any] = {
            "type": "call_service",
            "domain": domain,
            "service": service,
            "service_data": data or {},
            "return_response": True,
        }
        if target:
            msg["target"] = target
        await self.wait_ready()
        result = await self._send(msg)
        return result.get("response") if isinstance(result, dict) else result

    async def history(
        self,
        entity_ids: list[str],
        start: datetime,
        end: datetime | None = None,
        *,
        significant_changes_only: bool = False,
        no_attributes: bool = False,
    ) -> dict[str, list[dict[str, Any]]]:
        """State objects per entity between start and end (oldest first, incl. start state)."""
        msg: dict[str, Any] = {
            "type": "history/history_during_period",
            "start_time": start.isoformat(),
            "entity_ids": entity_ids,
            "include_start_time_state": True,
            "significant_changes_only": significant_changes_only,
            "minimal_response": False,
            "no_attributes": no_attributes,
        }
        if end is not None:
            msg["end_time"] = end.isoformat()
        result = await self.command(msg)
        if not isinstance(result, dict):
            raise SourceBadResponse("history answer is not an object")
        return {eid: history_rows(eid, rows or []) for eid, rows in result.items()}

    async def logbook(
        self, start: datetime, end: datetime | None = None, entity_ids: list[str] | None = None
    ) -> list[dict[str, Any]]:
        """Logbook entries (when, entity_id, state, name, message) between start and end."""
        msg: dict[str, Any] = {"type": "logbook/get_events", "start_time": start.isoformat()}
        if end is not None:
            msg["end_time"] = end.isoformat()
        if entity_ids:
            msg["entity_ids"] = entity_ids
        result = await self.command(msg)
        if not isinstance(result, list):
            raise SourceBadResponse("logbook answer is not a list")
        return [row for row in result if isinstance(row, dict)]


class HACommandError(SourceBadResponse):
    """HA answered a command with an error result."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"Home Assistant error {code}: {message}")
        self.ha_code = code


def _command_error(error: dict[str, Any]) -> SourceError:
    code = str(error.get("code", "unknown_error"))
    message = str(error.get("message", ""))
    if code == "unauthorized":
        return SourceAuthFailed(f"Home Assistant refused the request: {message}")
    return HACommandError(code, message)


async def _receive_json(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    msg = await ws.receive()
    if msg.type != aiohttp.WSMsgType.TEXT:
        raise SourceUnreachable(f"Home Assistant closed the connection during auth ({msg.type})")
    try:
        data = json.loads(msg.data)
    except ValueError:
        raise SourceBadResponse("Home Assistant sent a frame that is not JSON") from None
    if not isinstance(data, dict):
        raise SourceBadResponse("Home Assistant sent an unexpected frame")
    return data


def _describe(err: BaseException) -> str:
    if isinstance(err, aiohttp.WSServerHandshakeError):
        return f"websocket handshake failed with HTTP {err.status}"
    return str(err) or type(err).__name__


def _log_task_error(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        _LOGGER.debug("subscription failed: %s", task.exception())
