"""The words a person uses are not the words the notes use: synonyms, typing slips and
questions the house cannot answer (bench/eval/eval_docs.py --dev found these).

Asked through ``POST /search`` without an embedding model, so only the words decide,
plus the relevance functions the answer is built from.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnemolis.knowledge import relevance
from mnemolis.router.condition_parser import parse_condition
from mnemolis.sources.rag import named_in_heading, quote

from .knowledge_helpers import ask, household_client, notes_client

Client = Callable[..., Any]


BOILER = (
    "<html><body><main><h1>Heatmaster 30i</h1><h2>Hot water only</h2><p>To keep hot water "
    "without the radiators coming on, turn the heating dial to the sun symbol.</p>"
    "</main></body></html>"
)


async def household(make_client: Client, tmp_path: Path) -> Any:
    """The house notes, the warranty record and this module's files, as "household"."""
    return await notes_client(make_client, tmp_path, {"boiler.html": BOILER})


async def answers_say(client: Any, cases: dict[str, str]) -> None:
    """Each question's answer, read and spoken, says its fact and not the wifi password."""
    for question, answer in cases.items():
        body = await ask(client, question)
        assert answer in body["result"] and answer in body["spoken"], (question, body)
        if answer != "tulip-harbour-42":
            assert "tulip-harbour-42" not in body["spoken"], (question, body)


async def test_household_words_find_the_notes_words(make_client: Client, tmp_path: Path) -> None:
    """ "turn off the water" is the stopcock, "consumer unit" the fuse box, "internet" the wifi."""
    client = await household(make_client, tmp_path)
    await answers_say(
        client,
        {
            "where can I turn off the water?": "under the kitchen sink",
            "the power's tripped, where's the consumer unit": "in the garage",
            "what's our address?": "14 Elm Road",
            "when did we buy the dishwasher": "14 March 2023",
            "dishwasher warranty phone number": "0344 892 8979",
        },
    )


async def test_typing_slips_still_find_the_answer(make_client: Client, tmp_path: Path) -> None:
    """One letter added, dropped, changed or two swapped: "pasword", "dishwahser", "recyling"."""
    client = await household(make_client, tmp_path)
    await answers_say(
        client,
        {
            "what's our internet pasword": "tulip-harbour-42",
            "what model is the dishwahser": "SMS4HVI33G",
            "when is recyling day": "every other Friday",
        },
    )


def test_a_slip_is_one_edit_of_a_long_word() -> None:
    have = relevance.words_of("The dishwasher password is on the recycling bin")
    assert relevance.misspelt_in(relevance.stem("dishwahser"), have)  # two letters swapped
    assert relevance.misspelt_in(relevance.stem("pasword"), have)  # one dropped
    assert relevance.misspelt_in(relevance.stem("recyling"), have)
    assert not relevance.misspelt_in("bin", have | {"pin"})  # short words are words
    assert not relevance.misspelt_in(relevance.stem("dishwater"), have)  # two edits away


def test_a_synonym_counts_only_when_the_question_holds_the_whole_member() -> None:
    """ "turn off the water" is a stopcock; "turn" alone or "water" alone is not."""
    stopcock = "The main stopcock is under the kitchen sink."
    assert relevance.word_coverage("where can I turn off the water?", None, stopcock) > 0.7
    assert relevance.word_coverage("how hot is the water?", None, stopcock) == 0.0
    assert (
        relevance.word_coverage("where's the rubbish collected?", None, "Bins go out on Tuesday")
        > 0
    )


def test_a_when_question_is_answered_by_a_day() -> None:
    """ "when is recycling day?" needs no text saying "day": a day name says it."""
    friday = "Recycling goes out every other Friday."
    assert relevance.word_coverage("when is recycling day?", None, friday) == 1.0
    assert relevance.word_coverage("what is recycling day?", None, friday) < 1.0


