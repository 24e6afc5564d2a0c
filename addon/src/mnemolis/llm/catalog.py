"""The models folder: where GGUF files live, what each one is, which one to load."""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from ..settings import Settings

ADDON_MODELS_DIR = Path("/share/mnemolis/models")
GGUF_MAGIC = b"GGUF"
# Architectures llama.cpp runs as encoders: they give embeddings, not chat.
EMBEDDING_ARCHS = frozenset(
    {"bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2", "neo-bert", "modern-bert", "t5encoder"}
)
_WANTED_SUFFIXES = (
    "general.architecture",
    "general.name",
    "general.finetune",
    ".context_length",
    ".embedding_length",
    ".pooling_type",
    "tokenizer.chat_template",
    "tokenizer.ggml.bos_token_id",
    "tokenizer.ggml.eos_token_id",
)

# GGUF value types (gguf spec): scalar struct formats by type id.
_SCALARS: dict[int, str] = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9


class GGUFError(Exception):
    """The file is not a readable GGUF model."""


@dataclass(slots=True)
class ModelFile:
    """One GGUF file and the metadata Mnemolis needs to place it."""

    path: Path
    arch: str
    name: str
    size: int
    context_length: int | None = None
    embedding_length: int | None = None
    pooling_type: int | None = None
    chat_template: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """The model id API callers see: the file name without ``.gguf``."""
        return self.path.name.removesuffix(".gguf")

    @property
    def is_embedding(self) -> bool:
        """True for encoder architectures (embeddings only)."""
        return self.arch in EMBEDDING_ARCHS


def _read(fh: BinaryIO, n: int) -> bytes:
    data = fh.read(n)
    if len(data) != n:
        raise GGUFError("file ends inside the metadata (truncated?)")
    return data


def _string(fh: BinaryIO) -> str:
    (length,) = struct.unpack("<Q", _read(fh, 8))
    if length > 1 << 26:
        raise GGUFError(f"implausible string length {length} in metadata")
    return _read(fh, length).decode("utf-8", errors="replace")


def _value(fh: BinaryIO, vtype: int, keep: bool) -> Any:
    if vtype in _SCALARS:
        fmt = _SCALARS[vtype]
        return struct.unpack(fmt, _read(fh, struct.calcsize(fmt)))[0]
    if vtype == _STRING:
        if keep:
            return _string(fh)
        (length,) = struct.unpack("<Q", _read(fh, 8))
        fh.seek(length, 1)
        return None
    if vtype == _ARRAY:
        itype, count = struct.unpack("<IQ", _read(fh, 12))
        if count > 1 << 28:
            raise GGUFError(f"implausible array length {count} in metadata")
        if itype in _SCALARS:
            fh.seek(struct.calcsize(_SCALARS[itype]) * count, 1)
        elif itype == _STRING:
            for _ in range(count):
                (length,) = struct.unpack("<Q", _read(fh, 8))
                fh.seek(length, 1)
        else:
            for _ in range(count):
                _value(fh, itype, False)
        return None
    raise GGUFError(f"unknown metadata value type {vtype}")


def read_metadata(path: Path) -> ModelFile:
    """The header fields of a GGUF file, read without loading tensors (fast)."""
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            if fh.read(4) != GGUF_MAGIC:
                raise GGUFError("not a GGUF file (bad magic bytes)")
            version, _n_tensors, n_kv = struct.unpack("<IQQ", _read(fh, 20))
            if version not in (2, 3):
                raise GGUFError(f"unsupported GGUF version {version}")
            if n_kv > 1 << 20:
                raise GGUFError(f"implausible metadata count {n_kv}")
            meta: dict[str, Any] = {}
            for _ in range(n_kv):
                key = _string(fh)
                (vtype,) = struct.unpack("<I", _read(fh, 4))
                keep = key.endswith(_WANTED_SUFFIXES)
                value = _value(fh, vtype, keep)
                if keep:
                    meta[key] = value
    except OSError as err:
        raise GGUFError(f"cannot read ({err.strerror or err})") from err
    arch = meta.get("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise GGUFError("metadata has no general.architecture")

    def arch_int(suffix: str) -> int | None:
        value = meta.get(f"{arch}.{suffix}")
        return int(value) if isinstance(value, int) else None

    template = meta.get("tokenizer.chat_template")
    return ModelFile(
        path=path,
        arch=arch,
        name=str(meta.get("general.name") or path.stem),
        size=size,
        context_length=arch_int("context_length"),
        embedding_length=arch_int("embedding_length"),
        pooling_type=arch_int("pooling_type"),
        chat_template=template if isinstance(template, str) and template.strip() else None,
        metadata=meta,
    )


def models_dir(settings: Settings) -> Path:
    """The folder GGUF files are dropped into."""
    if settings.llm.models_dir:
        return Path(settings.llm.models_dir)
    if settings.addon:
        return ADDON_MODELS_DIR
    return Path(settings.data_dir) / "models"


@dataclass(slots=True)
class Scan:
    """What a models folder holds: usable chat and embedding models, and bad files."""

    chat: list[ModelFile] = field(default_factory=list)
    embedding: list[ModelFile] = field(default_factory=list)
    unreadable: dict[str, str] = field(default_factory=dict)


def scan(folder: Path) -> Scan:
    """Every GGUF file in ``folder`` (not recursive), sorted by name."""
    out = Scan()
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".gguf" and p.is_file())
    except OSError:
        return out
    for path in files:
        try:
            info = read_metadata(path)
        except GGUFError as err:
            out.unreadable[path.name] = str(err)
            continue
        (out.embedding if info.is_embedding else out.chat).append(info)
    return out


def resolve(spec: str, folder: Path) -> Path:
    """A configured model: an absolute path as is, else a file inside the models folder."""
    candidate = Path(spec).expanduser()
    if candidate.is_absolute():
        return candidate
    name = spec if spec.lower().endswith(".gguf") else f"{spec}.gguf"
    # Lexical check: ``..`` may not leave the folder; symlinks the user placed
    # inside it (e.g. to a shared model store) are honoured.
    base = Path(os.path.normpath(folder.absolute()))
    inside = Path(os.path.normpath(base / name))
    if base not in inside.parents:
        raise GGUFError(f"model {spec!r} is outside the models folder {folder}")
    return inside
