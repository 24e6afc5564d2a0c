"""Build ``bundled_docs/vectors.npz`` (``make docs``): the bundled docs chunked as a server
chunks them, embedded once with the default model.

    python -m mnemolis.knowledge.shipped_build --write   # rebuild (converts and loads MiniLM)
    python -m mnemolis.knowledge.shipped_build --check   # exit 1 when a chunk has no vector
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

import numpy as np

from .registry import BUNDLED_NAME
from .shipped import PROBE, SAME_MODEL, SHIPPED, ShippedVectors, table, text_hash


async def bundled_texts() -> list[str]:
    """The texts the index embeds for the bundled docs, chunked as a server chunks them."""
    from ..settings import load_settings
    from .chunking import embedding_text
    from .store import KnowledgeStore

    with tempfile.TemporaryDirectory(prefix="mnemolis-shipped-") as tmp:
        settings = load_settings(
            environ={}, overrides={"data_dir": tmp, "llm": {"embedding_model": "off"}}
        )
        store = await KnowledgeStore.open(settings)
        try:
            await store.wait_idle()
            db = store.databases[BUNDLED_NAME]
            rows = db._read(
                lambda conn: conn.execute(
                    "SELECT heading, content FROM chunks ORDER BY id"
                ).fetchall()
            )
        finally:
            await store.close()
    return list(dict.fromkeys(embedding_text(h, c) for h, c in rows))


def stale(texts: list[str], shipped: ShippedVectors | None) -> list[str]:
    """The texts the table has no vector for."""
    if shipped is None:
        return texts
    return [t for t in texts if text_hash(t) not in shipped.rows]


def _same(old: ShippedVectors, name: str, probe: list[float]) -> bool:
    vec = np.asarray(probe, dtype=np.float32)
    cos = float(vec @ old.probe) / (float(np.linalg.norm(vec) * np.linalg.norm(old.probe)) or 1.0)
    return old.model == name and cos >= SAME_MODEL


async def _build(out: Path) -> int:
    from ..llm import bundled
    from ..llm.catalog import read_metadata
    from ..llm.embedding_model import LocalEmbedder
    from ..settings import load_settings

    texts = await bundled_texts()
    with tempfile.TemporaryDirectory(prefix="mnemolis-model-") as tmp:
        path = bundled.ensure_converted(Path(tmp))
        settings = load_settings(environ={}, overrides={"data_dir": tmp})
        model = LocalEmbedder(read_metadata(path), settings.llm)
        await model.wait_loaded()
        try:
            # Chunks the table already has (this same model, the probe says) are kept:
            # an edit to one page re-embeds that page's chunks only.
            probe = await asyncio.to_thread(model.embed_sync, [PROBE])
            old = table(out)
            if old is not None and not _same(old, model.name, probe[0]):
                old = None
            kept = [old.vector(t) if old is not None else None for t in texts]
            todo = [t for t, v in zip(texts, kept, strict=True) if v is None]
            fresh = iter(await asyncio.to_thread(model.embed_sync, todo) if todo else [])
            vectors = [v if v is not None else next(fresh) for v in kept]
        finally:
            await asyncio.to_thread(model.close)
    hashes = np.frombuffer(b"".join(text_hash(t) for t in texts), dtype=np.uint8)
    tmp_out = out.with_name(f".{out.name}.tmp.npz")
    np.savez_compressed(
        tmp_out,
        model=np.array(model.name),
        hashes=hashes.reshape(len(texts), 16),
        vectors=np.asarray(vectors, dtype=np.float16),
        probe=np.asarray(probe[0], dtype=np.float16),
    )
    tmp_out.replace(out)
    size = out.stat().st_size
    print(f"{out}: {len(texts)} chunks ({len(todo)} embedded), model {model.name}, {size} bytes")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``--write`` rebuilds the table, ``--check`` says whether it is current."""
    parser = argparse.ArgumentParser(prog="python -m mnemolis.knowledge.shipped")
    parser.add_argument("--write", action="store_true", help="rebuild the table")
    parser.add_argument("--check", action="store_true", help="exit 1 when it is stale")
    args = parser.parse_args(argv)
    if args.write:
        return asyncio.run(_build(SHIPPED))
    missing = stale(asyncio.run(bundled_texts()), table())
    if missing:
        print(f"{SHIPPED}: {len(missing)} chunk(s) without a vector; run make docs")
        return 1
    print(f"{SHIPPED}: current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
