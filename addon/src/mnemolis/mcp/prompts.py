"""MCP prompts: what a person picks from a client's menu (Claude Desktop's "+"), with
arguments; each becomes a message asking the model to use Mnemolis' tools.

One definition per prompt, read by ``prompts/list``, ``prompts/get``,
``completion/complete`` and docs/mcp.md alike. A prompt is offered while the tool
it asks for is enabled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import InvalidArgument
from ..tools import find_tool

if TYPE_CHECKING:
    from ..core import Mnemolis

#: What an argument can be completed with, from the running server.
Candidates = Callable[["Mnemolis"], list[str]]


def database_names(core: Mnemolis) -> list[str]:
    """The document databases loaded now (``search_rag``'s ``db``)."""
    store = core.services.knowledge
    return store.names() if store is not None else []


def memory_tags(core: Mnemolis) -> list[str]:
    """The tags the memories carry now."""
    store = core.services.knowledge
    return store.memory_tags() if store is not None else []


SINCE = ["this morning", "last night", "yesterday", "an hour ago", "the weekend", "Monday"]


@dataclass(frozen=True, slots=True)
class PromptArgument:
    """One argument of a prompt: its name, what to put there, and completions."""

    name: str
    description: str
    required: bool = False
    completions: Candidates | None = None
    default: str = ""


@dataclass(frozen=True, slots=True)
class Prompt:
    """A prompt: its menu entry, the tool it needs and the message it becomes."""

    name: str
    title: str
    description: str
    tool: str
    template: Callable[[dict[str, str]], str]
    arguments: tuple[PromptArgument, ...] = field(default_factory=tuple)

    def argument(self, name: str) -> PromptArgument | None:
        """An argument by name, or None."""
        return next((a for a in self.arguments if a.name == name), None)

    def render(self, given: dict[str, str] | None, max_chars: int) -> str:
        """The user message, or InvalidArgument naming what is missing or too long."""
        values: dict[str, str] = {}
        known = {a.name for a in self.arguments}
        for name in given or {}:
            if name not in known:
                allowed = ", ".join(sorted(known)) or "none"
                raise InvalidArgument(
                    f"prompt {self.name} has no argument {name!r} (arguments: {allowed})"
                )
        for arg in self.arguments:
            value = ((given or {}).get(arg.name) or "").strip()
            if not value and arg.required:
                raise InvalidArgument(f"prompt {self.name} needs the argument {arg.name!r}")
            if len(value) > max_chars:
                raise InvalidArgument(
                    f"argument {arg.name!r} is {len(value)} characters; the limit is {max_chars}"
                )
            values[arg.name] = value or arg.default
        return self.template(values)


_WHOLE = (
    "Send it to Mnemolis' `search` tool as one question, unsplit (Mnemolis splits and "
    "routes it itself), and answer from the result, naming the sources it cites."
)


def _ask_home(v: dict[str, str]) -> str:
    return f"About my home: {v['question']}\n\n{_WHOLE}"


def _briefing(v: dict[str, str]) -> str:
    news = f"the top headlines about {v['topics']}" if v["topics"] else "the top headlines"
    question = (
        "What's the weather today, is anything at home open or left on, are all my "
        f"services up, what changed overnight, and what are {news}?"
    )
    return (
        f"Give me my morning briefing. Ask Mnemolis: “{question}” {_WHOLE} "
        "Keep it to a few short lines, the things that need me first."
    )


def _changed(v: dict[str, str]) -> str:
    return f"What changed at home since {v['since']}? {_WHOLE}"


def _documents(v: dict[str, str]) -> str:
    where = (
        f"the document database `{v['database']}`"
        if v["database"]
        else "each of my document databases (`list_rag` names them)"
    )
    return (
        f"Search {where} with Mnemolis' `search_rag` tool for: {v['query']}\n\n"
        "Quote what the passages say, with the file each comes from; say so if nothing "
        "found answers it."
    )


def _remembered(v: dict[str, str]) -> str:
    tags = f" (tags: {v['tag']})" if v["tag"] else ""
    return (
        f"What have I asked you to remember about {v['about']}? Use Mnemolis' `recall` tool"
        f"{tags} and tell me what the memories say, newest first."
    )


PROMPTS: dict[str, Prompt] = {
    p.name: p
    for p in (
        Prompt(
            "ask_home",
            "Ask about the home",
            "A question about the home (devices, rooms, who is in, the weather, anything "
            "Mnemolis knows), answered with its sources.",
            "search",
            _ask_home,
            (PromptArgument("question", "What you want to know", required=True),),
        ),
        Prompt(
            "morning_briefing",
            "Morning briefing",
            "The weather today, what needs attention at home, services that are down, "
            "what changed overnight and the headlines.",
            "search",
            _briefing,
            (PromptArgument("topics", "News topics to follow (optional)"),),
        ),
        Prompt(
            "what_changed",
            "What changed since …",
            "What changed at home and in the monitored services since a time you name.",
            "search",
            _changed,
            (
                PromptArgument(
                    "since",
                    "Since when (default: yesterday)",
                    completions=lambda _core: list(SINCE),
                    default="yesterday",
                ),
            ),
        ),
        Prompt(
            "search_documents",
            "Search my documents",
            "Search your document databases (manuals, notes, PDFs) for something.",
            "search_rag",
            _documents,
            (
                PromptArgument("query", "What to look for", required=True),
                PromptArgument(
                    "database", "One database (optional; all when empty)", False, database_names
                ),
            ),
        ),
        Prompt(
            "what_i_remembered",
            "What did I ask you to remember?",
            "What your memories say about something, optionally only those with a tag.",
            "recall",
            _remembered,
            (
                PromptArgument("about", "What the memories are about", required=True),
                PromptArgument("tag", "Only memories with this tag (optional)", False, memory_tags),
            ),
        ),
    )
}


def offered(core: Mnemolis) -> list[Prompt]:
    """The prompts whose tool is enabled, in menu order."""
    return [p for p in PROMPTS.values() if find_tool(core, p.tool) is not None]


def find_prompt(core: Mnemolis, name: str) -> Prompt | None:
    """An offered prompt by name (a prompt whose tool is off does not exist)."""
    return next((p for p in offered(core) if p.name == name), None)


def matching(candidates: list[str], typed: str, limit: int = 100) -> tuple[list[str], int]:
    """Candidates starting with what was typed (then containing it), case-insensitively;
    at most ``limit`` of them, and how many matched in all."""
    low = typed.strip().lower()
    starts = [c for c in candidates if c.lower().startswith(low)]
    inside = [c for c in candidates if low and low in c.lower() and c not in starts]
    found = list(dict.fromkeys(starts + inside))
    return found[:limit], len(found)
