"""Constants shared by every module of the Mnemolis integration."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Final

DOMAIN: Final = "mnemolis"
LOGGER = logging.getLogger(__package__)

DEFAULT_NAME: Final = "Mnemolis"
DEFAULT_PORT: Final = 8888
SCAN_INTERVAL: Final = timedelta(seconds=30)

# Source names are the server's API (SPEC §5); modes come first.
SOURCE_NAMES: Final = (
    "ha",
    "forecast",
    "news",
    "web",
    "kiwix",
    "uptime",
    "changes",
    "rag",
    "memory",
)
SEARCH_MODES: Final = ("auto", "fusion")

# Options (behaviour, changeable at any time without a reload).
CONF_DEFAULT_SOURCE: Final = "default_source"
CONF_FUSION_SOURCES: Final = "fusion_sources"
CONF_USE_LOCAL_MODEL: Final = "use_local_model"
CONF_RESPONSE_LENGTH: Final = "response_length"
CONF_HAND_COMMANDS: Final = "hand_commands"

RESPONSE_LENGTHS: Final = ("short", "medium", "full")
DEFAULT_SOURCE: Final = "auto"
DEFAULT_RESPONSE_LENGTH: Final = "medium"
DEFAULT_HAND_COMMANDS: Final = True

# Service (action) names and fields.
SERVICE_SEARCH: Final = "search"
SERVICE_REMEMBER: Final = "remember"
SERVICE_REINDEX: Final = "reindex"
ATTR_CONFIG_ENTRY_ID: Final = "config_entry_id"
ATTR_QUERY: Final = "query"
ATTR_SOURCE: Final = "source"
ATTR_LANGUAGE: Final = "language"
ATTR_AREA: Final = "area"
ATTR_FUSION_SOURCES: Final = "fusion_sources"
ATTR_CONTENT: Final = "content"
ATTR_TAGS: Final = "tags"
ATTR_DATABASE: Final = "database"
