"""The uptime judge: is a monitor up or down as the condition says?"""

from __future__ import annotations

import re
from typing import Any

from rapidfuzz import fuzz, process

from .judge_ha import subject_of

# --- monitors ---------------------------------------------------------------------

_MONITOR_RE = re.compile(
    r"^(?P<subj>.+?)\s+(?:is|are|goes|go|went|gets|get)?\s*(?P<neg>not\s+)?(?:still\s+)?"
    r"(?P<state>up|down|online|offline|reachable|unreachable|responding|unresponsive)\b",
    re.IGNORECASE,
)


def _monitor_field(monitor: Any, name: str) -> Any:
    if isinstance(monitor, dict):
        return monitor.get(name)
    return getattr(monitor, name, None)


def judge_monitor(monitors: list[Any], text: str) -> tuple[bool | None, str]:
    """Judge "the NAS is down" against Uptime Kuma monitors."""
    m = _MONITOR_RE.match(text.strip())
    if not m:
        return None, "the condition names no monitor state (up/down)"
    subject = subject_of(m.group("subj"))
    names = {
        str(_monitor_field(mon, "name")): mon for mon in monitors if _monitor_field(mon, "name")
    }
    if not names:
        return None, "Uptime Kuma reports no monitors"
    found = process.extract(subject, list(names), scorer=fuzz.WRatio, limit=2, score_cutoff=80)
    if not found:
        return None, f"no monitor matches “{subject}”"
    if len(found) > 1 and found[0][1] - found[1][1] < 1.0:
        return None, f"“{subject}” could be {found[0][0]} or {found[1][0]}"
    name = found[0][0]
    status = str(_monitor_field(names[name], "status") or "unknown").lower()
    if status not in ("up", "down"):
        return None, f"monitor {name} is {status}"
    wants_down = m.group("state").lower() in ("down", "offline", "unreachable", "unresponsive")
    if m.group("neg"):
        wants_down = not wants_down
    return (status == "down") == wants_down, f"monitor {name} is {status}"
