"""The HTTP surface: health, readiness, error envelope, limits and access control."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

Client = Callable[..., Any]


def assert_envelope(body: dict[str, Any], code: str) -> str:
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    message = body["error"]["message"]
    assert isinstance(message, str) and message
    assert "Traceback" not in message
    return str(message)


async def test_health_and_readiness(make_client: Client) -> None:
    client = await make_client()
    resp = await client.get("/api/health")
    assert resp.status == 200
    body = await resp.json()
    assert body["status"] == "ok" and body["version"]
    resp = await client.get("/api/health/readiness")
    assert resp.status == 200
    ready = await resp.json()
    assert ready["status"] in ("ok", "degraded")
    assert ready["components"]["store"]["status"] == "ok"


async def test_readiness_down_when_data_dir_unusable(make_client: Client, tmp_path: Any) -> None:
    client = await make_client()
    data = tmp_path / "data"
    import shutil

    shutil.rmtree(data)
    data.write_text("a file where the data dir should be")
    resp = await client.get("/api/health/readiness")
    assert resp.status == 503
    body = await resp.json()
    assert body["status"] == "down"
    assert body["components"]["store"]["status"] == "down"
    assert (await client.get("/api/health")).status == 200


async def test_unknown_path_and_wrong_method(make_client: Client) -> None:
    client = await make_client()
    resp = await client.get("/nope")
    assert resp.status == 404
    assert "/nope" in assert_envelope(await resp.json(), "not_found")
    resp = await client.delete("/search")
    assert resp.status == 405
    assert "POST" in resp.headers["Allow"]
    assert "not allowed" in assert_envelope(await resp.json(), "invalid_argument")


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("{not json", "malformed JSON"),
        ("", "empty"),
        ("[1, 2]", "JSON object"),
        ('{"query": 5}', "query"),
        ('{"query": ""}', "query"),
        ('{"query": "hi", "source": "mars"}', "unknown source 'mars'"),
        ('{"query": "hi", "extra": 1}', "extra is not a known field"),
        ('{"query": "' + "x" * 4001 + '"}', "limit is 4000"),
        ('{"query": "a\\u0000b"}', "NUL"),
        ('{"query": "hi", "fusion_sources": ["ha"]}', "only allowed with source"),
        ('{"query": "hi", "source": "fusion", "fusion_sources": ["nope"]}', "unknown source"),
        ("[" * 100000 + "]" * 100000, "nested too deeply"),
        ('{"query": "\\ud800"}', None),
    ],
)
async def test_bad_search_bodies(make_client: Client, body: str, needle: str | None) -> None:
    client = await make_client()
    resp = await client.post("/search", data=body, headers={"Content-Type": "application/json"})
    if needle is None:  # lone surrogate: accepted or refused, never a 500
        assert resp.status in (200, 400)
        return
    assert resp.status == 400, await resp.text()
    assert needle in assert_envelope(await resp.json(), "invalid_argument")
    assert (await client.get("/api/health")).status == 200


async def test_oversized_body_is_413_and_server_keeps_serving(make_client: Client) -> None:
    client = await make_client()
    resp = await client.post("/search", data=b"x" * (10 * 1024 * 1024))
    assert resp.status == 413
    assert "limit" in assert_envelope(await resp.json(), "payload_too_large")
    assert (await client.get("/api/health")).status == 200


async def test_search_with_nothing_configured_answers(make_client: Client) -> None:
    client = await make_client()
    resp = await client.post("/search", json={"query": "is the garage door open?", "source": "ha"})
    assert resp.status == 200
    body = await resp.json()
    assert body["source_used"] == "none"
    assert body["sources"][0]["name"] == "ha"
    assert body["sources"][0]["status"] == "skipped"
    assert "not configured" in body["sources"][0]["error"]


async def test_sources_listed_as_not_configured(make_client: Client) -> None:
    client = await make_client()
    body = await (await client.get("/api/sources")).json()
    names = [s["name"] for s in body["sources"]]
    assert names[:6] == ["ha", "forecast", "news", "web", "kiwix", "uptime"]
    ha = body["sources"][0]
    assert ha["configured"] is False and ha["healthy"] is False


async def test_stats_shape(make_client: Client) -> None:
    client = await make_client()
    await client.post("/search", json={"query": "anything", "source": "web"})
    stats = await (await client.get("/api/stats")).json()
    assert len(stats["instance_id"]) == 32
    assert stats["queries"]["total"] == 1
    assert stats["last_source"] == "none"
    assert "ha" in stats["sources"]


async def test_openapi_lists_routes(make_client: Client) -> None:
    client = await make_client()
    doc = await (await client.get("/openapi.json")).json()
    assert doc["openapi"].startswith("3.1")
    assert "post" in doc["paths"]["/search"]
    assert doc["components"]["schemas"]["SearchRequest"]["properties"]["query"]


async def test_api_key_levels(make_client: Client) -> None:
    client = await make_client(api_key="full-key-123", read_api_key="read-key-456")
    assert (await client.get("/api/health")).status == 200
    resp = await client.get("/api/sources")
    assert resp.status == 401
    assert_envelope(await resp.json(), "unauthorized")
    resp = await client.get("/api/sources", headers={"Authorization": "Bearer wrong"})
    assert resp.status == 401
    for headers in (
        {"Authorization": "Bearer full-key-123"},
        {"X-API-Key": "full-key-123"},
        {"X-API-Key": "read-key-456"},
    ):
        assert (await client.get("/api/sources", headers=headers)).status == 200
    resp = await client.get("/nope", headers={"X-API-Key": "read-key-456"})
    assert resp.status == 404


async def test_every_route_needs_a_key(make_client: Client) -> None:
    """Table-driven over the live route table, so new routes cannot slip through."""
    from mnemolis.rest import keys

    client = await make_client(api_key="full-key-123")
    for ep in client.app[keys.ENDPOINT_LIST]:
        if ep.access.value == "public":
            continue
        path = ep.path.replace("{", "").replace("}", "")
        resp = await client.request(ep.method if ep.method != "*" else "GET", path)
        assert resp.status == 401, f"{ep.method} {ep.path} answered {resp.status} without a key"


async def test_origin_and_host_rules(make_client: Client) -> None:
    client = await make_client(allowed_origins=["http://good.example"])
    ok = await client.get("/api/sources", headers={"Origin": "http://good.example"})
    assert ok.status == 200
    bad = await client.get("/api/health", headers={"Origin": "http://evil.example"})
    assert bad.status == 403
    assert "evil.example" in assert_envelope(await bad.json(), "forbidden")
    rebinding = await client.get("/api/health", headers={"Host": "attacker.example"})
    assert rebinding.status == 403
    lan_ip = await client.get("/api/health", headers={"Host": "192.168.1.20:8888"})
    assert lan_ip.status == 200


def test_tracebacks_are_redacted_in_text_and_json_logs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """log.exception with a key in the exception's text prints *** in both formats."""
    import logging

    from mnemolis.log import setup_logging

    secret = "sekret-key-Zq81xv"
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        for fmt in ("text", "json"):
            setup_logging("info", fmt, [secret])
            try:
                raise ValueError(f"upstream refused Authorization: Bearer {secret}")
            except ValueError:
                logging.getLogger("mnemolis.test").exception("call failed for %s", secret)
            err = capsys.readouterr().err
            assert secret not in err, (fmt, err)
            assert "ValueError: upstream refused Authorization: Bearer ***" in err.replace(
                "\\n", "\n"
            ), (fmt, err)
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])


