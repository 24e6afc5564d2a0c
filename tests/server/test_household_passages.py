"""The one fact that answers, said alone (issue 15, household answers).

Asked through ``POST /search`` of a server holding a small household folder,
without an embedding model (the hashing fallback), so only the words decide:
table rows are read with their column names, a record line whose value the
question already states hands over to the line the question asks for, the
sentence that answers is quoted without the facts beside it, and words that
only say how a question is put ("still", "under") or that a page merely quotes
as an example decide nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnemolis.knowledge import relevance
from mnemolis.knowledge.chunking import chunk_sections
from mnemolis.knowledge.parsing import parse_document

from .knowledge_helpers import ask, notes_client

Client = Callable[..., Any]


# The cover and claims only: no record line says "dishwasher" beside the warranty.
WARRANTY = """Cover
Two years of guarantee, extended to five years by registering the dishwasher online.
The warranty runs out on 14 March 2028.

Claims
Repairs under warranty are free; the engineer needs access to the back of the machine.
"""

WASHER = """# Washing machine

## Detergent

Liquid detergent goes in the left compartment. The fabric softener goes in the middle
compartment, the one marked with a flower.

## Door will not open

The door stays locked for two minutes after a programme ends. If it still will not
open, run Drain/Spin and try again.
"""

# As Sphinx and most site generators write tables: a header row of <th>, <p> in cells.
BOILER = (
    "<html><body><main><h1>Heatmaster boiler</h1><h2>Fault codes</h2><table><thead><tr>"
    "<th><p>Code</p></th><th><p>Meaning</p></th><th><p>What to do</p></th></tr></thead>"
    "<tbody><tr><td><p>F22</p></td><td><p>Low water pressure</p></td>"
    "<td><p>Top up the pressure.</p></td></tr><tr><td><p>F28</p></td>"
    "<td><p>Ignition failure</p></td><td><p>Check the gas supply, then reset.</p></td></tr>"
    "</tbody></table></main></body></html>"
)


async def household(make_client: Client, tmp_path: Path) -> Any:
    """The house notes, the warranty record and this module's files, as "household"."""
    return await notes_client(
        make_client,
        tmp_path,
        {
            "dishwasher-warranty.txt": WARRANTY,
            "washing-machine.md": WASHER,
            "boiler-manual.html": BOILER,
        },
    )


def said(body: dict[str, Any]) -> str:
    """What is read and heard: both must hold the fact, neither a neighbour's."""
    return f"{body['result']}\n{body['spoken']}"


async def test_a_record_line_the_question_already_knows_hands_over_to_its_sibling(
    make_client: Client, tmp_path: Path
) -> None:
    """ "the password for the Meadowlark network": the network line is known, the password asked."""
    client = await household(make_client, tmp_path)
    body = await ask(client, "what is the password for the Meadowlark network?")
    assert "tulip-harbour-42" in body["result"] and "tulip-harbour-42" in body["spoken"], body
    body = await ask(client, "what is the wifi network called?")
    assert "Meadowlark" in body["spoken"] and "tulip" not in said(body), body
    # A known value with no sibling asked for still answers: it is what was asked about.
    body = await ask(client, "what is Meadowlark?")
    assert "Network: Meadowlark" in body["spoken"] and "tulip" not in said(body), body


async def test_the_sentence_that_answers_is_quoted_without_the_facts_beside_it(
    make_client: Client, tmp_path: Path
) -> None:
    client = await household(make_client, tmp_path)
    body = await ask(client, "where does the fabric softener go?")
    assert "marked with a flower" in body["spoken"], body
    assert "left compartment" not in said(body), body
    body = await ask(client, "where's the electricity meter?")
    assert "cupboard under the stairs" in body["spoken"] and "garage" not in said(body), body
    body = await ask(client, "when does the recycling go out?")
    assert "every other Friday" in body["spoken"], body
    assert "Monday" not in said(body) and "Tuesday" not in said(body), body
    # A sentence that leans on the one before it ("If it still …") comes with it.
    body = await ask(client, "the washing machine door won't open")
    assert "two minutes" in body["spoken"] and "Drain/Spin" in body["spoken"], body
    # A question about the whole section still hears its first lines.
    body = await ask(client, "when are the bins collected?")
    assert "Tuesday" in body["spoken"] and "tulip" not in said(body), body


