"""Context packs and source bundles: evidence across documents and memories, for agents."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import Forbidden, InvalidArgument, NotFound
from .registry import BUNDLED_NAME
from .text import rrf

if TYPE_CHECKING:
    from .database import DocumentDatabase
    from .documents import Documents
    from .memory_service import MemoryService

MAX_BUNDLE_CHARS = 2_000_000


async def context_pack(
    documents: Documents, memory: MemoryService, query: str, budget_chars: int
) -> dict[str, Any]:
    """Best evidence across memories and databases, cut to the budget, cited."""
    q = query.strip()
    if not q:
        raise InvalidArgument("query is required")
    memories, _, _, _ = await memory.recall(q, limit=10)
    own = documents.user_databases()
    passages = await documents.search_all(q, limit=10, databases=own) if own else []
    if BUNDLED_NAME in documents.databases:
        # Mnemolis's own docs come after the household's, never ahead of them (their
        # examples mention boilers and dryers too).
        passages += await documents.search_all(q, limit=10, databases=[BUNDLED_NAME])
    candidates: dict[str, dict[str, Any]] = {}
    for m in memories:
        candidates[f"memory:{m.id}"] = {
            "kind": "memory",
            "text": m.content,
            "citation": {
                "source": "memory",
                "title": m.content.splitlines()[0][:80],
                "ref": f"memory:{m.id}",
            },
            "tags": m.tags,
            "status": m.status,
        }
    for p in passages:
        title = Path(p.hit.path).name + (f" — {p.hit.heading}" if p.hit.heading else "")
        candidates[f"rag:{p.db}:{p.hit.chunk_id}"] = {
            "kind": "document",
            "text": p.hit.content,
            "citation": {
                "source": "rag",
                "title": f"{p.db}: {title}",
                "ref": p.source,
                "db": p.db,
                "chunk": p.hit.ord,
            },
        }
    order = rrf(
        [
            [f"memory:{m.id}" for m in memories],
            [f"rag:{p.db}:{p.hit.chunk_id}" for p in passages if p.db != BUNDLED_NAME],
            [f"rag:{p.db}:{p.hit.chunk_id}" for p in passages if p.db == BUNDLED_NAME],
        ],
        documents.settings.routing.rrf_k,
    )
    order.sort(key=lambda kv: kv[0].startswith(f"rag:{BUNDLED_NAME}:"))  # stable: theirs last
    pieces: list[dict[str, Any]] = []
    used = 0
    dropped = 0
    for key, score in order:
        item = candidates[key]
        room = budget_chars - used
        if room <= 0:
            dropped += 1
            continue
        text = item["text"]
        cut = len(text) > room
        if cut:
            text = text[: max(room - 1, 0)].rstrip() + "…"
        pieces.append({**item, "text": text, "truncated": cut, "score": round(score, 6)})
        used += len(text)
    return {
        "query": q,
        "budget_chars": budget_chars,
        "used_chars": used,
        "pieces": pieces,
        "truncated": dropped > 0 or any(p["truncated"] for p in pieces),
    }


def locate(databases: dict[str, DocumentDatabase], ref: str) -> tuple[DocumentDatabase, str]:
    """The database and relative path of a cited file; refuses anything outside them."""
    raw = ref.strip()
    if raw.startswith("file://"):
        raw = raw[len("file://") :]
    raw = raw.split("#", 1)[0]
    if not raw or "\x00" in raw:
        raise InvalidArgument(f"source {ref!r} is not a file path")
    path = Path(raw)
    if not path.is_absolute():
        raise InvalidArgument(
            f"source {ref!r} must be an absolute path or a citation ref from a result"
        )
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        raise NotFound(f"source {ref!r} does not exist") from None
    except (OSError, RuntimeError) as err:
        raise InvalidArgument(f"source {ref!r} cannot be resolved: {err}") from None
    for db in databases.values():
        if real == db.root or db.root not in real.parents:
            continue
        return db, real.relative_to(db.root).as_posix()
    raise Forbidden(f"source {ref!r} is outside every registered database")


async def source_bundle(
    documents: Documents, memory: MemoryService, sources: list[str]
) -> dict[str, Any]:
    """Full text of cited local files (only inside registered databases) or memories."""
    if not sources:
        raise InvalidArgument("sources must name at least one path or citation ref")
    files: list[dict[str, Any]] = []
    seen: set[str] = set()
    for ref in sources[:50]:
        if ref.strip().startswith("memory:"):
            found = await memory.get_memory(ref.strip().removeprefix("memory:"))
            files.append(
                {
                    "path": f"memory:{found.id}",
                    "db": "memory",
                    "chars": len(found.content),
                    "truncated": False,
                    "text": found.content,
                }
            )
            continue
        db, rel = locate(documents.databases, ref)
        full = str(db.root / rel)
        if full in seen:
            continue
        seen.add(full)
        try:
            text = await asyncio.to_thread(db.read_text, rel)
        except FileNotFoundError:
            raise NotFound(f"source {ref!r} is not a regular file inside {db.name}") from None
        except Exception as err:
            raise InvalidArgument(f"source {ref!r} cannot be read: {err}") from None
        cut = len(text) > MAX_BUNDLE_CHARS
        files.append(
            {
                "path": full,
                "db": db.name,
                "chars": len(text),
                "truncated": cut,
                "text": text[:MAX_BUNDLE_CHARS],
            }
        )
    return {"files": files}
