"""Fuzzing the REST surface: no 5xx, every error in the envelope, server alive after.

Schemathesis generates requests from the live ``/openapi.json`` of a real
server process, so every documented route is covered as it lands; hypothesis
throws hostile JSON at the request models directly.
"""

from __future__ import annotations

import json
import os
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import SERVER_BIN, free_port, server_env, wait_http

ENVELOPE_CODES = {
    "invalid_argument",
    "unauthorized",
    "forbidden",
    "not_found",
    "payload_too_large",
    "rate_limited",
    "unavailable",
}


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real server for the whole module (fuzzing many requests against it)."""
    tmp = tmp_path_factory.mktemp("fuzz")
    port = free_port()
    env = server_env()
    env["MNEMOLIS_RAG__ROOTS"] = json.dumps([str(tmp / "docs")])
    (tmp / "docs").mkdir()
    (tmp / "docs" / "note.md").write_text("# Boiler\nThe boiler is serviced in May.\n")
    log = (tmp / "server.log").open("w")
    proc = subprocess.Popen(
        [str(SERVER_BIN), "serve", "--port", str(port), "--data-dir", str(tmp / "data")],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{url}/api/health")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        assert proc.returncode == 0, (tmp / "server.log").read_text()[-3000:]


@pytest.fixture(scope="module")
def api_schema(live_server: str) -> Any:
    """The server's own OpenAPI document, as schemathesis sees it."""
    schemathesis.experimental.OPEN_API_3_1.enable()  # our document is OpenAPI 3.1
    return schemathesis.from_uri(f"{live_server}/openapi.json", base_url=live_server)


schema = schemathesis.from_pytest_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=int(os.environ.get("MNEMOLIS_FUZZ_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_openapi_fuzz(case: Any, live_server: str) -> None:
    """Whatever schemathesis sends, the answer is never a 5xx and errors are enveloped."""
    response = case.call(base_url=live_server, timeout=30)
    assert response.status_code < 500 or response.status_code == 503, (
        f"{case.method} {case.formatted_path} -> {response.status_code}: {response.text[:500]}"
    )
    if response.status_code >= 400 and "json" in response.headers.get("Content-Type", ""):
        body = response.json()
        err = body.get("error")
        assert isinstance(err, dict), body
        assert err.get("message"), body
        if "code" in err and isinstance(err["code"], str) and err.get("type") is None:
            assert err["code"] in ENVELOPE_CODES | {"internal"}, body
    with urllib.request.urlopen(f"{live_server}/api/health", timeout=10) as resp:
        assert resp.status == 200


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False)
    | st.text(alphabet=st.characters(codec="utf-8"), max_size=50),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)

hostile_strings = st.sampled_from(
    ["\x00", "a\x00b", "\ud800", "x" * 1_000_001, "[" * 5000, "title:x", "a AND b", "auth*"]
)


