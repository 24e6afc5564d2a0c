"""MCP: one server definition (server.py) served over Streamable HTTP, SSE and stdio."""
