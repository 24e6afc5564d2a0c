"""A real Home Assistant 2025.4 core process for server tests (session-scoped).

Use the ``hass_core`` fixture (registered in tests/server/conftest.py). It
starts ``$MNEMOLIS_HA_VENV/bin/hass -c DIR`` (default ``.venv/ha`` in the
repository) once per test session on a free port with a generated
configuration.yaml, onboards it through its API and creates a long-lived
access token, areas, aliases and area assignments. It yields a ``HassCore``:

* ``url`` (``http://127.0.0.1:PORT``), ``ws_url`` (``.../api/websocket``),
  ``token`` (long-lived, survives restarts), ``config_dir``, ``port``,
  ``time_zone`` (``ZoneInfo`` of the configured home, Europe/Amsterdam).
* ``call_service(domain, service, data)``: REST service call, returns the
  changed states. ``turn_on(entity_id)`` / ``turn_off(entity_id)`` for
  input_booleans; ``set_number(entity_id, value)`` for input_numbers.
* ``set_state(entity_id, state, attributes=None)``: POST /api/states (used
  for the ``device_tracker.*_phone`` trackers that drive the persons).
* ``remove_state(entity_id)``: DELETE /api/states/<id>.
* ``get_state(entity_id)``: GET /api/states/<id> (dict or None).
* ``history(entity_id, start)`` / ``history_states(entity_id, start)``: the
  states the recorder holds since start / how many (wait on them before
  asking history questions: the recorder writes from its own thread).
* ``ws_command(message)``: one websocket command as admin, returns result.
* ``restart()``: stop and start the same config on the same port, wait
  until HA is running again (for reconnect tests).
* ``logs()``: HA's log file so far.

``launch(config_dir)`` does the same outside pytest (bench/ha_search.py).

What the generated home contains (tests assert against these values):

* Floors: Ground Floor (alias "downstairs": Kitchen, Living Room, Garage,
  Hallway) and Upstairs (alias "first floor": Bedroom).
* Areas: Kitchen, Living Room (alias "Lounge"), Garage, Hallway, Bedroom.
* ``binary_sensor.garage_door`` "Garage Door" (device_class garage_door,
  Garage), driven by ``input_boolean.garage_door_contact``;
  ``binary_sensor.front_door`` "Front Door" (device_class door, Hallway,
  alias "Entrance"), driven by ``input_boolean.front_door_contact``. The
  driving input_booleans are hidden in the entity registry, as users do.
* ``sensor.living_room_temperature`` (°C, Living Room, alias "lounge
  thermometer") showing ``input_number.living_room_temp`` (initially 21.5);
  ``sensor.kitchen_humidity`` (48 %, Kitchen); ``sensor.outdoor_temperature``
  (12.3 °C).
* Template lights: ``light.kitchen_ceiling`` "Kitchen Ceiling" and
  ``light.counter_lights`` "Counter Lights" (Kitchen), ``light.reading_lamp``
  "Reading Lamp" (Living Room), ``light.hallway_light`` (Hallway),
  ``light.bedside_lamp`` "Bedside Lamp" (Bedroom); each one
  follows ``input_boolean.<object_id>_power`` and starts off.
* ``input_boolean.guest_mode`` "Guest Mode" (visible, no area, starts off).
* Persons ``person.alice`` / ``person.bob`` tracked by
  ``device_tracker.alice_phone`` / ``device_tracker.bob_phone``.
* ``weather.home_forecast``: template weather whose daily forecast is
  ``DAILY_FORECAST`` (offset in days from today in HA's time zone) and whose
  hourly forecast for 48 hours is ``hourly_expected(local_datetime)``.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp
import pytest

TIME_ZONE = "Europe/Amsterdam"
USERNAME = "mnemolis"
PASSWORD = "mnemolis-test-password"

# (days from today, condition, temperature, templow, precipitation mm,
#  precipitation_probability %, wind_speed km/h, humidity %)
DAILY_FORECAST: list[tuple[int, str, float, float, float, int, float, int]] = [
    (0, "partlycloudy", 18.0, 9.0, 0.0, 10, 14.0, 70),
    (1, "rainy", 14.0, 8.0, 6.5, 90, 22.0, 88),
    (2, "cloudy", 16.0, 7.0, 0.4, 30, 12.0, 75),
    (3, "sunny", 22.0, 11.0, 0.0, 0, 8.0, 55),
    (4, "pouring", 13.0, 9.0, 18.0, 95, 30.0, 93),
    (5, "snowy", 2.0, -3.0, 4.0, 70, 18.0, 85),
    (6, "windy", 15.0, 6.0, 0.0, 15, 45.0, 60),
    (7, "sunny", 20.0, 10.0, 0.0, 5, 10.0, 58),
]
WET_HOURS = (18, 19, 20)
LIGHTS = {
    "kitchen_ceiling": ("Kitchen Ceiling", "kitchen"),
    "counter_lights": ("Counter Lights", "kitchen"),
    "reading_lamp": ("Reading Lamp", "living_room"),
    "hallway_light": ("Hallway Light", "hallway"),
    "bedside_lamp": ("Bedside Lamp", "bedroom"),
}


def daily_expected(offset: int) -> dict[str, Any]:
    """The daily forecast row the template weather publishes for today + offset days."""
    row = next(r for r in DAILY_FORECAST if r[0] == offset)
    keys = (
        "offset",
        "condition",
        "temperature",
        "templow",
        "precipitation",
        "precipitation_probability",
        "wind_speed",
        "humidity",
    )
    return dict(zip(keys, row, strict=True))


def hourly_expected(local: datetime) -> dict[str, Any]:
    """The hourly forecast values for a local (HA time zone) hour."""
    wet = local.hour in WET_HOURS
    return {
        "condition": "rainy" if wet else "cloudy",
        "temperature": 10 + local.hour / 2,
        "precipitation": 1.5 if wet else 0.0,
        "precipitation_probability": 80 if wet else 5,
    }


def _daily_template() -> str:
    rows = json.dumps([list(r) for r in DAILY_FORECAST])
    return (
        f"{{% set rows = {rows} %}}{{% set ns = namespace(out=[]) %}}"
        "{% for r in rows %}{% set ns.out = ns.out + [{"
        '"datetime": (today_at() + timedelta(days=r[0])).isoformat(), "condition": r[1], '
        '"temperature": r[2], "templow": r[3], "precipitation": r[4], '
        '"precipitation_probability": r[5], "wind_speed": r[6], "humidity": r[7]}] %}'
        "{% endfor %}{{ ns.out }}"
    )


def _hourly_template() -> str:
    wet = list(WET_HOURS)
    return (
        "{% set start = now().replace(minute=0, second=0, microsecond=0) %}"
        "{% set ns = namespace(out=[]) %}{% for k in range(48) %}"
        "{% set t = start + timedelta(hours=k) %}"
        f"{{% set wet = t.hour in {wet} %}}"
        '{% set ns.out = ns.out + [{"datetime": t.isoformat(), '
        '"condition": "rainy" if wet else "cloudy", "temperature": 10 + t.hour / 2, '
        '"precipitation": 1.5 if wet else 0.0, "precipitation_probability": 80 if wet else 5, '
        '"wind_speed": 10, "humidity": 70}] %}{% endfor %}{{ ns.out }}'
    )


def core_config(name: str, language: str = "en") -> dict[str, Any]:
    """The ``homeassistant:`` block every test home shares: Amsterdam, metric, a language."""
    return {
        "name": name,
        "latitude": 52.3731,
        "longitude": 4.8922,
        "elevation": 2,
        "unit_system": "metric",
        "time_zone": TIME_ZONE,
        "country": "NL",
        "currency": "EUR",
        "language": language,
    }


def configuration(port: int, config_dir: Path) -> dict[str, Any]:
    """The generated configuration.yaml as data (written as JSON, which YAML reads)."""
    lights = {
        oid: {
            "friendly_name": name,
            "unique_id": f"mn_{oid}",
            "value_template": f"{{{{ is_state('input_boolean.{oid}_power', 'on') }}}}",
            "turn_on": {
                "action": "input_boolean.turn_on",
                "target": {"entity_id": f"input_boolean.{oid}_power"},
            },
            "turn_off": {
                "action": "input_boolean.turn_off",
                "target": {"entity_id": f"input_boolean.{oid}_power"},
            },
        }
        for oid, (name, _area) in LIGHTS.items()
    }
    booleans = {f"{oid}_power": {"name": f"{name} power"} for oid, (name, _a) in LIGHTS.items()}
    booleans["garage_door_contact"] = {"name": "Garage door contact"}
    booleans["front_door_contact"] = {"name": "Front door contact"}
    booleans["guest_mode"] = {"name": "Guest Mode"}
    return {
        "homeassistant": core_config("Mnemolis Test Home"),
        "http": {"server_host": "127.0.0.1", "server_port": port},
        "api": {},
        "websocket_api": {},
        "config": {},
        "history": {},
        "logbook": {},
        "recorder": {
            "db_url": f"sqlite:///{config_dir / 'home-assistant_v2.db'}",
            "commit_interval": 0,
        },
        "person": [
            {"name": "Alice", "id": "alice", "device_trackers": ["device_tracker.alice_phone"]},
            {"name": "Bob", "id": "bob", "device_trackers": ["device_tracker.bob_phone"]},
        ],
        "input_boolean": booleans,
        "input_number": {
            "living_room_temp": {
                "name": "Living room reading",
                "min": -20,
                "max": 40,
                "step": 0.1,
                "initial": 21.5,
            }
        },
        "template": [
            {
                "sensor": [
                    {
                        "name": "Living Room Temperature",
                        "unique_id": "mn_living_room_temperature",
                        "unit_of_measurement": "°C",
                        "device_class": "temperature",
                        "state_class": "measurement",
                        "state": "{{ states('input_number.living_room_temp') }}",
                    },
                    {
                        "name": "Kitchen Humidity",
                        "unique_id": "mn_kitchen_humidity",
                        "unit_of_measurement": "%",
                        "device_class": "humidity",
                        "state": "{{ 48 }}",
                    },
                    {
                        "name": "Outdoor Temperature",
                        "unique_id": "mn_outdoor_temperature",
                        "unit_of_measurement": "°C",
                        "device_class": "temperature",
                        "state": "{{ 12.3 }}",
                    },
                ],
                "binary_sensor": [
                    {
                        "name": "Garage Door",
                        "unique_id": "mn_garage_door",
                        "device_class": "garage_door",
                        "state": "{{ is_state('input_boolean.garage_door_contact', 'on') }}",
                    },
                    {
                        "name": "Front Door",
                        "unique_id": "mn_front_door",
                        "device_class": "door",
                        "state": "{{ is_state('input_boolean.front_door_contact', 'on') }}",
                    },
                ],
            }
        ],
        "light": [{"platform": "template", "lights": lights}],
        "weather": [
            {
                "platform": "template",
                "name": "Home Forecast",
                "unique_id": "mn_home_forecast",
                "condition_template": "partlycloudy",
                "temperature_template": "{{ 17.5 }}",
                "temperature_unit": "°C",
                "humidity_template": "{{ 64 }}",
                "wind_speed_template": "{{ 12 }}",
                "wind_speed_unit": "km/h",
                "forecast_daily_template": _daily_template(),
                "forecast_hourly_template": _hourly_template(),
            }
        ],
    }


class HassCore:
    """A running HA core process and helpers to drive it (see module docstring)."""

    def __init__(self, config_dir: Path, port: int, hass_bin: Path) -> None:
        self.config_dir = config_dir
        self.port = port
        self.hass_bin = hass_bin
        self.url = f"http://127.0.0.1:{port}"
        self.ws_url = f"ws://127.0.0.1:{port}/api/websocket"
        self.token = ""
        self.time_zone = ZoneInfo(TIME_ZONE)
        self.proc: subprocess.Popen[bytes] | None = None
        self._log = config_dir / "hass-stdout.log"

    # --- process -------------------------------------------------------------

    def start(self) -> None:
        """Start hass on the configured port and wait until its API answers."""
        with self._log.open("ab") as out:
            self.proc = subprocess.Popen(
                [str(self.hass_bin), "-c", str(self.config_dir), "--skip-pip"],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        # Own session (so ^C in pytest does not half-kill it); stop it at exit regardless.
        atexit.register(self.stop)
        self._wait(lambda: self._http("GET", "/api/onboarding", auth=False) is not None, 90)

    def stop(self) -> None:
        """SIGTERM the process group and wait; SIGKILL if it hangs."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)

    def restart(self) -> None:
        """Stop and start the same configuration on the same port; wait until running."""
        self.stop()
        self.start()
        self.wait_running()

    def wait_running(self, timeout: float = 90) -> None:
        """Wait until HA reports state RUNNING."""

        def running() -> bool:
            cfg = self._http("GET", "/api/config")
            return isinstance(cfg, dict) and cfg.get("state") == "RUNNING"

        self._wait(running, timeout)

    def logs(self) -> str:
        """HA's own log file (falls back to its stdout)."""
        path = self.config_dir / "home-assistant.log"
        if not path.exists():
            path = self._log
        return path.read_text(encoding="utf-8", errors="replace")

    def _wait(self, check: Any, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                code = self.proc.returncode
                raise RuntimeError(f"hass exited with {code}:\n{self.logs()[-4000:]}")
            try:
                if check():
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise TimeoutError(f"Home Assistant not ready within {timeout}s:\n{self.logs()[-4000:]}")

    # --- REST ----------------------------------------------------------------

    def _http(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        auth: bool = True,
        form: dict[str, str] | None = None,
    ) -> Any:
        headers = {}
        data: bytes | None = None
        if form is not None:
            data = "&".join(f"{k}={urllib.request.quote(v)}" for k, v in form.items()).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if auth and self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=15) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as err:
            if err.code == 404 and method == "GET":
                return None
            raise AssertionError(f"HA {method} {path}: {err.code} {err.read()!r}") from None
        return json.loads(raw) if raw else None

    def call_service(self, domain: str, service: str, data: dict[str, Any] | None = None) -> Any:
        """Call a service over REST and return the states it changed."""
        return self._http("POST", f"/api/services/{domain}/{service}", data or {})

    def turn_on(self, entity_id: str) -> None:
        """Switch an input_boolean (or light) on."""
        self.call_service(entity_id.split(".")[0], "turn_on", {"entity_id": entity_id})

    def turn_off(self, entity_id: str) -> None:
        """Switch an input_boolean (or light) off."""
        self.call_service(entity_id.split(".")[0], "turn_off", {"entity_id": entity_id})

    def set_number(self, entity_id: str, value: float) -> None:
        """Set an input_number."""
        self.call_service("input_number", "set_value", {"entity_id": entity_id, "value": value})

    def set_state(
        self, entity_id: str, state: str, attributes: dict[str, Any] | None = None
    ) -> None:
        """Write a state directly (POST /api/states), e.g. for device trackers."""
        body = {"state": state, "attributes": attributes or {}}
        self._http("POST", f"/api/states/{entity_id}", body)

    def remove_state(self, entity_id: str) -> None:
        """Delete a state written with set_state (DELETE /api/states/<id>)."""
        self._http("DELETE", f"/api/states/{entity_id}")

    def history(self, entity_id: str, start: datetime) -> list[str]:
        """The recorded states since start, oldest first (GET /api/history/period)."""
        path = f"/api/history/period/{urllib.request.quote(start.isoformat())}"
        rows = self._http("GET", f"{path}?filter_entity_id={entity_id}&minimal_response")
        return [str(row["state"]) for row in rows[0]] if rows else []

    def history_states(self, entity_id: str, start: datetime) -> int:
        """How many recorded states the entity has since start."""
        return len(self.history(entity_id, start))

    def get_state(self, entity_id: str) -> dict[str, Any] | None:
        """The entity's current state object, or None."""
        result = self._http("GET", f"/api/states/{entity_id}")
        return result if isinstance(result, dict) else None

    # --- websocket -----------------------------------------------------------

    def ws_command(self, message: dict[str, Any]) -> Any:
        """Run one websocket command (as the admin user) and return its result."""
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, self._ws_commands([message])).result(30)[0]

    def ws_commands(self, messages: list[dict[str, Any]]) -> list[Any]:
        """Run several websocket commands on one connection, in order."""
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, self._ws_commands(messages)).result(60)

    async def _ws_commands(self, messages: list[dict[str, Any]]) -> list[Any]:
        results: list[Any] = []
        async with aiohttp.ClientSession() as session, session.ws_connect(self.ws_url) as ws:
            await ws.receive_json()
            await ws.send_json({"type": "auth", "access_token": self.token})
            auth = await ws.receive_json()
            if auth.get("type") != "auth_ok":
                raise AssertionError(f"HA websocket auth failed: {auth}")
            for i, message in enumerate(messages, start=1):
                await ws.send_json({**message, "id": i})
                while True:
                    reply = await ws.receive_json(timeout=30)
                    if reply.get("id") == i and reply.get("type") == "result":
                        break
                if not reply.get("success"):
                    raise AssertionError(f"HA command {message['type']} failed: {reply}")
                results.append(reply.get("result"))
        return results

    # --- first-run set-up ----------------------------------------------------

    def onboard(self) -> None:
        """Create the owner user, exchange its auth code, create a long-lived token."""
        client_id = f"{self.url}/"
        created = self._http(
            "POST",
            "/api/onboarding/users",
            {
                "client_id": client_id,
                "name": "Mnemolis Tests",
                "username": USERNAME,
                "password": PASSWORD,
                "language": "en",
            },
            auth=False,
        )
        tokens = self._http(
            "POST",
            "/auth/token",
            auth=False,
            form={
                "grant_type": "authorization_code",
                "code": created["auth_code"],
                "client_id": client_id,
            },
        )
        self.token = tokens["access_token"]
        self.wait_running()
        self.token = self.ws_command(
            {
                "type": "auth/long_lived_access_token",
                "client_name": "mnemolis-tests",
                "lifespan": 365,
            }
        )

    def populate(self) -> None:
        """Floors, areas, aliases, area assignments; hide the helper input_booleans."""
        ground, upstairs = (
            f["floor_id"]
            for f in self.ws_commands(
                [
                    {
                        "type": "config/floor_registry/create",
                        "name": "Ground Floor",
                        "aliases": ["downstairs"],
                        "level": 0,
                    },
                    {
                        "type": "config/floor_registry/create",
                        "name": "Upstairs",
                        "aliases": ["first floor"],
                        "level": 1,
                    },
                ]
            )
        )
        areas = {
            "kitchen": {"name": "Kitchen", "floor_id": ground},
            "living_room": {"name": "Living Room", "aliases": ["Lounge"], "floor_id": ground},
            "garage": {"name": "Garage", "floor_id": ground},
            "hallway": {"name": "Hallway", "floor_id": ground},
            "bedroom": {"name": "Bedroom", "floor_id": upstairs},
        }
        # Onboarding already created some default areas (Kitchen, Living Room, ...).
        existing = {
            a["name"].lower(): a["area_id"]
            for a in self.ws_command({"type": "config/area_registry/list"})
        }
        messages = [
            {"type": "config/area_registry/update", "area_id": existing[spec["name"].lower()]}
            | {k: v for k, v in spec.items() if k != "name"}
            if spec["name"].lower() in existing
            else {"type": "config/area_registry/create", **spec}
            for spec in areas.values()
        ]
        created = self.ws_commands(messages)
        ids = {key: area["area_id"] for key, area in zip(areas, created, strict=True)}
        updates: list[dict[str, Any]] = [
            {"entity_id": "binary_sensor.garage_door", "area_id": ids["garage"]},
            {
                "entity_id": "binary_sensor.front_door",
                "area_id": ids["hallway"],
                "aliases": ["Entrance"],
            },
            {
                "entity_id": "sensor.living_room_temperature",
                "area_id": ids["living_room"],
                "aliases": ["lounge thermometer"],
            },
            {"entity_id": "sensor.kitchen_humidity", "area_id": ids["kitchen"]},
        ]
        for oid, (_name, area) in LIGHTS.items():
            updates.append({"entity_id": f"light.{oid}", "area_id": ids[area]})
            updates.append({"entity_id": f"input_boolean.{oid}_power", "hidden_by": "user"})
        for helper in ("garage_door_contact", "front_door_contact"):
            updates.append({"entity_id": f"input_boolean.{helper}", "hidden_by": "user"})
        updates.append({"entity_id": "input_number.living_room_temp", "hidden_by": "user"})
        self.ws_commands([{"type": "config/entity_registry/update", **u} for u in updates])
        self.set_state("device_tracker.alice_phone", "home", {"source_type": "gps"})
        self.set_state("device_tracker.bob_phone", "not_home", {"source_type": "gps"})