@given(
    body=st.dictionaries(
        st.sampled_from(["query", "source", "fusion_sources", "conversation_id", "zzz"]),
        json_values | hostile_strings,
        max_size=4,
    )
)
@settings(
    max_examples=int(os.environ.get("MNEMOLIS_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_search_body_fuzz(body: dict[str, Any], live_server: str) -> None:
    """Hostile /search bodies get 200 or a clear 4xx, never a 5xx."""
    data = json.dumps(body).encode("utf-8", "surrogatepass")
    req = urllib.request.Request(
        f"{live_server}/search", data=data, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            status, payload = resp.status, json.load(resp)
    except urllib.error.HTTPError as err:
        status, payload = err.code, json.loads(err.read() or b"{}")
    assert status in (200, 400, 413, 429), (status, payload)
    if status != 200:
        assert payload["error"]["code"] in ENVELOPE_CODES
        assert payload["error"]["message"]


def test_raw_garbage_bodies(live_server: str) -> None:
    """Invalid UTF-8, deep nesting, huge numbers: each a clear 400."""
    cases = [b"\xff\xfe\xfa", b"[" * 200_000, b'{"query": 1e999999}', b'{"query": "a"' * 10]
    for raw in cases:
        req = urllib.request.Request(f"{live_server}/search", data=raw)
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=30)
        assert info.value.code == 400, raw[:40]
        assert json.loads(info.value.read())["error"]["code"] == "invalid_argument"


def test_hostile_rag_paths(live_server: str, tmp_path: Path) -> None:
    """Path escapes and device files are refused when registering a database."""
    link = tmp_path / "escape"
    link.symlink_to("/etc")
    for path in ["../../etc", "/etc", "/dev/null", str(link), "\x00", ""]:
        body = json.dumps({"name": "evil", "path": path}).encode()
        req = urllib.request.Request(
            f"{live_server}/api/rag", data=body, headers={"Content-Type": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=30)
        assert info.value.code in (400, 403, 404), (path, info.value.code)


def post_raw(url: str, data: bytes, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """POST bytes; (status, parsed JSON body or None)."""
    req = urllib.request.Request(
        url, data=data, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            status, raw, ctype = resp.status, resp.read(), resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as err:
        status, raw, ctype = err.code, err.read(), err.headers.get("Content-Type", "")
    return status, json.loads(raw) if raw and "json" in ctype else None


BODY_ROUTES = [
    "/api/memories",
    "/api/memories/search",
    "/api/context-pack",
    "/api/source-bundle",
    "/api/rag/docs/search",
    "/api/rag",
]
FIELDS = ["query", "q", "content", "tags", "status", "limit", "mode", "budget_chars"]
FIELDS += ["sources", "name", "path", "db", "zzz"]
huge_ints = st.sampled_from([2**63, -(2**63) - 1, 10**400, -1, 0])


@given(
    route=st.sampled_from(BODY_ROUTES),
    body=st.dictionaries(
        st.sampled_from(FIELDS), json_values | hostile_strings | huge_ints, max_size=5
    )
    | json_values,
)
@settings(
    max_examples=int(os.environ.get("MNEMOLIS_FUZZ_EXAMPLES", "80")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_hostile_bodies_on_knowledge_routes(route: str, body: Any, live_server: str) -> None:
    """Memories, rag, context-pack and source-bundle bodies: 2xx or an enveloped 4xx."""
    data = json.dumps(body).encode("utf-8", "surrogatepass")
    status, payload = post_raw(f"{live_server}{route}", data)
    assert status < 500, (route, body, status, payload)
    if status >= 400:
        assert payload["error"]["code"] in ENVELOPE_CODES, payload
        assert payload["error"]["message"]


# Each (route, body) once: lone surrogates anywhere, NUL in tags and queries (issue 17).
SURROGATE_CASES = [
    ("/search", {"query": "is it \ud800 raining"}),
    ("/search", {"query": "x", "source": "fusion", "fusion_sources": ["web\udfff"]}),
    ("/search", {"query": "x", "conversation_id": "c\ud800"}),
    ("/api/memories", {"content": "Bins go out on Tuesday \ud83d"}),
    ("/api/memories", {"content": "ok", "tags": ["chores", "a\ud800b"]}),
    ("/api/memories", {"content": "ok", "tags": ["a\u0000b"]}),
    ("/api/memories/search", {"query": "bins\ud800"}),
    ("/api/memories/search", {"query": "bins", "tags": "x\udc00"}),
    ("/api/memories/search", {"query": "bi\u0000ns"}),
    ("/api/rag", {"name": "docs", "path": "/tmp/\ud800"}),
    ("/api/rag", {"name": "d\ud800", "path": "/tmp"}),
    ("/api/rag/docs/search", {"q": "boiler\ud800"}),
    ("/api/rag/docs/search", {"q": "boi\u0000ler"}),
    ("/api/context-pack", {"query": "boiler\udbff", "budget_chars": 500}),
    ("/api/source-bundle", {"sources": ["note\ud800.md"]}),
    ("/api/memories", {"content": "ok", "\ud800": 1}),
]


@pytest.mark.parametrize(("route", "body"), SURROGATE_CASES)
def test_lone_surrogates_and_nul_are_400(
    route: str, body: dict[str, Any], live_server: str
) -> None:
    """JSON may spell text no database or file name takes: a clear 400 naming the field."""
    data = json.dumps(body).encode()  # ASCII with \\uXXXX escapes, as a client sends them
    status, payload = post_raw(f"{live_server}{route}", data)
    assert status == 400, (route, body, status, payload)
    message = payload["error"]["message"]
    assert payload["error"]["code"] == "invalid_argument"
    assert "lone surrogate" in message or "NUL" in message, message


@pytest.mark.parametrize(
    "path", ["/api/route?query=a%00b", "/api/memories?tags=a%00b", "/api/memories?q=x%00"]
)
def test_nul_in_query_parameters_is_400(path: str, live_server: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(f"{live_server}{path}", timeout=30)
    assert info.value.code == 400
    assert "NUL" in json.loads(info.value.read())["error"]["message"]


def test_valid_astral_text_still_works(live_server: str) -> None:
    """A surrogate *pair* (an emoji) is valid Unicode and is stored as such."""
    data = json.dumps({"content": "Party on Friday \ud83c\udf89", "tags": ["fun"]}).encode()
    status, payload = post_raw(f"{live_server}/api/memories", data)
    assert status in (200, 201), payload
    assert "\U0001f389" in json.dumps(payload, ensure_ascii=False), payload


def deeply_nested(depth: int) -> bytes:
    return b'{"query": ' + b"[" * depth + b"]" * depth + b"}"


def test_deep_nesting_and_huge_numbers_everywhere(live_server: str) -> None:
    """Nesting past the parser's recursion limit and 400-digit integers: a clear 400."""
    for route in ["/search", *BODY_ROUTES, "/api/memories/search"]:
        for raw in (deeply_nested(100_000), b'{"limit": ' + b"9" * 5000 + b"}"):
            status, payload = post_raw(f"{live_server}{route}", raw)
            assert status in (400, 413), (route, status, payload)
            assert payload["error"]["code"] in ENVELOPE_CODES


@pytest.fixture(scope="module")
def mcp_session(live_server: str) -> dict[str, str]:
    """An initialized MCP session on the live server (Streamable HTTP)."""
    accept = {"Accept": "application/json, text/event-stream"}
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "1"},
        },
    }
    req = urllib.request.Request(
        f"{live_server}/mcp",
        data=json.dumps(init).encode(),
        headers={"Content-Type": "application/json", **accept},
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        session = resp.headers["Mcp-Session-Id"]
    headers = {**accept, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"}
    note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
    assert post_raw(f"{live_server}/mcp", note, headers)[0] == 202
    return headers


TOOLS = ["search", "list_rag", "search_rag", "remember", "recall", "context_pack"]
TOOLS += ["source_bundle", "docs", "chat", "list_models", "nope"]


@given(
    name=st.sampled_from(TOOLS),
    arguments=st.dictionaries(
        st.sampled_from([*FIELDS, "page", "messages", "max_tokens", "fusion_sources"]),
        json_values | hostile_strings | huge_ints,
        max_size=5,
    )
    | json_values,
)
@settings(
    max_examples=int(os.environ.get("MNEMOLIS_FUZZ_EXAMPLES", "80")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_mcp_tool_calls_with_hostile_arguments(
    name: str, arguments: Any, live_server: str, mcp_session: dict[str, str]
) -> None:
    """tools/call with any arguments: a result (maybe isError) or a JSON-RPC error, never a 5xx."""
    msg = {"jsonrpc": "2.0", "id": 7, "method": "tools/call"}
    msg["params"] = {"name": name, "arguments": arguments}  # type: ignore[assignment]
    status, reply = post_raw(
        f"{live_server}/mcp", json.dumps(msg).encode("utf-8", "surrogatepass"), mcp_session
    )
    assert status in (200, 400, 413), (status, reply)
    if status == 200:
        assert reply["jsonrpc"] == "2.0" and reply["id"] == 7
        assert ("result" in reply) != ("error" in reply), reply
        if "error" in reply:
            assert reply["error"]["code"] in (-32700, -32600, -32601, -32602, -32603), reply
        else:
            assert isinstance(reply["result"]["content"], list), reply


def test_mcp_deep_nesting_and_huge_numbers(live_server: str, mcp_session: dict[str, str]) -> None:
    """The JSON-RPC endpoint answers a parse error, and the session keeps working."""
    huge_id = b'{"jsonrpc": "2.0", "id": ' + b"9" * 5000 + b', "method": "ping"}'
    for raw in (deeply_nested(100_000), huge_id, b"\xff\xfe"):
        status, reply = post_raw(f"{live_server}/mcp", raw, mcp_session)
        assert status in (200, 400, 413), (status, reply)
        assert reply["error"]["code"] in (-32700, -32600) or reply["error"]["code"] in (
            ENVELOPE_CODES
        ), reply
    ping = json.dumps({"jsonrpc": "2.0", "id": "after", "method": "ping"}).encode()
    assert post_raw(f"{live_server}/mcp", ping, mcp_session) == (
        200,
        {"jsonrpc": "2.0", "id": "after", "result": {}},
    )


def test_hostile_paths_for_cli_rag_add(tmp_path: Path) -> None:
    """`mnemolis rag add` refuses escapes, symlinks out of a root and device files, in one line."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "out").symlink_to("/etc")
    env = server_env()
    env["MNEMOLIS_RAG__ROOTS"] = json.dumps([str(root)])
    for path in [f"{root}/../..", "/etc", "/dev/null", str(root / "out"), "/dev/zero"]:
        proc = subprocess.run(
            [str(SERVER_BIN), "rag", "add", "evil", path, "--data-dir", str(tmp_path / "d")],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode != 0, (path, proc.stdout)
        assert "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.strip(), path
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
