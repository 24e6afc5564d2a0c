"""One typed settings object, layered: defaults, file, add-on options, env, flags."""

from __future__ import annotations

import json
import os
import secrets
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, SecretStr, ValidationError

from .errors import ConfigError

ENV_PREFIX = "MNEMOLIS_"
ENV_OPTIONS_FILE = "MNEMOLIS_OPTIONS_FILE"
DEFAULT_OPTIONS_FILE = Path("/data/options.json")
# In the add-on, the API key made on first start when the user set none.
GENERATED_KEY_FILE = "api_key"
SOURCE_NAMES = ("ha", "forecast", "news", "web", "kiwix", "uptime", "changes", "rag", "memory")

LogLevel = Literal["debug", "info", "warning", "error", "critical"]
# Settings that no longer do anything: still accepted (old options files and
# configs keep working), dropped, and named once in the log.
RETIRED = {
    "ha.allow_writes": "Mnemolis only reads Home Assistant",
}


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class HASettings(_Section):
    """Where the Home Assistant websocket API is; unset in the add-on."""

    url: str | None = None
    token: SecretStr | None = None
    # "all": every entity HA shows (not hidden or disabled); "assist": only those
    # exposed to Assist in HA (Settings → Voice assistants → Expose).
    exposure: Literal["all", "assist"] = "all"


class ForecastSettings(_Section):
    """Which weather entity (or Open-Meteo-compatible API) answers forecasts."""

    entity_id: str | None = None
    open_meteo_url: str | None = None
    latitude: float | None = Field(default=None, ge=-90, le=90)
    longitude: float | None = Field(default=None, ge=-180, le=180)


class NewsSettings(_Section):
    """RSS/Atom feeds and an optional FreshRSS (GReader API) account."""

    feeds: list[str] = Field(default_factory=list)
    freshrss_url: str | None = None
    freshrss_user: str | None = None
    freshrss_password: SecretStr | None = None
    refresh_seconds: float = Field(default=900, gt=0)


class WebSettings(_Section):
    """SearXNG instance used for web search."""

    searxng_url: str | None = None


class KiwixSettings(_Section):
    """kiwix-serve base URL and optional book names (all books when empty)."""

    url: str | None = None
    books: list[str] = Field(default_factory=list)


class UptimeSettings(_Section):
    """Uptime Kuma base URL and status page slug."""

    url: str | None = None
    slug: str | None = None


class ChangesSettings(_Section):
    """Snapshots of the other sources kept for "what changed" questions."""

    snapshot_seconds: float = Field(default=900, gt=0)
    retention_days: float = Field(default=8, ge=7)


class RagSettings(_Section):
    """Folders under which document databases may be registered."""

    roots: list[str] = Field(default_factory=list)
    watch: bool = True
    # Per-file caps: a file over one is indexed up to it and reported as cut.
    max_pdf_pages: int = Field(default=2000, ge=1, le=1_000_000)
    max_file_chars: int = Field(default=10_000_000, ge=1000, le=1_000_000_000)
    max_file_chunks: int = Field(default=20_000, ge=1, le=10_000_000)


class LLMSettings(_Section):
    """The local (llama.cpp) or remote (OpenAI-compatible) model."""

    model: str | None = None
    models_dir: str | None = None
    embedding_model: str | None = None
    threads: int = Field(default=0, ge=0, le=256)
    context: int = Field(default=4096, ge=256, le=262144)
    base_url: str | None = None
    api_key: SecretStr | None = None
    timeout: float = Field(default=60, gt=0)
    # Requests that may wait for the model while it generates; more get a 429.
    queue: int = Field(default=8, ge=1, le=1024)
    # The model writes the answer to document and memory questions too (not only fused
    # ones); off by default: the small model measured worse than the extractive reader
    # (docs/inference.md, "Grounded answers").
    compose_documents: bool = False

    @property
    def embedding_expected(self) -> bool:
        """Whether an embedding model is configured (``auto`` or a file), not turned off:
        while it loads, the hashing fallback must not replace its vectors."""
        return (self.embedding_model or "auto").strip().lower() not in ("off", "none")


class MCPSettings(_Section):
    """Which MCP tools are offered (disabled wins; ``*`` matches all)."""

    enabled_tools: list[str] = Field(default_factory=lambda: ["*"])
    disabled_tools: list[str] = Field(default_factory=list)