def hass_bin() -> Path:
    """The hass executable from $MNEMOLIS_HA_VENV (default: .venv/ha of the repository)."""
    from .conftest import REPO  # late: conftest imports this module

    venv = Path(os.environ.get("MNEMOLIS_HA_VENV") or REPO / ".venv" / "ha")
    return venv / "bin" / "hass"


def launch(config_dir: Path) -> HassCore:
    """Write the configuration, start hass on a free port, onboard and populate it."""
    from .conftest import free_port

    binary = hass_bin()
    if not binary.exists():
        raise RuntimeError(f"{binary} missing: run `make venv` or set MNEMOLIS_HA_VENV")
    port = free_port()
    (config_dir / "configuration.yaml").write_text(
        json.dumps(configuration(port, config_dir), indent=1), encoding="utf-8"
    )
    core = HassCore(config_dir, port, binary)
    core.start()
    try:
        core.onboard()
        core.populate()
    except BaseException:
        core.stop()
        raise
    return core


@pytest.fixture(scope="session")
def hass_core(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HassCore]:
    """One onboarded HA core for the whole session (see the module docstring)."""
    config_dir = tmp_path_factory.mktemp("hass")
    core = launch(config_dir)
    yield core
    core.stop()
    shutil.rmtree(config_dir / "deps", ignore_errors=True)


