"""Issue 16's classes: meaning stage, no part lost, conditionals anywhere, English only, no HA.

Every test asks through the same service call REST and MCP use (``route`` for the
decision, ``Router.search`` for the answer) against the fake home of routing_cases.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.requestmodels import SearchRequest
from mnemolis.router.language import ONLY_ENGLISH, detect
from mnemolis.router.meaning import MeaningStage
from mnemolis.router.shapes import encyclopedic, happened
from mnemolis.router.text import stem
from mnemolis.textmatch import normalize, rrf, tokens, words

from .routing_cases import FakeSource, Home, deps_for, make_home


def ask(home: Home, query: str, **kw: Any) -> Any:
    return home.core.router.search(SearchRequest(query=query, **kw))


def sources(decision: dict[str, Any]) -> list[list[str]]:
    return [p["sources"] for p in decision["parts"]]


# --- the meaning stage -------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "source"),
    [
        ("How is the house doing right now?", "ha"),  # the state of the house as a whole
        ("How much electricity are we using at the moment?", "ha"),  # energy use
        ("Is anything down?", "uptime"),  # loose service questions
        ("Are my servers ok?", "uptime"),
        ("What is a neutron star?", "kiwix"),  # definitional: the encyclopedia first
        ("When did the Berlin Wall fall?", "kiwix"),
        ("Volcanoes", "kiwix"),  # a bare topic is a lookup
        ("Catch me up on current events", "news"),
        ("Which doors were opened this afternoon?", "changes"),
    ],
)
def test_questions_without_table_words_route_by_meaning(question: str, source: str) -> None:
    part = make_home().core.route(question)["parts"][0]
    assert part["sources"] == [source], part
    # The reason says which stage decided and on what.
    assert "by meaning" in part["reason"] or part["reason"].startswith("matched"), part


def test_meaning_reason_names_the_method_and_scores() -> None:
    part = make_home().core.route("How much solar are we generating?")["parts"][0]
    assert part["sources"] == ["ha"]
    assert "by meaning (lexical)" in part["reason"]
    assert "ha " in part["reason"].split("by meaning (lexical):", 1)[1]


async def test_without_kiwix_an_encyclopedia_question_goes_to_the_web() -> None:
    home = make_home()
    home.fakes["kiwix"]._configured = False
    part = home.core.route("When did the Berlin Wall fall?")["parts"][0]
    assert "kiwix is not configured (falls back to web)" in part["reason"], part
    result = await ask(home, "When did the Berlin Wall fall?")
    assert [(r.name, r.status) for r in result.sources] == [("kiwix", "skipped"), ("web", "ok")]
    assert result.source_used == "web"


def test_nothing_to_go_on_keeps_the_default_order() -> None:
    home = make_home()
    part = home.core.route("Tell me a joke")["parts"][0]
    assert part["sources"] == home.core.router._default_chain()[:1]
    assert part["reason"].startswith("no rule matched")


def test_question_shapes() -> None:
    assert encyclopedic("Who invented the printing press?")
    assert encyclopedic("What is a supernova")
    assert not encyclopedic("What is my wifi password?")  # personal
    assert not encyclopedic("What is the latest news?")  # about now
    assert not encyclopedic("What should I cook tonight?")
    assert happened("Which doors were opened this afternoon?")
    assert not happened("Will the door be open tonight?")
    assert stem("batteries") == "battery" and stem("opened") == "open"


class _FakeEmbedder:
    """A stand-in with the LocalEmbedder interface: vectors by keyword, for the wiring only."""

    name = "fake-embedder"
    ready = True
    axes = ("weather", "house", "server", "news", "encyclopedia")

    def __init__(self) -> None:
        self.calls = 0

    def embed_sync(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        out = []
        for text in texts:
            seen = set(tokens(normalize(text)))
            v = [
                float(bool(seen & {"rain", "weather", "sunny", "wind", "sky", "umbrella"})),
                float(bool(seen & {"house", "home", "energy", "power", "lights"})),
                float(bool(seen & {"server", "services", "offline", "outages"})),
                float(bool(seen & {"news", "headlines", "stories"})),
                float(bool(seen & {"galaxy", "caesar", "invented"})),
            ]
            n = sum(x * x for x in v) ** 0.5 or 1.0
            out.append([x / n for x in v])
        return out


def test_embedding_stage_is_used_when_a_model_is_loaded() -> None:
    home = make_home()
    emb = _FakeEmbedder()
    home.core.services.embedder = emb
    part = home.core.route("Will the sky be kind to us?")
    assert "by meaning (embedding)" in part["parts"][0]["reason"], part
    assert part["parts"][0]["sources"] == ["forecast"]
    # profile vectors are computed once; a repeated question reuses its vector
    calls = emb.calls
    home.core.router._plans.clear()
    home.core.route("Will the sky be kind to us?")
    assert emb.calls == calls


def test_a_failing_model_falls_back_to_words() -> None:
    class Broken(_FakeEmbedder):
        def embed_sync(self, texts: list[str]) -> list[list[float]]:
            raise RuntimeError("model crashed")

    home = make_home()
    home.core.services.embedder = Broken()
    part = home.core.route("How much solar are we generating?")["parts"][0]
    assert part["sources"] == ["ha"] and "lexical" in part["reason"]


def test_the_knowledge_hashing_fallback_is_not_taken_for_a_model() -> None:
    stage = MeaningStage()
    assert stage.lexical("How much solar are we generating?", ["ha"], dict, 0).pick == "ha"
    from mnemolis.router.meaning import usable_embedder

    class Hashing:
        name = "hashing-fallback"

        def embed_sync(self, texts: list[str]) -> list[list[float]]:
            return [[1.0]]

    assert not usable_embedder(Hashing())
    assert not usable_embedder(None)


# --- decomposition never loses a part ----------------------------------------------


def test_a_topic_beside_an_ask_is_its_own_part() -> None:
    decision = make_home().core.route("Volcanoes and the latest headlines")
    assert [p["query"] for p in decision["parts"]] == ["Volcanoes", "the latest headlines"]
    assert sources(decision) == [["kiwix"], ["news"]]


def test_four_asks_in_one_run_on_sentence_give_four_parts() -> None:
    q = (
        "Give me the forecast for tomorrow, the top headlines, the status of my services "
        "and whether the front door is locked"
    )
    decision = make_home().core.route(q)
    assert sources(decision) == [["forecast"], ["news"], ["uptime"], ["ha"]]


def test_also_plus_and_one_more_thing_split() -> None:
    home = make_home()
    d = home.core.route("Is the kitchen light on, plus is the back door shut?")
    assert len(d["parts"]) == 2
    d = home.core.route("Will it rain on Sunday and one more thing, what did I say about the car?")
    assert sources(d) == [["forecast"], ["memory"]]


@pytest.mark.parametrize(
    "question",
    [
        "Who sang Ebony and Ivory?",
        "What is the difference between a virus and a bacterium?",
        "Are Anna and Ben home?",
        "Arsenal vs Chelsea and the final score",
        "Fish and chips recipe from my recipes",
        "Salt, pepper and oil",
    ],
)
def test_pairs_lists_and_comparisons_stay_whole(question: str) -> None:
    assert len(make_home().core.route(question)["parts"]) == 1


async def test_every_part_is_answered_or_reported() -> None:
    home = make_home()
    home.fakes["news"].behaviour = "error"
    home.fakes["web"].behaviour = "error"
    result = await ask(home, "Volcanoes and the latest headlines and is the NAS up?")
    assert [p.query for p in result.parts] == ["Volcanoes", "the latest headlines", "is the NAS up"]
    by_query = {p.query: p for p in result.parts}
    assert by_query["Volcanoes"].source_used == "kiwix"
    assert by_query["is the NAS up"].source_used == "uptime"
    # the part nobody could answer is still in the result, saying so
    failed = by_query["the latest headlines"]
    assert failed.source_used == "none"
    assert failed.result.startswith("No source could answer")
    assert "No source could answer" in result.result


# --- conditionals in every position --------------------------------------------------


@pytest.mark.parametrize(
    ("question", "cond", "judge", "part"),
    [
        ("If Plex is down, let me know", "Plex is down", "uptime", "uptime"),
        ("if it rains let me know", "it rains", "forecast", "forecast"),
        (
            "In case it snows tonight, is the garage door closed?",
            "it snows tonight",
            "forecast",
            "ha",
        ),
        ("Is the TV on, in case Ben is home?", "Ben is home", "ha", "ha"),
        ("When Anna is home, is the porch light on?", "Anna is home", "ha", "ha"),
        ("Do I need gloves if it's below zero tomorrow morning?", "below zero", "forecast", None),
    ],
)
def test_conditions_anywhere(question: str, cond: str, judge: str, part: str | None) -> None:
    d = make_home().core.route(question)
    assert d["condition"] is not None and cond in d["condition"]["text"], d
    assert d["condition"]["sources"] == [judge]
    if part is not None:
        assert sources(d) == [[part]]


async def test_if_x_let_me_know_gives_the_verdict_and_its_reason() -> None:
    result = await ask(make_home(), "If Plex is down, let me know")
    assert result.condition is not None
    assert result.condition.verdict is True  # the fake Plex monitor is down
    assert "Plex" in result.condition.evidence
    assert result.result.startswith("Condition “Plex is down” is met")


def test_the_consequent_it_is_the_condition_subject() -> None:
    d = make_home().core.route("If the garage door is open, when did it open?")
    assert d["parts"][0]["query"] == "when did the garage door open"


# --- English only, honestly ----------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Wie wird das Wetter morgen?",
        "Est-ce que la porte du garage est ouverte ?",
        "¿Qué tiempo hará mañana?",
        "Какая погода завтра?",
        "明天会下雨吗\uff1f",
    ],
)
def test_other_languages_go_to_what_reads_any_language(question: str) -> None:
    # Not Home Assistant's grammar (this home lends it no names), and never the English
    # rules: documents, memories and the web read a question in any language.
    part = make_home().core.route(question)["parts"][0]
    assert part["sources"] == ["rag", "memory", "web"], part
    assert part["reason"].startswith("not English"), part


async def test_a_foreign_question_nothing_reads_says_so_in_its_language() -> None:
    home = make_home()
    for name in ("rag", "memory", "web"):
        home.fakes[name]._configured = False
    result = await ask(home, "Ist das Licht in der Küche an?")
    assert result.source_used == "none"
    assert result.result != ONLY_ENGLISH and "Entschuldigung" in result.result, result.result
    assert all(not f.calls for f in home.fakes.values())


async def test_a_foreign_question_is_asked_of_the_documents() -> None:
    home = make_home()
    result = await ask(home, "Ist das Licht in der Küche an?", language="de")
    assert [p.query for p in result.parts] == ["Ist das Licht in der Küche an?"]
    assert {r.name for r in result.sources} == {"rag", "memory", "web"}


@pytest.mark.parametrize(
    "question",
    [
        "Who was Leonardo da Vinci?",
        "Tell me about Les Misérables",
        "Café de Flore opening hours",
        "Is the Pi-hole up?",
        "Is it raining in São Paulo?",
    ],
)
def test_english_with_foreign_names_stays_english(question: str) -> None:
    assert detect(question).english


# --- no Home Assistant: documents and memories answer ---------------------------------


async def test_without_ha_a_home_word_question_is_answered_by_documents() -> None:
    home = make_home()
    home.fakes["ha"]._configured = False
    home.core.services.ha = None  # no HA: no live names either
    home.core.router.vocab.set_providers({})
    replace = FakeSource(
        deps_for(home.core.settings), "rag", answer="Descale monthly (manual p. 12)."
    )
    home.core.sources["rag"] = replace
    result = await ask(home, "How do I descale the dishwasher at home?")
    assert result.source_used == "rag"
    assert "not configured" not in result.result
    decision = home.core.route("Is the boiler pressure ok?")
    assert decision["parts"][0]["sources"] != ["ha"]


async def test_ha_answering_empty_falls_through_to_documents_and_memories() -> None:
    home = make_home()
    home.fakes["ha"].behaviour = "empty"
    result = await ask(home, "Is the garage door open?")
    assert [(r.name, r.status) for r in result.sources][:2] == [("ha", "empty"), ("rag", "ok")]
    assert result.source_used == "rag"


# --- the shared tokenizer and RRF -----------------------------------------------------


def test_shared_tokenizer_and_rrf() -> None:
    assert tokens(normalize("What's the café's temperature, 21.5°C?")) == [
        "what",
        "is",
        "the",
        "café",
        "s",
        "temperature",
        "21.5",
        "c",
    ]
    assert words("Anna's phone") == ["anna", "phone"]
    fused = rrf([["a", "b", "a"], ["b"]], k=60)
    assert fused[0] == ("b", pytest.approx(1 / 62 + 1 / 61))
    assert dict(fused)["a"] == pytest.approx(1 / 61)  # a repeat keeps its best rank


async def test_asking_ha_explicitly_never_falls_through_to_documents() -> None:
    home = make_home()
    home.fakes["ha"]._configured = False
    result = await ask(home, "Is the garage door open?", source="ha")
    assert [(r.name, r.status) for r in result.sources] == [("ha", "skipped")]
    assert result.source_used == "none"


async def test_search_embeds_off_the_event_loop() -> None:
    """POST /search never calls the blocking embed: it defers, embeds async, re-plans."""

    class AsyncOnly(_FakeEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.async_calls = 0

        def embed_sync(self, texts: list[str]) -> list[list[float]]:
            raise AssertionError("blocking embed called on the event loop")

        async def embed(self, texts: list[str]) -> list[list[float]]:
            self.async_calls += 1
            return _FakeEmbedder.embed_sync(self, texts)

    home = make_home()
    emb = AsyncOnly()
    home.core.services.embedder = emb
    # The first question after the model loads does not wait for the profiles' vectors:
    # it is routed on words while they are computed in the background.
    first = await ask(home, "Will the sky be kind to us?")
    assert "by meaning (embedding)" not in first.sources[0].reason
    warming = home.core.router._warming
    assert warming is not None
    await warming
    assert emb.async_calls == 1  # the profiles, once
    result = await ask(home, "Will the sky be kind to us?")
    assert result.source_used == "forecast"
    assert "by meaning (embedding)" in result.sources[0].reason
    assert emb.async_calls == 2  # then the question, in one call
    again = await ask(home, "Will the sky be kind to us?", conversation_id=None)
    assert again.source_used == "forecast" and emb.async_calls == 2
    decision = await home.core.route_async("Will the sky be kind to us?")
    assert decision["parts"][0]["sources"] == ["forecast"] and emb.async_calls == 2


async def test_a_question_asked_again_while_the_model_warms_is_not_planned_again() -> None:
    """Plans made on words before the profiles' vectors are in are kept (issue 30): a
    burst of questions right after a start pays for planning once per question."""
    import asyncio

    gate = asyncio.Event()

    class Slow(_FakeEmbedder):
        async def embed(self, texts: list[str]) -> list[list[float]]:
            await gate.wait()  # the profiles take their time
            return _FakeEmbedder.embed_sync(self, texts)

    home = make_home()
    home.core.services.embedder = Slow()
    router = home.core.router
    planned: list[str] = []
    plan = router._plan

    def counted(query: str, *args: Any, **kw: Any) -> Any:
        planned.append(query)
        return plan(query, *args, **kw)

    router._plan = counted  # type: ignore[method-assign]
    for _ in range(3):
        result = await ask(home, "Will the sky be kind to us?")
        assert "by meaning (embedding)" not in result.sources[0].reason
    assert planned == ["Will the sky be kind to us?"]
    gate.set()
    assert router._warming is not None
    await router._warming
    result = await ask(home, "Will the sky be kind to us?")
    assert "by meaning (embedding)" in result.sources[0].reason  # planned again, warm
    assert len(planned) > 1
