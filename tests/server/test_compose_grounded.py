"""The model writes document answers from the passages alone (``llm.compose_documents``),
with the real small model: cited, checked against the passages, the extractive answer
standing when the model's words are not in them, and a refusal when nothing answers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from mnemolis.llm import LLMService
from mnemolis.llm.prompts import COMPOSE_SYSTEM, grounding_problem, passage_text
from mnemolis.llm.service import judge_composed
from mnemolis.llm.types import ChatParams, ChatResult, Usage
from mnemolis.models import Evidence
from mnemolis.rest import keys

from .knowledge_helpers import HOUSE_NOTES, ask, store_of

pytestmark = pytest.mark.slow

PRESSURE = Evidence(
    source="rag",
    title="household: boiler.html — Water pressure",
    text="The pressure gauge should read between 1 and 1.5 bar when the heating is cold.",
    ref="/roots/household/boiler.html",
)
# The prompt closes with the current time, so a small model's wording moves with the
# clock; a test that judges the real model's words reads a fixed one.
MORNING = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
WIFI = Evidence(
    source="rag",
    title="household: house-notes.txt — Wifi",
    text="Network: Meadowlark; Password: tulip-harbour-42",
)


async def composing_client(make_client: Callable[..., Any], chat_model: Path, root: Path) -> Any:
    """A server with the chat model writing document answers over the house notes."""
    folder = root / "household"
    folder.mkdir(parents=True)
    (folder / "house-notes.txt").write_text(HOUSE_NOTES, encoding="utf-8")
    # Generous deadlines: these tests judge what is said, never how fast.
    client = await make_client(
        rag={"roots": [str(root)], "watch": False},
        llm={"model": str(chat_model), "embedding_model": "off", "compose_documents": True},
        routing={"source_timeout": 120, "deadline": 240},
    )
    await asyncio.wait_for(service_of(client).wait_ready(), 120)
    resp = await client.post("/api/rag", json={"name": "household", "path": str(folder)})
    assert resp.status == 201, await resp.text()
    await store_of(client).wait_idle()
    return client


def service_of(client: Any) -> LLMService:
    """The app's inference service."""
    service: LLMService = client.app[keys.CORE].services.llm
    return service


def writes(service: LLMService, monkeypatch: pytest.MonkeyPatch, output: str) -> list[str]:
    """Make the model's written answer ``output`` (the rest of the path runs for real);
    other uses of the model (routing) get nothing usable and fall back to the rules."""
    asked: list[str] = []

    async def complete(params: ChatParams, timeout: float | None = None) -> ChatResult:
        if params.messages[0]["content"] != COMPOSE_SYSTEM:
            return ChatResult("gemma", "", "stop", Usage(10, 0))
        asked.append(params.messages[-1]["content"])
        return ChatResult("gemma", output, "stop", Usage(10, 10))

    monkeypatch.setattr(service, "complete", complete)
    return asked


async def test_the_model_answer_cites_the_passage_it_came_from(
    make_client: Callable[..., Any], chat_model: Path, tmp_path: Path
) -> None:
    client = await composing_client(make_client, chat_model, tmp_path / "roots")
    service = service_of(client)
    written = await service.compose_grounded(
        "What should the boiler pressure be?", [PRESSURE], timeout=120, now=MORNING
    )
    assert written.text, written.why
    assert "1.5 bar" in written.text
    assert "[1, household: boiler.html]" in written.text


async def test_an_ungrounded_model_answer_falls_back_to_the_quote(
    make_client: Callable[..., Any],
    chat_model: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = await composing_client(make_client, chat_model, tmp_path / "roots")
    asked = writes(service_of(client), monkeypatch, "The wifi password is sunflower-99 [1].")
    body = await ask(client, "What is the wifi password?")
    assert asked and "tulip-harbour-42" in asked[0], "the model was shown the passage"
    assert "tulip-harbour-42" in body["result"]
    assert "sunflower" not in body["result"] and "sunflower" not in body["spoken"]
    assert body["source_used"] == "rag"


async def test_the_model_saying_it_does_not_know_leaves_the_quote(
    make_client: Callable[..., Any],
    chat_model: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reader found the line; a small model's "I do not know" does not hide it."""
    client = await composing_client(make_client, chat_model, tmp_path / "roots")
    writes(service_of(client), monkeypatch, "I do not know.")
    body = await ask(client, "When is the recycling collected?")
    assert body["source_used"] == "rag"
    assert "every other Friday" in body["result"]


async def test_a_question_no_passage_answers_is_refused_with_the_model(
    make_client: Callable[..., Any], chat_model: Path, tmp_path: Path
) -> None:
    client = await composing_client(make_client, chat_model, tmp_path / "roots")
    body = await ask(client, "What is our Netflix password?")
    assert body["source_used"] == "none", body
    assert "tulip-harbour-42" not in body["result"]


def test_grounding_needs_every_figure_and_name_in_the_passages() -> None:
    passages = [passage_text(WIFI)]
    question = "What is the wifi password?"
    assert grounding_problem("The password is tulip-harbour-42 [1].", question, passages) == ""
    assert grounding_problem("The password is sunflower-99.", question, passages)
    assert "oakwood" in grounding_problem("The network is called Oakwood.", question, passages)
    assert "oakwood" in grounding_problem("Network: Oakwood [1]", question, passages)
    # Words the passages do not hold, or nothing beyond the question, is no answer.
    assert grounding_problem("I have a password for my house.", question, passages)
    assert grounding_problem("The wifi password [1].", question, passages)
    # The question's own words name its subject; restating them is not made up.
    pressure = [passage_text(PRESSURE)]
    boiler = "What should the boiler pressure be?"
    assert grounding_problem("The boiler should be at 1.5 bar.", boiler, pressure) == ""
    assert grounding_problem("The boiler should be at 2 bar.", boiler, pressure)
    # The raw model output is judged the same way; a kept answer is cited by file.
    kept = judge_composed("The password is tulip-harbour-42.", question, [WIFI])
    assert kept.text == "The password is tulip-harbour-42 [1, household: house-notes.txt]."
    dropped = judge_composed("Password: hunter2 [1]", question, [WIFI])
    assert not dropped.text and dropped.why
    assert judge_composed("I don't know.", question, [WIFI]).refused