class RoutingSettings(_Section):
    """Router tuning: default order, fallback chains, timeouts, fusion."""

    default_sources: list[str] = Field(default_factory=lambda: ["rag", "memory", "kiwix", "web"])
    fallback: dict[str, list[str]] = Field(
        default_factory=lambda: {
            "kiwix": ["web"],
            "news": ["web"],
            "rag": ["kiwix", "web"],
            "memory": ["rag"],  # what no memory answers, the household's documents may
        }
    )
    source_timeout: float = Field(default=8.0, gt=0, le=300)
    deadline: float = Field(default=20.0, gt=0, le=600)
    rrf_k: int = Field(default=60, ge=1, le=1000)


class CacheSettings(_Section):
    """Per-source answer cache lifetimes in seconds (0 switches caching off)."""

    ttl: dict[str, float] = Field(
        default_factory=lambda: {
            "ha": 2.0,
            "forecast": 600.0,
            "news": 300.0,
            "web": 900.0,
            "kiwix": 86400.0,
            "uptime": 30.0,
            "changes": 30.0,
            "rag": 30.0,
            "memory": 5.0,
        }
    )


class QueryLogSettings(_Section):
    """How long routed queries are kept, and whether their text is stored."""

    retention_days: float = Field(default=30, ge=0)
    max_rows: int = Field(default=10000, ge=0)
    store_text: bool = True


class LimitsSettings(_Section):
    """Request limits that protect a small machine."""

    max_body_bytes: int = Field(default=1_048_576, ge=1024, le=1_073_741_824)
    # Seconds a request body may take to arrive in full (then 408, the connection closed).
    body_timeout: float = Field(default=30.0, gt=0, le=3600)
    max_query_chars: int = Field(default=4000, ge=1, le=100_000)
    rate_per_minute: int = Field(default=600, ge=0)
    concurrency_per_client: int = Field(default=16, ge=0)
    exempt_loopback: bool = True


class Settings(_Section):
    """Everything the server can be told; see SPEC §3 for the names."""

    host: str = "127.0.0.1"
    port: int = Field(default=8888, ge=1, le=65535)
    data_dir: Path = Path("./data")
    log_level: LogLevel = "info"
    log_format: Literal["text", "json"] = "text"
    api_key: SecretStr | None = None
    read_api_key: SecretStr | None = None
    allowed_origins: list[str] = Field(default_factory=list)
    allowed_hosts: list[str] = Field(default_factory=list)
    addon: bool = False
    ha: HASettings = Field(default_factory=HASettings)
    forecast: ForecastSettings = Field(default_factory=ForecastSettings)
    news: NewsSettings = Field(default_factory=NewsSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    kiwix: KiwixSettings = Field(default_factory=KiwixSettings)
    uptime: UptimeSettings = Field(default_factory=UptimeSettings)
    changes: ChangesSettings = Field(default_factory=ChangesSettings)
    rag: RagSettings = Field(default_factory=RagSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    mcp: MCPSettings = Field(default_factory=MCPSettings)
    routing: RoutingSettings = Field(default_factory=RoutingSettings)
    cache: CacheSettings = Field(default_factory=CacheSettings)
    querylog: QueryLogSettings = Field(default_factory=QueryLogSettings)
    limits: LimitsSettings = Field(default_factory=LimitsSettings)
    _notices: list[str] = PrivateAttr(default_factory=list)

    @property
    def notices(self) -> list[str]:
        """Warnings about the settings given (retired names), logged once at start."""
        return self._notices

    def secrets(self) -> list[str]:
        """Every secret value set, so logging can redact them."""
        found: list[str] = []

        def walk(model: BaseModel) -> None:
            for name in type(model).model_fields:
                value = getattr(model, name)
                if isinstance(value, SecretStr) and value.get_secret_value():
                    found.append(value.get_secret_value())
                elif isinstance(value, BaseModel):
                    walk(value)

        walk(self)
        return found


def _deep_merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _read_config_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"config file {path}: cannot read ({err.strerror or err})") from err
    except UnicodeDecodeError as err:
        raise ConfigError(f"config file {path}: not UTF-8 text (byte {err.start})") from None
    try:
        if path.suffix.lower() == ".toml":
            data: Any = tomllib.loads(text)
        else:
            data = yaml.safe_load(text) or {}
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as err:
        reason = str(err).splitlines()[0]
        raise ConfigError(f"config file {path}: not valid YAML/TOML ({reason})") from err
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path}: must hold a mapping of settings")
    return data