# --- Home Assistant's own demo home (bench/eval/eval_home.py) -------------------------


def demo_configuration(port: int, config_dir: Path) -> dict[str, Any]:
    """configuration.yaml for HA's `demo:` home, two people following its trackers."""
    return {
        "homeassistant": core_config("Demo Home"),
        "http": {"server_host": "127.0.0.1", "server_port": port},
        "api": {},
        "websocket_api": {},
        "config": {},
        "history": {},
        "logbook": {},
        "recorder": {
            "db_url": f"sqlite:///{config_dir / 'home-assistant_v2.db'}",
            "commit_interval": 0,
        },
        "demo": {},
        "input_text": {"shopping_note": {"name": "Shopping note", "initial": "milk and eggs"}},
        "input_boolean": {"holiday_mode": {"name": "Holiday mode", "initial": False}},
        "input_select": {
            "who_cooks": {"name": "Cook today", "options": ["Paulus", "Anne Therese"],
                          "initial": "Anne Therese"}
        },
        "input_number": {
            "noise_allowance": {"name": "Allowed Noise", "min": 0, "max": 10, "initial": 2,
                                "unit_of_measurement": "dB"}
        },
        "input_datetime": {
            "alarm_clock": {"name": "Alarm clock", "has_date": False, "has_time": True,
                            "initial": "06:45"}
        },
        # What the demo lacks of the common domains: a window, a door and a smoke
        # sensor (their state is what the eval writes, as a device would report it)
        # and blinds with a position.
        "template": [{"binary_sensor": [
            {"name": "Bedroom Window", "unique_id": "mnemolis_bedroom_window",
             "device_class": "window", "state": "{{ false }}"},
            {"name": "Back Door", "unique_id": "mnemolis_back_door",
             "device_class": "door", "state": "{{ false }}"},
            {"name": "Hallway Smoke Detector", "unique_id": "mnemolis_hallway_smoke",
             "device_class": "smoke", "state": "{{ false }}"},
        ]}],
        "cover": [{"platform": "template", "covers": {"bedroom_blinds": {
            "friendly_name": "Bedroom Blinds", "unique_id": "mnemolis_bedroom_blinds",
            "device_class": "blind", "optimistic": True,
            "open_cover": [{"delay": 0}], "close_cover": [{"delay": 0}],
            "set_cover_position": [{"delay": 0}],
        }}}],
    }  # fmt: skip


