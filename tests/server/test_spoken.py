"""The voice form: what a speaker says must read as sentences, without markup or links."""

from __future__ import annotations

import pytest

from mnemolis.spoken import spoken_form


@pytest.mark.parametrize(
    ("text", "spoken"),
    [
        # Hard-wrapped prose is one sentence, not one per line.
        (
            "Claude Desktop talks to Mnemolis over MCP. Once\nconnected, Claude can ask.",
            "Claude Desktop talks to Mnemolis over MCP. Once connected, Claude can ask.",
        ),
        # Headings and list items end sentences.
        ("# Weather\nSunny and\nwarm.", "Weather. Sunny and warm."),
        ("**Tomorrow**\n- Rain is likely\n- High of 12 °C", "Tomorrow. Rain is likely."),
        # A link phrase goes, the figure before it stays.
        (
            "The temperature is 21.5 °C, see https://x.example/t for details. Also windy.",
            "The temperature is 21.5 °C. Also windy.",
        ),
        # An address with a port is where to connect: said, without its scheme.
        (
            "address: `http://HOST:8888/mcp` | for: Claude Code",
            "address: HOST:8888/mcp; for: Claude Code.",
        ),
        (
            "Open http://homeassistant.local:8888/ in a browser.",
            "Open homeassistant.local:8888 in a browser.",
        ),
        # In code marks too ("e.g. `http://192.168.1.10:8888`").
        (
            "field: URL | meaning: Where it listens, e.g. `http://192.168.1.10:8888`.",
            "field: URL; meaning: Where it listens, e.g. 192.168.1.10:8888.",
        ),
        # A placeholder host, as the docs write it, is said without its brackets.
        ("Direct: open `http://<host>:8888/`.", "Direct: open host:8888."),
        # Both citation forms (model "[1]", extractive "[1, web]") are dropped.
        ("Yes. Garage Door is open [1, ha]. Closed at 09:12 [2].", "Yes. Garage Door is open."),
        ("Read `list_rag` in [the docs](https://x.example/docs).", "Read list_rag in the docs."),
        # When a state began is for reading, not for hearing (unless asked when).
        ("Yes, Garage Door is open (since today at 08:07).", "Yes, Garage Door is open."),
        # Each cited line of a composed answer is a sentence of its own.
        (
            "Weather is rainy, -2 °C (since today at 12:05) [1, ha]\nToday: snow [2, forecast]",
            "Weather is rainy, -2 °C. Today: snow.",
        ),
        # A table row read alone: its cells are clauses, not a run-on.
        (
            "Code: F28 | Meaning: Ignition failure | What to do: Check the gas supply.",
            "Code: F28; Meaning: Ignition failure; What to do: Check the gas supply.",
        ),
        # Code is for reading: the words that lead into it are said, the JSON is not.
        (
            'Add Mnemolis to `claude_desktop_config.json`:\n\n```json\n{"mcpServers": [1]}\n```',
            "Add Mnemolis to claude_desktop_config.json.",
        ),
        # A command the words lead into is the answer: said after them, without its
        # continuation lines; a config file still is not.
        (
            "**Claude Code** (over HTTP):\n```sh\nclaude mcp add --transport http mnemolis"
            ' http://HOST:8888/mcp \\\n  --header "Authorization: Bearer KEY"\n```',
            "Claude Code (over HTTP): claude mcp add --transport http mnemolis HOST:8888/mcp.",
        ),
        (
            "Index it now:\n```\nmnemolis rag add manuals ./manuals   # print the result\n```",
            "Index it now: mnemolis rag add manuals ./manuals.",
        ),
        (
            "Add to configuration.yaml:\n```yaml\nmnemolis:\n  host: x\n```",
            "Add to configuration.yaml.",
        ),
        # A literal list is read as its items.
        ("Tag it `[car, parking]`.", "Tag it car, parking."),
        # A command alone is still said (there is nothing else to say).
        ("```\nmnemolis rag reindex manuals\n```", "mnemolis rag reindex manuals."),
        # Its citation is no words that come with it: the command is said, not nothing.
        (
            "```\n--disable-wrapping Disable all hard-wrapping of text\n```\n[1, nano: faq.html]",
            "--disable-wrapping Disable all hard-wrapping of text.",
        ),
        # Names each with its link: the names are said as a list, no dash left over.
        (
            "info-nano - https://lists.gnu.org/mailman/listinfo/info-nano/\n"
            "help-nano - https://lists.gnu.org/mailman/listinfo/help-nano/ [1, nano: faq.html]",
            "info-nano, help-nano.",
        ),
        (
            "info-nano - https://lists.gnu.org/info-nano/ help-nano - https://lists.gnu.org/"
            "help-nano/ nano-devel - https://lists.gnu.org/nano-devel/",
            "info-nano, help-nano, nano-devel.",
        ),
        # A reStructuredText role is markup: the name it marks is said.
        ("Yes, use :meth:`@send_task`. [1, celery: faq.rst]", "Yes, use @send_task."),
        ("", ""),
    ],
)
def test_spoken_form(text: str, spoken: str) -> None:
    assert spoken_form(text) == spoken


def test_long_answer_is_cut_at_a_word() -> None:
    out = spoken_form("word " * 200 + ".", max_sentences=1, max_chars=50)
    assert len(out) <= 50 and out.endswith("…") and "  " not in out
