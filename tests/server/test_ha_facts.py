"""Yes/no by the polarity of the attribute HA uses for each domain, and the words said for it."""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.hass.facts import holds, state_phrase
from mnemolis.hass.question import parse


def st(entity_id: str, state: str, **attributes: Any) -> dict[str, Any]:
    return {"entity_id": entity_id, "state": state, "attributes": attributes}


@pytest.mark.parametrize(
    ("state", "predicate", "expected"),
    [
        (st("lock.front_door", "locked"), "locked", True),
        (st("lock.front_door", "jammed"), "locked", False),
        (st("lock.front_door", "jammed"), "jammed", True),
        (st("lock.front_door", "open"), "open", True),
        (st("lock.front_door", "unlocked"), "open", False),  # unlocked is not open
        (st("lock.front_door", "unlocked"), "unlocked", True),
        (st("alarm_control_panel.house", "arming"), "armed", False),
        (st("alarm_control_panel.house", "arming"), "disarmed", False),
        (st("alarm_control_panel.house", "armed_night"), "armed", True),
        (st("climate.hvac", "cool", hvac_action="cooling"), "cooling", True),
        (st("climate.heatpump", "heat", hvac_action="idle"), "heating", False),
        (st("climate.heatpump", "heat", hvac_action="idle"), "idle", True),
        (st("climate.hvac", "cool", hvac_action="cooling"), "idle", False),
        (st("alarm_control_panel.house", "armed_home"), "armed_away", False),
        (st("alarm_control_panel.house", "armed_away"), "armed_away", True),
        (st("alarm_control_panel.house", "triggered"), "triggered", True),
        (st("cover.blind", "closed", current_position=0), "down", True),  # blinds down: closed
        (st("cover.blind", "open", current_position=40), "up", True),
        (st("vacuum.robot", "returning"), "returning", True),
        (st("sun.sun", "below_horizon"), "up", False),
        (st("binary_sensor.hall", "on", device_class="motion"), "detected", True),
        (st("binary_sensor.window", "on", device_class="window"), "open", True),
        (st("binary_sensor.window", "on", device_class="window"), "closed", False),
        (st("cover.blind", "opening", current_position=40), "open", True),
        (st("device_tracker.phone", "work"), "home", False),
        (st("device_tracker.phone", "work"), "away", True),
        (st("person.ann", "not_home"), "home", False),
        (st("media_player.tv", "paused"), "playing", False),
        (st("vacuum.robot", "docked"), "cleaning", False),
        (st("light.kitchen", "unavailable"), "on", None),  # nobody can tell
        (st("sensor.power", "120", device_class="power"), "open", None),  # not asked of it
    ],
)
def test_polarity_is_the_domain_attribute(
    state: dict[str, Any], predicate: str, expected: bool | None
) -> None:
    assert holds(state, predicate) is expected


@pytest.mark.parametrize(
    ("state", "said"),
    [
        (st("cover.living_room_window", "open", current_position=70), "open at 70 %"),
        (st("alarm_control_panel.house", "armed_away"), "armed (away)"),
        (st("sun.sun", "above_horizon"), "up"),
        (st("person.ann", "not_home"), "away"),
        (st("device_tracker.phone", "Work"), "at Work"),
        (st("binary_sensor.basement", "on", device_class="moisture"), "wet"),
        (st("sensor.co2", "540", unit_of_measurement="ppm"), "540 ppm"),
        (st("text.wifi", "hunter2", mode="password"), "set (a password is never read out)"),
        (st("input_datetime.alarm_clock", "06:45:00", has_time=True), "06:45"),
        (
            st("media_player.kitchen", "playing", media_title="Hippy", media_artist="Technohead"),
            "playing “Hippy” by Technohead",
        ),
    ],
)
def test_said_as_a_person_says_it(state: dict[str, Any], said: str) -> None:
    assert state_phrase(state) == said


def test_thermostat_leads_with_what_was_asked() -> None:
    ecobee = st(
        "climate.ecobee",
        "heat_cool",
        current_temperature=23,
        target_temp_low=21,
        target_temp_high=24,
    )
    assert state_phrase(ecobee, focus="target").startswith("set to 21 to 24 °C")
    assert state_phrase(ecobee, focus="current").startswith("23 °C now")
    assert state_phrase(ecobee, focus="mode").startswith("in heat/cool mode")


@pytest.mark.parametrize(
    ("question", "shape", "predicate"),
    [
        ("Is the garage door open?", "yesno", "open"),
        ("garage door open?", "yesno", "open"),
        ("Could you tell me whether the lights in the kitchen are switched on?", "yesno", "on"),
        ("Which lights are on?", "list", "on"),
        ("what's open", "list", "open"),
        ("How many doors are unlocked?", "count", "unlocked"),
        ("Are any windows open?", "any", "open"),
        ("Are all the doors locked?", "all", "locked"),
        ("has the sun set", "yesno", "down"),
        ("What is the thermostat set to?", "value", None),
        ("What's playing in the kitchen?", "value", "playing"),
        ("is the alarm armed away", "yesno", "armed_away"),
        ("Is the heat pump idle?", "yesno", "idle"),
        ("are the bedroom blinds down", "yesno", "down"),
        ("How far open are the blinds?", "value", None),  # a position, not a yes/no
        ("is the vacuum going back to its dock", "yesno", "returning"),
        ("did we lock the kitchen door", "yesno", "locked"),  # the state the action leaves
        ("did someone leave the garage door open", "yesno", "open"),
        ("did I turn the fan off", "yesno", "off"),
    ],
)
def test_question_shapes(question: str, shape: str, predicate: str | None) -> None:
    q = parse(question)
    assert (q.shape, q.predicate) == (shape, predicate)


def test_a_real_word_is_not_a_misspelt_kind() -> None:
    """ "at the moment" is not "movement": a typo is a letter off, not two."""
    assert parse("What is the allowed noise set to at the moment?").kind is None
    assert parse("is there any movment in the garden").kind_word == "movment"
