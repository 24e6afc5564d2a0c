"""``mnemolis rag …``: manage document databases from the shell (no server needed)."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from ..settings import Settings
from .store import KnowledgeStore


def _shared(parser: argparse.ArgumentParser) -> None:
    # Accept the global flags after the action too (mnemolis rag add X Y --data-dir D).
    parser.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS)
    parser.add_argument("--data-dir", metavar="DIR", default=argparse.SUPPRESS)
    parser.add_argument("--log-level", metavar="LEVEL", default=argparse.SUPPRESS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The rag actions and their arguments."""
    parser.description = "Register, index, search and remove document databases."
    sub = parser.add_subparsers(dest="rag_action", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="register a folder and index it")
    add.add_argument("name", help="1-64 characters of a-z, 0-9, _ and -")
    add.add_argument("path", help="folder inside an allowed root")
    lst = sub.add_parser("list", help="registered databases and their status")
    lst.add_argument("--json", action="store_true", help="print JSON")
    search = sub.add_parser("search", help="search one database (prints the search_rag JSON)")
    search.add_argument("name")
    search.add_argument("query")
    search.add_argument("--limit", default=None, help="1-100 (default 10)")
    search.add_argument("--mode", default=None, help="keyword, semantic or hybrid (default)")
    reindex = sub.add_parser("reindex", help="re-read every file of a database")
    reindex.add_argument("name")
    remove = sub.add_parser("remove", help="forget a database and delete its index")
    remove.add_argument("name")
    for p in (add, lst, search, reindex, remove):
        _shared(p)


def _summary(status: dict[str, Any]) -> str:
    line = (
        f"{status['db']}: {status.get('files_indexed', 0)} file(s), "
        f"{status.get('chunks', 0)} chunk(s), {status.get('files_failed', 0)} failed — "
        f"{status['path']}"
    )
    for failure in status.get("failures", []):
        line += f"\n  failed: {failure['path']}: {failure['error']}"
    for cut in status.get("cut", []):
        line += f"\n  cut: {cut['path']}: {cut['reason']}"
    return line


async def _run(settings: Settings, args: argparse.Namespace) -> int:
    action = args.rag_action
    # list/search first catch up with the folders (incremental), like a server would.
    store = await KnowledgeStore.open(settings, watch=False, index=action in ("list", "search"))
    try:
        await store.wait_idle()
        if action == "add":
            path = str(Path(args.path).expanduser().absolute())
            status = await store.register(args.name, path, wait=True)
            print("registered " + _summary(status))
        elif action == "list":
            statuses = await store.all_status()
            if args.json:
                print(json.dumps({**store.list_kura(), "databases": statuses}, indent=2))
            elif not statuses:
                print("no databases registered")
            else:
                for status in statuses:
                    flag = "" if status["loaded"] else f" [not loaded: {status.get('error')}]"
                    print(_summary(status) + flag)
        elif action == "search":
            result = await store.search_rag(args.name, args.query, args.limit, args.mode)
            print(json.dumps(result, ensure_ascii=False, indent=2))
            return 0 if result else 1
        elif action == "reindex":
            status = await store.reindex(args.name, wait=True)
            print("reindexed " + _summary(status))
        elif action == "remove":
            await store.remove(args.name)
            print(f"removed {args.name} (the folder itself was not touched)")
    finally:
        await store.close()
    return 0


def run(settings: Settings, args: argparse.Namespace) -> int:
    """Entry point for ``mnemolis rag``; errors become one line and exit code 1."""
    return asyncio.run(_run(settings, args))
