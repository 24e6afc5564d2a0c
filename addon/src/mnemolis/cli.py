"""The ``mnemolis`` command line."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .errors import ConfigError, MnemolisError
from .settings import Settings, apply_generated_api_key, load_settings

_LOGGER = logging.getLogger("mnemolis")

# Subcommand modules register here: (name, help, add_arguments, run).
Command = tuple[str, str, Callable[[argparse.ArgumentParser], None], Callable[..., int]]
COMMANDS: list[Command] = []


def _mcp_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Serve MCP over stdio; stdout carries only the protocol."


def _mcp(settings: Settings, args: argparse.Namespace) -> int:
    from .mcp.stdio import run_mcp_command

    return run_mcp_command(settings, args)


COMMANDS.append(("mcp", "MCP over stdio (Claude Code / Claude Desktop)", _mcp_arguments, _mcp))


def _rag_arguments(parser: argparse.ArgumentParser) -> None:
    from .knowledge.cli import add_arguments

    add_arguments(parser)


def _rag(settings: Settings, args: argparse.Namespace) -> int:
    from .knowledge.cli import run

    return run(settings, args)


COMMANDS.append(
    ("rag", "document databases: add, list, search, reindex, remove", _rag_arguments, _rag)
)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="settings file (YAML or TOML)")
    parser.add_argument("--data-dir", metavar="DIR", help="where data lives (default ./data)")
    parser.add_argument("--log-level", metavar="LEVEL", help="debug, info, warning, error")


def build_parser() -> argparse.ArgumentParser:
    """Every subcommand and flag."""
    parser = argparse.ArgumentParser(
        prog="mnemolis", description="Local-first knowledge router for Home Assistant homes."
    )
    parser.add_argument("--version", action="version", version=f"mnemolis {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = sub.add_parser("serve", help="REST + MCP + web UI on one port")
    _common(serve)
    serve.add_argument("--host", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", help="port (default 8888)")

    ask = sub.add_parser("ask", help="ask one routed question and print the answer")
    _common(ask)
    ask.add_argument("question")
    ask.add_argument("--source", default="auto", help="auto, fusion or one source name")
    ask.add_argument("--fusion-sources", help="comma-separated sources for --source fusion")
    ask.add_argument("--json", action="store_true", help="print the full JSON response")

    for name, help_text, add_arguments, _run in COMMANDS:
        p = sub.add_parser(name, help=help_text)
        _common(p)
        add_arguments(p)
    return parser


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Layer CLI flags over file, options and environment."""
    overrides: dict[str, Any] = {
        "host": getattr(args, "host", None),
        "port": getattr(args, "port", None),
        "data_dir": args.data_dir,
        "log_level": args.log_level,
    }
    return load_settings(config_file=args.config, overrides=overrides)


def _event_loop() -> asyncio.AbstractEventLoop:
    """uvloop where it is installed (a third less CPU per request), else asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    return loop


def _show_generated_key(settings: Settings, key_file: Path) -> None:
    """Print the add-on's own API key once at start: the log is where users look for it."""
    key = settings.api_key.get_secret_value() if settings.api_key else ""
    rule = "-" * 72
    # Straight to stderr: the logging filter would (rightly) redact it.
    print(
        f"{rule}\n"
        f"Mnemolis API key (made on first start, kept in {key_file}):\n\n"
        f"    {key}\n\n"
        "Every request to port 8888 must carry it: Authorization: Bearer <key>.\n"
        "Home Assistant's Mnemolis integration receives it through discovery.\n"
        "Set the add-on's api_key option to use a key of your own instead.\n"
        f"{rule}",
        file=sys.stderr,
        flush=True,
    )


def _serve(settings: Settings) -> int:
    from aiohttp import web

    from . import heap
    from .app import create_app

    heap.limit_arenas()
    app = create_app(settings)

    def bound(_banner: str) -> None:
        # aiohttp calls this once every socket is bound: only then is it true.
        _LOGGER.info(
            "Mnemolis %s listening on http://%s:%s", __version__, settings.host, settings.port
        )

    try:
        web.run_app(
            app,
            host=settings.host,
            port=settings.port,
            print=bound,
            shutdown_timeout=10,
            access_log=None,
            loop=_event_loop(),
        )
    except OSError as err:
        print(
            f"mnemolis: cannot listen on {settings.host}:{settings.port}: {err.strerror}",
            file=sys.stderr,
        )
        return 1
    return 0


async def _ask(settings: Settings, args: argparse.Namespace) -> int:
    from .core import Mnemolis
    from .requestmodels import SearchRequest, limits_context, parse_request

    body: dict[str, Any] = {"query": args.question, "source": args.source}
    if args.fusion_sources:
        body["fusion_sources"] = [s for s in args.fusion_sources.split(",") if s]
    req = parse_request(SearchRequest, body, limits_context(settings))
    core = Mnemolis(settings)
    core.watch_files = False
    await core.start()
    try:
        result = await core.search(req)
    finally:
        await core.stop()
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return 0
    print(result.result)
    print()
    print(f"source: {result.source_used}" + (" (fallback)" if result.fallback else ""))
    for run in result.sources:
        extra = f" — {run.error}" if run.error else ""
        print(f"  {run.name}: {run.status} in {run.ms:.0f} ms ({run.reason}){extra}")
    for c in result.citations:
        print(f"  [{c.source}] {c.title}" + (f" <{c.url}>" if c.url else ""))
    return 0 if result.source_used != "none" else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    from .log import setup_logging

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        settings = settings_from_args(args)
        key_file = apply_generated_api_key(settings)
    except ConfigError as err:
        print(f"mnemolis: {err.message}", file=sys.stderr)
        return 2
    setup_logging(settings.log_level, settings.log_format, settings.secrets())
    for notice in settings.notices:
        _LOGGER.warning("%s", notice)
    try:
        if args.command == "serve":
            if key_file is not None:
                _show_generated_key(settings, key_file)
            return _serve(settings)
        if args.command == "ask":
            return asyncio.run(_ask(settings, args))
        for name, _help, _add, run in COMMANDS:
            if name == args.command:
                return int(run(settings, args))
    except ConfigError as err:
        print(f"mnemolis: {err.message}", file=sys.stderr)
        return 2
    except MnemolisError as err:
        print(f"mnemolis: {err.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    print(f"mnemolis: unknown command {args.command}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
