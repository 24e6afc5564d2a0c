"""Household questions answered from the home's own documents and memories (issue 15).

Each test asks through ``POST /search`` (the answer a person hears or reads) of a
server holding a small household folder, without an embedding model (the
hashing fallback), so only the words decide; bench/eval/eval_docs.py asks many
more with the default model.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .knowledge_helpers import HOUSE_NOTES, ask, household_client, store_of

Client = Callable[..., Any]


BOILER = (
    "<html><head><title>Heatmaster 30i</title></head><body><main><h1>Heatmaster 30i</h1>"
    "<h2>Resetting the boiler</h2><p>If the display shows a fault code, press and hold the "
    "reset button for five seconds.</p><h2>Water pressure</h2><p>The gauge should read "
    "between 1 and 1.5 bar.</p></main></body></html>"
)


async def household(make_client: Client, tmp_path: Path) -> Any:
    """A server with the folder registered as "household" (and the bundled docs)."""
    return await household_client(
        make_client,
        tmp_path / "roots",
        {"house-notes.txt": HOUSE_NOTES, "boiler-manual.html": BOILER},
    )


async def test_the_users_manual_answers_not_the_bundled_docs(
    make_client: Client, tmp_path: Path
) -> None:
    """Item 1: mnemolis-docs use household examples; the boiler question is the manual's."""
    client = await household(make_client, tmp_path)
    body = await ask(client, "how do I reset the boiler?")
    assert body["source_used"] == "rag", body
    assert "five seconds" in body["result"] and "five seconds" in body["spoken"]
    assert body["citations"][0]["ref"].endswith("boiler-manual.html"), body["citations"]
    # A question about Mnemolis itself is still its own docs'.
    body = await ask(client, "how do I connect Claude Desktop to Mnemolis?")
    refs = [c.get("ref", "") for c in body["citations"]]
    assert refs and "bundled_docs" in refs[0], refs


async def test_bin_days_are_read_out_without_the_wifi_password(
    make_client: Client, tmp_path: Path
) -> None:
    """Item 3: the passage that answers, never the whole note."""
    client = await household(make_client, tmp_path)
    body = await ask(client, "when are the bins collected?")
    for said in (body["result"], body["spoken"]):
        assert "Tuesday" in said, body
        assert "tulip-harbour-42" not in said and "Meadowlark" not in said, body
    assert "house-notes.txt" in body["result"]  # cited
    assert "house-notes.txt" not in body["spoken"]  # but not read aloud
    body = await ask(client, "what's the wifi password?")
    assert "tulip-harbour-42" in body["spoken"], body
    assert "Tuesday" not in body["result"], body


async def test_nonsense_finds_nothing_in_every_mode(make_client: Client, tmp_path: Path) -> None:
    """Item 4: no passage for nonsense in any mode; without a model hybrid is keyword."""
    client = await household(make_client, tmp_path)
    store = store_of(client)
    for mode in ("keyword", "semantic", "hybrid"):
        assert await store.search_rag("household", "florp zibble quantum", 10, mode) == {}, mode
    for q in ("boiler pressure gauge", "spare keys", "recycling friday"):
        keyword = await store.search_rag("household", q, 10, "keyword")
        hybrid = await store.search_rag("household", q, 10, "hybrid")
        assert keyword and hybrid["hybrid"] == keyword["keyword"], q
    body = await ask(client, "florp zibble quantum marmalade")
    assert body["source_used"] == "none", body


async def test_a_memory_that_answers_beats_a_document_sharing_its_words(
    make_client: Client, tmp_path: Path
) -> None:
    """Item 5: "where is the spare key?" is the remembered flowerpot, not Ruth's car keys."""
    client = await household(make_client, tmp_path)
    resp = await client.post(
        "/api/memories",
        json={"content": "The spare front door key is in the blue flowerpot by the back door."},
    )
    assert resp.status == 201
    body = await ask(client, "where is the spare key?")
    assert body["source_used"] == "memory", body
    for said in (body["result"], body["spoken"]):
        assert "blue flowerpot" in said and "Ruth" not in said, body
    # The document still answers what only it says.
    body = await ask(client, "who has our spare car keys?")
    assert "Ruth" in body["spoken"] and "flowerpot" not in body["result"], body


async def test_without_a_household_match_the_bundled_docs_stay_quiet(
    make_client: Client, tmp_path: Path
) -> None:
    """Questions about the house that nothing answers do not get Mnemolis's examples."""
    client = await household(make_client, tmp_path)
    for question in ("can I run the dryer at 11pm?", "how do I reset the router?"):
        body = await ask(client, question)
        refs = [c.get("ref", "") for c in body["citations"]]
        assert not any("bundled_docs" in r for r in refs), (question, body)
        assert "five seconds" not in body["result"], (question, body)


async def test_what_the_assistant_can_do_is_answered_in_plain_words(
    make_client: Client, tmp_path: Path
) -> None:
    """docs/faq.md answers what people ask about the assistant itself, in their words."""
    client = await household(make_client, tmp_path)
    for question, fact in (
        ("what can you look things up in?", "Kiwix"),
        ("can you read PDFs and Word files?", "Word documents"),
        ("is there a way to hook you up to an AI chat app?", "MCP"),
        ("how do I get you to read all my files again?", "reindex"),
        ("I put a file in the folder but you don't seem to know about it", "register"),
        ("how do I wipe everything and start again?", "data folder"),
        ("how do I turn on the news?", "news.feeds"),
        ("can I hook up ChatGPT to you?", "MCP"),
        ("how do I stop you using one of my documents?", "watcher drops it"),
        ("I lost the API key, how do I change it?", "stops working"),
        ("it keeps saying no source could answer, where are the logs?", "Log tab"),
    ):
        body = await ask(client, question)
        assert fact in body["result"] and "faq.md" in body["result"], (question, body)
