"""What each component reports for ``/api/health/readiness``: ok, degraded or down.

Its own module so that components (the model service, the knowledge store)
can report without importing the service layer that collects the reports.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

ComponentState = Literal["ok", "degraded", "down"]


@dataclass(slots=True)
class ComponentHealth:
    """One component's readiness: ok, degraded (still serving) or down."""

    state: ComponentState
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"status": self.state, "detail": self.detail}


HealthCheck = Callable[[], Awaitable[ComponentHealth]]
