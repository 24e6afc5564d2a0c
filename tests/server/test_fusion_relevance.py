"""Fusion of rated evidence: a memory that answers before a document that shares words."""

from __future__ import annotations

from mnemolis.models import Evidence, SourceAnswer
from mnemolis.router.fusion import compose_extractive, fuse


def answer(source: str, text: str, relevance: float | None) -> SourceAnswer:
    ev = Evidence(source=source, title=source, text=text, relevance=relevance)
    return SourceAnswer(source=source, answer=text, evidence=[ev])


def test_the_more_relevant_of_tied_items_comes_first_and_much_weaker_ones_go() -> None:
    doc = answer("rag", "Ruth at number 12 has a spare set of car keys.", 0.55)
    memory = answer("memory", "The spare front door key is in the blue flowerpot.", 0.95)
    fused = fuse([doc, memory])  # both first in their own ranking: tied on rank
    assert [f.evidence.source for f in fused] == ["memory"]
    text = compose_extractive(fused, [doc, memory])
    assert "flowerpot" in text and "Ruth" not in text


def test_items_nearly_as_relevant_both_stay_in_rank_order() -> None:
    doc = answer("rag", "The boiler is serviced once a year.", 0.9)
    memory = answer("memory", "The boiler was last serviced on 12 October 2025.", 0.95)
    assert [f.evidence.source for f in fuse([doc, memory])] == ["memory", "rag"]


def test_unrated_evidence_keeps_its_place() -> None:
    web = SourceAnswer(source="web", answer="", evidence=[Evidence("web", "A", "Alpha.")])
    rag = answer("rag", "Beta.", 0.2)
    memory = answer("memory", "Gamma.", 0.9)
    order = [f.evidence.source for f in fuse([web, rag, memory])]
    assert order[0] == "web"  # unrated: never moved, never dropped
    assert order[1:] == ["memory"]  # of the rated ones, the much weaker one is left out
