"""Config flow: manual set-up, Supervisor discovery, reauth, reconfigure and options."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import voluptuous as vol
from homeassistant.config_entries import (
    ConfigFlow,
    ConfigFlowResult,
    OptionsFlow,
)
from homeassistant.const import CONF_API_KEY, CONF_URL
from homeassistant.core import callback
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.selector import (
    BooleanSelector,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)
from homeassistant.helpers.service_info.hassio import HassioServiceInfo
from yarl import URL

from .api import (
    MnemolisAuthenticationError,
    MnemolisClient,
    MnemolisConnectionError,
    MnemolisHostRefusedError,
    MnemolisResponseError,
    MnemolisStats,
    normalize_url,
)
from .const import (
    CONF_DEFAULT_SOURCE,
    CONF_FUSION_SOURCES,
    CONF_HAND_COMMANDS,
    CONF_RESPONSE_LENGTH,
    CONF_USE_LOCAL_MODEL,
    DEFAULT_HAND_COMMANDS,
    DEFAULT_NAME,
    DEFAULT_PORT,
    DEFAULT_RESPONSE_LENGTH,
    DEFAULT_SOURCE,
    DOMAIN,
    LOGGER,
    RESPONSE_LENGTHS,
    SEARCH_MODES,
    SOURCE_NAMES,
)
from .coordinator import MnemolisConfigEntry

URL_SELECTOR = TextSelector(TextSelectorConfig(type=TextSelectorType.URL, autocomplete="off"))
KEY_SELECTOR = TextSelector(TextSelectorConfig(type=TextSelectorType.PASSWORD))


def _connection_schema(url: str | None) -> vol.Schema:
    return vol.Schema(
        {
            vol.Required(CONF_URL, default=url or vol.UNDEFINED): URL_SELECTOR,
            vol.Optional(CONF_API_KEY): KEY_SELECTOR,
        }
    )


class MnemolisConfigFlow(ConfigFlow, domain=DOMAIN):
    """Set up a Mnemolis server; the server's instance id is the unique id."""

    VERSION = 1
    MINOR_VERSION = 1

    _discovered: dict[str, Any]

    async def _async_validate(
        self, url: str, api_key: str | None
    ) -> tuple[MnemolisStats | None, dict[str, str]]:
        """Ask the server for its stats; map failures to form errors."""
        client = MnemolisClient(async_get_clientsession(self.hass), url, api_key)
        try:
            return await client.stats(), {}
        except MnemolisHostRefusedError as err:
            LOGGER.debug("%s refused the request: %s", url, err)
            return None, {CONF_URL: "forbidden"}
        except MnemolisAuthenticationError as err:
            if err.status == 403:
                # Reading stats needs no write access: the server refused the host name.
                LOGGER.debug("%s refused the request: %s", url, err)
                return None, {CONF_URL: "forbidden"}
            return None, {CONF_API_KEY: "invalid_auth"}
        except MnemolisConnectionError:
            return None, {CONF_URL: "cannot_connect"}
        except MnemolisResponseError as err:
            LOGGER.debug("%s does not speak the Mnemolis API: %s", url, err)
            return None, {CONF_URL: "not_mnemolis"}
        except Exception:  # a config flow must never crash
            LOGGER.exception("Unexpected error validating the Mnemolis server")
            return None, {"base": "unknown"}

    def _title(self, url: str) -> str:
        """ "Mnemolis" for the first server; with the server's address once there are more.

        The title names the device, the conversation agent and the LLM API, so
        two servers must not share one.
        """
        if not self._async_current_entries(include_ignore=False):
            return DEFAULT_NAME
        parsed = URL(url)
        return f"{DEFAULT_NAME} ({parsed.host}:{parsed.port})"

    @staticmethod
    def _entry_data(url: str, api_key: str | None) -> dict[str, Any]:
        data: dict[str, Any] = {CONF_URL: normalize_url(url)}
        if api_key:
            data[CONF_API_KEY] = api_key
        return data

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """URL and optional API key, checked against the server before saving."""
        errors: dict[str, str] = {}
        if user_input is not None:
            url = normalize_url(user_input[CONF_URL])
            api_key = user_input.get(CONF_API_KEY)
            stats, errors = await self._async_validate(url, api_key)
            if stats is not None:
                await self.async_set_unique_id(stats.instance_id, raise_on_progress=False)
                self._abort_if_unique_id_configured()
                return self.async_create_entry(
                    title=self._title(url), data=self._entry_data(url, api_key)
                )
        return self.async_show_form(
            step_id="user",
            data_schema=self.add_suggested_values_to_schema(
                _connection_schema(None), user_input or {}
            ),
            errors=errors,
        )

    async def async_step_hassio(self, discovery_info: HassioServiceInfo) -> ConfigFlowResult:
        """The add-on announced itself through Supervisor discovery."""
        config = discovery_info.config
        url = normalize_url(f"{config['host']}:{config.get('port', DEFAULT_PORT)}")
        api_key = config.get(CONF_API_KEY) or None
        stats, errors = await self._async_validate(url, api_key)
        if stats is None:
            return self.async_abort(reason=next(iter(errors.values())))
        await self.async_set_unique_id(stats.instance_id)
        # The add-on may come back on another host name or with a new key.
        self._abort_if_unique_id_configured(updates=self._entry_data(url, api_key))
        self._discovered = {"name": discovery_info.name, **self._entry_data(url, api_key)}
        self.context["title_placeholders"] = {"name": discovery_info.name}
        return await self.async_step_hassio_confirm()

    async def async_step_hassio_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Ask the user before adding the discovered add-on."""
        if user_input is not None:
            data = {k: v for k, v in self._discovered.items() if k != "name"}
            return self.async_create_entry(title=self._title(data[CONF_URL]), data=data)
        return self.async_show_form(
            step_id="hassio_confirm",
            description_placeholders={"addon": self._discovered["name"]},
        )

    async def async_step_reauth(self, entry_data: Mapping[str, Any]) -> ConfigFlowResult:
        """The server refused the key: ask for a new one."""
        return await self.async_step_reauth_confirm()

    async def async_step_reauth_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """New API key for the same server."""
        entry = self._get_reauth_entry()
        errors: dict[str, str] = {}
        if user_input is not None:
            api_key = user_input.get(CONF_API_KEY)
            stats, errors = await self._async_validate(entry.data[CONF_URL], api_key)
            if stats is not None:
                await self.async_set_unique_id(stats.instance_id)
                self._abort_if_unique_id_mismatch(reason="wrong_server")
                return self.async_update_reload_and_abort(
                    entry, data=self._entry_data(entry.data[CONF_URL], api_key)
                )
        return self.async_show_form(
            step_id="reauth_confirm",
            data_schema=vol.Schema({vol.Optional(CONF_API_KEY): KEY_SELECTOR}),
            description_placeholders={"title": entry.title},
            errors=errors,
        )

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Move to a new URL or key; it must still be the same server."""
        entry = self._get_reconfigure_entry()
        errors: dict[str, str] = {}
        if user_input is not None:
            url = normalize_url(user_input[CONF_URL])
            api_key = user_input.get(CONF_API_KEY)
            stats, errors = await self._async_validate(url, api_key)
            if stats is not None:
                await self.async_set_unique_id(stats.instance_id)
                self._abort_if_unique_id_mismatch(reason="wrong_server")
                return self.async_update_reload_and_abort(
                    entry, data=self._entry_data(url, api_key)
                )
        return self.async_show_form(
            step_id="reconfigure",
            data_schema=_connection_schema((user_input or entry.data)[CONF_URL]),
            errors=errors,
        )

    @staticmethod
    @callback
    def async_get_options_flow(config_entry: MnemolisConfigEntry) -> MnemolisOptionsFlow:
        """How the agent and actions behave."""
        return MnemolisOptionsFlow()


