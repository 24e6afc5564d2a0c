"""The add-on and HACS packaging files carry what the Supervisor and HACS require."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import yaml

from mnemolis import __version__
from mnemolis.settings import Settings

REPO = Path(__file__).resolve().parents[2]
ADDON = REPO / "addon"


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def addon_config() -> dict[str, Any]:
    data = load_yaml(ADDON / "config.yaml")
    assert isinstance(data, dict)
    return data


def test_one_version_everywhere() -> None:
    pyproject = tomllib.loads((ADDON / "pyproject.toml").read_text())["project"]["version"]
    manifest = json.loads((REPO / "custom_components/mnemolis/manifest.json").read_text())
    assert addon_config()["version"] == pyproject == manifest["version"] == __version__
    assert f"## {pyproject}" in (ADDON / "CHANGELOG.md").read_text()


def test_only_the_addon_has_a_config_yaml() -> None:
    found = [
        p.relative_to(REPO).as_posix()
        for p in REPO.rglob("config.yaml")
        if not {".venv", ".git", "data", "test-output"} & set(p.relative_to(REPO).parts)
    ]
    assert found == ["addon/config.yaml"]


def test_addon_config_required_fields() -> None:
    cfg = addon_config()
    for key in ("name", "version", "slug", "description", "arch"):
        assert cfg.get(key), key
    assert sorted(cfg["arch"]) == ["aarch64", "amd64"]
    assert cfg["init"] is False
    assert cfg["ports"] == {"8888/tcp": 8888}
    assert cfg["homeassistant_api"] is True
    assert cfg["discovery"] == ["mnemolis"]
    maps = {m["type"] if isinstance(m, dict) else m for m in cfg["map"]}
    assert {"addon_config", "share", "media"} <= maps
    assert "watchdog" in cfg and "/api/health" in cfg["watchdog"]
    assert any("gguf" in p for p in cfg["backup_exclude"])
    assert cfg["ingress"] is True and cfg["panel_icon"].startswith("mdi:")


def _leaves(tree: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(tree, dict):
        for key, value in tree.items():
            out.update(_leaves(value, f"{prefix}{key}."))
    else:
        out[prefix.rstrip(".")] = tree
    return out


def test_every_option_has_schema_and_translation() -> None:
    cfg = addon_config()
    options, schema = _leaves(cfg["options"]), _leaves(cfg["schema"])
    # Optional options are absent from `options` (see test_supervisor_rules.py).
    assert set(options) <= set(schema)
    translations = load_yaml(ADDON / "translations/en.yaml")["configuration"]
    for top in cfg["schema"]:
        assert top in translations, f"option {top} has no translation"
        assert translations[top]["name"] and translations[top]["description"]


def test_every_translation_names_every_option() -> None:
    """The Supervisor shows an option's name and description in the user's language when
    the add-on has that language's file; each says what English says of every option."""
    english = _leaves(load_yaml(ADDON / "translations/en.yaml"))
    languages = sorted(p.stem for p in (ADDON / "translations").glob("*.yaml"))
    assert {"de", "fr", "es", "nl", "it", "pt"} <= set(languages), languages
    for language in languages:
        translated = _leaves(load_yaml(ADDON / f"translations/{language}.yaml"))
        assert set(translated) == set(english), (language, set(english) ^ set(translated))
        assert all(isinstance(v, str) and v.strip() for v in translated.values()), language


def test_options_are_server_settings() -> None:
    """Every add-on option must mean the same as the server setting of that name."""
    cfg = addon_config()
    opts = json.loads(json.dumps(cfg["options"]))
    # The Supervisor writes options.json with these values; the server must accept them.
    Settings.model_validate({k: v for k, v in opts.items() if v not in ("", None)})
    for dotted in _leaves(cfg["schema"]):
        node: Any = Settings
        for part in dotted.split("."):
            fields = node.model_fields
            assert part in fields, f"option {dotted} is not a server setting"
            node = fields[part].annotation