async def test_table_rows_are_read_with_their_column_names(
    make_client: Client, tmp_path: Path
) -> None:
    client = await household(make_client, tmp_path)
    body = await ask(client, "what does fault code F28 mean?")
    assert "Meaning: Ignition failure" in body["spoken"], body
    assert "|" not in body["spoken"] and "Low water pressure" not in said(body), body


def test_a_header_row_labels_the_rows_and_cells_stay_on_their_row() -> None:
    chunks = chunk_sections(parse_document("boiler.html", BOILER.encode()), name="boiler.html")
    rows = [c.content for c in chunks if c.heading.endswith("Fault codes")]
    assert rows == [
        "Code: F22 | Meaning: Low water pressure | What to do: Top up the pressure.",
        "Code: F28 | Meaning: Ignition failure | What to do: Check the gas supply, then reset.",
    ]
    table = "# Files\n\n| type | suffixes |\n|---|:--:|\n| Markdown | `.md` |\n| PDF | |\n"
    chunks = chunk_sections(parse_document("formats.md", table.encode()))
    assert [c.content for c in chunks] == ["type: Markdown | suffixes: `.md`", "type: PDF"]


async def test_words_that_only_say_how_a_question_is_put_decide_nothing(
    make_client: Client, tmp_path: Path
) -> None:
    """ "still under warranty": the expiry answers, not the line that happens to say "under"."""
    client = await household(make_client, tmp_path)
    body = await ask(client, "is the dishwasher still under warranty?")
    assert "five years" in body["spoken"] or "14 March 2028" in body["spoken"], body
    assert "Repairs" not in said(body), body
    # And a "when" question goes on to the line that gives a date, past the one it matched.
    body = await ask(client, "when does the dishwasher guarantee end?")
    assert "14 March 2028" in body["spoken"], body
    question = "is the dishwasher still under warranty?"
    assert relevance.word_coverage(question, None, "the warranty of the dishwasher") == 1.0
    # What the question calls the thing it asks for is not written beside the answer.
    assert relevance.word_coverage("what's the network name?", None, "Network: Meadowlark") == 1.0
    body = await ask(client, "what's the network name?")
    assert "Meadowlark" in body["spoken"] and "tulip" not in said(body), body


def test_quoted_words_are_mentioned_not_said() -> None:
    """A page listing example questions does not answer them (routing.md's table does)."""
    text = 'Routes document questions, e.g. "how do I reset the router?" to rag.'
    plain, quoted = relevance.mentions(text)
    assert "router" not in plain and "router" in quoted and "rag" in plain
    assert relevance.word_coverage("how do I reset the router?", None, plain) == 0.0


async def test_a_memory_steps_aside_for_a_document_that_answers_better(
    make_client: Client, tmp_path: Path
) -> None:
    """A question about "our" things goes to the memories; the notes answer it better."""
    client = await household(make_client, tmp_path)
    resp = await client.post(
        "/api/memories",
        json={"content": "A spare set of house keys is in the blue flowerpot by the back door."},
    )
    assert resp.status == 201
    # "where are our …" is a fact about the user: the memories are asked first.
    body = await ask(client, "where are our spare car keys?")
    assert body["source_used"] == "rag", body
    assert "Ruth" in body["spoken"] and "flowerpot" not in said(body), body
    # What only the memory says is still the memory's.
    body = await ask(client, "where are our spare house keys?")
    assert body["source_used"] == "memory" and "blue flowerpot" in body["spoken"], body