class MnemolisOptionsFlow(OptionsFlow):
    """Default source, fusion sources, local-model phrasing, spoken answer length, commands."""

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """One form; read at call time, so no reload is needed."""
        errors: dict[str, str] = {}
        if user_input is not None:
            if user_input.get(CONF_FUSION_SOURCES) and user_input[CONF_DEFAULT_SOURCE] != "fusion":
                errors[CONF_FUSION_SOURCES] = "fusion_sources_need_fusion"
            else:
                return self.async_create_entry(data=user_input)
        options = {
            CONF_DEFAULT_SOURCE: DEFAULT_SOURCE,
            CONF_FUSION_SOURCES: [],
            CONF_USE_LOCAL_MODEL: False,
            CONF_RESPONSE_LENGTH: DEFAULT_RESPONSE_LENGTH,
            CONF_HAND_COMMANDS: DEFAULT_HAND_COMMANDS,
            **self.config_entry.options,
            **(user_input or {}),
        }
        schema = vol.Schema(
            {
                vol.Required(CONF_DEFAULT_SOURCE): SelectSelector(
                    SelectSelectorConfig(
                        options=[*SEARCH_MODES, *SOURCE_NAMES],
                        translation_key="source",
                        mode=SelectSelectorMode.DROPDOWN,
                    )
                ),
                vol.Optional(CONF_FUSION_SOURCES): SelectSelector(
                    SelectSelectorConfig(
                        options=list(SOURCE_NAMES), translation_key="source", multiple=True
                    )
                ),
                vol.Required(CONF_USE_LOCAL_MODEL): BooleanSelector(),
                vol.Required(CONF_RESPONSE_LENGTH): SelectSelector(
                    SelectSelectorConfig(
                        options=list(RESPONSE_LENGTHS),
                        translation_key="response_length",
                        mode=SelectSelectorMode.LIST,
                    )
                ),
                vol.Required(CONF_HAND_COMMANDS): BooleanSelector(),
            }
        )
        return self.async_show_form(
            step_id="init",
            data_schema=self.add_suggested_values_to_schema(schema, options),
            errors=errors,
        )
