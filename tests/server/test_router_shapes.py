"""Question shapes (router/shapes.py): what is asked outranks the words it is about.

Also issue 15's routing part: a question that names no live entity goes to the
documents and memories, with Home Assistant configured and without it, and the
cheap pattern matcher agrees with plain regular expressions.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from mnemolis.requestmodels import SearchRequest
from mnemolis.router.shapes import SHAPES
from mnemolis.router.text import Matcher, normalize
from mnemolis.router.vocabulary import _PATTERN_TABLE

from .routing_cases import CASES_FILE, FakeSource, Home, deps_for, make_home

DEV = CASES_FILE.parents[2] / "bench" / "eval" / "route" / "dev.yaml"


def ask(home: Home, query: str, **kw: Any) -> Any:
    return home.core.router.search(SearchRequest(query=query, **kw))


def part(home: Home, query: str) -> dict[str, Any]:
    decision = home.core.route(query)
    assert len(decision["parts"]) == 1, decision
    assert decision["condition"] is None, decision
    return dict(decision["parts"][0])


@pytest.mark.parametrize(
    ("question", "source"),
    [
        # a document about an appliance of the home, not its state
        ("How long is the guarantee on the fridge?", "rag"),
        ("When does the dishwasher warranty run out?", "rag"),
        ("What does error F21 mean on the washing machine?", "rag"),
        ("How do I reset the router?", "rag"),  # instructions, not the monitor
        ("How often should the boiler be serviced?", "rag"),
        ("Find the invoice for the new sofa", "rag"),
        # something the user said, about a person of the home
        ("Remind me what I wanted to buy for Anna", "memory"),
        ("What did Anna ask me to pick up?", "memory"),
        ("What's my shoe size?", "memory"),
        ("Which wine do I like?", "memory"),
        ("What's my preferred temperature for the bedroom?", "memory"),
        # a shop, a place, a price, a score: the web, even with a home's word in it
        ("Is the hardware store open on Sundays?", "web"),
        ("When does the garden centre close today?", "web"),
        ("Look up the phone number of the town hall", "web"),
        ("Compare prices for a new fridge", "web"),
        ("What time is kick-off tonight?", "web"),
        # an explanation of the world, whatever device word it contains
        ("What causes the northern lights?", "kiwix"),
        ("How many planets are in the solar system?", "kiwix"),
        ("What's the largest ocean on Earth?", "kiwix"),
        ("What's the difference between weather and climate?", "kiwix"),
        ("Why do we have seasons?", "kiwix"),
        # the weather to come, the home's history, the user's services
        ("Will it freeze overnight?", "forecast"),
        ("Is it going to bucket down later?", "forecast"),
        ("Is it a good weekend for gardening?", "forecast"),
        ("Were any windows opened last night?", "changes"),
        ("Show me the history of the front door today", "changes"),
        ("Is anything broken on my network?", "uptime"),
        ("Are all systems operational?", "uptime"),
        ("Any updates on the elections?", "news"),
    ],
)
def test_the_shape_of_a_question_outranks_the_words_it_is_about(question: str, source: str) -> None:
    got = part(make_home(), question)
    assert got["sources"] == [source], got
    assert got["reason"].startswith("matched"), got


def test_the_reason_says_which_words_were_only_the_topic() -> None:
    got = part(make_home(), "How long is the guarantee on the fridge?")
    assert "asks a document" in got["reason"]
    assert "only the topic: ha" in got["reason"] and "“fridge”" in got["reason"], got


@pytest.mark.parametrize(
    ("question", "source"),
    [
        ("Why is the kitchen light on?", "ha"),  # a live name and a state: the home
        ("How cold is the fridge?", "ha"),  # a device of the home: indoors, not the forecast
        ("Is the TV on?", "ha"),
        ("Is the garage door open?", "ha"),
        ("Did the front door open today?", "changes"),
        ("Is the NAS up?", "uptime"),
        ("What's the recipe for banana bread?", "rag"),  # "recipe" names the recipes database
    ],
)
def test_questions_about_the_home_and_its_names_stay_theirs(question: str, source: str) -> None:
    assert part(make_home(), question)["sources"] == [source]


def test_a_creative_request_is_no_source_s_question() -> None:
    home = make_home()
    got = part(home, "Write a poem about rain")
    assert got["sources"] == home.core.router._default_chain()[:1]
    assert got["reason"].startswith("no rule matched") and "creative request" in got["reason"]


# --- issue 15: documents and memories, with Home Assistant and without ---------------


@pytest.mark.parametrize("ha_configured", [True, False])
async def test_a_question_naming_no_live_entity_is_answered_by_the_documents(
    ha_configured: bool,
) -> None:
    home = make_home()
    if not ha_configured:
        home.fakes["ha"]._configured = False
        home.core.services.ha = None
        home.core.router.vocab.set_providers({})
    home.core.sources["rag"] = FakeSource(
        deps_for(home.core.settings), "rag", answer="The dishwasher warranty ends in May 2027."
    )
    result = await ask(home, "When does the dishwasher warranty run out?")
    assert result.source_used == "rag"
    assert "May 2027" in result.result
    assert "ha" not in [r.name for r in result.sources]  # never asked, never the answer
    assert "not configured" not in result.result


@pytest.mark.parametrize("ha_configured", [True, False])
async def test_home_words_without_a_home_answer_fall_through_to_documents_and_memories(
    ha_configured: bool,
) -> None:
    home = make_home()
    if ha_configured:
        home.fakes["ha"].behaviour = "empty"  # HA has nothing on it
    else:
        home.fakes["ha"]._configured = False
        home.core.services.ha = None
        home.core.router.vocab.set_providers({})
    home.fakes["rag"].behaviour = "empty"
    home.core.sources["memory"] = FakeSource(
        deps_for(home.core.settings),
        "memory",
        answer="You said the boiler is topped up to 1.5 bar.",
    )
    result = await ask(home, "Is the boiler pressure ok?")
    assert result.source_used == "memory", [(r.name, r.status) for r in result.sources]
    assert "1.5 bar" in result.result
    final = result.sources[-1]
    assert (final.name, final.status) == ("memory", "ok")


# --- words and shapes around them ---------------------------------------------------


def test_on_before_a_noun_is_a_preposition_not_a_state() -> None:
    home = make_home()
    assert part(home, "Is the porch light on?")["sources"] == ["ha"]
    assert part(home, "What's on at the cinema tonight?")["sources"] == ["web"]


def test_decomposition_splits_sequences_and_keeps_a_colon_question_whole() -> None:
    home = make_home()
    d = home.core.route("Check the weather, then the news, then my servers")
    assert [p["query"] for p in d["parts"]] == ["Check the weather", "the news", "my servers"]
    d = home.core.route("Tell me the news, then the weather")
    assert [p["sources"] for p in d["parts"]] == [["news"], ["forecast"]]
    d = home.core.route("Apples, pears and plums: which has most vitamin C?")
    assert [p["sources"] for p in d["parts"]] == [["kiwix"]]


def test_it_takes_the_name_before_it_but_not_the_weather() -> None:
    home = make_home()
    d = home.core.route("When was the Magna Carta signed and what did it say?")
    assert [p["query"] for p in d["parts"]][1] == "what did the Magna Carta say"
    d = home.core.route("Who was Isaac Newton and is it going to rain?")
    assert [p["query"] for p in d["parts"]][1] == "is it going to rain"
    assert d["parts"][1]["sources"] == ["forecast"]
    d = home.core.route("If the bedroom window is open, is it going to rain tonight?")
    assert d["parts"][0]["query"] == "is it going to rain tonight"
    assert d["parts"][0]["sources"] == ["forecast"]


# --- the cheap matcher is the regular expression ------------------------------------


def _questions() -> list[str]:
    out: list[str] = []
    for path in (CASES_FILE, DEV):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for section in data.values():
            rows = (
                [r for half in section.values() for r in half]
                if isinstance(section, dict)
                else section
            )
            out.extend(str(r["q"] if isinstance(r, dict) else r[0]) for r in rows)
    return out


def test_the_cheap_matcher_agrees_with_the_plain_pattern() -> None:
    patterns = [rx for _, rx, _, _ in _PATTERN_TABLE]
    patterns += [s.matcher.pattern for s in SHAPES]
    texts = [normalize(q) for q in _questions()]
    texts += ["why is the sky blue", "the why is", ": why is it", "code e15 and error 12"]
    assert len(texts) > 800
    for rx in patterns:
        plain, cheap = re.compile(rx), Matcher(rx)
        for text in texts:
            # (a question after "topic:" also gets the start-anchored alternatives)
            tail = text.rsplit(": ", 1)[1] if ": " in text else ""
            want = bool(plain.search(text)) or bool(tail and plain.match(tail))
            assert cheap.search(text) == want, (rx[:60], text)


async def test_api_route_shows_every_part_with_its_reason_and_scores(make_client: Any) -> None:
    client = await make_client()
    resp = await client.get(
        "/api/route",
        params={"query": "What causes the northern lights, and then will it rain tomorrow?"},
    )
    assert resp.status == 200
    parts = (await resp.json())["parts"]
    assert [p["sources"] for p in parts] == [["kiwix"], ["forecast"]], parts
    assert re.search(r"kiwix \d+\.\d: asks for an explanation", parts[0]["reason"]), parts
    assert re.search(r"forecast \d+\.\d: ", parts[1]["reason"]), parts
