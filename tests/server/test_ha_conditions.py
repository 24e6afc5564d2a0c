"""Conditions on the home: found in every position, asked as a yes/no, judged per domain.

Fast tests of router/condition_parser.py and router/judge_ha.py (with only a client:
states + match_entities). The same conditions against a real Home Assistant, decided
by the ha source, are in test_ha_answers.py and bench/eval/eval_home.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.router.condition_parser import as_question, parse_condition
from mnemolis.router.context import Turn, resolve_follow_up
from mnemolis.router.judge_ha import judge_ha

from .routing_cases import FakeHA


@pytest.mark.parametrize(
    ("question", "condition", "consequent"),
    [
        ("If the garage door is open, is the alarm armed?", "the garage door is open",
         "is the alarm armed?"),
        # no comma: the condition ends at its state, not at the first "is"
        ("if the garage door is open is the security alarm armed", "the garage door is open",
         "is the security alarm armed"),
        ("if the front door is locked are the kitchen lights on", "the front door is locked",
         "are the kitchen lights on"),
        ("is the alarm armed if the garage door is open", "the garage door is open",
         "is the alarm armed"),
        ("in case the hvac is cooling is the window open", "the hvac is cooling",
         "is the window open"),
        ("In case the heat pump is idle, what is it set to?", "the heat pump is idle",
         "what is the heat pump set to?"),
        ("When the sun is down, are the porch lights on?", "the sun is down",
         "are the porch lights on?"),
        ("when the kitchen window is open what's the outside humidity",
         "the kitchen window is open", "what's the outside humidity"),
        ("If the poorly installed door is jammed, let me know.",
         "the poorly installed door is jammed", "is the poorly installed door jammed"),
        ("if the living room player is paused let me know", "the living room player is paused",
         "is the living room player paused"),
        ("if nobody is home are any lights on", "nobody is home", "are any lights on"),
        ("if the co2 level is over 1000 ppm is the living room window open",
         "the co2 level is over 1000 ppm", "is the living room window open"),
    ],
)  # fmt: skip
def test_a_condition_in_every_position(question: str, condition: str, consequent: str) -> None:
    plan = parse_condition(question)
    assert plan is not None, question
    assert (plan.text, plan.consequent, plan.kind) == (condition, consequent, "ha")


@pytest.mark.parametrize(
    "question",
    ["when is the garage door open", "Check if the alarm is armed", "what if the power fails"],
)
def test_questions_that_only_look_conditional(question: str) -> None:
    assert parse_condition(question) is None


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("if the sun is up, are the ceiling lights on?", "ha"),
        ("if it is sunny tomorrow, are the blinds closed?", "forecast"),
        # a reading outside now is the live sensor's; the same tomorrow is the forecast's
        ("If it is colder than 5 degrees outside, is the heat pump heating?", "ha"),
        ("if it is above 20 degrees outside tomorrow, are the blinds closed", "forecast"),
    ],
)
def test_now_is_the_home_and_later_is_the_forecast(question: str, kind: str) -> None:
    plan = parse_condition(question)
    assert plan is not None and plan.kind == kind


@pytest.mark.parametrize(
    ("condition", "question", "inverted"),
    [
        ("the garage door is open", "is the garage door open", False),
        ("the lights are on", "are the lights on", False),
        ("the alarm goes off", "is the alarm going off", False),
        ("the kitchen light goes off", "is the kitchen light off", False),
        ("the front door opens", "is the front door open", False),
        ("there is movement in the backyard", "is there movement in the backyard", False),
        ("nobody is home", "is anyone home", True),
        ("everyone is away", "is anyone home", True),
        ("everybody is home", "is anyone away", True),
        ("it is dark", "is the sun down", False),
    ],
)
def test_a_condition_is_asked_as_the_yes_no_question_it_amounts_to(
    condition: str, question: str, inverted: bool
) -> None:
    assert as_question(condition) == (question, inverted)


def home(**states: tuple[str, str, dict[str, Any]]) -> FakeHA:
    """A client with only these entities: id=(name, state, attributes)."""
    return FakeHA({k.replace("__", "."): (n, s, None, a) for k, (n, s, a) in states.items()})


ALARM = {"alarm_control_panel__security": ("Security", "armed_away", {})}
CLIMATE = {
    "climate__heatpump": ("Heat Pump", "heat", {"hvac_action": "idle", "current_temperature": 21})
}
LOCK = {"lock__back_door": ("Back Door Lock", "jammed", {})}
MEDIA = {"media_player__kitchen": ("Kitchen Speaker", "paused", {"media_title": "Song"})}
TRACKER = {"device_tracker__phone": ("Paulus", "home", {"source_type": "gps"})}
VACUUM = {"vacuum__roomba": ("Roomba", "docked", {"battery_level": 80})}
COVER = {"cover__blinds": ("Bedroom Blinds", "open", {"current_position": 40})}
SMOKE = {"binary_sensor__smoke": ("Hallway Smoke Detector", "on", {"device_class": "smoke"})}


@pytest.mark.parametrize(
    ("states", "condition", "verdict", "evidence"),
    [
        (ALARM, "the alarm is armed", True, "armed (away)"),
        (ALARM, "the alarm is disarmed", False, "armed (away)"),
        (ALARM, "the alarm is triggered", False, "alarm_control_panel.security"),
        (CLIMATE, "the heat pump is heating", False, "idle"),
        (CLIMATE, "the heat pump is idle", True, "climate.heatpump"),
        (CLIMATE, "the heat pump is above 20 degrees", True, "21"),
        (LOCK, "the back door lock is jammed", True, "jammed"),
        (LOCK, "the back door lock is locked", False, "jammed"),
        (MEDIA, "the kitchen speaker is playing", False, "paused"),
        (MEDIA, "the kitchen speaker is paused", True, "media_player.kitchen"),
        (TRACKER, "nobody is home", False, "home: Paulus"),
        (TRACKER, "Paulus is away", False, "device_tracker.phone"),
        (VACUUM, "the roomba is docked", True, "docked"),
        (COVER, "the bedroom blinds are closed", False, "open at 40 %"),
        (SMOKE, "smoke is detected", True, "Hallway Smoke Detector"),
    ],
)
async def test_every_domain_state_with_only_a_client(
    states: dict[str, tuple[str, str, dict[str, Any]]],
    condition: str,
    verdict: bool,
    evidence: str,
) -> None:
    got, why = await judge_ha(home(**states), condition)
    assert got is verdict, why
    assert evidence in why


async def test_a_state_no_entity_can_have_is_not_guessed() -> None:
    got, why = await judge_ha(home(**ALARM), "the alarm is docked")
    assert got is None and why


@pytest.mark.parametrize(
    ("previous", "follow_up", "rewritten"),
    [
        ("What is the weather now?", "And the day after?", "What is the weather tomorrow"),
        ("What's the weather tomorrow?", "and the day after?",
         "What's the weather the day after tomorrow"),
        ("Will it rain the day after tomorrow?", "and the day after that?",
         "Will it rain in 3 days"),
        ("What's the weather like?", "and the next day?", "What's the weather like tomorrow"),
    ],
)  # fmt: skip
def test_the_day_after_is_one_day_after_the_last_question(
    previous: str, follow_up: str, rewritten: str
) -> None:
    follow = resolve_follow_up(follow_up, Turn(previous, ["forecast"], 0.0))
    assert follow is not None and follow.query == rewritten
