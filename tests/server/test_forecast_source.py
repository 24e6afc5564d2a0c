"""The ``forecast`` source: HA's weather.get_forecasts (real HA) and an Open-Meteo stub."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp
import pytest
from aiohttp import web

from mnemolis.settings import Settings
from mnemolis.sources.base import QueryContext, SourceDeps, run_source
from mnemolis.sources.forecast import ForecastSource

from .hass_fixture import HassCore, daily_expected


def ctx() -> QueryContext:
    return QueryContext(now=datetime.now(UTC))


def today_in(tz: ZoneInfo) -> date:
    return datetime.now(tz).date()


def summary(row: dict[str, Any], condition: str) -> str:
    return (
        f"{condition}, {row['templow']:g} to {row['temperature']:g} °C, "
        f"{row['precipitation']:g} mm precipitation "
        f"({row['precipitation_probability']:g} % chance), wind {row['wind_speed']:g} km/h"
    )


@pytest.fixture
async def forecast(
    hass_core: HassCore, make_settings: Callable[..., Settings]
) -> AsyncIterator[ForecastSource]:
    settings = make_settings(ha={"url": hass_core.url, "token": hass_core.token})
    async with aiohttp.ClientSession() as session:
        source = ForecastSource(SourceDeps(settings=settings, session=session))
        await source.start()
        yield source
        await source.stop()


async def test_structured_daily_and_hourly(forecast: ForecastSource, hass_core: HassCore) -> None:
    daily = await forecast.daily()
    assert str(forecast.timezone) == "Europe/Amsterdam"
    today = today_in(hass_core.time_zone)
    assert [row["datetime"].date() for row in daily] == [
        today + timedelta(days=i) for i in range(8)
    ]
    for row in daily:
        assert row["datetime"].utcoffset() is not None
        expected = daily_expected((row["datetime"].date() - today).days)
        for key in ("condition", "temperature", "templow", "precipitation", "humidity"):
            assert row[key] == expected[key], key
    tomorrow = await forecast.for_day(today + timedelta(days=1))
    assert tomorrow is not None
    assert (tomorrow["condition"], tomorrow["temperature"], tomorrow["templow"]) == (
        "rainy",
        14.0,
        8.0,
    )
    assert await forecast.for_day(today + timedelta(days=30)) is None
    hourly = await forecast.hourly()
    assert len(hourly) == 48
    for row in hourly:
        local = row["datetime"].astimezone(hass_core.time_zone)
        assert row["temperature"] == 10 + local.hour / 2
        assert row["condition"] == ("rainy" if local.hour in (18, 19, 20) else "cloudy")


async def test_tomorrow(forecast: ForecastSource, hass_core: HassCore) -> None:
    tomorrow = today_in(hass_core.time_zone) + timedelta(days=1)
    answer = await forecast.query("What's the weather tomorrow?", ctx())
    label = f"Tomorrow ({tomorrow:%A} {tomorrow.day} {tomorrow:%B})"
    assert answer.answer == f"{label}: {summary(daily_expected(1), 'rain')}."
    assert answer.evidence[0].ref == "weather.home_forecast"
    assert answer.evidence[0].timestamp is not None
    assert answer.evidence[0].timestamp.startswith(tomorrow.isoformat())
    rain = await forecast.query("Will it rain tomorrow?", ctx())
    assert rain.answer.startswith("Yes, rain is likely tomorrow.")
    assert rain.data["wet"] is True


@pytest.mark.parametrize(
    ("offset", "wet", "condition"), [(3, False, "sunny"), (4, True, "heavy rain")]
)
async def test_weekday(
    forecast: ForecastSource, hass_core: HassCore, offset: int, wet: bool, condition: str
) -> None:
    day = today_in(hass_core.time_zone) + timedelta(days=offset)
    weekday = f"{day:%A}"
    answer = await forecast.query(f"will it rain on {weekday}?", ctx())
    lead = f"Yes, rain is likely on {weekday}." if wet else f"No, rain is unlikely on {weekday}."
    assert answer.answer.startswith(lead)
    assert f"{weekday} {day.day} {day:%B}: {summary(daily_expected(offset), condition)}." in (
        answer.answer
    )


async def test_rain_this_week(forecast: ForecastSource, hass_core: HassCore) -> None:
    today = today_in(hass_core.time_zone)
    # Days 1 (rainy 90 %), 4 (pouring 95 %) and 5 (snow, 70 %) bring precipitation.
    names = [f"{today + timedelta(days=d):%A}" for d in (1, 4, 5)]
    answer = await forecast.query("Will it rain this week?", ctx())
    assert answer.answer.startswith(
        f"Yes, rain is likely on {names[0]}, {names[1]} and {names[2]}."
    )
    assert len(answer.evidence) == 7
    assert answer.data["wet"] == [False, True, False, False, True, True, False]


async def test_tomorrow_evening_hourly(forecast: ForecastSource, hass_core: HassCore) -> None:
    tomorrow = today_in(hass_core.time_zone) + timedelta(days=1)
    answer = await forecast.query("will it rain tomorrow evening?", ctx())
    assert answer.answer.startswith("Yes, rain is likely from 18:00 to 21:00.")
    assert f"{tomorrow:%A} evening (18:00 to 23:00): rain then cloudy, 19 to 21 °C" in answer.answer
    assert "up to 80 % chance of precipitation, 4.5 mm in total" in answer.answer
    assert [h["datetime"][11:16] for h in answer.data["hours"]] == [
        "18:00",
        "19:00",
        "20:00",
        "21:00",
        "22:00",
    ]


async def test_missing_weather_entity_is_a_clear_error(
    hass_core: HassCore, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings(
        ha={"url": hass_core.url, "token": hass_core.token},
        forecast={"entity_id": "weather.nowhere"},
    )
    async with aiohttp.ClientSession() as session:
        source = ForecastSource(SourceDeps(settings=settings, session=session))
        await source.start()
        try:
            run, answer = await run_source(source, "weather tomorrow", ctx(), timeout=10)
        finally:
            await source.stop()
    assert answer is None
    assert run.status == "error"
    assert run.error == (
        "not_configured: weather entity weather.nowhere does not exist in Home Assistant"
    )


# --- Open-Meteo-compatible API (stub speaking its documented JSON) -------------------


def open_meteo_body(start: date, tz: str) -> dict[str, Any]:
    """A /v1/forecast answer as documented at open-meteo.com/en/docs."""
    days = [start + timedelta(days=i) for i in range(8)]
    hours = [
        datetime(start.year, start.month, start.day) + timedelta(hours=h) for h in range(8 * 24)
    ]
    return {
        "latitude": 52.52,
        "longitude": 13.419998,
        "generationtime_ms": 0.5,
        "utc_offset_seconds": 3600,
        "timezone": tz,
        "timezone_abbreviation": "CET",
        "elevation": 38.0,
        "daily_units": {
            "time": "iso8601",
            "weather_code": "wmo code",
            "temperature_2m_max": "°C",
            "temperature_2m_min": "°C",
            "precipitation_sum": "mm",
            "precipitation_probability_max": "%",
            "wind_speed_10m_max": "km/h",
        },
        "daily": {
            "time": [d.isoformat() for d in days],
            "weather_code": [3, 63, 0, 0, 95, 71, 2, 1],
            "temperature_2m_max": [5.1, 7.4, 9.0, 8.2, 6.0, 1.5, 4.4, 5.5],
            "temperature_2m_min": [0.2, 2.9, 1.0, 0.5, 3.3, -2.0, -1.0, 0.0],
            "precipitation_sum": [0.0, 7.8, 0.0, 0.0, 12.1, 3.0, 0.0, 0.0],
            "precipitation_probability_max": [5, 85, 0, 3, 90, 60, 10, 0],
            "wind_speed_10m_max": [11.2, 24.5, 9.0, 8.0, 31.0, 15.5, 12.0, 7.0],
        },
        "hourly_units": {"time": "iso8601", "temperature_2m": "°C"},
        "hourly": {
            "time": [h.strftime("%Y-%m-%dT%H:%M") for h in hours],
            "weather_code": [61 if h.hour in (18, 19) else 3 for h in hours],
            "temperature_2m": [float(h.hour) / 4 for h in hours],
            "precipitation": [0.6 if h.hour in (18, 19) else 0.0 for h in hours],
            "precipitation_probability": [70 if h.hour in (18, 19) else 10 for h in hours],
            "wind_speed_10m": [10.0 for _ in hours],
            "relative_humidity_2m": [80 for _ in hours],
        },
    }


@pytest.fixture
async def open_meteo(aiohttp_server: Any) -> Any:
    """A local Open-Meteo stub; records the query strings it was sent."""
    seen: list[dict[str, str]] = []
    mode = {"value": "ok"}

    async def forecast(request: web.Request) -> web.Response:
        seen.append(dict(request.query))
        if mode["value"] == "garbage":
            return web.Response(text="<html>Bad gateway</html>", content_type="text/html")
        if mode["value"] == "slow":
            await asyncio.sleep(5)
        if mode["value"] == "error":
            return web.json_response(
                {"error": True, "reason": "Latitude must be in range of -90 to 90°."}, status=400
            )
        start = datetime.now(ZoneInfo("Europe/Berlin")).date()
        return web.json_response(open_meteo_body(start, "Europe/Berlin"))

    app = web.Application()
    app.router.add_get("/v1/forecast", forecast)
    server = await aiohttp_server(app)
    server.seen = seen
    server.mode = mode
    return server


async def test_open_meteo(open_meteo: Any, make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(
        forecast={
            "open_meteo_url": str(open_meteo.make_url("/")),
            "latitude": 52.52,
            "longitude": 13.41,
        }
    )
    async with aiohttp.ClientSession() as session:
        source = ForecastSource(SourceDeps(settings=settings, session=session))
        assert source.configured
        await source.start()
        answer = await source.query("will it rain tomorrow?", ctx())
        evening = await source.query("what about this evening", ctx())
        daily = await source.daily()
        open_meteo.mode["value"] = "error"
        source._cache.clear()
        run, _ = await run_source(source, "weather tomorrow", ctx(), timeout=5)
        await source.stop()
    query = open_meteo.seen[0]
    assert (query["latitude"], query["longitude"], query["timezone"]) == ("52.52", "13.41", "auto")
    assert "weather_code" in query["daily"]
    tomorrow = datetime.now(ZoneInfo("Europe/Berlin")).date() + timedelta(days=1)
    assert str(source.timezone) == "Europe/Berlin"
    assert daily[1]["datetime"].date() == tomorrow
    assert daily[1]["condition"] == "rainy"
    assert answer.answer == (
        f"Yes, rain is likely tomorrow. Tomorrow ({tomorrow:%A} {tomorrow.day} {tomorrow:%B}): "
        "rain, 2.9 to 7.4 °C, 7.8 mm precipitation (85 % chance), wind 24.5 km/h."
    )
    assert answer.evidence[0].url is not None
    assert answer.evidence[0].url.endswith("/v1/forecast")
    now_hour = datetime.now(ZoneInfo("Europe/Berlin")).hour
    if now_hour < 23:
        assert evening.answer.startswith("This evening (")
    assert run.status == "error"
    assert run.error == "bad_response: Open-Meteo: Latitude must be in range of -90 to 90°."


async def test_open_meteo_at_home_assistants_location(
    open_meteo: Any, hass_core: HassCore, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings(
        ha={"url": hass_core.url, "token": hass_core.token},
        forecast={"open_meteo_url": str(open_meteo.make_url("/"))},
    )
    async with aiohttp.ClientSession() as session:
        source = ForecastSource(SourceDeps(settings=settings, session=session))
        await source.start()
        try:
            answer = await source.query("weather on the day after tomorrow", ctx())
        finally:
            await source.stop()
    query = open_meteo.seen[0]
    assert (query["latitude"], query["longitude"]) == ("52.3731", "4.8922")
    day = datetime.now(ZoneInfo("Europe/Berlin")).date() + timedelta(days=2)
    assert answer.answer == (
        f"{day:%A} {day.day} {day:%B}: sunny, 1 to 9 °C, 0 mm precipitation (0 % chance), "
        "wind 9 km/h."
    )


@pytest.mark.parametrize(
    ("mode", "status", "error"),
    [
        ("garbage", "error", "bad_response: Open-Meteo at "),
        ("slow", "timeout", ""),
        ("refused", "error", "unreachable: Open-Meteo at http://127.0.0.1:"),
    ],
)
async def test_open_meteo_failures(
    open_meteo: Any,
    make_settings: Callable[..., Settings],
    mode: str,
    status: str,
    error: str,
) -> None:
    from .conftest import free_port

    url = str(open_meteo.make_url("/"))
    if mode == "refused":
        url = f"http://127.0.0.1:{free_port()}/"
    open_meteo.mode["value"] = mode
    settings = make_settings(
        forecast={"open_meteo_url": url, "latitude": 52.52, "longitude": 13.41},
        routing={"source_timeout": 1.0},
    )
    async with aiohttp.ClientSession() as session:
        source = ForecastSource(SourceDeps(settings=settings, session=session))
        await source.start()
        try:
            run, answer = await run_source(source, "weather tomorrow", ctx(), timeout=1.0)
            health = await source.health()
        finally:
            await source.stop()
    assert answer is None
    assert run.status == status
    assert run.error is not None and run.error.startswith(error), run.error
    if status == "timeout":  # the source's own fetch limit or run_source's, whichever fires first
        assert run.error.endswith("did not answer within 1 s")
    assert not health.healthy
