"""HA's compressed state format (``subscribe_entities``, history) turned into state objects."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def iso_from_timestamp(ts: float) -> str:
    """An HA-style ISO timestamp (UTC, with offset) from epoch seconds."""
    return datetime.fromtimestamp(ts, UTC).isoformat()


def expand_state(entity_id: str, compressed: dict[str, Any]) -> dict[str, Any]:
    """A full state object from an ``"a"`` (add) entry: s, a, c, lc and optional lu."""
    last_changed = iso_from_timestamp(float(compressed.get("lc", 0.0)))
    lu = compressed.get("lu")
    context = compressed.get("c")
    return {
        "entity_id": entity_id,
        "state": str(compressed.get("s", "")),
        "attributes": dict(compressed.get("a") or {}),
        "last_changed": last_changed,
        "last_updated": iso_from_timestamp(float(lu)) if lu is not None else last_changed,
        "context": {"id": context} if isinstance(context, str) else dict(context or {}),
    }


def apply_diff(state: dict[str, Any], diff: dict[str, Any]) -> dict[str, Any]:
    """A new state object with a ``"c"`` (change) diff applied: ``+`` additions, ``-`` removals."""
    new = {**state, "attributes": dict(state.get("attributes") or {})}
    new["context"] = dict(state.get("context") or {})
    plus = diff.get("+") or {}
    if "s" in plus:
        new["state"] = str(plus["s"])
    if "lc" in plus:
        # A new last_changed moves last_updated with it (HA sends only lc then).
        new["last_changed"] = new["last_updated"] = iso_from_timestamp(float(plus["lc"]))
    elif "lu" in plus:
        new["last_updated"] = iso_from_timestamp(float(plus["lu"]))
    if "c" in plus:
        ctx = plus["c"]
        if isinstance(ctx, str):
            new["context"] = {"id": ctx}
        else:
            new["context"].update(ctx)
    if "a" in plus:
        new["attributes"].update(plus["a"])
    minus = diff.get("-") or {}
    for key in minus.get("a") or ():
        new["attributes"].pop(key, None)
    return new


def apply_event(states: dict[str, dict[str, Any]], event: dict[str, Any]) -> set[str]:
    """Apply one ``subscribe_entities`` event to the cache in place; return changed ids."""
    changed: set[str] = set()
    for entity_id, compressed in (event.get("a") or {}).items():
        states[entity_id] = expand_state(entity_id, compressed)
        changed.add(entity_id)
    for entity_id, diff in (event.get("c") or {}).items():
        current = states.get(entity_id)
        if current is None:
            continue
        states[entity_id] = apply_diff(current, diff)
        changed.add(entity_id)
    for entity_id in event.get("r") or ():
        if states.pop(entity_id, None) is not None:
            changed.add(entity_id)
    return changed


def history_rows(entity_id: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """History entries (compressed s/a/lu/lc) as state objects, oldest first.

    With ``minimal_response`` HA sends attributes only on the first row; later
    rows inherit them so every row is a complete state object.
    """
    out: list[dict[str, Any]] = []
    attrs: dict[str, Any] = {}
    for row in rows:
        if "a" in row:
            attrs = dict(row["a"] or {})
        lu = float(row.get("lu", row.get("lc", 0.0)))
        lc = float(row.get("lc", lu))
        out.append(
            {
                "entity_id": entity_id,
                "state": str(row.get("s", "")),
                "attributes": attrs,
                "last_changed": iso_from_timestamp(lc),
                "last_updated": iso_from_timestamp(lu),
            }
        )
    return out