def test_listening_is_logged_only_once_bound_and_start_is_summarised(
    start_server: Callable[..., Any],
) -> None:
    """The log says what a fresh server answers from, and never claims a port it lost."""
    server = start_server(env={"MNEMOLIS_KIWIX__URL": "http://127.0.0.1:9"})
    logs = server.logs()
    summary = logs[: logs.index("listening on")]
    assert "sources on: " in summary and "kiwix" in summary.split("sources on: ")[1]
    assert "web.searxng_url" in summary  # how to turn the web source on
    assert "no API key set" in summary
    assert "model: " in summary

    second = start_server("--port", str(server.port), wait=False)
    assert second.proc.wait(60) == 1
    logs = second.logs()
    assert "cannot listen on" in logs
    assert "listening on" not in logs, logs


async def test_shutdown_stops_sources_before_what_they_use(
    make_settings: Callable[..., Any],
) -> None:
    """A source stopping (a last snapshot, a watcher) still finds the store and log open."""
    from mnemolis.core import Mnemolis

    core = Mnemolis(make_settings())
    await core.start()
    order: list[str] = []
    source = next(iter(core.sources.values()))

    async def stop_source() -> None:
        order.append(f"querylog open: {not core.querylog._closed}")
        order.append("source stopped")

    async def close_store() -> None:
        order.append("store closed")

    source.stop = stop_source  # type: ignore[method-assign]
    core.on_stop(close_store)
    await core.stop()
    assert order[:3] == ["querylog open: True", "source stopped", "store closed"], order