def test_the_model_calling_a_passage_unrelated_outweighs_a_few_shared_words() -> None:
    """ "when was the roof last replaced?" shares "last" and "replace" with a battery line."""
    question = "when was the roof last replaced"
    text = "The battery lasts ten years. Replace the whole alarm by June 2033."
    unrelated = relevance.match(question, None, [text], similarity=0.26, model=True)
    assert 0.5 <= unrelated.words < relevance.WORDS_SURE
    assert not unrelated.answers
    # Not ranked by the model at all (keyword hit only): the words alone decide, as before.
    assert relevance.match(question, None, [text], similarity=None, model=True).answers


def test_what_happens_if_asks_about_the_case_not_a_condition() -> None:
    assert parse_condition("what happens if the boiler pressure drops too low?") is None
    assert parse_condition("is it ok if I run the dryer at 11pm?") is None
    assert parse_condition("turn on the porch light if the front door is open") is not None


def test_a_wrapped_list_item_is_quoted_whole() -> None:
    """A Markdown list item wrapped over lines is one step, never cut at the line break."""
    steps = (
        "1. **Add-on**: Settings → Add-ons → Add-on store → Repositories, add\n"
        "   the repository URL, install **Mnemolis**, start it.\n"
        "2. **Integration**: in HACS add the same URL as\n"
        "   an *Integration*, install **Mnemolis**, restart Home Assistant.\n"
    )
    said = quote("how do I install the Mnemolis add-on?", {}, "Install", steps)
    assert "Add-on store" in said and said.startswith("1."), said


def test_two_sentences_that_say_one_thing_are_quoted_together() -> None:
    """The battery's life and "replace the whole alarm" answer the battery question together."""
    text = "The sealed lithium battery lasts ten years. Replace the whole alarm by June 2033."
    said = quote("do I need to change the battery in the smoke alarm", {}, "Battery", text)
    assert "sealed" in said and "June 2033" in said, said


def test_numbers_are_matched_whole() -> None:
    """ "is 0.5 bar too low?" finds the text that says 0.5, not every text with a 5."""
    below = "Below 0.5 bar the boiler shuts down to protect itself."
    assert relevance.word_coverage("0.5", None, below) == 1.0
    assert relevance.word_coverage("0.5", None, "Press for 5 seconds.") == 0.0
    assert relevance.word_coverage("6:30", None, "The heating comes on at 6:30.") == 1.0


def test_how_long_asks_for_a_duration_not_about_length() -> None:
    """The wool programme's line answers "how long does the wool programme take?" better
    than the cottons' line that gives a duration."""
    question = "how long does the wool programme take"
    weights = {"long": 3.8, "wool": 3.1, "programme": 2.3, "take": 2.8}  # rarity in the notes
    wool = relevance.word_coverage(question, weights, "Programmes: Wool: hand-wash wool, 30 °C")
    cottons = relevance.word_coverage(question, weights, "Programmes: Cottons, takes 3 h 19 min")
    assert wool > cottons
    assert wool > relevance.ANSWERS  # "long" is not a missing subject


async def test_a_word_the_notes_never_use_is_searched_by_its_synonyms(
    make_client: Client, tmp_path: Path
) -> None:
    """Without a model only keywords find passages: "internet" finds the wifi lines, a
    slip finds the word it misses; words the notes hold are searched as they are."""
    client = await household(make_client, tmp_path)
    body = await ask(client, "internet password")
    assert "tulip-harbour-42" in body["spoken"], body
    body = await ask(client, "the serial nummber of the dishwasher")
    assert "FD 0123 456789" in body["spoken"], body


def test_a_neighbouring_fact_before_the_answer_stays_out() -> None:
    """The detergent's sentence shares "compartment" with the softener's: not quoted."""
    text = (
        "Liquid detergent goes in the left compartment. The fabric softener goes in the "
        "middle compartment, the one marked with a flower."
    )
    said = quote("which compartment is for softener?", {}, "Detergent", text)
    assert said.startswith("The fabric softener"), said


