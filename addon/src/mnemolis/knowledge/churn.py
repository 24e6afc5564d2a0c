"""Files that change on every watcher pass (a log being written) wait longer each time.

Indexing a file another program appends to every second kept the watcher busy
for good (issue 29 item 4). A file changed in CHURN_PASSES passes in a row, each
within CHURN_WINDOW_S of the last, is held: indexed again only when its hold
ends (with its latest content), the hold doubling up to HOLD_MAX_S while it
keeps changing. A file that goes quiet is indexed at once again next time.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

_LOGGER = logging.getLogger(__name__)

CHURN_PASSES = 3
CHURN_WINDOW_S = 10.0
HOLD_FIRST_S = 30.0
HOLD_MAX_S = 600.0
MAX_TRACKED = 10_000  # files remembered per folder (the oldest are forgotten first)


@dataclass(slots=True)
class _Seen:
    last: float  # when it was last let through to be indexed
    streak: int = 0
    hold: float = 0.0
    held_until: float = 0.0
    waiting: bool = False  # changed while held: index when the hold ends


class Churn:
    """Which changed files of one watched folder to index now."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._seen: dict[Path, _Seen] = {}

    def admit(self, paths: list[Path], now: float) -> list[Path]:
        """The changed ``paths`` to index now, plus held ones whose hold has ended."""
        out: list[Path] = []
        for path in paths:
            seen = self._seen.get(path)
            if seen is None:
                self._seen[path] = _Seen(now)
                out.append(path)
            elif now < seen.held_until:
                seen.waiting = True
            else:
                # Changes while it was held are no quiet spell, however long the hold.
                quiet = not seen.waiting and now - seen.last > CHURN_WINDOW_S
                seen.waiting = False
                seen.streak = 0 if quiet else seen.streak + 1
                if quiet:
                    seen.hold = 0.0
                self._let_through(path, seen, now)
                out.append(path)
        out.extend(self.due(now))
        if len(self._seen) > MAX_TRACKED:
            for old in sorted(self._seen, key=lambda p: self._seen[p].last)[: MAX_TRACKED // 10]:
                del self._seen[old]
        return list(dict.fromkeys(out))

    def due(self, now: float) -> list[Path]:
        """Held files that changed meanwhile and whose hold has ended (still churning)."""
        out: list[Path] = []
        for path, seen in self._seen.items():
            if seen.waiting and now >= seen.held_until:
                seen.waiting = False
                seen.streak += 1
                self._let_through(path, seen, now)
                out.append(path)
        return out

    def _let_through(self, path: Path, seen: _Seen, now: float) -> None:
        seen.last = now
        if seen.streak + 1 < CHURN_PASSES:
            return
        seen.hold = min(HOLD_MAX_S, seen.hold * 2 if seen.hold else HOLD_FIRST_S)
        seen.held_until = now + seen.hold
        _LOGGER.info(
            "rag %s: %s changes on every pass; indexed at most every %.0f s while it does",
            self.name,
            path.name,
            seen.hold,
        )

    def held(self, now: float) -> list[Path]:
        """The files held at ``now``."""
        return [p for p, s in self._seen.items() if now < s.held_until]
