"""The add-on passes the Supervisor's own checks: it installs, its container is created, it starts.

Each test is one rule the Supervisor (or Docker, or AppArmor on HA OS) enforces;
tests/packaging/supervisor_rules.py says where each rule was read upstream.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml

from mnemolis.settings import Settings, load_settings

from .supervisor_rules import (
    API_BYPASS,
    MAP_TARGETS,
    RE_IMAGE_COMPONENT,
    RE_WATCHDOG,
    Invalid,
    map_targets,
    schema_shape_errors,
    validate_options,
    validate_single,
)

REPO = Path(__file__).resolve().parents[2]
ADDON = REPO / "addon"

# Base images checked upstream, per arch. Source: home-assistant/docker-base tag
# 2026.06.1 (commit d2bed106f864a4f7b3599b5151661ae6dc617c61): builder.yml's
# build_debian job (debian_version: bookworm, trixie; image-tags
# "<debian_version>-<release>") through build-base-image.yml, whose
# home-assistant/builder prepare-multi-arch-matrix names each per-arch image
# ghcr.io/home-assistant/<arch>-base-debian. Release tags (<debian>-<release>)
# exist only from docker-base 2025.11.2 on; "bookworm-2025.02.1" never existed.
VERIFIED_BASE_IMAGES = {
    "aarch64": {
        "ghcr.io/home-assistant/aarch64-base-debian:trixie-2026.06.1",
        "ghcr.io/home-assistant/aarch64-base-debian:bookworm-2026.06.1",
    },
    "amd64": {
        "ghcr.io/home-assistant/amd64-base-debian:trixie-2026.06.1",
        "ghcr.io/home-assistant/amd64-base-debian:bookworm-2026.06.1",
    },
}
# The python3 each Debian release ships (packages.debian.org).
DEBIAN_PYTHON = {"bookworm": (3, 11), "trixie": (3, 13)}


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def cfg() -> dict[str, Any]:
    data = load_yaml(ADDON / "config.yaml")
    assert isinstance(data, dict)
    return data


def _leaves(tree: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(tree, dict):
        for key, value in tree.items():
            out.update(_leaves(value, f"{prefix}{key}."))
    else:
        out[prefix.rstrip(".")] = tree
    return out


# --- the validator states the Supervisor's rules correctly --------------------------


@pytest.mark.parametrize(
    ("typ", "good", "bad"),
    [
        ("url", "http://searxng:8080", ""),
        ("url?", "https://example.org/rss", "searxng"),
        ("port", 8888, 70000),
        ("list(info|debug)", "info", "verbose"),
        ("int(0,256)", 4, 257),
        ("int(256,)", 4096, 255),
        ("float(7,)", 8, 6.5),
        ("float", "1.5", "soon"),
        ("password?", "", 12),
        ("str?", "", None),
        ("bool", True, "maybe"),
        ("email?", "me@example.org", ""),
        ("match(^[a-z]+$)", "abc", "ABC"),
    ],
)
def test_validator_accepts_and_refuses_like_the_supervisor(typ: str, good: Any, bad: Any) -> None:
    """An empty string is a valid str/password but not a url, port, number or email."""
    validate_single(typ, good, "opt")
    with pytest.raises(Invalid):
        validate_single(typ, bad, "opt")


def test_validator_handles_optional_nested_and_lists() -> None:
    schema = {"a": "url?", "b": {"c": "str?", "d": "bool"}, "e": ["list(x|y)"], "f": ["str?"]}
    assert validate_options(schema, {"b": {"d": False}, "e": []}) == {"b": {"d": False}, "e": []}
    with pytest.raises(Invalid, match="Missing option 'd'"):
        validate_options(schema, {"b": {}, "e": []})
    with pytest.raises(Invalid, match="Missing option 'b'"):
        validate_options(schema, {"e": []})
    with pytest.raises(Invalid):
        validate_options(schema, {"b": {"d": False}, "e": ["z"]})
    with pytest.raises(Invalid, match="not a url"):
        validate_options(schema, {"a": "", "b": {"d": False}, "e": []})


# --- config.yaml ----------------------------------------------------------------------


def test_schema_uses_only_supervisor_types(cfg: dict[str, Any]) -> None:
    assert schema_shape_errors(cfg["schema"]) == []


def test_default_options_pass_the_supervisor(cfg: dict[str, Any]) -> None:
    """The Supervisor validates options before every start; the defaults must pass."""
    validate_options(cfg["schema"], cfg["options"])


def test_optional_options_are_left_out_when_empty(cfg: dict[str, Any]) -> None:
    """`url?`, `port?`, `int?`, `float?`, `email?`, `bool?` with "" or null stop the add-on."""
    schema = _leaves(cfg["schema"])
    for key, value in _leaves(cfg["options"]).items():
        typ = schema.get(key)
        if isinstance(typ, list):
            typ = typ[0]
        if isinstance(typ, str) and typ.endswith("?") and not typ.startswith(("str", "password")):
            assert value not in ("", None), f"{key} ({typ}) must be left out of options, not empty"
    for key, typ in schema.items():
        if key not in _leaves(cfg["options"]) and not (isinstance(typ, list) and typ):
            assert str(typ).endswith("?"), f"{key} is required ({typ}) but has no default"


def test_options_users_enter_pass_and_reach_the_server(cfg: dict[str, Any], tmp_path: Path) -> None:
    """Filled-in optional fields validate, and the options.json written from them loads."""
    options = json.loads(json.dumps(cfg["options"]))
    options["web"]["searxng_url"] = "http://192.168.1.20:8080"
    options["kiwix"]["url"] = "http://kiwix.local:8080"
    options["llm"]["base_url"] = "http://ollama:11434/v1"
    options["api_key"] = "a-key-of-my-own-that-is-long-enough"
    written = validate_options(cfg["schema"], options)
    path = tmp_path / "options.json"
    path.write_text(json.dumps(written), encoding="utf-8")
    settings = load_settings(environ={"MNEMOLIS_OPTIONS_FILE": str(path)})
    assert settings.web.searxng_url == "http://192.168.1.20:8080"
    assert settings.api_key is not None
    with pytest.raises(Invalid):
        validate_options(cfg["schema"], {**options, "web": {"searxng_url": ""}})


def test_every_schema_entry_is_a_server_setting(cfg: dict[str, Any]) -> None:
    for dotted in _leaves(cfg["schema"]):
        node: Any = Settings
        for part in dotted.split("."):
            assert part in node.model_fields, f"option {dotted} is not a server setting"
            node = node.model_fields[part].annotation


def test_each_map_entry_has_its_own_target(cfg: dict[str, Any]) -> None:
    """Docker refuses two mounts on one path: the container could not be created."""
    for entry in cfg.get("map", []):
        kind = entry["type"] if isinstance(entry, dict) else str(entry).partition(":")[0]
        assert kind in MAP_TARGETS, f"unknown map type {kind}"
    targets = map_targets(cfg.get("map", []))
    assert len(targets) == len(set(targets)), targets


def test_home_assistant_config_is_not_mapped(cfg: dict[str, Any]) -> None:
    """Port 8888 faces the LAN: Home Assistant's secrets.yaml stays out of the container."""
    kinds = {(e["type"] if isinstance(e, dict) else str(e).partition(":")[0]) for e in cfg["map"]}
    assert not kinds & {"homeassistant_config", "config", "all_addon_configs", "all_app_configs"}


