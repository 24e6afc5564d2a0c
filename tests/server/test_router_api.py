"""The router through its surfaces: GET /api/route, POST /search and `mnemolis ask --json`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnemolis.rest import keys

from .routing_cases import FakeHA, FakeSource, deps_for
from .test_cli import run_cli

Client = Callable[..., Any]


async def test_route_endpoint_shape(make_client: Client) -> None:
    client = await make_client()
    resp = await client.get(
        "/api/route",
        params={"query": "If it rains tomorrow, is the garage door open and what's in the news?"},
    )
    assert resp.status == 200
    body = await resp.json()
    assert set(body) == {"query", "condition", "parts"}
    assert body["condition"] == {"text": "it rains tomorrow", "sources": ["forecast"]}
    assert [set(p) for p in body["parts"]] == [{"query", "sources", "reason"}] * 2
    assert [p["query"] for p in body["parts"]] == ["is the garage door open", "what's in the news"]
    # No Home Assistant here and no live name said: the garage door part goes to the
    # documents and memories instead of ending on "ha is not configured".
    assert [p["sources"] for p in body["parts"]] == [["rag"], ["news"]]
    assert "ha is not configured" in body["parts"][0]["reason"]


async def test_route_endpoint_uses_live_ha_names(make_client: Client) -> None:
    client = await make_client()
    core = client.app[keys.CORE]
    before = await (
        await client.get("/api/route", params={"query": "Is the Roomba docked?"})
    ).json()
    assert before["parts"][0]["reason"].startswith("no rule matched")
    core.services.ha = FakeHA()
    after = await (await client.get("/api/route", params={"query": "Is the Roomba docked?"})).json()
    assert after["parts"][0]["sources"] == ["ha"]
    assert "Roomba" in after["parts"][0]["reason"]


async def test_route_endpoint_rejects_missing_query(make_client: Client) -> None:
    client = await make_client()
    for params in ({}, {"query": "   "}):
        resp = await client.get("/api/route", params=params)
        assert resp.status == 400
        body = await resp.json()
        assert body["error"]["code"] == "invalid_argument"


async def test_search_trace_over_rest(make_client: Client) -> None:
    client = await make_client()
    core = client.app[keys.CORE]
    settings = core.settings
    core.sources["kiwix"] = FakeSource(deps_for(settings), "kiwix", behaviour="error")
    core.sources["web"] = FakeSource(
        deps_for(settings),
        "web",
        answer="**Ada Lovelace** wrote the first program. See https://x.example.",
    )
    resp = await client.post(
        "/search", json={"query": "Who was Ada Lovelace?", "conversation_id": "t1"}
    )
    assert resp.status == 200
    body = await resp.json()
    assert body["source_used"] == "web" and body["fallback"] is True
    assert [(s["name"], s["status"]) for s in body["sources"]] == [
        ("kiwix", "error"),
        ("web", "ok"),
    ]
    for entry in body["sources"]:
        assert {"name", "status", "ms", "reason", "part", "cached"} <= set(entry)
    assert body["sources"][0]["reason"].startswith("matched kiwix")
    assert body["parts"] == [
        {"query": "Who was Ada Lovelace", "source_used": "web", "result": body["result"]}
    ]
    assert body["condition"] is None
    assert body["spoken"] == "Ada Lovelace wrote the first program."
    assert body["conversation_id"] == "t1"
    again = await (await client.post("/search", json={"query": "who was ada lovelace"})).json()
    assert [(s["name"], s["cached"]) for s in again["sources"]] == [("kiwix", False), ("web", True)]


async def test_cli_ask_json_matches_rest(make_client: Client, tmp_path: Path) -> None:
    question = "If it rains tomorrow, is the garage door open and who won the match?"
    client = await make_client()
    rest = await (await client.post("/search", json={"query": question})).json()
    out = run_cli("ask", question, "--json", "--data-dir", str(tmp_path / "cli"))
    cli = json.loads(out.stdout)
    assert set(cli) == set(rest)

    def trace(body: dict[str, Any]) -> Any:
        return (
            body["result"],
            body["source_used"],
            body["fallback"],
            body["parts"],
            body["condition"],
            [
                (s["name"], s["status"], s["reason"], s["part"], s.get("error"))
                for s in body["sources"]
            ],
        )

    assert trace(cli) == trace(rest)
    assert rest["condition"]["verdict"] is None
    assert [p["query"] for p in rest["parts"]] == ["is the garage door open", "who won the match"]


async def test_route_endpoint_previews_a_follow_up(make_client: Client) -> None:
    """With a conversation_id, /api/route shows how the next question would be read."""
    client = await make_client()
    core = client.app[keys.CORE]
    core.sources["kiwix"] = FakeSource(deps_for(core.settings), "kiwix", answer="A mathematician.")
    resp = await client.post(
        "/search", json={"query": "Who was Ada Lovelace?", "conversation_id": "kitchen"}
    )
    assert (await resp.json())["source_used"] == "kiwix"
    params = {"query": "and Alan Turing?", "conversation_id": "kitchen"}
    follow = await (await client.get("/api/route", params=params)).json()
    assert follow["parts"][0]["query"].lower() == "who was alan turing"
    assert follow["parts"][0]["reason"].startswith("follow-up of “Who was Ada Lovelace")
    alone = await (await client.get("/api/route", params={"query": "and Alan Turing?"})).json()
    assert "follow-up" not in alone["parts"][0]["reason"]
    resp = await client.get("/api/route", params={**params, "conversation_id": "x" * 201})
    assert resp.status == 400
    assert "conversation_id" in (await resp.json())["error"]["message"]
