"""Routing, decomposition, conditional questions, fusion, fallback, caching, context."""

from __future__ import annotations

from .router import PartPlan, Plan, Router

__all__ = ["PartPlan", "Plan", "Router"]
