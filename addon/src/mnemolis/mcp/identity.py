"""Who the MCP server says it is: name, protocol versions and instructions.

Its own module so that the server definition and the page documenting it
(``docgen``) both read it without importing each other.
"""

from __future__ import annotations

SERVER_NAME = "mnemolis"
# The MCP SDK's SUPPORTED_PROTOCOL_VERSIONS, written out so that reading them does not
# import the SDK at start (mcp/gateway.py); a test keeps the two equal.
PROTOCOL_VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
INSTRUCTIONS = (
    "Mnemolis answers questions about this home and the world from local sources "
    "(Home Assistant states, the forecast, news, web search, offline Wikipedia, uptime "
    "monitors, document databases and memories). Send the user's whole question to the "
    "`search` tool unsplit - Mnemolis routes, decomposes and fuses it itself, and its "
    "result names the sources used and cites them. `list_rag` names the document "
    "databases (for `search_rag`); `docs` returns Mnemolis's own documentation."
)
