"""A real Home Assistant built from one language's intents test fixture.

``launch_intents_home(config_dir, language)`` starts HA 2025.4 with the
``intents_fixture`` custom integration (beside this file), which builds the
fixture's floors, areas and entities into HA's registries and state machine,
exposes them to Assist and offers ``intents_fixture.ask`` (HA's own Assist, as the
reference). The fixtures and test sentences are Home Assistant's own
(``../shared/ha-intents-tests``, CC BY 4.0); ``INTENTS_TESTS`` or the
``MNEMOLIS_INTENTS_TESTS`` variable points at them.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from ..hass_fixture import HassCore, core_config, hass_bin

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
INTENTS_TESTS = Path(
    os.environ.get("MNEMOLIS_INTENTS_TESTS") or REPO.parent / "shared" / "ha-intents-tests"
)
# Italian and Portuguese, which ../shared does not hold: the same commit's files, vendored.
VENDORED_TESTS = REPO / "bench" / "eval" / "intents"


def tests_of(language: str) -> Path:
    """The folder of a language's intent tests: ``INTENTS_TESTS``'s, else the vendored."""
    own, vendored = INTENTS_TESTS / language, VENDORED_TESTS / language
    return vendored if not own.is_dir() and vendored.is_dir() else own


def _domains(fixture: Path) -> list[str]:
    """The entity domains a fixture uses: their integrations load as in a real home
    (their intents, their translations)."""
    import yaml

    data = yaml.safe_load(fixture.read_text(encoding="utf-8")) or {}
    return sorted({str(e["id"]).split(".", 1)[0] for e in data.get("entities") or []})


def configuration(port: int, config_dir: Path, fixture: Path, language: str) -> dict[str, Any]:
    """configuration.yaml (as JSON) for the fixture home in a language."""
    return {
        **{domain: {} for domain in _domains(fixture)},
        "homeassistant": core_config("Intents fixture home", language),
        "http": {"server_host": "127.0.0.1", "server_port": port},
        "api": {},
        "websocket_api": {},
        "config": {},
        # The UI's translations (frontend/get_translations) are how a state is said.
        "frontend": {},
        "conversation": {},
        "intents_fixture": {"path": str(fixture)},
    }


def launch_intents_home(config_dir: Path, language: str) -> HassCore:
    """Start HA with the fixture home of a language, onboarded, and return it."""
    from ..conftest import free_port

    fixture = tests_of(language) / "_fixtures.yaml"
    if not fixture.exists():
        raise RuntimeError(f"{fixture} missing: set MNEMOLIS_INTENTS_TESTS")
    binary = hass_bin()
    if not binary.exists():
        raise RuntimeError(f"{binary} missing: run `make venv` or set MNEMOLIS_HA_VENV")
    components = config_dir / "custom_components"
    components.mkdir(parents=True, exist_ok=True)
    shutil.copytree(HERE / "intents_fixture", components / "intents_fixture", dirs_exist_ok=True)
    port = free_port()
    (config_dir / "configuration.yaml").write_text(
        json.dumps(configuration(port, config_dir, fixture, language), indent=1), encoding="utf-8"
    )
    core = HassCore(config_dir, port, binary)
    core.start()
    try:
        core.onboard()
    except BaseException:
        core.stop()
        raise
    return core


def ask_assist(core: HassCore, text: str, language: str, area: str | None = None) -> str:
    """HA's own Assist answer to a sentence (heard in ``area`` when given)."""
    data: dict[str, Any] = {"text": text, "language": language}
    if area:
        data["area"] = area
    reply = core._http("POST", "/api/services/intents_fixture/ask?return_response", data)
    return str(((reply or {}).get("service_response") or {}).get("speech") or "")
