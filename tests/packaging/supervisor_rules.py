"""The Supervisor's rules for an add-on, restated in the project's own words.

Read from home-assistant/supervisor at commit 090ef31ec (2026-08-21):
``supervisor/apps/options.py`` (how ``options`` are validated against ``schema``),
``supervisor/apps/validate.py`` (the ``config.yaml`` schema and map types),
``supervisor/docker/const.py`` (where each map type is mounted) and
``supervisor/api/middleware/security.py`` (which API paths an add-on may call
without ``hassio_api``). The Supervisor cannot run here, so these few rules are
re-stated instead; each is exercised by tests/packaging/test_supervisor_rules.py.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlparse

# supervisor/apps/options.py RE_SCHEMA_ELEMENT: every leaf type the Supervisor knows.
RE_SCHEMA_ELEMENT = re.compile(
    r"^(?:"
    r"|bool"
    r"|email"
    r"|url"
    r"|port"
    r"|device(?:\((?P<filter>subsystem=[a-z]+)\))?"
    r"|str(?:\((?P<s_min>\d+)?,(?P<s_max>\d+)?\))?"
    r"|password(?:\((?P<p_min>\d+)?,(?P<p_max>\d+)?\))?"
    r"|int(?:\((?P<i_min>-?\d+)?,(?P<i_max>-?\d+)?\))?"
    r"|float(?:\((?P<f_min>-?\d*\.?\d+)?,(?P<f_max>-?\d*\.?\d+)?\))?"
    r"|match\((?P<match>.*)\)"
    r"|list\((?P<list>.+)\)"
    r")\??$"
)

# supervisor/docker/const.py + docker/app.py: where each map type lands by default.
MAP_TARGETS = {
    "addon_config": "/config",
    "app_config": "/config",
    "homeassistant_config": "/homeassistant",
    "config": "/config",  # legacy name for Home Assistant's config folder
    "ssl": "/ssl",
    "addons": "/addons",
    "local_apps": "/local_apps",
    "backup": "/backup",
    "share": "/share",
    "media": "/media",
    "all_addon_configs": "/addon_configs",
    "all_app_configs": "/app_configs",
}
PRIVATE_DATA = "/data"  # always mounted, read-write

# supervisor/api/middleware/security.py: paths any add-on may call (no hassio_api).
API_BYPASS = re.compile(
    r"^(?:"
    r"|/addons/self/(?!security|update)[^/]+"
    r"|/addons/self/options/config"
    r"|/info"
    r"|/services.*"
    r"|/discovery.*"
    r"|/auth"
    r")$"
)

# supervisor/apps/validate.py ATTR_WATCHDOG
RE_WATCHDOG = re.compile(r"^(?:https?|\[PROTO:\w+\]|tcp):\/\/\[HOST\]:(\[PORT:\d+\]|\d+).*$")

# supervisor/validate.py docker_image: one path component (supports {arch}).
RE_IMAGE_COMPONENT = re.compile(r"^[a-z0-9{][a-z0-9.\-_{}]*$")


class Invalid(ValueError):
    """What the Supervisor reports when it refuses the options (the add-on does not start)."""


def _number(value: Any, cast: type[int] | type[float], key: str) -> float:
    try:
        number = cast(value)
    except (TypeError, ValueError):
        raise Invalid(f"{key}: expected {cast.__name__}, got {value!r}") from None
    if isinstance(number, float) and math.isnan(number):
        raise Invalid(f"{key}: not a number")
    return number


def _in_range(number: float, low: str | None, high: str | None, key: str) -> None:
    if low is not None and number < float(low):
        raise Invalid(f"{key}: {number} is below {low}")
    if high is not None and number > float(high):
        raise Invalid(f"{key}: {number} is above {high}")


def _boolean(value: Any, key: str) -> bool:
    """voluptuous.Boolean: bools, 1/0 and the usual words."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.lower().strip()
        if word in ("1", "true", "yes", "on", "enable"):
            return True
        if word in ("0", "false", "no", "off", "disable"):
            return False
        raise Invalid(f"{key}: {value!r} is not a boolean")
    if isinstance(value, int | float):
        return bool(value)
    raise Invalid(f"{key}: {value!r} is not a boolean")


