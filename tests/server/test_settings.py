"""Settings: layering order, env names, and one clear line for bad values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemolis.errors import ConfigError
from mnemolis.settings import load_settings


def test_defaults() -> None:
    s = load_settings(environ={})
    assert (s.host, s.port, s.log_level) == ("127.0.0.1", 8888, "info")
    assert s.api_key is None
    assert s.routing.fallback["kiwix"] == ["web"]


def test_layers_later_wins(tmp_path: Path) -> None:
    cfg = tmp_path / "mnemolis.yaml"
    cfg.write_text("port: 9000\nlog_level: debug\nha:\n  url: http://file\nnews:\n  feeds: [a]\n")
    options = tmp_path / "options.json"
    options.write_text(json.dumps({"port": 9100, "ha": {"url": "http://options", "token": ""}}))
    env = {
        "MNEMOLIS_OPTIONS_FILE": str(options),
        "MNEMOLIS_PORT": "9200",
        "MNEMOLIS_NEWS__FEEDS": '["http://x/feed", "http://y/feed"]',
    }
    s = load_settings(config_file=cfg, environ=env, overrides={"port": 9300})
    assert s.port == 9300  # flag beats env beats options beats file
    assert s.log_level == "debug"  # only the file set it
    assert s.ha.url == "http://options"
    assert s.ha.token is None  # empty option means unset
    assert s.news.feeds == ["http://x/feed", "http://y/feed"]


def test_retired_allow_writes_still_loads(tmp_path: Path) -> None:
    """An old config or options.json that sets ha.allow_writes loads, with one notice."""
    cfg = tmp_path / "mnemolis.yaml"
    cfg.write_text("ha:\n  url: http://file\n  allow_writes: true\n")
    options = tmp_path / "options.json"
    options.write_text(json.dumps({"ha": {"allow_writes": False, "exposure": "assist"}}))
    s = load_settings(config_file=cfg, environ={"MNEMOLIS_OPTIONS_FILE": str(options)})
    assert (s.ha.url, s.ha.exposure) == ("http://file", "assist")
    assert "allow_writes" not in s.ha.model_dump()
    assert len(s.notices) == 1 and "ha.allow_writes" in s.notices[0]
    assert load_settings(environ={}).notices == []
    # A near miss is still an error, not a notice.
    with pytest.raises(ConfigError, match="unknown setting ha.allow_write "):
        load_settings(environ={"MNEMOLIS_HA__ALLOW_WRITE": "true"})


def test_toml_config(tmp_path: Path) -> None:
    cfg = tmp_path / "m.toml"
    cfg.write_text('port = 7000\n[kiwix]\nurl = "http://k"\nbooks = ["wiki"]\n')
    s = load_settings(config_file=cfg, environ={})
    assert (s.port, s.kiwix.url, s.kiwix.books) == (7000, "http://k", ["wiki"])


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"MNEMOLIS_PORT": "abc"}, "port='abc' (from MNEMOLIS_PORT)"),
        ({"MNEMOLIS_PORT": "70000"}, "port='70000'"),
        ({"MNEMOLIS_LOG_LEVEL": "loud"}, "log_level='loud'"),
        ({"MNEMOLIS_BOGUS": "1"}, "unknown setting bogus"),
        ({"MNEMOLIS_ROUTING__SOURCE_TIMEOUT": "-1"}, "routing.source_timeout"),
    ],
)
def test_bad_values_name_the_key(env: dict[str, str], needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(environ=env)
    message = info.value.message
    assert needle in message
    assert "\n" not in message


def test_log_level_message_lists_allowed() -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(environ={"MNEMOLIS_LOG_LEVEL": "loud"})
    assert "debug" in info.value.message and "critical" in info.value.message


def test_secret_value_not_echoed() -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(environ={"MNEMOLIS_API_KEY": '{"not": "a string"}'})
    assert "not" not in info.value.message.split("=", 1)[1].split(":")[0]


def test_unreadable_and_malformed_options(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="options file .*cannot read"):
        load_settings(environ={"MNEMOLIS_OPTIONS_FILE": str(tmp_path / "missing.json")})
    bad = tmp_path / "options.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_settings(environ={"MNEMOLIS_OPTIONS_FILE": str(bad)})


def test_bad_config_file(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("- just\n- a list\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_settings(config_file=cfg, environ={})


def test_secrets_listed_for_redaction() -> None:
    s = load_settings(environ={"MNEMOLIS_API_KEY": "k-123456", "MNEMOLIS_HA__TOKEN": "tok-abcdef"})
    assert set(s.secrets()) == {"k-123456", "tok-abcdef"}
    assert "k-123456" not in repr(s)


@pytest.mark.parametrize("name", ["options.json", "config.yaml"])
def test_binary_settings_file_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """A file of random bytes (a corrupt /data/options.json) is one clear line, exit 2."""
    from mnemolis.cli import main

    binary = tmp_path / name
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x01" * 8)
    if name == "options.json":
        monkeypatch.setenv("MNEMOLIS_OPTIONS_FILE", str(binary))
        argv = ["ask", "--data-dir", str(tmp_path / "d"), "anything"]
    else:
        monkeypatch.delenv("MNEMOLIS_OPTIONS_FILE", raising=False)
        argv = ["ask", "--config", str(binary), "--data-dir", str(tmp_path / "d"), "anything"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert str(binary) in err and "UTF-8" in err, err
    assert "Traceback" not in err


def test_every_llm_option_of_the_addon_reaches_the_server(tmp_path: Path) -> None:
    """The add-on's llm schema (config.yaml) names only settings the server knows."""
    import yaml

    addon = yaml.safe_load((Path(__file__).parents[2] / "addon" / "config.yaml").read_text())
    assert "compose_documents" in addon["schema"]["llm"]
    options = tmp_path / "options.json"
    options.write_text(json.dumps({"llm": {"compose_documents": True, "threads": 2}}))
    s = load_settings(environ={"MNEMOLIS_OPTIONS_FILE": str(options)})
    assert s.llm.compose_documents is True and s.llm.threads == 2
    known = set(s.llm.model_dump())
    assert set(addon["schema"]["llm"]) <= known