def test_dockerfile_is_pinned_and_multistage() -> None:
    text = (ADDON / "Dockerfile").read_text()
    build_from = re.search(r"ARG BUILD_FROM=(\S+)", text)
    assert build_from and re.search(r":[\w.-]*\d{4}\.\d", build_from.group(1)), "FROM not pinned"
    assert "debian" in build_from.group(1)
    assert text.count("FROM ") >= 2
    assert "COPY --from=build" in text
    build = load_yaml(ADDON / "build.yaml")["build_from"]
    assert set(build) == {"aarch64", "amd64"}
    assert all("debian" in v and re.search(r"\d{4}\.\d", v) for v in build.values())


def test_s6_scripts() -> None:
    for name in ("run", "finish"):
        path = ADDON / "rootfs/etc/services.d/mnemolis" / name
        assert os.access(path, os.X_OK), f"{name} not executable"
        assert path.read_text().startswith("#!")
    run = (ADDON / "rootfs/etc/services.d/mnemolis/run").read_text()
    assert "exec mnemolis serve" in run
    assert "MNEMOLIS_DATA_DIR=/data" in run


def test_addon_docs_and_images() -> None:
    for name in ("DOCS.md", "CHANGELOG.md", "apparmor.txt", "icon.png", "logo.png"):
        assert (ADDON / name).stat().st_size > 0, name
    for name in ("icon.png", "logo.png"):
        assert (ADDON / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "profile mnemolis" in (ADDON / "apparmor.txt").read_text()


def test_repository_yaml_and_hacs() -> None:
    repo = load_yaml(REPO / "repository.yaml")
    assert repo["name"] and repo["url"]
    hacs = json.loads((REPO / "hacs.json").read_text())
    assert hacs["name"] == "Mnemolis"
    assert hacs["homeassistant"] == "2025.4.0"


def test_the_repository_carries_what_hacs_validation_checks() -> None:
    """HACS refuses a repository without a LICENSE at its root (issue 17 item 18)."""
    license_text = (REPO / "LICENSE").read_text()
    declared = tomllib.loads((ADDON / "pyproject.toml").read_text())["project"]["license"]
    assert declared == "Apache-2.0"
    assert "Apache License" in license_text and "Version 2.0" in license_text
    assert "TERMS AND CONDITIONS" in license_text  # the full text, not a stub
    assert (REPO / "README.md").stat().st_size > 0
    folder = REPO / "custom_components"
    integrations = [p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("__")]
    assert integrations == ["mnemolis"], integrations  # HACS: one integration per repository


def test_manifest_keys() -> None:
    manifest = json.loads((REPO / "custom_components/mnemolis/manifest.json").read_text())
    required = {
        "domain",
        "name",
        "version",
        "codeowners",
        "documentation",
        "issue_tracker",
        "config_flow",
        "iot_class",
        "integration_type",
        "requirements",
    }
    allowed = required | {
        "dependencies",
        "after_dependencies",
        "loggers",
        "quality_scale",
        "single_config_entry",
        "zeroconf",
        "ssdp",
        "dhcp",
        "homekit",
        "usb",
        "bluetooth",
        "mqtt",
    }
    assert required <= set(manifest)
    assert set(manifest) <= allowed, set(manifest) - allowed
    assert manifest["domain"] == "mnemolis"
    assert manifest["iot_class"] == "local_polling"  # the stats coordinator polls
    assert manifest["integration_type"] == "service"
    assert manifest["config_flow"] is True
    assert "mcp" not in " ".join(manifest["requirements"])
    brand = REPO / "custom_components/mnemolis/brand/icon.png"
    assert brand.read_bytes()[:4] == b"\x89PNG"


def test_integration_never_imports_mcp() -> None:
    for path in (REPO / "custom_components/mnemolis").rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"^\s*(import|from)\s+mcp\b", text, re.M), path