def validate_element(typ: Any, value: Any, key: str) -> Any:
    """One option against its schema type, as AppOptions._validate_element does."""
    if isinstance(typ, list):
        if not isinstance(value, list):
            raise Invalid(f"{key}: invalid list")
        return [validate_element(typ[0], item, key) for item in value]
    if isinstance(typ, dict):
        if not isinstance(value, dict):
            raise Invalid(f"{key}: invalid dict")
        return validate_options(typ, value, root=key)
    return validate_single(str(typ), value, key)


def validate_single(typ: str, value: Any, key: str) -> Any:
    """A leaf value (AppOptions._single_validate): every value present is checked."""
    if value is None:
        raise Invalid(f"Missing required option '{key}'")
    match = RE_SCHEMA_ELEMENT.match(typ)
    if not match:
        raise Invalid(f"{key}: unknown type {typ!r}")
    g = match.groupdict()
    if typ.startswith(("str", "password")):
        if not isinstance(value, str):
            raise Invalid(f"{key}: expected str, got {value!r}")
        low, high = (g["s_min"], g["s_max"]) if typ.startswith("str") else (g["p_min"], g["p_max"])
        _in_range(len(value), low, high, f"{key} length")
        return value
    if typ.startswith("int"):
        number = _number(value, int, key)
        _in_range(number, g["i_min"], g["i_max"], key)
        return number
    if typ.startswith("float"):
        number = _number(value, float, key)
        _in_range(number, g["f_min"], g["f_max"], key)
        return number
    if typ.startswith("bool"):
        return _boolean(value, key)
    if typ.startswith("email"):
        if not isinstance(value, str) or not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", value):
            raise Invalid(f"{key}: {value!r} is not an email address")
        return value
    if typ.startswith("url"):
        # voluptuous.Url: urlparse must find a scheme and a network location.
        try:
            parsed = urlparse(value)
        except (TypeError, ValueError, AttributeError):
            raise Invalid(f"{key}: {value!r} is not a url") from None
        if not parsed.scheme or not parsed.netloc:
            raise Invalid(f"{key}: {value!r} is not a url")
        return value
    if typ.startswith("port"):
        number = _number(value, int, key)
        _in_range(number, "1", "65535", key)
        return number
    if typ.startswith("match"):
        if not re.match(g["match"], str(value)):
            raise Invalid(f"{key}: {value!r} does not match {g['match']}")
        return str(value)
    if typ.startswith("list"):
        if str(value) not in g["list"].split("|"):
            raise Invalid(f"{key}: {value!r} is not one of {g['list']}")
        return str(value)
    raise Invalid(f"{key}: type {typ!r} cannot be checked here")


def _optional(typ: Any) -> bool:
    """Only a leaf (or a list of leaves) whose type ends in ``?`` may be left out."""
    if isinstance(typ, list) and typ:
        typ = typ[0]
    return isinstance(typ, str) and typ.endswith("?")


def validate_options(
    schema: Mapping[str, Any], options: Mapping[str, Any], root: str = "root"
) -> dict[str, Any]:
    """Options against a schema (AppOptions.__call__); unknown keys are dropped."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key in schema:
            out[key] = validate_element(schema[key], value, key)
    for missing in set(schema) - set(out):
        if not _optional(schema[missing]):
            raise Invalid(f"Missing option '{missing}' in {root}")
    return out


def schema_shape_errors(schema: Any, path: str = "") -> list[str]:
    """Where a schema breaks the Supervisor's SCHEMA_ELEMENT (bad type, list in list)."""
    errors: list[str] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            errors += schema_shape_errors(value, f"{path}{key}.")
    elif isinstance(schema, list):
        if len(schema) != 1 or isinstance(schema[0], list):
            errors.append(f"{path.rstrip('.')}: a list holds exactly one type, never a list")
        else:
            errors += schema_shape_errors(schema[0], path)
    elif not isinstance(schema, str) or not RE_SCHEMA_ELEMENT.match(schema):
        errors.append(f"{path.rstrip('.')}: unknown type {schema!r}")
    return errors


def map_targets(entries: list[Any]) -> list[str]:
    """The container path of each map entry (plus /data), in order."""
    targets = [PRIVATE_DATA]
    for entry in entries:
        kind, _, _mode = (entry["type"] if isinstance(entry, dict) else str(entry)).partition(":")
        path = entry.get("path") if isinstance(entry, dict) else None
        targets.append(str(path or MAP_TARGETS[kind]))
    return targets