def _read_options_file(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ConfigError(f"options file {path}: cannot read ({err.strerror or err})") from err
    except UnicodeDecodeError as err:
        raise ConfigError(
            f"options file {path}: not valid JSON (not UTF-8 text: byte {err.start})"
        ) from None
    except json.JSONDecodeError as err:
        raise ConfigError(f"options file {path}: not valid JSON ({err.msg})") from err
    if not isinstance(data, dict):
        raise ConfigError(f"options file {path}: must hold a JSON object")
    # The Supervisor writes every option; empty strings mean "not set".
    return _drop_empty(data)


def _drop_empty(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            value = _drop_empty(value)
        if value in ("", None):
            continue
        out[key] = value
    return out


def _env_value(raw: str) -> Any:
    stripped = raw.strip()
    if stripped.startswith(("[", "{")):
        try:
            return json.loads(stripped)
        except json.JSONDecodeError:
            return raw
    return raw


def _from_env(environ: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """Nested settings from ``MNEMOLIS_A__B`` variables, plus where each came from."""
    out: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for name, raw in environ.items():
        if not name.startswith(ENV_PREFIX) or name == ENV_OPTIONS_FILE:
            continue
        path = [part.lower() for part in name[len(ENV_PREFIX) :].split("__") if part]
        if not path:
            continue
        node = out
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        else:
            node[path[-1]] = _env_value(raw)
            origin[".".join(path)] = name
    return out, origin


def _without(data: dict[str, Any], path: list[str]) -> dict[str, Any] | None:
    """A copy of data without the dotted path; None when the path is not there."""
    head, *rest = path
    if head not in data:
        return None
    if not rest:
        return {k: v for k, v in data.items() if k != head}
    inner = data[head]
    if not isinstance(inner, dict):
        return None
    dropped = _without(inner, rest)
    return None if dropped is None else {**data, head: dropped}


def _drop_retired(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The settings without the retired names, and one notice per name found."""
    notices: list[str] = []
    for dotted, why in RETIRED.items():
        dropped = _without(data, dotted.split("."))
        if dropped is not None:
            data = dropped
            notices.append(f"setting {dotted} is no longer used and is ignored: {why}")
    return data, notices


def _describe(err: ValidationError, data: Mapping[str, Any], origin: Mapping[str, str]) -> str:
    first = err.errors()[0]
    loc = [str(p) for p in first["loc"]]
    key = ".".join(loc)
    node: Any = data
    for part in loc:
        node = node.get(part) if isinstance(node, Mapping) else None
    value = "***" if any(s in key for s in ("key", "token", "password")) else node
    where = f" (from {origin[key]})" if key in origin else ""
    if first["type"] == "extra_forbidden":
        return f"unknown setting {key!s}{where}: not a Mnemolis setting"
    msg = first["msg"]
    ctx = first.get("ctx") or {}
    if "expected" in ctx:
        msg = f"allowed: {ctx['expected']}"
    return f"invalid setting {key}={value!r}{where}: {msg}"


def load_settings(
    *,
    config_file: str | Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Build the settings from every layer; raise ConfigError with one clear line."""
    env = os.environ if environ is None else environ
    data: dict[str, Any] = {}
    if config_file is not None:
        data = _deep_merge(data, _read_config_file(Path(config_file)))
    options_path = Path(env.get(ENV_OPTIONS_FILE, str(DEFAULT_OPTIONS_FILE)))
    if options_path.exists() or ENV_OPTIONS_FILE in env:
        data = _deep_merge(data, _read_options_file(options_path))
    env_data, origin = _from_env(env)
    data = _deep_merge(data, env_data)
    if overrides:
        data = _deep_merge(data, {k: v for k, v in overrides.items() if v is not None})
    data, notices = _drop_retired(data)
    try:
        settings = Settings.model_validate(data)
    except ValidationError as err:
        raise ConfigError(_describe(err, data, origin)) from None
    settings.notices.extend(notices)
    return settings


def apply_generated_api_key(settings: Settings) -> Path | None:
    """In the add-on with no ``api_key`` set, use the one kept in /data (made on first start).

    Port 8888 is published on the LAN, so the add-on never runs open. Returns the
    key file when its key is in use (the caller shows it once), else None.
    Outside the add-on nothing changes: no key unless one is set.
    """
    if not settings.addon or (settings.api_key and settings.api_key.get_secret_value()):
        return None
    path = Path(settings.data_dir) / GENERATED_KEY_FILE
    try:
        key = path.read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError):
        key = ""  # none kept yet (or no folder to keep it in: writing says so)
    except OSError as err:
        raise ConfigError(f"API key file {path}: cannot read ({err.strerror or err})") from err
    if len(key) < 32:
        key = secrets.token_urlsafe(32)
        tmp = path.with_name(f".{path.name}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(key + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            tmp.replace(path)
        except OSError as err:
            raise ConfigError(f"API key file {path}: cannot write ({err.strerror or err})") from err
    settings.api_key = SecretStr(key)
    return path