def test_ports_ingress_and_watchdog_agree(cfg: dict[str, Any]) -> None:
    run = (ADDON / "rootfs/etc/services.d/mnemolis/run").read_text()
    port = int(re.search(r"MNEMOLIS_PORT=(\d+)", run).group(1))  # type: ignore[union-attr]
    assert f"{port}/tcp" in cfg["ports"]
    assert cfg["ingress"] is True and cfg["ingress_port"] == port
    watchdog = cfg["watchdog"]
    assert RE_WATCHDOG.match(watchdog), watchdog
    assert f"[PORT:{port}]" in watchdog and watchdog.endswith("/api/health")


def test_no_hassio_api_unless_needed(cfg: dict[str, Any]) -> None:
    """Every Supervisor path the server calls is one any add-on may call."""
    assert not cfg.get("hassio_api", False)
    calls: set[str] = set()
    for path in (ADDON / "src/mnemolis").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "SUPERVISOR_TOKEN" not in text and "supervisor" not in text.lower():
            continue
        calls |= set(re.findall(r'_call\(\s*"[A-Z]+",\s*f?"(/[^"]+)"', text))
    assert {"/addons/self/info", "/discovery"} <= calls
    for call in calls:
        concrete = re.sub(r"\{[^}]+\}", "f1e2d3c4", call)
        assert API_BYPASS.match(concrete), f"{call} needs hassio_api"


def test_backup_exclude_covers_model_files_only(cfg: dict[str, Any]) -> None:
    """Backups skip model files wherever they sit in /data or /config, never the databases."""

    def excluded(path: str) -> bool:
        return any(PurePosixPath(path).match(p) for p in cfg["backup_exclude"])

    for path in ("/data/models/qwen.gguf", "/config/models/e5.gguf", "/data/x.gguf.part"):
        assert excluded(path), path
    for path in ("/data/options.json", "/data/api_key", "/data/knowledge/notes.db", "/data/m.db"):
        assert not excluded(path), path
    # The default models folder is outside /data and /config: never in the add-on backup.
    models = cfg["options"]["llm"]["models_dir"]
    assert not models.startswith(("/data", "/config"))
    assert any(models.startswith(t) for t in map_targets(cfg["map"]) if t != "/data")


