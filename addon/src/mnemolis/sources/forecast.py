"""The ``forecast`` source: date-aware weather forecasts from HA or an Open-Meteo API."""

from __future__ import annotations

import json
import re
import time as monotime
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..errors import SourceBadResponse, SourceError, SourceNotConfigured
from ..hass import ClientHold, HAClient, ha_configured
from ..hass.client import HACommandError
from ..hass.timeexpr import day_of, part_of_day, week_range
from ..models import Evidence, SourceAnswer
from .base import QueryContext, Source, SourceDeps, SourceHealth
from .remote import check_status, fetch, join_url

CACHE_SECONDS = 60.0
CONDITION_WORDS = {
    "clear-night": "clear",
    "cloudy": "cloudy",
    "exceptional": "exceptional weather",
    "fog": "foggy",
    "hail": "hail",
    "lightning": "thunderstorms",
    "lightning-rainy": "thunderstorms with rain",
    "partlycloudy": "partly cloudy",
    "pouring": "heavy rain",
    "rainy": "rain",
    "snowy": "snow",
    "snowy-rainy": "sleet",
    "sunny": "sunny",
    "windy": "windy",
    "windy-variant": "windy and cloudy",
}
WET_CONDITIONS = frozenset({"rainy", "pouring", "lightning-rainy", "snowy-rainy", "hail"})
SNOW_CONDITIONS = frozenset({"snowy", "snowy-rainy"})
# WMO weather codes (Open-Meteo's weather_code) as HA conditions, as HA's open_meteo does.
WMO_CONDITIONS: dict[int, str] = {
    0: "sunny",
    1: "partlycloudy",
    2: "partlycloudy",
    3: "cloudy",
    45: "fog",
    48: "fog",
    51: "rainy",
    53: "rainy",
    55: "rainy",
    56: "snowy-rainy",
    57: "snowy-rainy",
    61: "rainy",
    63: "rainy",
    65: "pouring",
    66: "snowy-rainy",
    67: "snowy-rainy",
    71: "snowy",
    73: "snowy",
    75: "snowy",
    77: "snowy",
    80: "rainy",
    81: "rainy",
    82: "pouring",
    85: "snowy",
    86: "snowy",
    95: "lightning-rainy",
    96: "lightning-rainy",
    99: "lightning-rainy",
}
OPEN_METEO_DAILY = (
    "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,"
    "precipitation_probability_max,wind_speed_10m_max,relative_humidity_2m_mean"
)
OPEN_METEO_HOURLY = (
    "weather_code,temperature_2m,precipitation,precipitation_probability,"
    "wind_speed_10m,relative_humidity_2m"
)
_RAIN = re.compile(r"\b(rain\w*|umbrella|wet|showers?|drizzle|precipitation|pour\w*)\b", re.I)
_SNOW = re.compile(r"\bsnow\w*\b", re.I)


@dataclass(slots=True)
class Units:
    """Units the forecast numbers are in."""

    temperature: str = "°C"
    precipitation: str = "mm"
    wind_speed: str = "km/h"


@dataclass(slots=True)
class _Forecast:
    """One fetch of both forecasts, kept for a minute."""

    daily: list[dict[str, Any]]
    hourly: list[dict[str, Any]]
    units: Units
    ref: str
    url: str | None
    at: float = field(default_factory=monotime.monotonic)


def is_wet(row: dict[str, Any]) -> bool:
    """Whether a forecast row means rain (condition, probability or amount)."""
    if row.get("condition") in WET_CONDITIONS:
        return True
    prob = row.get("precipitation_probability")
    if prob is not None:
        return float(prob) >= 50
    return float(row.get("precipitation") or 0) >= 0.5


def _as_local(value: Any, tz: tzinfo) -> datetime | None:
    if isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(str(value))
        except ValueError:
            return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=tz)
    return moment.astimezone(tz)


def _num(value: Any) -> str:
    return f"{float(value):g}"