# Areas a user of the demo home would make, and the entities they would put in them
# (entity ids that do not exist in this HA version are skipped).
DEMO_AREAS: dict[str, list[str]] = {
    "Living Room": [
        "light.living_room_rgbww_lights",
        "media_player.living_room",
        "cover.living_room_window",
        "climate.ecobee",
    ],
    "Kitchen": [
        "light.kitchen_lights",
        "cover.kitchen_window",
        "lock.kitchen_door",
        "binary_sensor.back_door",
    ],
    "Hallway": [
        "cover.hall_window",
        "lock.front_door",
        "light.entrance_color_white_lights",
        "binary_sensor.hallway_smoke_detector",
    ],
    "Bedroom": [
        "media_player.bedroom",
        "climate.hvac",
        "fan.ceiling_fan",
        "binary_sensor.bedroom_window",
        "cover.bedroom_blinds",
    ],
    "Basement": ["binary_sensor.basement_floor_wet", "water_heater.demo_water_heater"],
    "Garage": ["cover.garage_door"],
}


def populate_demo(core: HassCore) -> dict[str, str]:
    """Create the demo home's areas and put some entities in them, as a user would."""
    existing = {
        a["name"].lower(): a["area_id"]
        for a in core.ws_command({"type": "config/area_registry/list"})
    }
    ids: dict[str, str] = {}
    for name in DEMO_AREAS:
        if name.lower() in existing:
            ids[name] = existing[name.lower()]
        else:
            ids[name] = core.ws_command({"type": "config/area_registry/create", "name": name})[
                "area_id"
            ]
    registered = {e["entity_id"] for e in core.ws_command({"type": "config/entity_registry/list"})}
    updates = [
        {"type": "config/entity_registry/update", "entity_id": eid, "area_id": ids[name]}
        for name, eids in DEMO_AREAS.items()
        for eid in eids
        if eid in registered
    ]
    if updates:
        core.ws_commands(updates)
    return ids


def launch_demo(config_dir: Path) -> HassCore:
    """Start HA with the `demo:` home on a free port, onboard it and assign areas."""
    from .conftest import free_port

    binary = hass_bin()
    if not binary.exists():
        raise RuntimeError(f"{binary} missing: run `make venv` or set MNEMOLIS_HA_VENV")
    port = free_port()
    (config_dir / "configuration.yaml").write_text(
        json.dumps(demo_configuration(port, config_dir), indent=1), encoding="utf-8"
    )
    core = HassCore(config_dir, port, binary)
    core.start()
    try:
        core.onboard()
        populate_demo(core)
        core.call_service(
            "cover", "set_cover_position", {"entity_id": "cover.bedroom_blinds", "position": 40}
        )
    except BaseException:
        core.stop()
        raise
    return core