def test_image_names_a_prebuilt_per_arch_image(cfg: dict[str, Any]) -> None:
    image = cfg.get("image", "")
    assert "{arch}" in image, "without image: every install compiles llama.cpp on the device"
    registry, _, path = image.partition("/")
    assert "." in registry and registry == registry.lower()
    assert ":" not in path, "no tag: the Supervisor adds the version"
    assert all(RE_IMAGE_COMPONENT.match(part) for part in path.split("/"))
    workflow = REPO / ".github/workflows/addon-image.yml"
    text = workflow.read_text(encoding="utf-8")
    assert "home-assistant/builder/actions/build-image" in text
    name = path.rpartition("/")[2].replace("{arch}-", "")
    assert f"IMAGE_NAME: {name}" in text, "the workflow must publish the image config.yaml pulls"


# --- build.yaml and Dockerfile -------------------------------------------------------


def test_build_bases_exist_for_each_arch(cfg: dict[str, Any]) -> None:
    build = load_yaml(ADDON / "build.yaml")["build_from"]
    assert set(build) == set(cfg["arch"])
    for arch, image in build.items():
        assert image in VERIFIED_BASE_IMAGES[arch], f"{image} is not a published {arch} base"


def test_base_python_is_what_the_server_requires() -> None:
    requires = tomllib.loads((ADDON / "pyproject.toml").read_text())["project"]["requires-python"]
    need = tuple(int(x) for x in re.search(r">=\s*(\d+)\.(\d+)", requires).groups())  # type: ignore[union-attr]
    dockerfile = (ADDON / "Dockerfile").read_text()
    default = re.search(r"ARG BUILD_FROM=(\S+)", dockerfile).group(1)  # type: ignore[union-attr]
    assert default == load_yaml(ADDON / "build.yaml")["build_from"]["amd64"]
    for image in load_yaml(ADDON / "build.yaml")["build_from"].values():
        release = image.rpartition(":")[2].split("-")[0]
        assert DEBIAN_PYTHON[release] >= need, f"{image}: python3 {DEBIAN_PYTHON[release]}"
    assert re.search(r"apt-get install[^\n]*\\?\s*(?:[\w.-]+\s+)*python3\b", dockerfile)


# --- AppArmor --------------------------------------------------------------------------


def apparmor_parser() -> str:
    found = shutil.which("apparmor_parser") or shutil.which("apparmor_parser", path="/sbin")
    assert found, "apparmor_parser missing: run .ci/system-deps (Debian package apparmor)"
    return found


def test_apparmor_profile_parses() -> None:
    result = subprocess.run(
        [apparmor_parser(), "-Q", "-K", str(ADDON / "apparmor.txt")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr


S6_OVERLAY_V3_RULES = (
    "file,",
    "signal (send) set=(kill,term,int,hup,cont),",
    "/init ix,",
    "/package/** ix,",
    "/command/** ix,",
    "/run/{s6,s6-rc*,service}/** ix,",
    "/etc/services.d/** rwix,",
    "/etc/cont-init.d/** rwix,",
    "/run/{,**} rwk,",
    "/usr/lib/bashio/** ix,",
)


def test_apparmor_has_the_s6_overlay_v3_rules() -> None:
    lines = {line.strip() for line in (ADDON / "apparmor.txt").read_text().splitlines()}
    for rule in S6_OVERLAY_V3_RULES:
        assert rule in lines, f"apparmor.txt lacks {rule!r}: s6-overlay v3 cannot start"


def test_apparmor_paths_match_the_mounts(cfg: dict[str, Any]) -> None:
    """Read-write where the map is read-write; nothing for folders that are not mounted."""
    text = (ADDON / "apparmor.txt").read_text()
    rules = dict(re.findall(r"^\s*(/[a-z_]+)/\{?,?\*\*\}?\s+(\w+),", text, re.M))
    modes = {"/data": False}
    for entry in cfg["map"]:
        modes[MAP_TARGETS[entry["type"]]] = entry.get("read_only", True)
    for target, read_only in modes.items():
        assert target in rules, f"no rule for mounted {target}"
        assert ("w" in rules[target]) == (not read_only), f"{target}: {rules[target]}"
    top = {"/opt", "/usr", "/etc", "/proc", "/sys", "/run", "/tmp", "/bin", "/package", "/command"}
    for path in rules:
        assert path in modes or path in top, f"apparmor.txt names {path}, which is not mounted"
