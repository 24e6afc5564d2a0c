"""Strings, translations, icons and services.yaml agree with the code (what hassfest checks)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from custom_components.mnemolis.const import RESPONSE_LENGTHS, SEARCH_MODES, SOURCE_NAMES
from custom_components.mnemolis.sensor import LAST_SOURCE_OPTIONS, SENSORS

PACKAGE = Path(__file__).resolve().parents[2] / "custom_components" / "mnemolis"


def _json(name: str) -> dict[str, Any]:
    data = json.loads((PACKAGE / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_english_translation_is_strings_json() -> None:
    """Custom integrations ship resolved strings; both files must say the same."""
    assert _json("strings.json") == _json("translations/en.json")
    assert "[%key:" not in (PACKAGE / "strings.json").read_text(encoding="utf-8")


def test_every_translation_key_in_code_exists() -> None:
    """Exception, issue, flow error and abort keys used in the code are all translated."""
    strings = _json("strings.json")
    code = "\n".join(p.read_text(encoding="utf-8") for p in PACKAGE.glob("*.py"))
    used = set(re.findall(r'translation_key="(\w+)"', code))
    entity_keys = {"reindex"} | {d.key for d in SENSORS}
    selector_keys = {"source", "response_length"}
    assert selector_keys <= set(strings["selector"])
    assert used - entity_keys - selector_keys <= set(strings["exceptions"]) | set(strings["issues"])
    flow_errors = set(re.findall(r'(?:CONF_\w+|"base"): "(\w+)"', code))
    assert flow_errors <= set(strings["config"]["error"])
    assert "fusion_sources_need_fusion" in strings["options"]["error"]
    aborts = set(re.findall(r'reason="(\w+)"', code)) | {
        "already_configured",
        "reauth_successful",
        "reconfigure_successful",
    }
    # A discovery that fails aborts with the validation error as its reason.
    assert aborts | flow_errors <= set(strings["config"]["abort"])


def test_entities_have_names_and_icons() -> None:
    """Every entity translation key has a name and an icon; enum states are translated."""
    strings, icons = _json("strings.json")["entity"], _json("icons.json")["entity"]
    for description in SENSORS:
        assert strings["sensor"][description.key]["name"]
        assert icons["sensor"][description.key]["default"].startswith("mdi:")
    assert set(strings["sensor"]["last_source"]["state"]) == set(LAST_SOURCE_OPTIONS)
    for source in SOURCE_NAMES:
        assert strings["binary_sensor"][f"source_{source}"]["name"]
        assert icons["binary_sensor"][f"source_{source}"]["default"].startswith("mdi:")
    assert "{source}" in strings["binary_sensor"]["source"]["name"]
    assert strings["button"]["reindex"]["name"] and icons["button"]["reindex"]["default"]


def test_services_yaml_matches_strings_and_icons() -> None:
    """Each action and field in services.yaml is named, described and has an icon."""
    services = yaml.safe_load((PACKAGE / "services.yaml").read_text(encoding="utf-8"))
    strings = _json("strings.json")
    icons = _json("icons.json")["services"]
    assert (
        set(services)
        == set(strings["services"])
        == set(icons)
        == {
            "search",
            "remember",
            "reindex",
        }
    )
    for name, spec in services.items():
        fields = strings["services"][name]["fields"]
        assert set(spec["fields"]) == set(fields), name
        assert all(f["name"] and f["description"] for f in fields.values())
        assert spec["fields"]["config_entry_id"]["selector"] == {
            "config_entry": {"integration": "mnemolis"}
        }
    source_options = services["search"]["fields"]["source"]["selector"]["select"]["options"]
    assert source_options == [*SEARCH_MODES, *SOURCE_NAMES]
    assert set(strings["selector"]["source"]["options"]) == set(source_options)
    assert set(strings["selector"]["response_length"]["options"]) == set(RESPONSE_LENGTHS)


def _placeholders(tree: Any, path: str = "") -> dict[str, set[str]]:
    """Every string of a translation tree by its key path, with its ``{placeholders}``."""
    if isinstance(tree, dict):
        out: dict[str, set[str]] = {}
        for key, value in tree.items():
            out |= _placeholders(value, f"{path}.{key}" if path else key)
        return out
    return {path: set(re.findall(r"\{(\w+)\}", str(tree)))}


def test_every_translation_says_what_english_says() -> None:
    """A German, French, Spanish, Dutch, Italian or Portuguese Home Assistant shows the
    config flow, entities, actions and spoken replies in its language; each file has
    English's keys (a missing one would silently fall back to English) and the same
    placeholders (one lost or misspelt would show "{length}" or fail to format)."""
    english = _placeholders(_json("strings.json"))
    languages = sorted(p.stem for p in (PACKAGE / "translations").glob("*.json"))
    assert {"de", "fr", "es", "nl", "it", "pt"} <= set(languages), languages
    for language in languages:
        translated = _placeholders(_json(f"translations/{language}.json"))
        assert set(translated) == set(english), (language, set(english) ^ set(translated))
        wrong = {k for k, v in translated.items() if v != english[k]}
        assert not wrong, (language, wrong)


def test_the_spoken_replies_are_translated_keys() -> None:
    """The conversation agent's own replies are the English of their translation keys."""
    from custom_components.mnemolis import conversation

    exceptions = _json("strings.json")["exceptions"]
    assert exceptions[conversation.APOLOGY_KEY]["message"] == conversation.APOLOGY
    assert exceptions[conversation.TOO_LONG_KEY]["message"] == conversation.TOO_LONG
