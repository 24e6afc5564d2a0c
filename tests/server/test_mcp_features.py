"""Prompts, completion, logging and resource subscriptions (issue 29 items 7-9).

The official MCP client over every transport against a real Mnemolis process:
what Claude Desktop shows in its menu (prompts with arguments), what it offers
while one is typed (completion of database names, memory tags, docs pages), log
messages about the caller's own search after ``logging/setLevel``, and a
notification when the databases' status it subscribed to changes.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from mcp import types
from mcp.shared.exceptions import McpError
from pydantic import AnyUrl

from .mcp_client_fixture import TRANSPORTS, Connect

PROMPTS = {"ask_home", "morning_briefing", "what_changed", "search_documents", "what_i_remembered"}
# A bound on waiting for a notification, never a figure the test checks.
BOUND_S = 30


def _text(result: types.GetPromptResult) -> str:
    content = result.messages[0].content
    assert isinstance(content, types.TextContent)
    return content.text


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_prompts_with_arguments(connect: Connect, transport: str) -> None:
    async with connect(transport, {}) as (session, _server):
        init = await session.initialize()
        assert init.capabilities.prompts is not None
        listed = {p.name: p for p in (await session.list_prompts()).prompts}
        assert set(listed) == PROMPTS
        assert all(p.description and p.title for p in listed.values())
        ask = listed["ask_home"]
        assert [(a.name, a.required) for a in ask.arguments or []] == [("question", True)]

        got = await session.get_prompt("ask_home", {"question": "Is the garage door open?"})
        assert got.messages[0].role == "user"
        assert "Is the garage door open?" in _text(got) and "`search`" in _text(got)
        docs = await session.get_prompt(
            "search_documents", {"query": "the API key", "database": "mnemolis-docs"}
        )
        assert "`mnemolis-docs`" in _text(docs) and "the API key" in _text(docs)
        since = await session.get_prompt("what_changed", {})
        assert "since yesterday" in _text(since)
        brief = await session.get_prompt("morning_briefing", {"topics": "the election"})
        assert "headlines about the election" in _text(brief)

        with pytest.raises(McpError) as missing:
            await session.get_prompt("ask_home", {})
        assert missing.value.error.code == -32602
        assert "needs the argument 'question'" in missing.value.error.message
        with pytest.raises(McpError) as unknown:
            await session.get_prompt("order_pizza", {})
        assert unknown.value.error.code == -32602 and "ask_home" in unknown.value.error.message
        assert (await session.send_ping()) is not None


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_completion_of_prompt_arguments_and_the_docs_template(
    connect: Connect, transport: str
) -> None:
    async with connect(transport, {}) as (session, _server):
        init = await session.initialize()
        assert init.capabilities.completions is not None
        stored = await session.call_tool(
            "remember", {"content": "The car is serviced in May", "tags": ["car", "garage"]}
        )
        assert stored.isError is False, stored.content

        async def complete(ref: Any, name: str, value: str) -> list[str]:
            done = await session.complete(ref, {"name": name, "value": value})
            return done.completion.values

        docs = types.PromptReference(type="ref/prompt", name="search_documents")
        assert await complete(docs, "database", "mnem") == ["mnemolis-docs"]
        tags = types.PromptReference(type="ref/prompt", name="what_i_remembered")
        assert await complete(tags, "tag", "ca") == ["car"]
        assert set(await complete(tags, "tag", "")) >= {"car", "garage"}
        since = types.PromptReference(type="ref/prompt", name="what_changed")
        assert await complete(since, "since", "yes") == ["yesterday"]
        page = types.ResourceTemplateReference(type="ref/resource", uri="mnemolis://docs/{page}")
        assert await complete(page, "page", "sec") == ["security"]
        # What Mnemolis cannot complete is an empty list, not an error.
        assert await complete(docs, "query", "boi") == []
        unknown = types.PromptReference(type="ref/prompt", name="nope")
        assert await complete(unknown, "x", "y") == []


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_log_messages_about_the_callers_search(connect: Connect, transport: str) -> None:
    heard: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        heard.append(params)

    async with connect(transport, {}, logging_callback=on_log) as (session, _server):
        init = await session.initialize()
        assert init.capabilities.logging is not None
        question = {"query": "How do I connect Claude Desktop?"}
        await session.call_tool("search", question)
        assert heard == []  # nothing before the client asks
        assert await session.set_logging_level("info") is not None
        answered = await session.call_tool("search", question)
        assert answered.isError is False
        summary = [h for h in heard if h.logger == "mnemolis.search"]
        assert len(summary) == 1, heard
        assert summary[0].level == "info"
        assert "answered by rag" in str(summary[0].data) and "rag ok" in str(summary[0].data)
        # Above the summary's level, nothing of it.
        await session.set_logging_level("error")
        heard.clear()
        await session.call_tool("search", question)
        assert [h for h in heard if h.logger == "mnemolis.search"] == []


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_subscribing_to_the_databases_status(
    connect: Connect, transport: str, tmp_path: Path
) -> None:
    roots = tmp_path / "roots"
    folder = roots / "house"
    folder.mkdir(parents=True)
    (folder / "bins.md").write_text("# Bins\n\nThe bins go out on Tuesday.\n")
    updated: list[str] = []
    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(
            message.root, types.ResourceUpdatedNotification
        ):
            updated.append(str(message.root.params.uri))
            changed.set()

    env = {"MNEMOLIS_RAG__ROOTS": json.dumps([str(roots)])}
    async with connect(transport, env, message_handler=on_message) as (session, server):
        init = await session.initialize()
        assert init.capabilities.resources is not None
        assert init.capabilities.resources.subscribe is True
        uri = AnyUrl("mnemolis://databases")
        status = await session.read_resource(uri)
        content = status.contents[0]
        assert isinstance(content, types.TextResourceContents)
        assert content.mimeType == "application/json"
        names = [d["db"] for d in json.loads(content.text)["databases"]]
        assert "mnemolis-docs" in names and "house" not in names
        await session.subscribe_resource(uri)
        await session.subscribe_resource(AnyUrl("mnemolis://docs/security"))  # never changes
        with pytest.raises(McpError) as missing:
            await session.subscribe_resource(AnyUrl("mnemolis://nothing-here"))
        assert missing.value.error.code == -32002
        if server is None:  # stdio opens the databases without registering any
            await session.unsubscribe_resource(uri)
            return
        async with (
            aiohttp.ClientSession() as http,
            http.post(f"{server.url}/api/rag", json={"name": "house", "path": str(folder)}) as r,
        ):
            assert r.status == 201, await r.text()
        await asyncio.wait_for(changed.wait(), BOUND_S)
        assert set(updated) == {"mnemolis://databases"}
        after = (await session.read_resource(uri)).contents[0]
        assert isinstance(after, types.TextResourceContents)
        assert "house" in [d["db"] for d in json.loads(after.text)["databases"]]
        await session.unsubscribe_resource(uri)
