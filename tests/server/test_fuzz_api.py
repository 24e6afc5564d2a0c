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

from .conftest import SERVER_BIN, free_port, wait_http

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
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOLIS_")}
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
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
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