class ForecastSource(Source):
    """Forecasts by day and hour, answered for the day or part of day asked about.

    Structured API for the router: ``daily()``, ``hourly()`` (HA forecast dicts
    with aware ``datetime`` values in HA's time zone), ``for_day(date)`` and
    ``timezone``.
    """

    name = "forecast"
    description = "Weather forecast (HA weather entity or Open-Meteo): today, tomorrow, weekdays"

    def __init__(self, deps: SourceDeps) -> None:
        super().__init__(deps)
        self._hold = ClientHold(deps)
        self._cache: dict[str, _Forecast] = {}
        self._om_tz: tzinfo | None = None

    # --- configuration -------------------------------------------------------

    @property
    def uses_open_meteo(self) -> bool:
        """An Open-Meteo-compatible URL plus coordinates (set, or HA's home) wins over HA."""
        fc = self.settings.forecast
        if not fc.open_meteo_url:
            return False
        if fc.latitude is not None and fc.longitude is not None:
            return True
        return ha_configured(self.settings)

    async def _coordinates(self) -> tuple[float, float]:
        fc = self.settings.forecast
        if fc.latitude is not None and fc.longitude is not None:
            return fc.latitude, fc.longitude
        client = self._ha()
        await client.wait_ready(self.settings.routing.source_timeout)
        try:
            return float(client.config["latitude"]), float(client.config["longitude"])
        except (KeyError, TypeError, ValueError):
            raise SourceNotConfigured(
                "forecast.latitude/longitude are not set and Home Assistant has no location"
            ) from None

    @property
    def configured(self) -> bool:
        """Open-Meteo with coordinates, or a Home Assistant connection."""
        if self.uses_open_meteo:
            return True
        return ha_configured(self.settings)

    def _ha(self) -> HAClient:
        client = self._hold.take()
        if client is None:
            raise SourceNotConfigured("forecast needs Home Assistant or forecast.open_meteo_url")
        return client

    async def start(self) -> None:
        """Connect to HA (shared client) unless Open-Meteo answers; offer snapshots."""
        self.deps.services.snapshots[self.name] = self.snapshot
        fc = self.settings.forecast
        if not self.uses_open_meteo or fc.latitude is None or fc.longitude is None:
            await self._ha().start(wait=2.0)

    async def stop(self) -> None:
        """Let go of the shared HA client."""
        await self._hold.release()

    async def health(self) -> SourceHealth:
        """HA connected (or Open-Meteo answered last time) and a weather entity exists."""
        if not self.configured:
            return SourceHealth(self.name, self.enabled, False, False, None)
        if self.uses_open_meteo:
            return SourceHealth(
                self.name,
                self.enabled,
                True,
                self.last_error is None,
                self.last_error,
                {"provider": "open-meteo"},
            )
        try:
            client = self._ha()
        except SourceError as err:
            return SourceHealth(self.name, self.enabled, True, False, err.brief)
        entity = self.entity_id(client) if client.connected else None
        error = self.last_error
        if not client.connected and client.last_error is not None:
            error = client.last_error.brief
        elif client.connected and entity is None:
            error = "not_configured: no weather entity in Home Assistant"
        return SourceHealth(
            self.name,
            self.enabled,
            True,
            client.connected and entity is not None and self.last_error is None,
            error,
            {"provider": "home_assistant", "entity_id": entity},
        )

    @property
    def timezone(self) -> tzinfo:
        """HA's time zone (or Open-Meteo's for its location); UTC until known."""
        if self.uses_open_meteo and self._om_tz is not None:
            return self._om_tz
        client = self._hold.client
        if client is not None and client.time_zone is not None:
            return client.time_zone
        return self._om_tz or UTC

    def entity_id(self, client: HAClient) -> str | None:
        """The configured weather entity, else the first ``weather.*`` HA has."""
        configured = self.settings.forecast.entity_id
        if configured:
            return configured
        return next((e for e in sorted(client.states) if e.startswith("weather.")), None)

    # --- structured API ------------------------------------------------------

    async def daily(self) -> list[dict[str, Any]]:
        """Daily forecast rows, ``datetime`` as aware datetimes in HA's time zone."""
        return (await self._forecast("daily")).daily

    async def hourly(self) -> list[dict[str, Any]]:
        """Hourly forecast rows (empty when the provider has none)."""
        return (await self._forecast("hourly")).hourly

    async def for_day(self, day: date) -> dict[str, Any] | None:
        """The daily row for a local date, or None when the forecast does not reach it."""
        for row in await self.daily():
            if row["datetime"].date() == day:
                return row
        return None

    async def snapshot(self) -> dict[str, str]:
        """Per-day summaries, for the changes source's history of forecasts."""
        fc = await self._forecast("daily")
        return {
            row["datetime"].date().isoformat(): self._day_summary(row, fc.units) for row in fc.daily
        }

    async def _forecast(self, kind: str) -> _Forecast:
        cached = self._cache.get(kind)
        if cached is not None and monotime.monotonic() - cached.at < CACHE_SECONDS:
            return cached
        if self.uses_open_meteo:
            got = await self._open_meteo()
            self._cache["daily"] = self._cache["hourly"] = got
            return got
        got = await self._ha_forecast(kind)
        self._cache[kind] = got
        return got

    async def _ha_forecast(self, kind: str) -> _Forecast:
        client = self._ha()
        await client.wait_ready(self.settings.routing.source_timeout)
        entity_id = self.entity_id(client)
        if entity_id is None:
            raise SourceNotConfigured(
                "Home Assistant has no weather entity; add one or set forecast.entity_id"
            )
        state = client.states.get(entity_id)
        if state is None:
            raise SourceNotConfigured(
                f"weather entity {entity_id} does not exist in Home Assistant"
            )
        attrs = state.get("attributes") or {}
        units = Units(
            temperature=str(attrs.get("temperature_unit") or "°C"),
            precipitation=str(attrs.get("precipitation_unit") or "mm"),
            wind_speed=str(attrs.get("wind_speed_unit") or "km/h"),
        )
        tz = self.timezone
        try:
            response = await client.service_response(
                "weather", "get_forecasts", {"type": kind}, target={"entity_id": entity_id}
            )
        except HACommandError as err:
            if kind == "hourly":  # the entity has no hourly forecast
                return _Forecast([], [], units, entity_id, None)
            raise SourceBadResponse(f"weather.get_forecasts failed: {err.message}") from None
        try:
            raw = response[entity_id]["forecast"]
        except (KeyError, TypeError):
            raise SourceBadResponse("weather.get_forecasts returned no forecast") from None
        rows = _parse_rows(raw, tz)
        if kind == "daily":
            return _Forecast(rows, [], units, entity_id, None)
        return _Forecast([], rows, units, entity_id, None)

    async def _open_meteo(self) -> _Forecast:
        fc = self.settings.forecast
        assert fc.open_meteo_url is not None
        base = fc.open_meteo_url.rstrip("/")
        url = base if base.endswith("/forecast") else join_url(base, "/v1/forecast")
        latitude, longitude = await self._coordinates()
        params = {
            "latitude": str(latitude),
            "longitude": str(longitude),
            "daily": OPEN_METEO_DAILY,
            "hourly": OPEN_METEO_HOURLY,
            "timezone": "auto",
            "forecast_days": "8",
            "wind_speed_unit": "kmh",
        }
        resp = await fetch(
            self.deps.session,
            "GET",
            url,
            params=params,
            timeout=self.settings.routing.source_timeout,
            what="Open-Meteo",
        )
        try:
            data = json.loads(resp.body)
        except ValueError:
            check_status(resp, "Open-Meteo")
            raise SourceBadResponse(f"Open-Meteo at {url} did not answer JSON") from None
        if isinstance(data, dict) and data.get("error"):
            raise SourceBadResponse(f"Open-Meteo: {data.get('reason', 'error')}")
        check_status(resp, "Open-Meteo")
        if not isinstance(data, dict):
            raise SourceBadResponse("Open-Meteo answered something other than an object")
        return self._parse_open_meteo(data, url)

    def _parse_open_meteo(self, data: dict[str, Any], url: str) -> _Forecast:
        tz: tzinfo
        try:
            tz = ZoneInfo(str(data.get("timezone")))
        except (ZoneInfoNotFoundError, ValueError):
            tz = timezone(timedelta(seconds=int(data.get("utc_offset_seconds") or 0)))
        self._om_tz = tz
        units_raw = data.get("daily_units") or {}
        units = Units(
            temperature=str(units_raw.get("temperature_2m_max") or "°C"),
            precipitation=str(units_raw.get("precipitation_sum") or "mm"),
            wind_speed=str(units_raw.get("wind_speed_10m_max") or "km/h"),
        )
        try:
            daily = _columns(
                data.get("daily") or {},
                {
                    "weather_code": "condition",
                    "temperature_2m_max": "temperature",
                    "temperature_2m_min": "templow",
                    "precipitation_sum": "precipitation",
                    "precipitation_probability_max": "precipitation_probability",
                    "wind_speed_10m_max": "wind_speed",
                    "relative_humidity_2m_mean": "humidity",
                },
                lambda t: datetime.combine(date.fromisoformat(t), time(0), tz),
            )
            hourly = _columns(
                data.get("hourly") or {},
                {
                    "weather_code": "condition",
                    "temperature_2m": "temperature",
                    "precipitation": "precipitation",
                    "precipitation_probability": "precipitation_probability",
                    "wind_speed_10m": "wind_speed",
                    "relative_humidity_2m": "humidity",
                },
                lambda t: datetime.fromisoformat(t).replace(tzinfo=tz),
            )
        except (ValueError, TypeError, KeyError) as err:
            raise SourceBadResponse(f"Open-Meteo answer has an unexpected shape ({err})") from None
        return _Forecast(daily, hourly, units, "open-meteo", url.split("?", 1)[0])

    # --- answering -----------------------------------------------------------

    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        """Answer for the day, days or part of day the question names (default today)."""
        now = ctx.now if ctx.now.tzinfo else ctx.now.replace(tzinfo=UTC)
        daily_fc = await self._forecast("daily")
        tz = self.timezone
        local_now = now.astimezone(tz)
        today = local_now.date()
        rain = bool(_RAIN.search(question))
        snow = bool(_SNOW.search(question))
        span = part_of_day(question)
        if span is not None:
            hourly_fc = await self._forecast("hourly")
            if hourly_fc.hourly:
                day = day_of(question, today) or today
                if span[0] == "tonight" and day != today:
                    day = today
                return self._answer_hours(hourly_fc, day, span, local_now, rain, snow)
        days = week_range(question, today)
        if days is not None:
            return self._answer_days(daily_fc, days, today, rain, snow)
        day = day_of(question, today) or today
        return self._answer_day(daily_fc, day, today, rain, snow)

    def _label(self, day: date, today: date) -> str:
        base = f"{day:%A} {day.day} {day:%B}"
        if day == today:
            return f"Today ({base})"
        if day == today + timedelta(days=1):
            return f"Tomorrow ({base})"
        return base

    def _day_summary(self, row: dict[str, Any], units: Units) -> str:
        parts = [CONDITION_WORDS.get(str(row.get("condition")), str(row.get("condition") or "?"))]
        high, low = row.get("temperature"), row.get("templow")
        if high is not None and low is not None:
            parts.append(f"{_num(low)} to {_num(high)} {units.temperature}")
        elif high is not None:
            parts.append(f"{_num(high)} {units.temperature}")
        if row.get("precipitation") is not None:
            amount = f"{_num(row['precipitation'])} {units.precipitation} precipitation"
            if row.get("precipitation_probability") is not None:
                amount += f" ({_num(row['precipitation_probability'])} % chance)"
            parts.append(amount)
        elif row.get("precipitation_probability") is not None:
            parts.append(f"{_num(row['precipitation_probability'])} % chance of precipitation")
        if row.get("wind_speed") is not None:
            parts.append(f"wind {_num(row['wind_speed'])} {units.wind_speed}")
        return ", ".join(parts)

    def _evidence(self, fc: _Forecast, title: str, text: str, moment: datetime) -> Evidence:
        return Evidence(
            source=self.name,
            title=title,
            text=text,
            url=fc.url,
            ref=fc.ref,
            score=1.0,
            timestamp=moment.isoformat(),
        )

    def _answer_day(
        self, fc: _Forecast, day: date, today: date, rain: bool, snow: bool
    ) -> SourceAnswer:
        row = next((r for r in fc.daily if r["datetime"].date() == day), None)
        label = self._label(day, today)
        if row is None:
            last = max((r["datetime"].date() for r in fc.daily), default=None)
            reach = f" (it reaches {last:%A} {last.day} {last:%B})" if last else ""
            return SourceAnswer(
                source=self.name,
                answer=f"The forecast does not cover {label}{reach}.",
                data={"day": day.isoformat(), "forecast": None},
            )
        summary = self._day_summary(row, fc.units)
        lead = ""
        when_word = label.split(" (")[0]
        when_word = when_word.lower() if when_word in ("Today", "Tomorrow") else f"on {day:%A}"
        if snow:
            snowy = row.get("condition") in SNOW_CONDITIONS
            lead = (
                f"Yes, snow is expected {when_word}. "
                if snowy
                else f"No snow expected {when_word}. "
            )
        elif rain:
            lead = (
                f"Yes, rain is likely {when_word}. "
                if is_wet(row)
                else f"No, rain is unlikely {when_word}. "
            )
        text = f"{lead}{label}: {summary}."
        return SourceAnswer(
            source=self.name,
            answer=text,
            evidence=[self._evidence(fc, f"Forecast for {label}", summary, row["datetime"])],
            data={"day": day.isoformat(), "forecast": _jsonable(row), "wet": is_wet(row)},
        )

    def _answer_days(
        self, fc: _Forecast, days: tuple[date, date], today: date, rain: bool, snow: bool
    ) -> SourceAnswer:
        rows = [r for r in fc.daily if days[0] <= r["datetime"].date() <= days[1]]
        if not rows:
            return SourceAnswer(source=self.name, answer="The forecast does not cover those days.")
        lines = [
            f"{self._label(r['datetime'].date(), today)}: {self._day_summary(r, fc.units)}"
            for r in rows
        ]
        lead = ""
        if rain or snow:
            hits = [
                r for r in rows if (r.get("condition") in SNOW_CONDITIONS if snow else is_wet(r))
            ]
            what = "snow" if snow else "rain"
            if hits:
                names = [f"{r['datetime']:%A}" for r in hits]
                joined = (
                    names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
                )
                lead = f"Yes, {what} is likely on {joined}. "
            else:
                span = (
                    f"on {days[0]:%A}"
                    if days[0] == days[1]
                    else (f"between {days[0]:%A} and {days[1]:%A}")
                )
                lead = f"No {what} is expected {span}. "
        evidence = [
            self._evidence(fc, f"Forecast for {line.split(':')[0]}", line, r["datetime"])
            for r, line in zip(rows, lines, strict=True)
        ]
        return SourceAnswer(
            source=self.name,
            answer=lead + ". ".join(lines) + ".",
            evidence=evidence,
            data={"days": [_jsonable(r) for r in rows], "wet": [is_wet(r) for r in rows]},
        )

    def _answer_hours(
        self,
        fc: _Forecast,
        day: date,
        span: tuple[str, int, int],
        local_now: datetime,
        rain: bool,
        snow: bool,
    ) -> SourceAnswer:
        name, first, last = span
        tz = self.timezone
        start = datetime.combine(day, time(0), tz) + timedelta(hours=first)
        end = datetime.combine(day, time(0), tz) + timedelta(hours=last)
        if day == local_now.date():
            start = max(start, local_now.replace(minute=0, second=0, microsecond=0))
        rows = [r for r in fc.hourly if start <= r["datetime"] < end]
        label = f"{'This' if day == local_now.date() else day.strftime('%A')} {name}"
        if name == "tonight":
            label = "Tonight"
        if not rows and end <= local_now:
            return SourceAnswer(
                source=self.name,
                answer=f"{label} is already over (it is {local_now:%H:%M} now).",
                data={"hours": []},
            )
        if not rows:
            return SourceAnswer(
                source=self.name,
                answer=f"The hourly forecast does not cover {label.lower()}.",
                data={"hours": []},
            )
        temps = [float(r["temperature"]) for r in rows if r.get("temperature") is not None]
        wet = [r for r in rows if is_wet(r)]
        conditions: list[str] = []
        for r in rows:
            word = CONDITION_WORDS.get(str(r.get("condition")), str(r.get("condition")))
            if word not in conditions:
                conditions.append(word)
        until = rows[-1]["datetime"] + timedelta(hours=1)
        span_text = f"{rows[0]['datetime']:%H:%M} to {until:%H:%M}"
        parts = [" then ".join(conditions)]
        if temps:
            parts.append(f"{_num(min(temps))} to {_num(max(temps))} {fc.units.temperature}")
        total = sum(float(r.get("precipitation") or 0) for r in rows)
        probs = [
            float(r["precipitation_probability"])
            for r in rows
            if r.get("precipitation_probability") is not None
        ]
        if probs:
            parts.append(f"up to {_num(max(probs))} % chance of precipitation")
        if total:
            parts.append(f"{_num(round(total, 1))} {fc.units.precipitation} in total")
        lead = ""
        if rain or snow:
            if wet:
                lead = (
                    f"Yes, rain is likely from {wet[0]['datetime']:%H:%M} "
                    f"to {wet[-1]['datetime'] + timedelta(hours=1):%H:%M}. "
                )
            else:
                lead = "No, rain is unlikely. "
        summary = ", ".join(parts)
        text = f"{lead}{label} ({span_text}): {summary}."
        return SourceAnswer(
            source=self.name,
            answer=text,
            evidence=[
                self._evidence(fc, f"Forecast for {label.lower()}", summary, rows[0]["datetime"])
            ],
            data={"hours": [_jsonable(r) for r in rows], "wet": bool(wet)},
        )


def _parse_rows(raw: Any, tz: tzinfo) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    if not isinstance(raw, list):
        raise SourceBadResponse("forecast is not a list")
    for item in raw:
        if not isinstance(item, dict):
            continue
        moment = _as_local(item.get("datetime"), tz)
        if moment is None:
            continue
        rows.append({**item, "datetime": moment})
    rows.sort(key=lambda r: r["datetime"])
    return rows


def _columns(block: dict[str, Any], names: dict[str, str], when: Any) -> list[dict[str, Any]]:
    times = block.get("time") or []
    rows: list[dict[str, Any]] = []
    for i, stamp in enumerate(times):
        row: dict[str, Any] = {"datetime": when(stamp)}
        for column, key in names.items():
            values = block.get(column)
            if not isinstance(values, list) or i >= len(values) or values[i] is None:
                continue
            value = values[i]
            if key == "condition":
                value = WMO_CONDITIONS.get(int(value), "exceptional")
            row[key] = value
        rows.append(row)
    return rows


def _jsonable(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v.isoformat() if isinstance(v, datetime) else v for k, v in row.items()}


__all__ = ["ForecastSource", "is_wet"]