def test_the_model_named_in_a_heading_answers_what_model() -> None:
    """A note titled "Washing machine (Miele WWD 120)" never repeats the model below it."""
    heading = "washing machine > Washing machine (Miele WWD 120) > Programmes"
    wool = "- Wool: hand-wash wool, cold or 30 °C"
    assert named_in_heading("what make is the washing machine", heading, wool) == (
        "Washing machine (Miele WWD 120)"
    )
    # The passage names a model itself: it answers; other questions never get the heading.
    record = "Appliance: Bosch Serie 4 dishwasher, model SMS4HVI33G"
    assert named_in_heading("what model is the dishwasher", "WARRANTY RECORD", record) == ""
    assert named_in_heading("how long does the wool programme take", heading, wool) == ""
    assert named_in_heading("what washing machine do we have?", heading, wool) == (
        "Washing machine (Miele WWD 120)"
    )


def test_drops_too_low_is_below() -> None:
    """ "what happens if the pressure drops too low?" is answered by "Below 0.5 bar …"."""
    question = "what happens if the boiler pressure drops too low?"
    below = "Below 0.5 bar the boiler shuts down to protect itself. The pressure gauge reads 1 bar."
    fault = "Code: F22 | Meaning: Low water pressure"
    assert relevance.word_coverage(question, None, below) > relevance.word_coverage(
        question, None, fault
    )


def test_which_bin_on_which_day_reads_every_bin() -> None:
    """A question about every item of a kind gets every line of the note that says one,
    as one sentence (the spoken form reads two sentences at most)."""
    bins = (
        "The general waste (black bin) is collected every Tuesday morning.\n"
        "Recycling (blue bin) goes out every other Friday.\n"
        "Garden waste (green bin) is collected on the first Monday of the month.\n"
    )
    said = quote("which bin goes out on which day", {}, "Bins", bins)
    assert all(day in said for day in ("Tuesday", "Friday", "first Monday")), said
    assert said.count(".") == 1, said
    # One bin asked about: one line.
    said = quote("when does the recycling go out?", {}, "Bins", bins)
    assert "Friday" in said and "Tuesday" not in said, said


async def test_why_is_answered_by_what_it_means(make_client: Client, tmp_path: Path) -> None:
    """ "Why is it beeping?" is the chirp's meaning, not the test button's beep."""
    guide = (
        "# Smoke alarm\n\n## Testing\n\nPress the test button once a week. The alarm sounds a "
        "loud beep.\n\n## Chirping\n\nA single chirp every 40 seconds means the alarm has "
        "reached the end of its life.\n"
    )
    client = await household_client(make_client, tmp_path / "roots", {"smoke-alarm.md": guide})
    body = await ask(client, "why is the smoke detector beeping every minute")
    assert "end of its life" in body["spoken"], body


async def test_parts_answered_by_one_passage_say_it_once(
    make_client: Client, tmp_path: Path
) -> None:
    """Two parts of one question answered by the same line read it once; a condition on
    home states nobody can check (no Home Assistant) is part of the question instead."""
    client = await household(make_client, tmp_path)
    body = await ask(client, "where is the stopcock and where can I turn off the water")
    assert body["spoken"].count("under the kitchen sink") == 1, body
    assert body["result"].count("under the kitchen sink") == 1, body
    question = "who do I call if the dishwasher breaks down?"
    body = await ask(client, question)
    assert body["condition"] is None, body
    assert [p["query"] for p in body["parts"]] == [question.rstrip("?")], body


def test_a_code_outweighs_the_words_around_it() -> None:
    """ "The display is showing F75, is that something I can fix?" is the F75 row's."""
    counts = {"boiler": 8, "display": 1, "showing": 1, "f75": 1, "fix": 0}
    weights = relevance.idf_weights(
        relevance.content_words("The boiler display is showing F75, is that something I can fix?"),
        lambda words: ({w: counts.get(w, 0) for w in words}, 30),
    )
    assert weights["something"] == 0.0  # says nothing about the boiler
    assert weights["f75"] == 2 * weights["display"]
    question = "The boiler display is showing F75, is that something I can fix?"
    row = "Code: F75 | Meaning: Pressure sensor fault | What to do: Call an engineer."
    reset = "If the display shows a flashing fault code, press and hold the reset button."
    # As much as "display" and "showing" together: the model's meaning then decides.
    assert relevance.word_coverage(question, weights, row) >= relevance.word_coverage(
        question, weights, reset
    )


