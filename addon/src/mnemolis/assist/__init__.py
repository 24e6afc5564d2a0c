"""Home questions read with Home Assistant's own intent grammar, in every language it has.

``grammar`` loads the question intents of ``home-assistant-intents`` for hassil,
``slots`` builds the name/area/floor lists from HA's registries the way HA's
default conversation agent does, ``targets`` and ``handlers`` answer a recognised
intent with HA's semantics (one, yes/no, any, all, which, how many), and
``render`` speaks the result with the response templates the package ships.
``reader`` ties them together for the router.
"""
