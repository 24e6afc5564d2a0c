"""Routing, decomposition, conditional questions, fusion, fallback, caching, context.

A question meets the stages in this order (``Router.plan`` then ``Router.search``):

1. parse: ``language`` (English only), ``context`` (follow-ups),
   ``condition_parser`` (the condition and who judges it);
2. split: ``decompose`` (parts; nothing is dropped);
3. route by tables: ``vocabulary`` + ``signals`` (words, phrases, patterns, live names)
   and ``shapes`` (what a question asks, which outranks the words it is about);
4. route by meaning: ``meaning`` + ``profiles`` (word stems, the embedding model when
   the words are unsure, else the question's shape);
5. route by model: ``Router._classify`` (the local LLM, at run time);
6. fallback chain: ``Router._run_chain`` (the source, its fallbacks, the default order);
7. judge and fuse: ``conditions`` with ``judge_weather`` / ``judge_ha`` /
   ``judge_uptime``, and ``fusion``.
"""

from __future__ import annotations

from .router import PartPlan, Plan, Router

__all__ = ["PartPlan", "Plan", "Router"]