def test_an_instruction_is_a_how_to() -> None:
    """ "remove a folder from Mnemolis" asks for the steps, like "how do I remove …?"."""
    from mnemolis.sources.rag import _HOW

    for question in (
        "how do I remove a folder?",
        "hey, how do I get mnemolis to remember something",
        "remove a folder from mnemolis",
        "top up the boiler pressure",
    ):
        assert _HOW.match(question), question
    for question in ("removed items", "what does the reset button do?", "where is the stopcock?"):
        assert not _HOW.match(question), question


async def test_a_monitor_word_without_monitors_still_reaches_the_manuals(
    make_client: Client, tmp_path: Path
) -> None:
    """ "down" is the uptime monitors' word; with none configured the notes answer."""
    pressure = (
        "Topping up the pressure\n"
        "Open the filling loop under the boiler until the gauge reads 1.2 bar.\n"
    )
    client = await household_client(make_client, tmp_path / "roots", {"boiler.txt": pressure})
    body = await ask(client, "the gauge is down below 1, how do I top the boiler pressure back up?")
    assert "not configured" not in body["result"], body
    assert "filling loop" in body["spoken"], body


def test_why_the_person_asks_weighs_less_than_what_they_ask() -> None:
    """ "what's the address here I need to tell the taxi": the taxi is not in the notes."""
    question = "what's the address here I need to tell the taxi"
    title = "House notes - 14 Elm Road"
    assert relevance.word_coverage(question, None, title) >= relevance.ANSWERS
    # A question that is itself "do I need to …?" keeps every word.
    battery = "The sealed battery lasts ten years."
    assert relevance.word_coverage("do I need to change the battery", None, battery) < 1.0
    assert relevance.word_coverage("do I need to change the battery", None, battery) >= 0.5


def test_whom_a_question_asks_about_must_be_in_the_passage() -> None:
    """ "What does Mia need to take?" (a second part, "she" said as Mia) is not answered
    by a recipe's "take them out at 12 min"; her own line, or a file titled with her
    name, answers. A question about nobody named is untouched."""
    recipe = "Nan says: chewy = take them out at 12 min, crunchy = 15."
    line = "Mia has swimming Thurs 4.15 at Leisurelink, needs goggles + 2 towels"
    question = "what does Mia need to take"
    assert not relevance.match(question, None, [recipe]).owner
    assert relevance.match(question, None, [line]).owner
    assert relevance.match(
        "When can Biscuit eat again?",
        None,
        ["No food for 12 hours."],
        weak=["household: biscuit-dog-care.txt"],
    ).owner
    assert relevance.match("what do I need to take", None, [recipe]).owner


def test_a_hyphenated_name_is_said_by_its_parts() -> None:
    """A name written with a hyphen ("Mary-Jane", "PSTAT-based lsof") is said by a text
    that writes it so: its words are the name's parts, so it was never found before."""
    line = "Mary-Jane finishes school at 3.15 on Fridays."
    assert relevance.match("When does Mary-Jane finish school?", None, [line]).owner
    assert relevance.match("What does Mary-Jane need?", None, ["Mia needs a hat."]).owner is False
    answer = "These messages indicate that lsof's tests for PSTAT support have failed."
    heading = "Why does PSTAT-based lsof complain about pst_static?"
    question = "Why does PSTAT-based lsof complain about pst_static?"
    assert relevance.match(question, None, [answer], weak=[heading]).owner


def test_a_phrase_of_the_thesaurus_is_not_its_one_big_word() -> None:
    """ "for nothing" (free) is no "it does nothing": the batteries line answers why the
    remote does nothing, though it never says "free"; "did we get it for nothing?" still
    asks whether it was free."""
    question = "Why does the remote do nothing?"
    assert relevance.names_every_thing(question, "Flat batteries stop the remote working.")
    assert not relevance.names_every_thing(
        "did we get the sofa for nothing?", "The sofa came from Harvey's."
    )
    assert relevance.names_every_thing(
        "did we get the sofa for nothing?", "The sofa was free from a neighbour."
    )
