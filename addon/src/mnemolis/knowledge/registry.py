"""Which folders are registered as databases, persisted atomically in the data dir."""

from __future__ import annotations

import json
import logging
import os
import re
import stat
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import InvalidArgument
from ..settings import Settings

_LOGGER = logging.getLogger(__name__)

NAME_RE = re.compile(r"^[a-z0-9_-]{1,64}$")
BUNDLED_NAME = "mnemolis-docs"
BUNDLED_DIR = Path(__file__).resolve().parent.parent / "bundled_docs"
ADDON_ROOTS = ("/share", "/media", "/config")


@dataclass(slots=True)
class Registration:
    """One registered folder."""

    name: str
    path: str
    created_at: str
    readonly: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON form stored in the registry file."""
        return asdict(self)


@dataclass(slots=True)
class RegistryData:
    """What the registry file holds."""

    databases: dict[str, Registration] = field(default_factory=dict)
    removed_builtin: list[str] = field(default_factory=list)
    #: The file was unreadable and has been moved aside (the data is empty).
    corrupt: bool = False


def check_name(name: object) -> str:
    """A valid database name (1-64 of a-z, 0-9, _ and -) or InvalidArgument."""
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise InvalidArgument(
            f"invalid database name {name!r}: use 1-64 characters of a-z, 0-9, '_' and '-'"
        )
    return name


def allowed_roots(settings: Settings) -> list[Path]:
    """Folders under which databases may be registered (resolved)."""
    raw: list[str | Path] = []
    if settings.addon:
        raw.extend(ADDON_ROOTS)
    else:
        raw.append(settings.data_dir)
    raw.extend(settings.rag.roots)
    roots: list[Path] = [BUNDLED_DIR]
    for item in raw:
        try:
            roots.append(Path(item).expanduser().resolve())
        except (OSError, RuntimeError):
            continue
    return list(dict.fromkeys(roots))


def check_folder(settings: Settings, path: object) -> Path:
    """The resolved folder when it exists, is readable and lies inside an allowed root."""
    if not isinstance(path, str) or not path.strip():
        raise InvalidArgument("path is required: the folder to index")
    if "\x00" in path:
        raise InvalidArgument("path contains a NUL character")
    given = Path(path.strip()).expanduser()
    if not given.is_absolute():
        raise InvalidArgument(
            f"path {path!r} must be absolute (the server's working folder is arbitrary)"
        )
    roots = allowed_roots(settings)
    try:
        real = given.resolve(strict=True)
    except FileNotFoundError:
        raise InvalidArgument(f"path {path!r} does not exist") from None
    except (OSError, RuntimeError) as err:
        raise InvalidArgument(f"path {path!r} cannot be resolved: {err}") from None
    if not any(real == r or r in real.parents for r in roots):
        shown = ", ".join(str(r) for r in roots if r != BUNDLED_DIR)
        raise InvalidArgument(
            f"path {path!r} resolves to {str(real)!r}, outside the allowed folders ({shown}); "
            "add its parent to rag.roots to allow it"
        )
    try:
        mode = real.stat().st_mode
    except OSError as err:
        raise InvalidArgument(f"path {path!r} cannot be read: {err.strerror}") from None
    if not stat.S_ISDIR(mode):
        raise InvalidArgument(f"path {path!r} is not a folder")
    if not os.access(real, os.R_OK | os.X_OK):
        raise InvalidArgument(f"path {path!r} is not readable by the server")
    return real


def now_iso() -> str:
    """Registration time in ISO 8601 UTC."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class Registry:
    """The registry file ``<data_dir>/rag/registry.json``, written atomically."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / "rag" / "registry.json"
        self._lock = threading.Lock()
        #: What went wrong with the file in this run (readiness says degraded), or None.
        self.problem: str | None = None

    def marker(self) -> tuple[int, int, int]:
        """Change marker so a server notices CLI edits (each save is a new file)."""
        try:
            st = self.path.stat()
        except OSError:
            return (0, 0, 0)
        return (st.st_mtime_ns, st.st_ino, st.st_size)

    def load(self) -> RegistryData:
        """Read the file; a missing file is an empty registry."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return RegistryData()
        except (OSError, ValueError) as err:
            # Never block start-up: keep the broken file for inspection, start empty.
            aside = self.path.with_name(f"registry.corrupt-{time.time_ns()}.json")
            try:
                self.path.replace(aside)
                where = f"moved to {aside}"
            except OSError as move_err:
                where = f"could not be moved aside ({move_err.strerror})"
            self.problem = (
                f"the database registry {self.path} was unreadable ({err}) and {where}; "
                "databases it listed must be registered again"
            )
            _LOGGER.error("%s", self.problem)
            return RegistryData(corrupt=True)
        if not isinstance(raw, dict):
            return RegistryData()
        data = RegistryData(removed_builtin=list(raw.get("removed_builtin", [])))
        for item in raw.get("databases", []):
            try:
                reg = Registration(
                    name=check_name(item["name"]),
                    path=str(item["path"]),
                    created_at=str(item.get("created_at", "")),
                    readonly=bool(item.get("readonly", False)),
                )
            except (KeyError, TypeError, InvalidArgument):
                continue
            data.databases[reg.name] = reg
        return data

    def save(self, data: RegistryData) -> None:
        """Write to a temp file, fsync, rename: a crash leaves the old or the new file."""
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            body = json.dumps(
                {
                    "databases": [r.to_dict() for r in data.databases.values()],
                    "removed_builtin": sorted(set(data.removed_builtin)),
                },
                indent=2,
            )
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".registry-", suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(body)
                    fh.flush()
                    os.fsync(fh.fileno())
                Path(tmp).replace(self.path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
