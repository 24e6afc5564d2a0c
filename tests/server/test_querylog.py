"""The query log: what ``GET /api/queries`` shows, paging, filters, retention and privacy."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from mnemolis import querylog
from mnemolis.core import Mnemolis
from mnemolis.models import Citation, ConditionResult, PartResult, SearchResult, SourceRun
from mnemolis.querylog import HIDDEN_TEXT, QueryFilter, QueryLog
from mnemolis.requestmodels import SearchRequest
from mnemolis.rest import keys
from mnemolis.settings import QueryLogSettings
from mnemolis.tools import call_tool

from .stubs import serve
from .stubs.searxng import searxng_app

Client = Callable[..., Any]
DAY = 86400.0


@pytest.fixture
async def searx_url() -> AsyncIterator[str]:
    async with serve(searxng_app()) as url:
        yield url


def result(
    query: str,
    source: str = "web",
    *,
    fallback: bool = False,
    ms: float = 12.5,
    condition: str | None = None,
) -> SearchResult:
    """A routed answer as the router builds it."""
    runs = [SourceRun(source if source != "none" else "kiwix", "ok", ms - 1, "keyword match")]
    if fallback:
        runs.insert(0, SourceRun("kiwix", "error", 3.0, "default order", "unreachable: refused"))
    return SearchResult(
        query=query,
        result=f"answer to {query}" if source != "none" else "No source could answer.",
        source_used=source,
        fallback=fallback,
        parts=[PartResult(query, source, "part answer")],
        condition=ConditionResult(condition, True, "rain 80%") if condition else None,
        sources=runs,
        citations=[Citation(source, "A page", url="https://example.org/a")],
        elapsed_ms=ms,
    )


def core_of(client: Any) -> Mnemolis:
    core: Mnemolis = client.app[keys.CORE]
    return core


async def get(client: Any, path: str, status: int = 200) -> Any:
    resp = await client.get(path)
    body = await resp.json()
    assert resp.status == status, body
    return body


async def test_search_is_logged_with_its_full_trace(make_client: Client, searx_url: str) -> None:
    client = await make_client(web={"searxng_url": searx_url})
    resp = await client.post("/search", json={"query": "what is MQTT?", "source": "web"})
    answer = await resp.json()
    assert answer["source_used"] == "web"
    page = await get(client, "/api/queries")
    assert page["total"] == 1 and page["next_cursor"] is None
    entry = page["queries"][0]
    assert entry["query"] == "what is MQTT?"
    assert entry["text_stored"] is True
    assert entry["source_used"] == "web"
    assert entry["fallback"] is False
    assert entry["status"] == "answered"
    assert entry["surface"] == "rest"
    assert entry["latency_ms"] == answer["elapsed_ms"]
    assert entry["time"].endswith("Z") and abs(entry["ts"] - time.time()) < 60
    # The trace is exactly what the caller got back.
    assert entry["trace"] == answer
    one = await get(client, f"/api/queries/{entry['id']}")
    assert one == entry


async def test_surface_names_who_asked(make_client: Client) -> None:
    client = await make_client()
    body = {"query": "anything", "source": "ha"}
    await client.post("/search", json=body)
    await client.post("/search", json=body, headers={"X-Mnemolis-Client": "web-ui"})
    await client.post(
        "/search", json=body, headers={"User-Agent": "HomeAssistant/2025.4.4 aiohttp/3.11.16"}
    )
    core = core_of(client)
    tool = await call_tool(core, "search", {"query": "anything", "source": "ha"})
    assert "ha is not configured" in tool.text
    await core.search(SearchRequest(query="anything", source="ha"))
    page = await get(client, "/api/queries")
    assert [q["surface"] for q in page["queries"]] == ["cli", "mcp", "integration", "ui", "rest"]
    only = await get(client, "/api/queries?surface=mcp")
    assert only["total"] == 1 and only["queries"][0]["surface"] == "mcp"


async def test_paging_with_cursor_walks_every_entry_once(make_client: Client) -> None:
    client = await make_client()
    log = core_of(client).querylog
    for i in range(7):
        log.record(result(f"question {i}"), surface="rest")
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        path = "/api/queries?limit=3" + (f"&cursor={cursor}" if cursor else "")
        page = await get(client, path)
        assert page["total"] == 7
        seen += [q["query"] for q in page["queries"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == 3
    assert seen == [f"question {i}" for i in reversed(range(7))]
    # New questions arriving meanwhile do not shift an open cursor.
    first = await get(client, "/api/queries?limit=2")
    log.record(result("newcomer"), surface="rest")
    second = await get(client, f"/api/queries?limit=2&cursor={first['next_cursor']}")
    assert [q["query"] for q in second["queries"]] == ["question 4", "question 3"]


async def test_filters(make_client: Client) -> None:
    client = await make_client()
    log = core_of(client).querylog
    now = time.time()
    log.record(result("Weather tomorrow?", "forecast"), surface="rest", at=now - 3 * 3600)
    log.record(result("who wrote Dune", "web", fallback=True), surface="mcp", at=now - 2 * 3600)
    log.record(result("garage door", "none"), surface="ui", at=now - 3600)
    log.record(result("100% humidity?", "ha"), surface="rest", at=now)

    async def queries(qs: str) -> list[str]:
        page = await get(client, "/api/queries?" + qs)
        assert page["total"] == len(page["queries"])
        return [q["query"] for q in page["queries"]]

    assert await queries("source=web") == ["who wrote Dune"]
    assert await queries("source=WEB") == ["who wrote Dune"]
    assert await queries("fallback=true") == ["who wrote Dune"]
    assert len(await queries("fallback=false")) == 3
    assert await queries("status=failed") == ["garage door"]
    assert await queries("failed=true") == ["garage door"]
    assert await queries("source=none") == ["garage door"]
    assert len(await queries("status=answered")) == 3
    assert await queries("q=WEATHER") == ["Weather tomorrow?"]
    # LIKE wildcards in the search text are literal.
    assert await queries("q=100%25") == ["100% humidity?"]
    assert await queries("q=_") == []
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - 2.5 * 3600))
    assert await queries(f"since={since}") == ["100% humidity?", "garage door", "who wrote Dune"]
    assert await queries(f"until={now - 1800}") == [
        "garage door",
        "who wrote Dune",
        "Weather tomorrow?",
    ]
    assert await queries(f"since={now - 2.5 * 3600}&until={now - 1800}&surface=ui") == [
        "garage door"
    ]
    # One conversation's questions (e.g. an Assist dialogue).
    followup = result("and the day after?", "forecast")
    followup.conversation_id = "01JD-assist-7"
    log.record(followup, surface="integration", at=now)
    assert await queries("conversation_id=01JD-assist-7") == ["and the day after?"]
    log.record(result("unrelated", "web"), surface="rest", at=now)
    # Filters and paging together.
    page = await get(client, "/api/queries?status=answered&limit=4")
    assert page["total"] == 5 and page["next_cursor"]
    rest = await get(client, f"/api/queries?status=answered&limit=4&cursor={page['next_cursor']}")
    assert [q["query"] for q in rest["queries"]] == ["Weather tomorrow?"]


@pytest.mark.parametrize(
    ("qs", "needle"),
    [
        ("limit=0", "limit=0: allowed 1..200"),
        ("limit=1000", "allowed 1..200"),
        ("limit=ten", "limit='ten': must be an integer"),
        ("cursor=-4", "cursor=-4"),
        ("cursor=99999999999999999999999", "allowed 1..9223372036854775807"),
        ("limit=%C2%B2", "must be an integer"),
        ("fallback=maybe", "fallback='maybe': must be true or false"),
        ("status=unknown", "allowed: answered, failed"),
        ("status=failed&failed=false", "contradict"),
        ("surface=fax", "surface='fax'"),
        ("since=yesterday", "ISO 8601"),
        ("since=nan", "not a time"),
        ("until=2025-13-45", "ISO 8601"),
        ("sort=asc", "unknown query parameter 'sort'"),
        ("q=" + "x" * 501, "longer than 500"),
        ("conversation_id=" + "c" * 201, "longer than 200"),
    ],
)
async def test_bad_parameters_are_400(make_client: Client, qs: str, needle: str) -> None:
    client = await make_client()
    body = await get(client, "/api/queries?" + qs, status=400)
    assert body["error"]["code"] == "invalid_argument"
    assert needle in body["error"]["message"]


async def test_one_entry_not_found_and_bad_id(make_client: Client) -> None:
    client = await make_client()
    missing = await get(client, "/api/queries/99", status=404)
    assert "not in the log" in missing["error"]["message"]
    for raw in ("abc", "12345678901234567890123", "%C2%B2", "-1"):
        bad = await get(client, f"/api/queries/{raw}", status=400)
        assert "not a query log id" in bad["error"]["message"]


async def test_retention_by_rows(make_client: Client) -> None:
    client = await make_client(querylog={"max_rows": 5})
    log = core_of(client).querylog
    for i in range(8):
        log.record(result(f"q{i}"), surface="rest")
    page = await get(client, "/api/queries")
    assert page["total"] == 5
    assert [q["query"] for q in page["queries"]] == ["q7", "q6", "q5", "q4", "q3"]
    oldest = page["queries"][-1]["id"]
    await get(client, f"/api/queries/{int(oldest) - 1}", status=404)


async def test_retention_by_days(make_client: Client) -> None:
    client = await make_client(querylog={"retention_days": 2})
    log = core_of(client).querylog
    now = time.time()
    log.record(result("last week"), surface="rest", at=now - 7 * DAY)
    log.record(result("three days ago"), surface="rest", at=now - 3 * DAY)
    log.record(result("yesterday"), surface="rest", at=now - 1 * DAY)
    log.record(result("now"), surface="rest", at=now)
    page = await get(client, "/api/queries")
    assert [q["query"] for q in page["queries"]] == ["now", "yesterday"]


async def test_retention_applies_when_the_server_starts(
    make_settings: Callable[..., Any], tmp_path: Path
) -> None:
    """A log left by a server with longer retention is trimmed at the next start."""
    path = tmp_path / "querylog.db"
    log = QueryLog(path, QueryLogSettings(retention_days=0, max_rows=0))
    log.open()
    now = time.time()
    for age in (40, 20, 10, 0):
        log.record(result(f"{age} days old"), surface="cli", at=now - age * DAY)
    await log.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM queries").fetchone()[0] == 4

    again = QueryLog(path, QueryLogSettings(retention_days=30, max_rows=2))
    again.open()
    try:
        assert await again.count() == 2
        page = await again.list(QueryFilter())
        assert [q["query"] for q in page["queries"]] == ["0 days old", "10 days old"]
    finally:
        await again.close()


async def test_store_text_false_never_writes_the_question(
    make_client: Client, tmp_path: Path
) -> None:
    secret = "is Alice home alone tonight"
    client = await make_client(querylog={"store_text": False})
    core = core_of(client)
    core.querylog.record(result(secret, "ha", condition=f"if {secret}"), surface="rest")
    await client.post("/search", json={"query": secret, "source": "ha"})
    page = await get(client, "/api/queries")
    assert page["total"] == 2
    for entry in page["queries"]:
        assert entry["query"] == HIDDEN_TEXT
        assert entry["text_stored"] is False
        assert entry["query_chars"] == len(secret)
        assert all(p["query"] == HIDDEN_TEXT for p in entry["trace"]["parts"])
    # What stays is how it was handled: sources, statuses, timing, verdict.
    crafted = page["queries"][1]["trace"]
    assert crafted["condition"]["text"] == HIDDEN_TEXT
    assert crafted["condition"]["verdict"] is True
    assert crafted["result"] == "(not stored)"
    assert [(r["name"], r["status"]) for r in crafted["sources"]] == [("ha", "ok")]
    assert crafted["sources"][0]["ms"] == 11.5
    assert crafted["citations"] == [{"source": "ha", "title": "(not stored)"}]
    assert page["queries"][0]["trace"]["sources"][0]["status"] == "skipped"
    # Text search cannot find hidden questions (it would otherwise match the placeholder).
    assert (await get(client, "/api/queries?q=stored"))["total"] == 0
    await core.querylog.flush()
    data_dir = core.data_dir
    raw = b"".join(p.read_bytes() for p in data_dir.glob("querylog.db*"))
    assert raw, "the query log files exist"
    assert secret.encode() not in raw


async def test_switching_store_text_off_scrubs_earlier_questions(tmp_path: Path) -> None:
    path = tmp_path / "querylog.db"
    words = "when does Bob leave for the airport"
    log = QueryLog(path, QueryLogSettings(store_text=True))
    log.open()
    for i in range(30):
        log.record(result(f"{words} {i}", "ha", condition=f"if {words}"), surface="rest")
    await log.close()
    assert words.encode() in b"".join(p.read_bytes() for p in tmp_path.glob("querylog.db*"))

    private = QueryLog(path, QueryLogSettings(store_text=False))
    private.open()
    try:
        page = await private.list(QueryFilter(limit=200))
        assert page["total"] == 30
        assert {q["query"] for q in page["queries"]} == {HIDDEN_TEXT}
        assert all(not q["text_stored"] for q in page["queries"])
        assert all(q["trace"]["condition"]["text"] == HIDDEN_TEXT for q in page["queries"])
        assert all(q["trace"]["sources"][0]["status"] == "ok" for q in page["queries"])
    finally:
        await private.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("querylog.db*"))
    assert words.encode() not in raw
    assert b"airport" not in raw


async def test_log_that_cannot_open_does_not_stop_questions(
    make_client: Client, make_settings: Callable[..., Any]
) -> None:
    settings = make_settings()
    (Path(settings.data_dir) / "querylog.db").mkdir(parents=True)
    client = await make_client()
    resp = await client.post("/search", json={"query": "still answered?", "source": "ha"})
    assert resp.status == 200
    body = await get(client, "/api/queries", status=503)
    assert body["error"]["code"] == "unavailable"
    assert "could not be opened" in body["error"]["message"]
    assert (await client.get("/api/health")).status == 200


async def test_read_key_reads_the_log(make_client: Client) -> None:
    client = await make_client(api_key="full-key-123", read_api_key="read-key-456")
    assert (await client.get("/api/queries")).status == 401
    resp = await client.get("/api/queries", headers={"X-API-Key": "read-key-456"})
    assert resp.status == 200
    resp = await client.get("/api/queries/1", headers={"X-API-Key": "read-key-456"})
    assert resp.status == 404


async def test_a_row_that_cannot_be_written_is_dropped_and_logging_goes_on(
    tmp_path: Path,
) -> None:
    log = QueryLog(tmp_path / "querylog.db", QueryLogSettings())
    log.open()
    try:
        log.record(result("before"), surface="rest")
        broken = result("not storable")
        broken.conversation_id = object()  # type: ignore[assignment]
        log.record(broken, surface="rest")
        log.record(result("after"), surface="rest")
        page = await log.list(QueryFilter())
        # Same batch: only the broken row is lost.
        assert [q["query"] for q in page["queries"]] == ["after", "before"]
        assert log.dropped == 1 and log.written == 2
        assert log.error is not None and "last write failed" in log.error
    finally:
        await log.close()


async def test_a_stuck_writer_never_holds_up_questions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The queue is bounded; when the disk stalls, questions go on and the overflow is counted."""
    monkeypatch.setattr(querylog, "_QUEUE_LIMIT", 5)
    log = QueryLog(tmp_path / "querylog.db", QueryLogSettings())
    gate = threading.Event()
    write = log._write

    def stalled(conn: sqlite3.Connection, rows: list[Any], **kw: Any) -> None:
        gate.wait(20)
        write(conn, rows, **kw)

    monkeypatch.setattr(log, "_write", stalled)
    log.open()
    try:
        for i in range(50):
            log.record(result(f"q{i}"), surface="rest")  # never waits for the writer
        assert log.dropped > 0
        await log.flush(timeout=0.2)  # returns although the writer is stuck
        gate.set()
        await log.flush()
        assert log.written + log.dropped == 50
        assert await log.count() == log.written
    finally:
        gate.set()
        await log.close()


async def test_rows_are_written_in_batches_and_none_is_lost_on_a_clean_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Answering only queues a row; the writer takes them together, and stopping writes the rest."""
    monkeypatch.setattr(querylog, "FLUSH_EVERY_S", 60.0)  # only a full batch or a stop wakes it
    path = tmp_path / "querylog.db"
    log = QueryLog(path, QueryLogSettings())
    batches: list[int] = []
    write = log._write

    def counted(conn: sqlite3.Connection, rows: list[Any], **kw: Any) -> None:
        batches.append(len(rows))
        write(conn, rows, **kw)

    monkeypatch.setattr(log, "_write", counted)
    log.open()
    for i in range(30):
        log.record(result(f"q{i}"), surface="rest")
    assert batches == []  # nothing written on the request path
    await log.close()
    assert batches == [30]
    reopened = QueryLog(path, QueryLogSettings())
    reopened.open()
    try:
        assert await reopened.count() == 30
    finally:
        await reopened.close()
