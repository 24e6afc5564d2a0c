"""How people put household questions: a situation told first, a slip of the keyboard,
a "which is the longest", a "how do I" that a warning also mentions (the fourth blind
dev batch of bench/eval/eval_docs.py found these).

Asked through ``POST /search`` without an embedding model, so only the words decide,
plus the functions the answer is built from.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mnemolis.knowledge import relevance
from mnemolis.knowledge.chunking import chunk_sections, unmarked_list
from mnemolis.knowledge.parsing import text_sections
from mnemolis.language import asked_in
from mnemolis.router.decompose import carry_subject, decompose
from mnemolis.router.router import _spoken_answer
from mnemolis.sources import rag
from mnemolis.sources.rag import _HOW, _units, about_mnemolis, asked_plainly, figure, forbids, quote
from mnemolis.textmatch import unshortened, without_fillers

from .knowledge_helpers import ask, household_client, model_household_client, notes_client, store_of

Client = Callable[..., Any]

WASHER = """# Washing machine (Miele WWD 120)

Bought in 2021. The manual is on the shared drive.

## Programmes

- Cottons 60 °C: towels and bedding, takes 3 h 19 min
- QuickPowerWash: a full load in 49 minutes
- Wool: hand-wash wool, cold or 30 °C

## Detergent

Liquid detergent goes in the left compartment. The fabric softener goes in the middle
compartment, the one marked with a flower.
"""

RESET = (
    "If the display shows a flashing fault code, press and hold the reset button for five "
    "seconds. The boiler restarts and runs its ignition sequence.\n\n"
    "If the boiler locks out again after two resets, do not keep resetting it: call a Gas "
    "Safe registered engineer."
)
PRESSURE = (
    "<h2>Water pressure</h2><p>The pressure gauge should read between 1 and 1.5 bar when "
    "the heating is cold.</p><h3>Topping up the pressure</h3><ol><li>Open the filling "
    "loop.</li><li>Close it when the gauge reads 1.2 bar.</li></ol>"
)
BOILER = (
    "<html><body><main><h1>Heatmaster 30i boiler</h1><h2>Resetting the boiler</h2>"
    + "".join(f"<p>{p}</p>" for p in RESET.split("\n\n"))
    + PRESSURE
    + "</main></body></html>"
)


async def household(make_client: Client, tmp_path: Path) -> Any:
    """The house notes, the warranty record and this module's files, as "household"."""
    return await notes_client(
        make_client, tmp_path, {"washing-machine.md": WASHER, "boiler.html": BOILER}
    )


async def says(client: Any, question: str, fact: str, never: str = "") -> None:
    """The answer, read and spoken, says the fact (and not ``never``)."""
    body = await ask(client, question)
    for form in ("result", "spoken"):
        assert fact in body[form], (question, form, body)
        assert not never or never not in body[form], (question, form, body)


async def test_the_longest_is_chosen_by_its_figure(make_client: Client, tmp_path: Path) -> None:
    """Every programme's line matches "programme"; the durations decide which is longest."""
    client = await household(make_client, tmp_path)
    await says(client, "which washing programme takes longest?", "3 h 19 min", "49 minutes")
    await says(client, "what's the shortest wash programme?", "49 minutes", "3 h 19 min")


def test_figures_are_durations_in_minutes_or_degrees() -> None:
    assert figure("time", "takes 3 h 19 min") == 199
    assert figure("time", "a full load in 49 minutes") == 49
    assert figure("time", "hand-wash wool, cold or 30 °C") is None
    assert figure("heat", "Cottons 60 °C: towels") == 60


async def test_how_do_i_is_answered_by_what_to_do(make_client: Client, tmp_path: Path) -> None:
    """The warning against resetting says "reset" and "boiler" as often as the reset
    itself does, and what happens after the reset says "boiler" too."""
    client = await household(make_client, tmp_path)
    await says(client, "how can I reset the boiler after a lockout?", "five seconds")


def test_a_warning_against_it_is_no_way_to_do_it() -> None:
    warning = RESET.split("\n\n")[1]
    assert forbids("how do I reset the boiler?", warning)
    assert not forbids("how do I reset the boiler?", RESET.split("\n\n")[0])
    assert not forbids("how do I thaw the pipe?", "Pour warm water, never boiling water.")
    heading = "Heatmaster 30i > Resetting the boiler"
    said = quote("how do I restart the boiler?", {}, heading, RESET.split("\n\n")[0])
    assert said.startswith("If the display shows a flashing fault code, press and hold")
    # Told first, the situation leaves "how do I" what is asked.
    told = "The boiler has stopped and a red light is flashing on the front. How do I reset it?"
    assert relevance.asked(told) == "How do I reset it?"
    weights = {"boiler": 1.5, "stopped": 3.0, "light": 3.0, "flashing": 3.0, "reset": 2.3}
    said = quote(told, weights, heading, RESET.split("\n\n")[0])
    assert "press and hold the reset button" in said, said


async def test_what_is_told_before_the_question_is_its_context(
    make_client: Client, tmp_path: Path
) -> None:
    """A statement and then a question is one question; the situation weighs less than what
    is asked."""
    client = await household(make_client, tmp_path)
    await says(
        client,
        "Our dishwasher has stopped draining and there's water everywhere. "
        "Who should I ring about the warranty?",
        "0344 892 8979",
    )
    await says(
        client,
        "my sister is staying with us and needs to get online, what's the wifi password?",
        "tulip-harbour-42",
    )
    # However long the story, together it weighs a quarter of the question.
    await says(
        client,
        "I'm filling in a long delivery form on a shopping website for a parcel. "
        "What is our address?",
        "14 Elm Road",
    )


def test_a_statement_joins_the_question_after_it() -> None:
    def sources(_: str) -> list[str]:
        return ["rag"]

    told = "The pressure has dropped since we bled the radiators. How do I top it up?"
    assert decompose(told, sources) == [
        "The pressure has dropped since we bled the radiators. How do I top it up"
    ]
    assert decompose("Is the door locked? Is the light on?", sources) == [
        "Is the door locked",
        "Is the light on",
    ]
    # What was told is never split at its own "and".
    told = "The boiler has stopped and a red light is flashing. How do I reset it?"
    assert decompose(told, lambda part: ["ha"] if "light" in part else ["rag"]) == [
        "The boiler has stopped and a red light is flashing. How do I reset it"
    ]
    # What a sentence tells before its question is that question's situation.
    assert decompose(
        "It's freezing outside and the boiler has stopped, what should I do?",
        lambda part: ["forecast"] if "freezing" in part else ["rag"],
    ) == ["It's freezing outside and the boiler has stopped. what should I do"]
    # A clause saying when is part of the question after it.
    when = "When I ask you to remember something, how do you keep it?"
    assert decompose(when, lambda part: ["memory"] if "remember" in part else ["rag"]) == [
        "When I ask you to remember something, how do you keep it"
    ]
    # So is one saying it with a verb in -ing ("when backing up …", "if something …").
    remote = "When backing up to remote encrypted repos, is encryption done locally?"
    assert decompose(remote, lambda part: ["rag"]) == [remote.rstrip("?")]
    something = "If something goes wrong with the boiler, who do I call?"
    assert decompose(something, lambda part: ["rag"]) == [something.rstrip("?")]
    # "… and not the heating" says what is not wanted: no second ask.
    summer = "how do I set the boiler to just do hot water and not the heating?"
    assert decompose(summer, lambda part: ["ha"] if "heating" in part else ["rag"]) == [
        "how do I set the boiler to just do hot water and not the heating"
    ]


def test_phone_shorthand_is_written_out() -> None:
    assert unshortened("how do u reset it pls") == "how do you reset it please"
    assert unshortened("is U2 on the radio") == "is U2 on the radio"


def test_some_thing_is_one_word() -> None:
    """ "How I make Mnemolis to remember some thing?" asks the FAQ's "How do I make it
    remember something?": written as two words, "thing" matched "looks things up"."""
    assert unshortened("remember some thing?") == "remember something?"
    assert unshortened("Is there any thing else") == "Is there anything else"
    heading = "How do I make it remember something?"
    asked = "How I make it to remember some thing?"
    assert relevance.word_coverage(asked, None, heading) == 1.0


def test_the_situation_and_the_purpose_weigh_less() -> None:
    aside = relevance._aside_words(
        "my sister is staying with us and needs to get online, what's the wifi password?"
    )
    assert "sister" in aside and "password" not in aside
    assert relevance._aside_words("the dishwasher, when did we buy it?") == frozenset()
    # The thing a question refers back to stays whole; the rest of the story is aside.
    basket = relevance._aside_words("I need a new basket for the dishwasher. What make is it?")
    assert "basket" in basket and "dishwasher" not in basket
    assert relevance._aside_words("the boiler gauge says 1.2, is that ok?") == frozenset()
    purpose = relevance._aside_words("what's our address, I'm ordering a takeaway")
    assert "takeaway" in purpose and "address" not in purpose
    # When they will use it, after the question, is aside too; a "when" that asks is not.
    use = relevance._aside_words("Which network should I pick when I connect my laptop?")
    assert {"laptop", "connect"} <= use and "network" not in use
    assert relevance._aside_words("when do we put the recycling out?") == frozenset()
    # With no thing of its own before it, the when-clause is what is asked.
    assert relevance._aside_words("what happens when I press the reset button?") == frozenset()


async def test_a_slip_is_mended_before_the_question_is_asked(
    make_client: Client, tmp_path: Path
) -> None:
    """ "recyling" is read as the notes' "recycling" (whole, not as a slip at a discount),
    so the recycling line beats the general waste's "collected"; an ambiguous slip stays."""
    client = await household(make_client, tmp_path)
    store = store_of(client)
    assert await store.respelled("when is the recyling collected?") == (
        "when is the recycling collected?"
    )
    assert await store.respelled("when is the recycling collected?") == (
        "when is the recycling collected?"
    )
    # A word of English is never a slip: "beach" stays, though "bleach" is in the notes.
    assert await store.respelled("how far is the beach?") == "how far is the beach?"
    await store.remember("Grandma likes lilies.")
    assert await store.respelled("what does grandam like?") == "what does grandma like?"
    await says(client, "when is the recyling collected?", "every other Friday", "Tuesday")


async def test_a_home_source_not_set_up_leaves_it_to_the_documents(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Showers" is a weather word; without a forecast source the notes still answer, and
    Mnemolis's own pages about the forecast never do."""
    client = await household(make_client, tmp_path)
    body = await ask(client, "is the stopcock under the sink? we need to fix the shower")
    assert "under the kitchen sink" in body["result"], body
    body = await ask(client, "will it rain tomorrow?")
    assert body["source_used"] == "none", body
    assert "forecast is not configured" in body["result"], body


def test_words_and_model_agreeing_answer_unless_a_thing_is_missing() -> None:
    """Both signals at 0.4 answer; not when the text never names a household thing the
    question does (the MOT's line for the car *insurance*)."""
    assert relevance.Match(0.42, 0.45).answers
    assert not relevance.Match(0.42, 0.45, things=False).answers
    assert not relevance.Match(0.42, 0.3).answers
    mot = "The car's MOT is due on 2 September."
    assert not relevance.names_every_thing("when is the car insurance renewal due?", mot)
    assert relevance.names_every_thing("when is the MOT due for the vehicle?", mot)
    model = "Appliance: Bosch Serie 4 dishwasher, model SMS4HVI33G"
    assert relevance.names_every_thing("dishwasher model number", model)
    assert not relevance.names_every_thing("dishwasher model number", "Serial number: FD 0123")


def test_questions_to_the_assistant_about_itself_are_about_mnemolis() -> None:
    assert about_mnemolis("what sources can you look things up in?")
    assert about_mnemolis("how do I get you to remember something?")
    assert about_mnemolis("can you read PDF files?")
    assert not about_mnemolis("can you tell me the wifi password?")
    assert not about_mnemolis("what sources of heat does the house have?")
    # "it" with one of its own words, setting up one of its sources, "the assistant".
    assert about_mnemolis("does it understand spreadsheets or just pdf?")
    assert about_mnemolis("can it run fully offline?")
    assert about_mnemolis("how do i turn on news")
    assert about_mnemolis("How do I set up the weather so it knows our location?")
    assert about_mnemolis("I'd like the assistant to answer from our manuals")
    assert about_mnemolis("what exactly are you?")
    # "Would you mind explaining how …" is a way into "how …": its words weigh nothing.
    polite = "Would you mind explaining how I can get it to re-read my files?"
    assert relevance.asked(polite).startswith("how I can get")
    assert {relevance.stem("mind"), relevance.stem("explaining")} <= relevance._frame_words(polite)
    # The port it listens on, how to tell it to remember, a memory of its own.
    assert about_mnemolis("hey what port does it use")
    assert about_mnemolis("How do I tell it to remember something, like where the key is?")
    assert about_mnemolis("how to delete a memory")
    for household in (
        "how do I turn on the heating?",
        "can you ask Home Assistant whether the lights are on?",
        "is it still under warranty?",
        "I can't remember the last time we tested it, how often should we?",
        "what model is it?",
    ):
        assert not about_mnemolis(household), household


async def test_a_reading_asked_about_is_answered_by_what_it_should_be(
    make_client: Client, tmp_path: Path
) -> None:
    """ "The gauge says 1.2, is that ok?": the normal range, not the step that holds 1.2."""
    client = await household(make_client, tmp_path)
    await says(client, "the boiler gauge says 1.2, is that ok?", "between 1 and 1.5 bar")
    await says(client, "the boiler gauge says 1.2, is that bad?", "between 1 and 1.5 bar")


async def test_a_synonym_said_of_every_line_tells_them_apart_less(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Pick up" is "collected", said of two bins; "recycling" of one."""
    client = await household(make_client, tmp_path)
    await says(client, "when do they pick up the recycling?", "every other Friday", "Tuesday")
    # "bit" says how it is asked, not what about; the powder is the detergent.
    await says(client, "which bit of the drawer does the powder go in?", "left compartment")
    # What goes in a bin names it: grass cuttings are garden waste.
    await says(client, "when do they take the grass cuttings?", "first Monday", "Tuesday")


def test_what_was_told_need_not_be_named_by_the_answer() -> None:
    """ "I've just bought some fabric conditioner …": the softener's line names no buying,
    and "first" (of "for the first time") is no part of the first aid kit."""
    question = (
        "I've just bought some fabric conditioner for the first time. "
        "Which drawer compartment does it go in?"
    )
    softener = "The fabric softener goes in the middle compartment, the one marked with a flower."
    assert relevance.names_every_thing(question, softener)
    aside = relevance._aside_words(question)
    assert {"bought", "first"} <= aside and "conditioner" not in aside
    assert not relevance.names_every_thing("where did we buy the dishwasher?", softener)


def test_a_question_that_refers_back_is_asked_with_the_one_before() -> None:
    """ "… and what's their number?" alone would be any number in the house."""
    parts = carry_subject(["Who's our plumber", "what's their number"])
    assert parts == ["Who's our plumber and what's their number"]
    # A statement after it stays a part of its own; a name is put in as before.
    assert carry_subject(["what's our address", "I need it for a form"]) == [
        "what's our address",
        "I need it for a form",
    ]
    assert carry_subject(["Who is Ada Lovelace", "when was she born"]) == [
        "Who is Ada Lovelace",
        "when was Ada Lovelace born",
    ]
    # A day is no one "she" could be, and "Priya's" names Priya.
    assert carry_subject(["when is Priya's netball on Tuesday", "what does she need to bring"]) == [
        "when is Priya's netball on Tuesday",
        "what does Priya need to bring",
    ]
    # The word that opens a sentence is no name: "how do I top What up" never.
    told = "The gauge is reading almost nothing. What should it read"
    assert carry_subject([told, "how do I top it up"], lambda _: ["rag"]) == [
        f"{told} and how do I top it up"
    ]
    # "that" standing for a thing ("switch that on") refers back as "it" does; "that"
    # before a noun ("that recipe") names its own.
    rag = lambda _: ["rag"]  # noqa: E731
    assert carry_subject(["can it search the web", "how do I switch that on"], rag) == [
        "can it search the web and how do I switch that on"
    ]
    assert carry_subject(["what's the oven temp", "how long is that for?"], rag) == [
        "what's the oven temp and how long is that for?"
    ]
    apart = ["what's the bin day", "where's that recipe Nan gave us"]
    assert carry_subject(apart, rag) == apart


async def test_two_asks_about_one_thing_are_answered_together(
    make_client: Client, tmp_path: Path
) -> None:
    """The heading names the machine, the passage under it when it was bought."""
    client = await household(make_client, tmp_path)
    store = store_of(client)
    await store.remember("Plumber: Dave Jones, 07700 900123.")
    body = await ask(client, "what washing machine have we got and when did we buy it?")
    assert "Miele WWD 120" in body["result"] and "2021" in body["result"], body
    await says(client, "Who's our plumber and what's their number?", "07700 900123", "FD 0123")


def test_a_code_the_question_names_must_be_in_the_answer() -> None:
    """The dishwasher's E15 is in no document: the boiler's rows and the warranty record
    share its words, never its code."""
    row = "Code: F22 | Meaning: Low water pressure | What to do: Top up the pressure."
    assert relevance.holds_named_codes("what does F22 mean?", row)
    assert relevance.holds_named_codes("the boiler says F 22", row)
    assert not relevance.holds_named_codes("what does error code E15 mean?", row)
    assert relevance.holds_named_codes("what does the error mean?", row)
    assert not relevance.match("what does code E15 mean?", None, [row]).answers
    assert relevance.match("what does code F22 mean?", None, [row]).answers
    # A word before a number is no code: "at 12", "by 12 October".
    assert relevance.holds_named_codes("who lives at 12?", "Ruth at number 12")
    assert relevance.holds_named_codes("was it serviced by 12 October?", "on 12 October 2025")
    # Of two codes asked about, each row answers for its own.
    assert relevance.holds_named_codes("what's the difference between F22 and F28?", row)
    assert not relevance.holds_named_codes("is E15 the same as E16?", row)


async def test_a_part_nothing_answers_alone_is_asked_after_the_one_before(
    make_client: Client, tmp_path: Path
) -> None:
    """ "the whole unit" names nothing by itself; after the smoke alarm's part it does."""
    alarm = (
        "# SafeHome smoke alarm\n\n## Battery\n\nThe sealed battery lasts ten years. "
        "Replace the whole alarm by June 2033.\n"
    )
    client = await notes_client(make_client, tmp_path, {"smoke-alarm.md": alarm})
    body = await ask(
        client,
        "How long does the battery in the smoke alarm last, and when does the whole unit "
        "need replacing?",
    )
    assert "ten years" in body["result"] and "June 2033" in body["result"], body
    assert "No source could answer" not in body["result"], body


def test_each_ask_of_a_question_is_quoted_its_kind_of_fact() -> None:
    """A duration for "how long", and the date for "when" after it."""
    cover = (
        "Two years of warranty, extended to five years by registering online. "
        "Cover ends on 14 March 2028."
    )
    weights = {"long": 2.0, "warranty": 2.0, "finish": 3.0}
    said = quote("how long is the warranty and when does it finish?", weights, "", cover)
    assert "five years" in said and "14 March 2028" in said, said


def test_what_speech_puts_between_words_is_not_asked() -> None:
    """ "um" is dropped, and a situation said without commas still leads the question."""
    assert without_fillers("the light is flashing um how do I reset it") == (
        "the light is flashing how do I reset it"
    )
    assert without_fillers("Erm, where is the fuse box?") == "where is the fuse box?"
    assert without_fillers("the summer programme") == "the summer programme"
    told = "the boiler's gone off and a light is flashing how do I reset it"
    assert decompose(told, lambda part: ["memory"] if "off" in part else ["rag"]) == [
        "the boiler's gone off and a light is flashing. how do I reset it"
    ]


async def test_a_time_of_day_is_answered_by_the_rule_that_gives_one(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Quarter past ten tonight" is a time of day; "after 22:00" says one."""
    client = await household(make_client, tmp_path)
    await store_of(client).remember(
        "Never run the tumble dryer after 22:00, the neighbours complained about the noise."
    )
    await says(client, "can I run the tumble dryer at quarter past ten tonight?", "22:00")
    assert relevance.clock_words("is it ok at half ten?") == {"half", "ten"}
    assert relevance.clock_words("the battery lasts ten years") == frozenset()


def test_why_or_an_example_after_the_question_weighs_less() -> None:
    aside = relevance._aside_words("where's the meter, need to send them a reading")
    assert "reading" in aside and "meter" not in aside
    aside = relevance._aside_words("how do I add a new document, like the manual for the fridge")
    assert "fridge" in aside and "document" not in aside


def test_two_asks_of_one_passage_are_quoted_each_its_sentence() -> None:
    """The detergent's sentence and the softener's, though they are neighbouring facts."""
    drawer = (
        "Liquid detergent goes in the left compartment. The fabric softener goes in the "
        "middle compartment, the one marked with a flower."
    )
    weights = {"powder": 3.8, "drawer": 3.1, "fabric": 3.1, "conditioner": 3.8}
    said = quote(
        "which bit of the drawer takes the powder, and which one the fabric conditioner?",
        weights,
        "Washing machine > Detergent",
        drawer,
    )
    assert "left compartment" in said and "middle compartment" in said, said
    said = quote("where does the fabric conditioner go?", weights, "", drawer)
    assert "left compartment" not in said, said


def test_a_heading_that_names_the_thing_is_quoted_with_the_date_asked_too() -> None:
    """ "When did we get it?" shares no word with "Bought in 2021." but asks for its date."""
    question = "what make and model is the washing machine and when did we get it?"
    assert relevance.clause_asks(question)[-1] == "when did we get it?"
    assert relevance.gives_more(question, "Washing machine (Miele WWD 120)", "Bought in 2021.")
    assert not relevance.gives_more("what make is the washing machine?", "Miele", "In 2021.")


def test_a_situation_said_without_a_subject_leads_the_question() -> None:
    """ "Freezing morning and the boiler's stopped." neither asks nor orders."""
    told = "Freezing morning and the boiler's stopped. The pipe might be iced up. What do I do?"
    assert decompose(told, lambda part: ["rag"]) == [
        "Freezing morning and the boiler's stopped. The pipe might be iced up. What do I do"
    ]
    # A request is a part of its own, and so is a list of things to look up.
    assert decompose("Turn on the lights. Is the door locked?", lambda part: ["ha"]) == [
        "Turn on the lights",
        "Is the door locked",
    ]
    assert len(decompose("Hi! Will it rain tomorrow?", lambda part: ["forecast"])) == 1


async def test_whether_it_costs_anything_is_answered_by_free(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Do we have to pay?" shares no word with "Repairs under warranty are free"."""
    client = await household(make_client, tmp_path)
    await says(
        client,
        "If it breaks while it's under guarantee, do we have to pay anything for the repair?",
        "free",
    )
    aside = relevance._aside_words("where's the fuse box so I can flip the switch back on")
    assert "flip" in aside and "fuse" not in aside


def test_a_record_line_beside_the_one_that_names_it_steps_back() -> None:
    """ "The model number": the appliance line names the model; the serial line only the
    number, though a model finds them alike."""
    from mnemolis.knowledge.database import Hit
    from mnemolis.knowledge.documents import Passage
    from mnemolis.sources.rag import SIBLING_WEIGHT, sibling_named

    def line(n: int, text: str, things: bool) -> Any:
        hit = Hit(n, "/h/warranty.txt", n, "WARRANTY RECORD", text, 1.0)
        match = relevance.Match(0.5, 0.9, things=things)
        return (match, 0.7, 0.0, n, Passage("household", hit, hit.path, 1.0))

    serial = line(0, "Serial number: FD 0123 456789", False)
    model = line(1, "Appliance: Bosch dishwasher, model SMS4HVI33G", True)
    out = sibling_named([serial, model])
    assert out[0][1] == 0.7 * SIBLING_WEIGHT and out[1][1] == 0.7
    # Alone, or beside lines that name nothing either, it keeps its rating.
    assert sibling_named([serial])[0][1] == 0.7


async def test_each_ask_is_answered_by_its_own_record_line(
    make_client: Client, tmp_path: Path
) -> None:
    """Two asks that two lines answer get both lines, cited once, the heading said once;
    a kind of fact asked without a name ("when did we get it?") takes the line that says
    it (the purchase date, not the end of the cover)."""
    client = await household(make_client, tmp_path)
    body = await ask(client, "give me the dishwasher's model number and serial number")
    for form in ("result", "spoken"):
        assert "SMS4HVI33G" in body[form] and "FD 0123 456789" in body[form], body
    assert body["result"].count("[1, household: dishwasher-warranty.txt]") == 1, body
    body = await ask(client, "Query: wifi network name and password")
    assert body["result"].startswith("Wifi — Network: Meadowlark; Password: tulip-harbour-42 ")
    body = await ask(client, "what brand is our dishwasher and when did we get it?")
    assert "Bosch" in body["result"] and "14 March 2023" in body["result"], body
    assert "14 March 2028" not in body["result"], body


async def test_a_request_and_a_part_asked_with_the_whole_weigh_nothing(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Remind me", "give me the instructions for", "including the postcode, I need it
    for a form": how the person asks, not what about."""
    client = await household(make_client, tmp_path)
    await says(client, "remind me which day they pick up the recycling", "every other Friday")
    await says(
        client,
        "what's our full address including postcode, I need it for a delivery form",
        "14 Elm Road",
    )
    assert relevance._frame_words("Query: garage alarm code") == {"query"}
    assert relevance._frame_words("what should the gauge read?") == frozenset()
    assert relevance._frame_words("which network do i pick on my phone?") == {"pick"}
    assert relevance._frame_words("I'm staying over. Could you please tell me the code?") == {
        "tell"
    }


def test_what_that_means_is_answered_by_what_it_means() -> None:
    """ "…, what does that mean?" of a beep described asks what it means, as "why" does:
    the chirp's line says so, the test's beep (sharing more of the words) does not."""
    question = "the round thing keeps beeping once every minute, what does that mean?"
    chirp = "A single chirp every 40 seconds means the alarm has reached the end of its life."
    beep = "Press the test button once a week. The alarm sounds a loud beep."
    assert relevance.gives_what_is_asked(question, chirp)
    assert not relevance.gives_what_is_asked(question, beep)
    assert relevance.ASKS_WHY.match("What's that about?")
    assert not relevance.ASKS_WHY.match("what does F22 mean?")  # asked of a code: its row


async def test_two_codes_are_answered_each_by_its_row(make_client: Client, tmp_path: Path) -> None:
    """Each row holds one of the two codes asked about; both are read out."""
    table = (
        "<html><body><h1>Boiler</h1><h2>Fault codes</h2><table><tr><th>Code</th><th>Meaning"
        "</th></tr><tr><td>F22</td><td>Low water pressure</td></tr><tr><td>F28</td><td>"
        "Ignition failure</td></tr></table></body></html>"
    )
    client = await notes_client(make_client, tmp_path, {"boiler.html": table})
    body = await ask(client, "what's the difference between an F22 and an F28 on the boiler?")
    assert "Low water pressure" in body["result"] and "Ignition failure" in body["result"], body


async def test_how_to_ring_someone_is_answered_by_their_number(
    make_client: Client, tmp_path: Path
) -> None:
    """ "…, who was that plumber we used and how do I ring him?": both are asked (the lead
    ends before "who", not at "and how"), "him" is the plumber, and a number says how."""
    client = await household(make_client, tmp_path)
    await store_of(client).remember("Plumber: Dave Jones, 07700 900123 (he fixed the leak).")
    question = (
        "the kitchen tap's spraying everywhere, who was that plumber we used and how do I ring him?"
    )
    await says(client, question, "07700 900123")
    assert relevance.asked(question) == "who was that plumber we used and how do I ring him?"
    assert "plumber" not in relevance._aside_words(question)
    assert decompose(question, lambda part: ["memory"])[0].startswith(
        "the kitchen tap's spraying everywhere. who was that plumber"
    )


def test_offline_and_plain_questions_are_asked_of_the_assistant() -> None:
    """ "Can you still answer without the internet?" is about the assistant; "what sources
    do you search?" is asked in plain words (prose answers it before API reference),
    "the MCP endpoint" is not."""
    assert about_mnemolis("the broadband's gone down, can you still answer without the internet?")
    assert not about_mnemolis("the internet is down, what's the router password?")
    assert asked_plainly("What sources do you actually search when I ask you something?")
    assert not asked_plainly("what is your MCP endpoint?")


@pytest.mark.parametrize(
    ("text", "asked", "start"),
    [
        (
            "Yes, for everything kept at home: Mnemolis is local-first, so your documents,\n"
            "memories and the local model keep answering without a connection.",
            "connection",
            "Yes, for everything kept at home",
        ),
        (
            "Mnemolis searches nine sources: your home's devices and sensors in Home\n"
            "Assistant, the weather forecast, and what you asked it to remember.",
            "forecast",
            "Mnemolis searches nine sources",
        ),
    ],
)
def test_wrapped_prose_with_an_early_colon_stays_one_sentence(
    text: str, asked: str, start: str
) -> None:
    """A line with a colon early that stops mid-sentence is prose wrapped onto the next
    (lower case or capital), not a record line of its own; record lines stay lines."""
    said = quote(f"what about the {asked}?", {asked: 1.0}, "", text)
    assert said.startswith(start), said
    record = "Appliance: Bosch Serie 4 dishwasher, model SMS4HVI33G\nSerial number: FD 0123"
    assert quote("what's the serial number?", {"serial": 1.0}, "", record).startswith("Serial")


async def test_what_to_punch_in_is_the_code(make_client: Client, tmp_path: Path) -> None:
    """ "I've forgotten what to punch in" asks for the code; "forgotten" says how."""
    client = await household(make_client, tmp_path)
    await store_of(client).remember("The code for the garage side door alarm is 4711.")
    question = (
        "the panel by the garage side door is beeping at me and I've forgotten what to punch in"
    )
    await says(client, question, "4711")


async def test_a_memory_the_documents_step_aside_for_is_asked_though_not_chosen(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Give me the instructions for …" is routed to the documents and the web, not the
    memories; the documents step aside for the memory that says it better, which is then
    asked rather than the answer ending on nothing."""
    client = await household(make_client, tmp_path)
    await store_of(client).remember(
        "Feed the cat half a pouch of wet food in the morning and a handful of dry food "
        "in the evening."
    )
    body = await ask(client, "give me the instructions for feeding the cat")
    assert body["source_used"] == "memory", body
    assert "half a pouch" in body["result"], body


async def test_another_appliances_record_does_not_answer(
    make_client: Client, tmp_path: Path
) -> None:
    """The dishwasher's warranty is no answer about the tumble dryer's, nor customer
    service's number the vet's; the record still answers for its own appliance."""
    client = await household(make_client, tmp_path)
    for question in ("when does the tumble dryer's warranty run out?", "what's the vet's number?"):
        body = await ask(client, question)
        assert "No source could answer" in body["result"], (question, body)
    await says(client, "when does the dishwasher's warranty run out?", "14 March 2028")
    front = "The spare front door key is in the blue flowerpot by the back door."
    assert not relevance.names_a_rival("is there a key for the back door?", front)
    assert relevance.names_a_rival("what's the back door alarm code?", "the side door alarm")
    line, title = ["The warranty runs out on 14 March 2028."], ["dishwasher warranty"]
    assert not relevance.match(
        "when does the dryer's warranty run out?", None, line, weak=title
    ).answers
    assert relevance.match(
        "when does the dishwasher's warranty run out?", None, line, weak=title
    ).answers


def test_what_it_refers_to_and_a_voice_request_at_the_end() -> None:
    """Unpunctuated speech asks at the "where" after "can you tell me"; "it" is the thing
    told of, never the electrician; "exactly" says how it is asked."""
    question = (
        "ok so the electrician is coming round tomorrow and he's asked me to find where the "
        "consumer unit is I honestly have no idea can you tell me where it is"
    )
    assert relevance.asked(question) == "where it is"
    aside = relevance._aside_words(question)
    assert "electrician" in aside and "consumer" not in aside, aside
    assert "exactly" in relevance.FUNCTION_WORDS


def test_a_groups_own_name_says_the_member_asked() -> None:
    """ "model number" is said by "model SMS4HVI33G" (the group's name), while "meter"
    alone never says "electricity meter" (it is no group's name)."""
    line = "Appliance: Bosch Serie 4 dishwasher, model SMS4HVI33G"
    assert relevance.word_coverage("the model number?", None, line) >= 0.9
    gas = "The gas meter is outside by the front wall."
    assert relevance.word_coverage("the electricity meter?", None, gas) < 0.6


def test_each_one_and_compared_to_ask_for_every_item() -> None:
    """ "Which day does each one get emptied?" reads every bin's line; "how long does a cottons
    wash take compared to the quick wash?" asks two things."""
    bins = (
        "The general waste (black bin) is collected every Tuesday morning.\n"
        "Recycling (blue bin) goes out every other Friday.\n"
        "Garden waste (green bin) is collected on the first Monday of the month."
    )
    question = "there are three bins, which day does each one get emptied?"
    said = quote(question, {"bins": 1.0, "emptied": 1.0}, "Bins", bins)
    assert "Tuesday" in said and "every other Friday" in said and "first Monday" in said, said
    assert relevance.clause_asks("how long is a cottons wash compared to the quick wash?") == [
        "how long is a cottons wash",
        "the quick wash?",
    ]


def test_words_that_only_mark_an_example_or_another_appliance() -> None:
    """The "like" of ", like the manual for the fridge" weighs as the example does; the
    washing machine's rinse is no answer for the coffee machine; a dial is a gauge."""
    aside = relevance._aside_words("how do I add a new document to you, like the fridge manual?")
    assert "like" in aside and "document" not in aside, aside
    rinse = "Rinse off the fluff and screw it back hand-tight."
    assert relevance.names_a_rival("how do I descale the coffee machine?", rinse, "washing machine")
    gauge = "The pressure gauge should read between 1 and 1.5 bar."
    assert relevance.word_coverage("what should the dial read?", None, gauge) > 0.7


async def test_steps_answer_the_how_and_the_range_answers_the_number(
    make_client: Client, tmp_path: Path
) -> None:
    """ "What number should the gauge be on, and how do I top it up?": the question has
    no told lead (its "and" joins two asks), the range answers the number and the steps
    (which say how, never what it should read) answer the how."""
    client = await household(make_client, tmp_path)
    question = "what number should the pressure gauge be on, and how do I top it up?"
    assert relevance.asked(question) == question
    assert relevance.asks_kind("what number should the gauge be on")
    body = await ask(client, question)
    assert "1 and 1.5 bar" in body["result"] and "filling" in body["result"], body


async def test_paraphrases_of_plain_questions(make_client: Client, tmp_path: Path) -> None:
    """A paraphrase of a question the tune half answers is answered too: "the blue bin"
    is the recycling line of a note that also says "put it out"; "no cost" is "free";
    "no. 12" is "number 12"; a named person's "phone number" is the memory's number."""
    client = await household(make_client, tmp_path)
    await says(client, "When should I put the blue bin out?", "every other Friday", "Tuesday")
    await says(client, "Does the dishwasher warranty cover repairs at no cost?", "free")
    await store_of(client).remember("Plumber: Dave Jones, 07700 900123 (he fixed the leak).")
    await says(client, "Give me Dave's phone number.", "07700 900123", "0344")
    assert unshortened("who lives at no. 12?") == "who lives at number 12?"
    assert relevance.stem("living") in relevance._frame_words("who are the people living at 12?")
    serial = "Serial number: FD 0123 456789"
    assert relevance.word_coverage("the phone number?", None, serial) < 0.6


def test_one_person_is_no_answer_about_another() -> None:
    """The plumber Dave's number is no answer for Uncle Dave's; grandma's birthday none
    for mum's."""
    plumber = "Plumber: Dave Jones, 07700 900123"
    assert relevance.names_a_rival("what's Uncle Dave's phone number?", plumber)
    assert relevance.names_a_rival("when is mum's birthday?", "Grandma's birthday is on 3 June")
    assert not relevance.names_a_rival("when is nan's birthday?", "Grandma's birthday is on 3 June")


async def test_second_paraphrases_of_plain_questions(make_client: Client, tmp_path: Path) -> None:
    """A greeting before "when", "interval" for "how often", "what am I supposed to do"
    and "how I make …" for "how do I"; a memory that answers is asked though no
    document matched and the route did not choose the memories."""
    assert relevance.asked("hey when does the dishwasher guarantee end") == (
        "when does the dishwasher guarantee end"
    )
    assert relevance.asks_kind("boiler service interval")
    assert _HOW.match(["The pipe's frozen", "What am I supposed to do?"][1])
    assert _HOW.match("How I make Mnemolis to remember some thing?")
    client = await household(make_client, tmp_path)
    await store_of(client).remember(
        "Feed the cat half a pouch of wet food in the morning and a handful of dry food "
        "in the evening."
    )
    question = "I'm not sure I'm giving the right amount. How much wet food does the cat get?"
    await says(client, question, "half a pouch")


def test_what_to_do_follows_what_is_wrong() -> None:
    """ "What am I supposed to do?" after naming the trouble: the quote that says what is
    wrong goes on to the instruction after it, though that shares none of the words."""
    text = (
        "In freezing weather the plastic condensate pipe outside can freeze and the boiler "
        "stops. Pour warm water, never boiling water, along the pipe and then reset the boiler."
    )
    weights = {"condensate": 2.0, "line": 2.0, "frozen": 2.0}
    said = quote("The condensate line's frozen up. What am I supposed to do?", weights, "", text)
    assert "Pour warm water" in said, said


async def test_third_paraphrases_of_plain_questions(make_client: Client, tmp_path: Path) -> None:
    """Texting shorthand ("hw", "wats", "r", "rn"), a dropped "g" and a roundabout
    opening ("I wonder whether you might know …", "I can't remember when …") ask what the
    plain question asks."""
    assert unshortened("hw do i reset it pls") == "how do i reset it please"
    assert unshortened("wats our address") == "what's our address"
    assert unshortened("the u-bend and the R-32 gas") == "the u-bend and the R-32 gas"
    assert relevance.asked("I wonder whether you might tell me at what time it comes on?") == (
        "at what time it comes on?"
    )
    assert relevance.asks_kind("I can't remember when the car is due its MOT.")
    assert relevance.asked("tell me the wifi password") == "tell me the wifi password"
    client = await household(make_client, tmp_path)
    assert await store_of(client).respelled("when does it need replacin'") == (
        "when does it need replacing"
    )
    await says(client, "wats our address", "14 Elm Road")
    question = "I wonder whether you might know which number I ought to ring for Bosch?"
    await says(client, question, "0344 892 8979")


def test_whether_it_still_holds_is_answered_by_until_when() -> None:
    """ "Is it still under guarantee?" asks until when the cover runs: the quote goes on
    from the length of the cover to the date it ends."""
    cover = (
        "Two years of manufacturer's guarantee, extended to five years by registering the "
        "dishwasher online.\nThe warranty runs out on 14 March 2028."
    )
    weights = {"dishwasher": 2.0, "guarantee": 2.0, "cover": 2.0}
    for question in ("Is the dishwasher still under guarantee?", "Do we still have cover?"):
        assert "14 March 2028" in quote(question, weights, "", cover), question
    assert "14 March 2028" not in quote("how long is the guarantee?", weights, "", cover)
    assert not relevance.asks_kind("is the boiler still losing pressure?")


async def test_blind_sixteenth_batch_rules(make_client: Client, tmp_path: Path) -> None:
    """A phone number asked is never answered by a line without one; "is 2.5 bar too
    high?" asks what it should be; what is to be remembered is not what is asked; "your
    databases" is about the assistant."""
    client = await household(make_client, tmp_path)
    await says(client, "Is 2.5 bar too high for the boiler?", "1 and 1.5 bar")
    await store_of(client).remember("Grandma's birthday is on 3 June; she likes lilies.")
    for question in ("What's grandma's phone number?", "What's the vet's number for the cat?"):
        body = await ask(client, question)
        assert "No source could answer" in body["result"], (question, body)
    assert relevance.gives_the_number("who was the plumber and how do I ring him?", "Dave")
    aside = relevance._aside_words("How do I get you to remember that the vet is on Friday?")
    assert "vet" in aside and "remember" not in aside
    assert about_mnemolis("Is it safe to delete one of your databases?")
    assert about_mnemolis("Where on the computer do you keep everything you know?")


async def test_where_it_was_got_from_is_where_it_was_bought(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Where did we get the dishwasher from?" is answered by the record's "Bought: … at
    Currys", not by the line that names the dishwasher."""
    assert relevance.plainly_put("where do I get the key?") == "where do I get the key?"
    client = await household(make_client, tmp_path)
    await says(client, "where did we get the dishwasher from?", "Currys")


async def test_the_spoken_form_says_the_sentence_that_answers(
    make_client: Client, tmp_path: Path
) -> None:
    """Read out in a sentence or two, a quote says the sentence giving what was asked:
    the end date for "is it still under guarantee?", the figure of the third step for
    "at what point do I shut it off?" after the situation told."""
    steps = (
        "<h2>Topping up the pressure</h2><ol><li>Switch the boiler off and let it cool.</li>"
        "<li>Open both valves of the filling loop under the boiler slowly.</li>"
        "<li>Close them when the gauge reads 1.2 bar, then switch the boiler back on.</li></ol>"
    )
    cover = "Two years of guarantee, extended to five years. It runs out on 14 March 2028."
    said = _spoken_answer(cover, "Is it still under guarantee?", 1)
    assert said == "It runs out on 14 March 2028.", said
    assert _spoken_answer(cover, "How long is the guarantee?", 1).startswith("Two years")
    client = await notes_client(make_client, tmp_path, {"boiler.html": steps})
    question = (
        "I've got the filling loop open and the needle's climbing, at what point do I shut it off?"
    )
    await says(client, question, "1.2 bar")


async def test_the_spoken_form_answers_each_ask(make_client: Client, tmp_path: Path) -> None:
    """Two asks answered by two passages are both said aloud: the gauge's range and how
    to top it up (its first two steps), not the first passage's two sentences; two record
    lines under one heading say the heading once."""
    boiler = (
        "<h2>Water pressure</h2><p>The pressure gauge should read between 1 and 1.5 bar "
        "when the heating is cold. Below 0.5 bar the boiler shuts down to protect itself.</p>"
        "<h3>Topping up the pressure</h3><ol><li>Switch the boiler off.</li><li>Open the "
        "filling loop.</li><li>Close it when the gauge reads 1.2 bar.</li></ol>"
    )
    client = await notes_client(make_client, tmp_path, {"boiler.html": boiler})
    body = await ask(client, "what number should the pressure gauge be on and how do I top it up?")
    assert "1 and 1.5 bar" in body["spoken"], body
    assert "filling loop" in body["spoken"], body
    assert "shuts down" not in body["spoken"], body
    body = await ask(client, "what's the wifi network and the password?")
    assert body["spoken"].count("Wifi") == 1, body
    assert "Meadowlark" in body["spoken"] and "tulip-harbour-42" in body["spoken"], body


def test_a_statement_after_the_question_is_no_part_of_its_own() -> None:
    """Why they ask, told after the question, is never answered itself (the dishwasher's
    serial number for "the dishwasher is making a noise"); a further ask in a few words
    after it still is one."""
    route: Callable[[str], list[str]] = lambda part: ["rag"]  # noqa: E731
    question = "What's the phone number for Bosch? The dishwasher is making a weird noise."
    assert decompose(question, route) == ["What's the phone number for Bosch"]
    assert decompose("What's our address? I need it for a form.", route) == ["What's our address"]
    assert decompose("Where's the key? And the wifi password.", route) == [
        "Where's the key",
        "the wifi password",
    ]
    aside = relevance._aside_words("What's the number for Bosch? The dishwasher is noisy")
    assert "noisy" in aside and "bosch" not in aside


def test_taking_out_going_back_over_and_occupied() -> None:
    """ "Take it out" says remove, "go back over" says reindex, and "who is number 12
    occupied by?" asks who lives there (the line need not say "occupied")."""
    assert relevance.word_coverage("take the database out", None, "remove the database") > 0.8
    assert relevance.word_coverage("go back over my files", None, "reindex my files") > 0.8
    line = "Ruth at number 12 has a spare set of car keys."
    assert relevance.word_coverage("Who is number 12 occupied by?", None, line) == 1


@pytest.mark.parametrize(
    ("question", "weights", "text", "start"),
    [
        # The range answers the check, though the next sentence shares more words.
        (
            "Is 2.5 bar too high for the boiler?",
            {"2.5": 2.5, "bar": 2.8, "high": 3.8, "boiler": 1.5},
            "The pressure gauge on the front panel should read between 1 and 1.5 bar when "
            "the heating is cold. Below 0.5 bar the boiler shuts down to protect itself.",
            "The pressure gauge",
        ),
        # "What are the steps …?": a procedure told in sentences, from its first.
        (
            "what are the steps to clear out its filter?",
            {"clear": 3.8, "out": 2.5, "filter": 3.1, "steps": 3.8},
            "Once a month, open the flap at the bottom and unscrew the filter anticlockwise. "
            "Rinse off the fluff and screw it back hand-tight.",
            "Once a month",
        ),
    ],
)
def test_the_sentence_that_answers_is_quoted(
    question: str, weights: dict[str, float], text: str, start: str
) -> None:
    """Within a passage, the sentence giving the kind of fact asked, and a procedure
    from its first instruction."""
    said = quote(question, weights, "", text)
    assert said.startswith(start), said


async def test_sibling_angles_on_the_same_fact(make_client: Client, tmp_path: Path) -> None:
    """The same fact asked from another angle: a day guessed ("is bin day a Monday?") is
    checked, not searched for; whom the answer is for ("the ambulance service", "the
    taxi", and what they do with it) is not what is asked; "what number do I dial"
    wants a phone number (never the heating dial); "too late"/"the latest" ask when."""
    client = await household(make_client, tmp_path)
    await says(client, "Is bin collection day a Monday?", "Tuesday", "Garden")
    await says(client, "What should I tell the ambulance service our address is?", "14 Elm Road")
    # Giving it is theirs, and what they do with it too ("to get home").
    await says(client, "What address should I give the taxi to get home?", "14 Elm Road")
    await says(client, "If I need to book a Bosch engineer, what number do I dial?", "0344")
    assert relevance.readings_checked("is her birthday on the 12th?") == {"12th"}
    assert relevance._aside_words("what should I give the cat?") == frozenset()
    for question in ("Is it too late to claim?", "What's the latest I can start it?"):
        assert relevance.asks_kind(question), question


async def test_a_faq_heading_that_asks_the_question_answers_it(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Hey, how do I get Mnemolis to remember something?" is answered by the FAQ entry
    that asks it (said aloud: the remember action), not by a script example whose code
    the spoken form leaves out; a greeting weighs nothing."""
    assert "hey" in relevance.FUNCTION_WORDS
    client = await household(make_client, tmp_path)
    await says(client, "hey how do I get mnemolis to remember something", "mnemolis.remember")


async def test_until_when_it_holds_is_answered_by_the_end_date(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Is the dishwasher still under warranty?", "how many months are left on it?" and
    "is it too late to claim?" are answered by the date the warranty runs out, which
    ranks above the claims line that shares more words."""
    assert relevance.asks_kind("How many months are left on the dishwasher warranty?")
    assert not relevance.gives_what_is_asked("how long is the warranty?", "runs out in 2028")
    client = await household(make_client, tmp_path)
    await says(client, "is the dishwasher still under warranty?", "14 March 2028")


async def test_which_shop_is_where_it_was_bought(make_client: Client, tmp_path: Path) -> None:
    """ "Which shop …?" is answered by the record's "Bought: … at Currys"."""
    client = await household(make_client, tmp_path)
    await says(client, "which shop did we get the dishwasher from?", "Currys")


async def test_stopping_the_water_is_turning_it_off(make_client: Client, tmp_path: Path) -> None:
    """ "Where can I stop the water?" and "water off - where?" ask for the stopcock; the
    hot water is the boiler's, and a text's "water … off" is never the stopcock."""
    assert relevance.plainly_put("water off - where?") == "turn off the water - where?"
    assert relevance.plainly_put("how do I turn the hot water off?") == (
        "how do I turn the hot water off?"
    )
    client = await household(make_client, tmp_path)
    await says(client, "Where I can stop the water?", "under the kitchen sink")


async def test_where_to_go_asks_where_it_is(make_client: Client, tmp_path: Path) -> None:
    """ "Where do I go to switch it back on?" asks where: going there is no word the notes
    need to say; "shut it all off" means everything, not the tap told of before; and in
    "I need the code to get my tablet working, what is it?" "it" is the code."""
    assert "go" in relevance._frame_words("where do I go to switch it back on?")
    told = "I've turned the kitchen tap off but water's still coming through"
    assert "tap" in relevance._aside_words(f"{told}. where do I go to shut it all off?")
    assert "tap" not in relevance._aside_words(f"{told}. where do I go to fix it?")
    # "it" is the thing needed, not what it is needed for.
    needed = "my nan says she needs the internet code to get her tablet working, what is it?"
    assert {"tablet", "working"} <= relevance._aside_words(needed)
    assert "internet" not in relevance._aside_words(needed)
    client = await household(make_client, tmp_path)
    await says(client, "The power's tripped, where do I go to switch it back on?", "garage")


def test_a_list_of_commands_is_quoted_by_the_command_asked() -> None:
    """Of a block of commands, one per line with a comment, "how do I re-index it?" is
    quoted its one command, not the whole list; a question no command's own words
    answer ("forget the index" is no way to index) gets the list, and a config file
    is quoted whole."""
    commands = (
        "```sh\n"
        "tool add manuals /share/manuals   # index now, print the result\n"
        "tool list                         # status of every database\n"
        "tool reindex manuals              # re-read every file\n"
        "tool remove manuals               # forget the index (files stay)\n"
        "```"
    )
    said = quote("how do I reindex the tool's manuals?", {}, "Commands", commands)
    assert said == "```\ntool reindex manuals              # re-read every file\n```", said
    said = quote("how do I remove a database from the tool?", {}, "Commands", commands)
    assert "tool remove manuals" in said and "reindex" not in said, said
    assert quote("how do I index my documents?", {}, "Commands", commands) == commands
    config = '```json\n{\n  "tool": {\n    "add": "x",\n    "remove": "y"\n  }\n}\n```'
    assert quote("how do I remove it?", {}, "Config", config) == config


def test_a_wrapped_line_that_reads_like_a_record_goes_on_with_its_sentence() -> None:
    """A hard-wrapped sentence whose next line happens to read "words: more words" is
    one sentence, never a fragment quoted as a record ("not searched at all: …")."""
    text = (
        "It needs a moment to be indexed. A folder nobody registered yet is\n"
        "not searched at all: register it first.\n\nWifi: Meadowlark"
    )
    assert _units(text) == [
        "It needs a moment to be indexed.",
        "A folder nobody registered yet is not searched at all: register it first.",
        "Wifi: Meadowlark",
    ]


async def test_where_the_fact_was_put_is_not_what_is_asked(
    make_client: Client, tmp_path: Path
) -> None:
    """ "… the birthday I asked you to remember" is the birthday: a memory never says it
    was asked to be remembered."""
    assert relevance._frame_words("when's the birthday I asked you to remember?") == {
        "ask",
        "remember",
    }
    client = await household(make_client, tmp_path)
    await store_of(client).remember("Grandma's birthday is on 3 June; she likes lilies.")
    await says(
        client, "when's the car's MOT and when's the birthday I asked you to remember?", "3 June"
    )


def test_sentences_set_two_spaces_apart_are_prose_not_a_table() -> None:
    """Plain-text files often put two spaces after a full stop; two such lines in a row
    are sentences, never a space-aligned table whose "header" is half a sentence (the
    quote read "to see if the answer it?: you have, well, then panic., If: Or, …")."""
    text = (
        "Have you checked the FAQs on the\n"
        "website, to see if the answer is there?  If\n"
        "you have, well, then panic.  Or, alternatively, you could\n"
        "ask on the mailing list."
    )
    assert _units(text) == [
        "Have you checked the FAQs on the website, to see if the answer is there?",
        "If you have, well, then panic.",
        "Or, alternatively, you could ask on the mailing list.",
    ]
    table = "Date        Item          Cost\n03/02/2026  New tires     $612.40"
    assert _units(table) == ["Date: 03/02/2026, Item: New tires, Cost: $612.40"]


def test_a_wrapped_list_item_stays_one_even_without_its_indent() -> None:
    """A list item wrapped onto a line that lost its indent (the chunk's lines are
    stripped) is one item, never quoted cut off at "that sends the whole"."""
    text = (
        "* a conversation agent for Assist that sends the whole\n"
        "question to the router and speaks the answer;\n"
        "* actions for automations.\nThey return data."
    )
    assert _units(text) == [
        "* a conversation agent for Assist that sends the whole question to the router"
        " and speaks the answer;",
        "* actions for automations.",
        "They return data.",
    ]


async def test_a_faq_entry_further_down_the_search_is_a_candidate(
    make_client: Client, tmp_path: Path
) -> None:
    """A question sharing one common word with a hundred passages ("search") still finds
    the answer under a heading that asks it, though the search ranks it far down."""
    reference = "\n\n".join(
        f"## Search option {n}\n\nThe search option {n} sets how a search of the index "
        f"is run; search results of search {n} are sorted by the search score."
        for n in range(24)
    )
    faq = (
        "# Questions\n\n## What can it look things up in?\n\nIt looks in nine sources: the "
        "home, the forecast, the news and your own documents, and searches them all."
    )
    client = await notes_client(
        make_client, tmp_path, {"reference.md": reference, "questions.md": faq}
    )
    await says(client, "what can it actually search through?", "nine sources")


async def test_each_code_asked_in_one_breath_is_read_from_its_own_row(
    make_client: Client, tmp_path: Path
) -> None:
    """ "What do F22 and F75 mean?" is one ask about two codes: each row says its own
    (a table with a "what to do" column is a chunk per row), read and spoken."""
    rows = "".join(
        f"<tr><td>{code}</td><td>{meaning}</td><td>{todo}</td></tr>"
        for code, meaning, todo in [
            ("F22", "Low water pressure", "Top up the pressure with the filling loop."),
            ("F28", "Ignition failure, no flame after five attempts", "Check the gas supply."),
            ("F75", "Pressure sensor fault", "Call an engineer."),
        ]
    )
    table = (
        "<html><body><h1>Boiler</h1><h2>Fault codes</h2><table><tr><th>Code</th><th>Meaning"
        f"</th><th>What to do</th></tr>{rows}</table></body></html>"
    )
    client = await notes_client(make_client, tmp_path, {"boiler.html": table})
    body = await ask(client, "What do F22 and F75 mean on the boiler?")
    for form in ("result", "spoken"):
        assert "Low water pressure" in body[form] and "Pressure sensor fault" in body[form], body
        assert "Ignition failure" not in body[form], body


async def test_what_label_is_asked_is_answered_by_the_line_it_labels(
    make_client: Client, tmp_path: Path
) -> None:
    """ "What serial number goes on the claim form?" asks for the value labelled "Serial
    number", not the claims sentence that says to quote the serial number."""
    client = await notes_client(make_client, tmp_path, {})
    await says(
        client,
        "What serial number goes on the dishwasher warranty claim form?",
        "FD 0123 456789",
    )
    body = await ask(client, "What serial number does the oven have?")
    assert "FD 0123" not in body["result"], body  # the dishwasher's is no oven's


async def test_what_a_thing_is_is_answered_by_the_sentence_saying_it_is(
    make_client: Client, tmp_path: Path
) -> None:
    """ "What is Larkspur?" is answered by "Larkspur is a small catalogue program …", not
    by a sentence that only mentions it, though that one shares as many words and comes
    first. An FAQ's answers read without their questions have this shape."""
    about = (
        "# About Larkspur\n\n"
        "In March 2019, Larkspur was adopted by the town library as its catalogue tool. "
        "Larkspur reached version 2.0 that summer.\n\n"
        "Larkspur is a small catalogue program for home book collections, written to "
        "replace a card index.\n"
    )
    client = await notes_client(make_client, tmp_path, {"larkspur.md": about})
    await says(client, "What is Larkspur?", "small catalogue program", never="March 2019")
    await says(client, "what's Larkspur?", "small catalogue program", never="March 2019")
    # Not a definition asked: the sentence sharing the words answers as ever.
    await says(client, "When was Larkspur adopted by the library?", "March 2019")


async def test_a_yes_or_no_question_is_answered_by_the_entry_that_says_which(
    make_client: Client, tmp_path: Path
) -> None:
    """An FAQ's answers read without their questions: "Is Quill dependent on pickle?" is
    answered by the entry opening "No, …", not by a note that mentions both words; and an
    entry opening "No, …" is quoted from there, not from the list item sharing a word."""
    faq = (
        "# Storage\n\n"
        "Whatever Quill depends on, the photo album also uses pickle for its cache.\n\n"
        "No, Quill can store notes in any format you like. JSON, YAML and pickle are "
        "built in.\n\n"
        "# Size\n\n"
        "No, such numbers have been reported in a few places. The numbers today are:\n\n"
        "- core: 7,141 lines of code\n"
        "- tests: 14,209 lines\n"
    )
    client = await notes_client(make_client, tmp_path, {"quill-faq.md": faq})
    await says(client, "Is Quill dependent on pickle?", "any format", never="photo album")
    await says(client, "Does Quill really have 50,000 lines of code?", "No, such numbers")


async def test_an_faq_entry_is_quoted_from_its_opening_paragraph(
    make_client: Client, tmp_path: Path
) -> None:
    """Under a heading asking the very question every paragraph of the entry matches it
    whole; the answer is its opening ("In the grey lockbox …"), not a later paragraph
    that repeats the question's words more often, nor a line trailing a command."""
    faq = (
        "# House FAQ\n\n"
        "## Where does the spare key live?\n\n"
        "In the grey lockbox by the back door; the code is on the fridge.\n\n"
        "We moved the spare key there in 2023, after the spare key under the mat went "
        "missing.\n\n"
        "Ask Tom if the spare key is not in the lockbox.\n\n"
        "## Who mows the lawn?\n\n"
        "Sam from next door, every second Saturday.\n"
    )
    client = await notes_client(make_client, tmp_path, {"house-faq.md": faq})
    await says(client, "Where does the spare key live?", "grey lockbox", never="2023")


async def test_a_compound_written_open_in_the_notes_answers_it_written_closed(
    make_client: Client, tmp_path: Path
) -> None:
    """The contact list says "Air con service", the question "aircon": the same word, so
    the trade's line answers, not the manual's "call a service agent". Two function words
    side by side are no compound ("we are" is no "wear")."""
    contacts = (
        "# Trades\n\n- Air con service: Frostline Cooling, 0491 570 111\n"
        "- Plumber: Dan Reyes, 0491 570 222\n"
    )
    manual = "# Aircon manual\n\nCall an agent if the unit shows E1 for an hour.\n"
    client = await notes_client(
        make_client, tmp_path, {"contacts.md": contacts, "aircon-manual.md": manual}
    )
    await says(client, "who do we get to service the aircon?", "Frostline", never="E1")
    assert "wear" not in relevance.words_of("Ruth feeds the cat when we are away.")


async def test_a_name_the_question_asks_about_must_be_in_the_line(
    make_client: Client, tmp_path: Path
) -> None:
    """ "When's Sam due at the dentist?" is not answered by the line about Mia's check-up:
    the name the question asks about ("when's Sam", "is Sam") must be in the passage,
    as for "does Mia …"; a name owning the thing ("is Bec's ring covered?") is whose
    it is, and a line not naming anyone else still answers it."""
    contacts = (
        "# Family\n\n- Dentist: Dr. Hugh Park, (03) 5550 1234. Mia's check-up is due in March.\n"
    )
    policy = "# Contents policy\n\n## What is covered\n\nSpecified item: engagement ring, $6,200.\n"
    client = await notes_client(
        make_client, tmp_path, {"family.md": contacts, "contents-policy.md": policy}
    )
    await says(client, "When's Mia due at the dentist?", "March")
    body = await ask(client, "When's Sam due at the dentist?")
    assert "March" not in body["result"] and body["source_used"] == "none", body
    await says(client, "Is Bec's engagement ring covered, and for how much?", "$6,200")


async def test_a_one_digit_fault_code_told_first_is_what_is_asked(
    make_client: Client, tmp_path: Path
) -> None:
    """Air conditioners show one-digit codes (E1, F3, P4). "Split system's showing F3. Can
    I fix that myself …?" asks about F3, told before the question: its row answers, and
    a passage sharing only "fix" ("a fixed term") never does, since it lacks the code."""
    manual = (
        "<html><body><h1>Split system manual</h1><h2>Error codes</h2><table>"
        "<tr><th>Code</th><th>Meaning</th><th>What to do</th></tr>"
        "<tr><td>E1</td><td>Room sensor fault</td><td>Call a service agent</td></tr>"
        "<tr><td>F3</td><td>Outdoor coil sensor fault</td><td>Call a service agent</td></tr>"
        "<tr><td>P4</td><td>Compressor overheating</td><td>Clear leaves from the unit</td></tr>"
        "</table></body></html>"
    )
    lease = "# Lease\n\nTerm: a fixed term of 12 months from 1 March 2026.\n"
    client = await notes_client(
        make_client, tmp_path, {"split-system.html": manual, "lease.md": lease}
    )
    body = await ask(
        client, "Split system's showing F3. Can I fix that myself or do I need to get someone out?"
    )
    assert "Outdoor coil" in body["result"] and "fixed term" not in body["result"], body
    assert relevance.code_spans("what do E1 and P4 mean?") == [("e1", 8, 10), ("p4", 15, 17)]


async def test_how_big_is_answered_by_a_size(make_client: Client, tmp_path: Path) -> None:
    """ "How big's the hot water tank?" asks for a size: the manual's "250 litre tank"
    answers, not the house notes' line about where the hot water system stands, though
    that one shares more words."""
    notes = "# Hot water\n\nThe hot water is a heat pump on the left side of the house.\n"
    manual = (
        "<html><body><h1>Heat pump owner's guide</h1><p>Your system heats water outside and "
        "stores it in a 250 litre tank. It runs mostly in the day.</p></body></html>"
    )
    client = await notes_client(
        make_client, tmp_path, {"hot-water.md": notes, "heat-pump-guide.html": manual}
    )
    await says(client, "How big's the hot water tank?", "250 litre", never="left side")
    assert relevance.gives_what_is_asked("what size is the aircon?", "Model K-71 (7.1 kW)")
    assert not relevance.gives_what_is_asked("how big is the pool?", "We bought it in 2021.")


async def test_what_hours_asks_for_times_not_a_duration(
    make_client: Client, tmp_path: Path
) -> None:
    """ "What hours is the hot water set to heat up?" asks for times of day: the timer's
    "10 am to 4 pm", not "it can take up to 3 hours", which only shares "hours". Days
    written in the plural ("Tuesdays and Fridays") answer "which days …?"."""
    notes = (
        "# Hot water\n\nThe hot water is a heat pump by the side gate. It can take up to 3 "
        "hours to heat up a full tank after a lot of showers.\n"
    )
    manual = (
        "<html><body><h1>Heat pump guide</h1><p>The default temperature is 60 degrees. "
        "The hot water timer is set to heat from 10 am to 4 pm.</p></body></html>"
    )
    school = "# School\n\nSport uniform on Tuesdays and Fridays.\n"
    client = await notes_client(
        make_client,
        tmp_path,
        {"hot-water.md": notes, "heat-pump-guide.html": manual, "school.md": school},
    )
    await says(client, "What hours is the hot water set to heat up?", "10 am to 4 pm")
    await says(client, "which days do the kids wear sport uniform?", "Tuesdays and Fridays")


async def test_the_aircon_filter_is_no_answer_for_the_dishwasher_filter(
    make_client: Client, tmp_path: Path
) -> None:
    """An air conditioner is an appliance like the dishwasher: its manual's "clean the
    two air filters every two weeks" answers how to clean the aircon's filter and
    never how to clean the dishwasher's, which no document describes."""
    manual = (
        "# Split system manual\n\n## Cleaning\n\nClean the two air filters every two weeks. "
        "Slide them out, rinse them in lukewarm water and let them dry.\n"
    )
    client = await household_client(make_client, tmp_path / "roots", {"aircon-manual.md": manual})
    await says(client, "How do I clean the aircon filter?", "every two weeks")
    body = await ask(client, "How do I clean the filter in the dishwasher?")
    assert "two weeks" not in body["result"] and body["source_used"] != "rag", body


async def test_a_name_is_said_only_as_itself(make_client: Client, tmp_path: Path) -> None:
    """Biscuit is the dog: "Biscuit's really sick, where do I take her?" is about her, and
    "her" is Biscuit. A recipe's "biscuits" and its "take them out at 12 min" say
    neither."""
    dog = (
        "# Biscuit\n\nBiscuit is our kelpie. If she is sick, take her to Highton Vet Clinic "
        "on Cox Road.\n"
    )
    recipe = (
        "NAN'S ANZAC BISCUITS\n\nBake the biscuits at 160. Take them out at 12 min for "
        "chewy ones.\n"
    )
    client = await notes_client(
        make_client, tmp_path, {"dog.md": dog, "anzac-biscuits.txt": recipe}
    )
    await says(
        client, "Biscuit's really sick and it's late, where do I take her?", "Highton", "12 min"
    )
    assert relevance.names_in("Biscuit's really sick, where do I take her?") == {"biscuit"}
    assert relevance.names_in("Toilet's running. Who's our plumber?") == frozenset()
    assert "biscuit" not in relevance._aside_words("Biscuit's sick, where do I take her?")


async def test_a_when_question_is_answered_by_the_time_of_what_it_asks(
    make_client: Client, tmp_path: Path
) -> None:
    """ "What time is Lachie's swimming lesson?" is not answered by Lachie's bath time:
    the time must be of what is asked about, not only of whom. "When is it set to
    start?" after "the heating keeps coming on" asks the heating's time."""
    sheet = "# Babysitting\n\nLachie has his bath at 6.30 and is in bed by 7.15pm.\n"
    heating = "# Heating\n\nThe heating is set to start at 6:00 on weekdays.\n"
    client = await notes_client(
        make_client, tmp_path, {"babysitter.md": sheet, "heating.md": heating}
    )
    body = await ask(client, "What time is Lachie's swimming lesson?")
    assert "6.30" not in body["result"], body
    await says(client, "What time does Lachie go to bed?", "7.15pm")
    await says(client, "the heating keeps coming on too early, when is it set to start?", "6:00")
    assert not relevance.names_what_happens(
        "What time is Lachie's swimming lesson?", "Lachie has his bath at 6.30."
    )


def test_is_that_true_asks_about_what_was_told() -> None:
    """ "The kids say they can have lollies after dinner. Is that true?": "true" is the
    verdict asked for, which no note writes; the told part is what is asked about."""
    question = "The kids say they can have lollies after dinner. Is that true?"
    assert relevance.ASKS_CHECK.match(question)
    assert "lollies" not in relevance._aside_words(question)
    assert "true" in relevance.readings_checked(question)


def test_a_bare_attribute_after_who_is_theirs() -> None:
    """ "Who's the kids' GP and what's the number?": the number is the GP's. Asked alone
    it is anyone's number (a memory's school-run friend read hers out). After a "what"
    question it stays its own ask ("what's the wifi called and what's the password?")."""
    assert carry_subject(["Who's the kids' GP", "what's the number"]) == [
        "Who's the kids' GP and what's the number"
    ]
    assert carry_subject(["which locksmith do we use", "what's the phone number"]) == [
        "which locksmith do we use and what's the phone number"
    ]
    assert carry_subject(["what's the wifi called", "what's the password"]) == [
        "what's the wifi called",
        "what's the password",
    ]


async def test_a_story_before_the_question_does_not_hide_its_answer(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Lachie's running a temp. Who's the kids' GP and what's the number?": the story
    leads the search to Lachie's lines, which say nothing of a GP; the question itself
    finds the contact list's GP line, which answers, and "the number" is the GP's (never
    a remembered friend's)."""
    sheet = "\n\n".join(
        f"## {topic}\n\nLachie {says_}."
        for topic, says_ in [
            ("Bath", "has his bath at 6.30 and is in bed by 7.15pm"),
            ("Library", "takes his library bag back on Wednesdays"),
            ("Allergy", "is allergic to peanuts; his EpiPen is in the top drawer"),
            ("TV", "has the TV off at 7pm"),
            ("Running", "goes running with Dad on Saturdays"),
            ("School", "is in Prep with Ms. Nguyen in room P2"),
            ("Swimming", "has swimming on Thursdays at Leisurelink"),
            ("Dinner", "eats dinner at 5.30, no lollies after 6pm"),
            ("Toys", "needs Roo the grey kangaroo to settle"),
            ("Shoes", "wears his runners to sport on Fridays"),
            ("Friends", "plays with Ava after school on Mondays"),
            ("Teeth", "brushes his teeth after breakfast and before bed"),
        ]
    )
    contacts = (
        "# Contacts\n\n- Plumber: Gary Pearce, 0491 570 110\n"
        "- GP: Dr. Priya Patel, Belmont Family Clinic, (03) 5550 3300, bulk-bills the kids\n"
    )
    client = await notes_client(
        make_client, tmp_path, {"babysitter.md": sheet, "contacts.md": contacts}
    )
    await store_of(client).remember(
        "Rachel (Ava's mum) can do emergency school pick-ups, 0491 578 148."
    )
    await says(
        client,
        "Lachie's running a temp. Who's the kids' GP and what's the number?",
        "5550 3300",
        never="578 148",
    )
    await says(
        client, "Lachie's running a temp and won't eat, who's the kids' GP?", "5550", "Saturdays"
    )
    assert relevance.asked_alone("Lachie's running a temp. Who's the kids' GP?")
    # A story naming the thing asked about keeps it: it is what the question is about.
    assert (
        relevance.asked_alone("I'm looking at the boiler gauge. What should the pressure be?")
        is None
    )
    assert relevance.asked_alone("The boiler's stopped. How do I reset it?") is None


def test_a_story_told_in_two_clauses_stays_one_story() -> None:
    """ "Lachie's running a temp and won't eat, who's the kids' GP?": "won't eat" says
    more of Lachie, it asks nothing; asked on its own, "Lachie's running a temp" read
    out "Lachie goes running with Dad". An auxiliary followed by its subject still asks
    ("… and are services up?")."""

    def sources(_: str) -> list[str]:
        return ["rag"]

    story = "Lachie's running a temp and won't eat, who's the kids' GP?"
    assert len(decompose(story, sources)) == 1
    assert (
        len(decompose("The boiler is leaking and has lost pressure, who do I call?", sources)) == 1
    )
    assert decompose("The kids are bored and is the pool open?", sources) == [
        "The kids are bored",
        "is the pool open",
    ]


def test_a_word_of_english_is_no_typing_slip() -> None:
    """ "Chlorinator's saying low salt, how much do I chuck in?": "chuck" is a word, not
    a slip of the pool notes' "check", so the monthly check's line (which also names the
    salt chlorinator) no longer outweighs the line saying how much salt goes in (it read
    out "Kylie … does a monthly check")."""
    question = "Chlorinator's saying low salt, how much do I chuck in?"
    check = "Pool is 42,000 L with a salt chlorinator. Kylie does a monthly check."
    salt = "Chlorinator shows LOW SALT -> tip in two 20 kg bags of pool salt."
    weights = {"chlorinator": 3.6, "saying": 4.3, "low": 3.4, "salt": 3.9, "chuck": 5.0}
    assert relevance.word_coverage(question, weights, check) < relevance.word_coverage(
        question, weights, salt
    )
    assert relevance.misspelt_in("pasword", frozenset({"password"}))
    assert not relevance.misspelt_in("chuck", frozenset({"check"}))


async def test_you_guys_is_no_part_of_what_is_asked(make_client: Client, tmp_path: Path) -> None:
    """ "Which locksmith do you guys use?": "guys" is whom it is asked of, like "hey"; as
    a word no note uses it weighed the most, and the contact list's locksmith line,
    short of it, lost to a memory about the spare key (household2's weights)."""
    question = "Lost the house keys. Which locksmith do you guys use?"
    client = await notes_client(make_client, tmp_path, {})
    weights = await store_of(client).term_weights(question)
    assert weights["guys"] == 0.0
    row = "Job: Locksmith | Name: Geelong Lock & Key | Phone: (03) 5550 7712 | Notes: 24 hr"
    household = {"lost": 5.0, "house": 1.9, "keys": 3.4, "locksmith": 4.3, "use": 2.8}
    assert relevance.match(question, household | {"guys": weights["guys"]}, [row]).answers


async def test_what_temp_asks_for_a_temperature_and_a_wish_is_an_aside(
    make_client: Client, tmp_path: Path
) -> None:
    """ "What temp should the heat pump be on at night if we don't want a huge gas bill?":
    "temp" is the temperature asked for, which "17 degrees" gives, and what they wish
    for ("… if we don't want …") says why they ask, not what about. A condition on the
    thing ("who do I call if the toilet overflows?") is still asked."""
    manual = (
        "<html><body><h1>Heat pump HP-9</h1><h2>The remote</h2>"
        "<p>MODE switches between Heat, Cool and Fan. For low running costs keep it at "
        "17 degrees at night and 20 degrees in the day.</p>"
        "<h2>Filters</h2><p>Rinse both filters under the tap once a month.</p>"
        "</body></html>"
    )
    client = await notes_client(make_client, tmp_path, {"heat-pump.html": manual})
    question = "what temp should the heat pump be on at night if we don't want a huge gas bill"
    await says(client, question, "17 degrees")
    assert relevance.ASKS_TEMPERATURE.match("what temp is the oven?")
    assert {"huge", "gas", "bill"} <= relevance._aside_words(question)
    assert not relevance._aside_words("who do I call if the toilet overflows?")


def test_how_much_of_a_thing_is_its_line_of_a_list() -> None:
    """ "How much butter goes in Nan's Anzac bikkies?" read out the recipe's title, whose
    "makes about 24" is an amount, but not of butter; the ingredient list, written one
    item a line without marks, was chunked with "125 g butter" as a heading and quoted
    as one sentence. The list is one passage of items, and the quote is butter's line;
    "how many times/weeks …" counts in a unit it need not name."""
    recipe = (
        "NAN'S ANZAC BISCUITS  (makes about 24)\n\nIngredients\n1 cup rolled oats\n"
        "1 cup plain flour\n3/4 cup brown sugar\n125 g butter\n2 tbsp golden syrup\n\n"
        "Method\n1. Oven to 160 fan. Line two trays with baking paper.\n"
        "2. Melt the butter and golden syrup in a saucepan.\n"
    )
    chunks = chunk_sections(text_sections(recipe))
    listed = next(c for c in chunks if "125 g butter" in c.content)
    assert listed.heading == "Ingredients" and "1 cup rolled oats" in listed.content
    question = "How much butter goes in Nan's Anzac bikkies?"
    weights = {"butter": 3.9, "goes": 3.3, "nan": 3.1, "anzac": 3.3, "bikkies": 5.0}
    assert quote(question, weights, "Ingredients", listed.content) == "125 g butter"
    title = "NAN'S ANZAC BISCUITS  (makes about 24)"
    assert not relevance.match(question, weights, [title]).attribute
    assert not relevance.names_the_measured(question, "Melt the butter and golden syrup.")
    assert relevance.names_the_measured("how many times should I try?", "Twice.")
    assert relevance.names_the_measured("how much does it cost?", "It is free.")
    # Code is no list: indented lines stay as they are.
    assert not unmarked_list(["    @app.task", "    def task():", "        pass"])


async def test_anything_i_should_know_asks_for_what_the_notes_say_of_it(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Baking a cake at your place tomorrow. Anything weird about the oven I should
    know?" asks what the notes say of the oven, whatever they call it ("weird" is in no
    note); "…, any tricks?" after a story asks about the story itself."""
    guide = (
        "# House guide\n\n## Oven\n\nTurn the left knob to the fan symbol and the right "
        "knob to the temperature. Note it runs hot - take 10 degrees off any recipe.\n\n"
        "## Bins\n\nBins go out on Sunday night.\n"
    )
    client = await notes_client(make_client, tmp_path, {"house-guide.md": guide})
    await says(
        client,
        "Baking a cake at your place tomorrow. Anything weird about the oven I should know?",
        "runs hot",
    )
    assert relevance._aside_words("Lachie's crying and won't settle down, any tricks?") == (
        frozenset()
    )
    assert "any" in relevance.FUNCTION_WORDS


def test_midnight_is_after_hours() -> None:
    """ "Biscuit's really sick and it's midnight, where do I take her?": the dog notes say
    "After hours: Geelong Animal Emergency Centre". Midnight, overnight and after hours
    are late, as "at night" and "after 10" already were."""
    question = "Biscuit's really sick and it's midnight, where do I take her?"
    weights = {"biscuit": 2.2, "really": 0.0, "sick": 4.3, "midnight": 5.0, "take": 3.6}
    vet = "Highton Vet Clinic. After hours: Geelong Animal Emergency Centre, open 24/7."
    laundry = "Only into the laundry, where her bed is."
    assert relevance.word_coverage(question, weights, vet, "Biscuit") > (
        relevance.word_coverage(question, weights, laundry, "Biscuit")
    )


async def test_a_code_for_a_thing_is_that_things_and_never_a_phone_number(
    make_client: Client, tmp_path: Path
) -> None:
    """ "What's the code to turn off the house alarm?" (the house has no alarm notes) read
    out the heat pump's "Error codes" line "Turn the unit off … contact Reclaim service
    on 1800 160 402": the phone number's digits were taken for a code, and what the code
    is for ("to turn off the house alarm") named nothing it must be of. "whats the code
    for the garage door keypad" read out the lockbox's code from a memory."""
    manual = (
        "<html><body><h1>Heat pump owner's guide</h1><h2>Error codes</h2>"
        "<p>E07 means low refrigerant pressure. Turn the unit off at the isolating switch "
        "and contact Reclaim service on 1800 160 402.</p></body></html>"
    )
    client = await notes_client(make_client, tmp_path, {"heat-pump.html": manual})
    body = await ask(client, "What's the code to turn off the house alarm?")
    assert "No source could answer" in body["result"], body
    # Typed without its apostrophe, the question still asks for the keypad's code.
    await store_of(client).remember("The spare key is in the lockbox by the side gate, code 2961.")
    body = await ask(client, "whats the code for the garage door keypad")
    assert "2961" not in body["result"], body
    assert relevance.asked_attribute("whats the code for the garage door keypad") == ("code",)
    assert relevance.attribute_held("what's the lockbox code?", "lockbox, code 2961") == (
        True,
        (),
    )
    assert relevance.attribute_held("what's the gate code?", "Gate: ring Dave on 0491 574 118") == (
        False,
        (),
    )


def test_a_landlord_is_a_rental_provider() -> None:
    """ "The pool pump's carked it. Is fixing it on us or the landlord?": an Australian
    lease says "rental provider" (and "renter") where a question says landlord."""
    assert relevance.word_coverage("who is the landlord?", None, "Rental provider: G. Lowe") > 0
    assert relevance.word_coverage("who is the tenant?", None, "Renter: Bec Fitzgerald") > 0


def test_where_can_i_take_her_asks_about_what_was_told_of_her() -> None:
    """ "Biscuit's vomiting and it's after midnight, where can I take her?": the question
    itself says only "take" and "her" (Biscuit), so what was told of her (vomiting, after
    midnight) is what it asks about, not an aside weighing a quarter; the laundry,
    "where her bed is", no longer beats the after-hours emergency vet."""
    question = "Biscuit's vomiting and it's after midnight, where can I take her?"
    assert relevance._aside_words(question) == frozenset()
    # A question with words of its own keeps its story aside.
    story = "I need to order a replacement basket for the dishwasher. What make is it?"
    assert "basket" in relevance._aside_words(story)


def test_a_short_answer_is_not_labelled_with_its_own_question() -> None:
    """A short answer line is read with its heading ("Wifi — Password: …"), but not when
    the heading is the question: "How do I unpack it? — tar xf pump.tar" reads the
    question back before the answer."""
    heading = "pump faq > How do I unpack the firmware?"
    said = quote("How do I unpack the firmware?", {}, heading, "tar xf pump.tar | tar tvf -")
    assert said == "tar xf pump.tar | tar tvf -"
    assert quote("what's the password?", {}, "notes > Wifi", "Password: tulip-42").startswith(
        "Wifi — "
    )


def test_a_group_title_in_capitals_is_no_answer() -> None:
    """ "CHANGING BLOCKS (consecutive lines)", a group's name in a FAQ's contents, says
    what the entries after it are about: no answer to the question over it."""
    assert rag._title_alone("CHANGING BLOCKS (consecutive lines)")
    assert rag._title_alone("SafeHome SA-10 smoke alarm")
    assert not rag._title_alone("Use tr(1) or GNU sed's \\U and \\L escapes (see below).")
    assert not rag._title_alone("ON")
    assert not rag._title_alone("Bell 8.50am, finishes 3.20pm (Fridays 2.30pm, last year)")


def test_a_question_heading_is_never_the_model_named() -> None:
    """ "Why does it report an unknown file system type on HP-UX 11?" says "type", but
    the FAQ's question over the answer is no model name to read out in its place."""
    heading = "lsof FAQ > 9.2.9 Why does lsof for HP-UX 11 report an unknown file system type?"
    asked = "Why does lsof for HP-UX 11 report an unknown file system type"
    assert rag.named_in_heading(asked, heading, "The binary lacks VxFS support.") == ""
    washer = "Laundry > Washing machine (Miele WWD 120)"
    assert rag.named_in_heading("what model is the washing machine?", washer, "Spin at 1200.")


CONTACTS = """# Contacts

## Trades

| Job | Name | Phone | Notes |
|---|---|---|---|
| Plumber | Gary Pearce | 0491 570 110 | cash discount |
| Electrician | Anh Tran, Sparkwise Electrical | 0491 571 266 | safety switch |
| Locksmith | Geelong Lock & Key | (03) 5550 7712 | 24 hr |

## Health

| Who | Name | Phone | Notes |
|---|---|---|---|
| GP | Dr. Priya Patel, Belmont Family Clinic | (03) 5550 3300 | bulk-bills the kids |
| Vet | Dr. Sam Whitfield, Highton Vet Clinic | (03) 5550 9184 | the dog's vet |
"""


async def test_contact_questions_put_as_people_say_them(
    make_client: Client, tmp_path: Path
) -> None:
    """A third blind writer's contact questions: "number for the sparky" and "the doctor's
    number" ask for a phone number; "the plumber we normally use" and "a locksmith who'll
    come out now" ask for the plumber and the locksmith, not for a habit or a visit."""
    client = await household_client(make_client, tmp_path / "roots", {"contacts.md": CONTACTS})
    await says(client, "number for the sparky", "0491 571 266")
    await says(
        client,
        "Lachie's running a temperature, can you give me the doctor's number",
        "5550 3300",
        never="9184",
    )
    await says(
        client,
        "There's water spraying out under the kitchen sink - who's the plumber we normally use?",
        "Gary Pearce",
    )
    await says(
        client,
        "I've locked myself out and it's 11 at night, is there a locksmith who'll come out now?",
        "Geelong Lock & Key",
    )
    assert not relevance._asks_phone("What's the model number for the dishwasher?")
    assert not relevance._asks_phone("what's the dishwasher's serial number?")


async def test_who_does_it_is_named_by_what_they_do(make_client: Client, tmp_path: Path) -> None:
    """ "Who cleans our windows?" is answered by the memory of the window cleaner."""
    client = await household_client(make_client, tmp_path / "roots", {"contacts.md": CONTACTS})
    await store_of(client).remember(
        "The window cleaner is Brendan from Clearview Windows, 0491 576 398 - he comes "
        "every three months."
    )
    await says(client, "Who cleans our windows?", "Brendan")


def test_a_sentence_about_him_is_about_the_person_named_before() -> None:
    """ "He needs Roo or he won't settle" says it of Lachie, named in the sentence before:
    "Lachie won't settle" is answered by it, without his bath time."""
    line = (
        "Lachie (5) - bath at 6.30, in bed by 7.15pm. He needs Roo (the grey toy kangaroo) "
        "or he won't settle."
    )
    said = quote("Lachie's crying and won't settle down, any tricks?", {}, "Bedtime", line)
    assert said == "He needs Roo (the grey toy kangaroo) or he won't settle."


def test_a_label_asked_for_typed_without_its_apostrophe() -> None:
    """ "whats the excess on the home contents insurance" asks for the line labelled
    "Excess", as "what's the excess?" does."""
    for question in ("whats the excess on the contents insurance", "What\u2019s the excess?"):
        assert rag.labels_what_is_asked(question, "Excess: $500 per claim"), question


def test_a_fault_told_without_a_question_is_answered_with_what_to_do() -> None:
    """ "hot water's cold" asks nothing, but the entry it finds asks what to do: its answer
    is read on to the switch to check."""
    entry = (
        "The hot water is a Reclaim heat pump on the left side of the house. Check the switch "
        "labelled HWS on the switchboard is up."
    )
    heading = "house guide > The hot water has gone cold, what do I do?"
    assert "Check the switch labelled HWS" in quote("hot water's cold", {}, heading, entry)
    assert relevance.only_tells("aircon remote's not doing anything")
    assert not relevance.only_tells("Tell me the wifi password")
    assert not relevance.only_tells("where is the fuse box")


def test_a_label_over_sentences_is_prose_under_it() -> None:
    """ "Nan says: chewy = … 15. Keep in the tin …" is two facts under a label: how long
    they bake is answered without where they are kept."""
    line = (
        "Nan says: chewy = take them out at 12 min, crunchy = 15. Keep in the tin with the "
        "koala on it, they last about 2 weeks (never do here)."
    )
    assert len(_units(line)) == 2
    asked = "I like my anzac bikkies chewy not crunchy, how long do they go in for?"
    assert quote(asked, {}, "anzac biscuits", line) == (
        "Nan says: chewy = take them out at 12 min, crunchy = 15."
    )
    assert _units("Guest password: sunnyday2026") == ["Guest password: sunnyday2026"]


def test_the_household_s_data_is_what_the_assistant_keeps() -> None:
    """ "Where is my data actually stored?" asks about the assistant's own store, though it
    says no "you": the bundled FAQ's "Everything stays in its data folder …" may answer."""
    assert about_mnemolis("where is my data actually stored")
    assert about_mnemolis("Is our data sent to some company?")
    assert not about_mnemolis("how much data is on the NAS?")
    assert not about_mnemolis("where is the fuse box?")


INSURANCE = """Harbourline Insurance - Home Contents Policy summary

Policy number: HCN-0048817-26
Contents sum insured: $85,000
Excess: $500 per claim
"""


async def test_a_number_asked_as_no_is_the_number(make_client: Client, tmp_path: Path) -> None:
    """ "contents insurance policy no.?" asks for the policy *number*, typed short and asked
    as a bare phrase: the line holding it answers, never the policy's title."""
    client = await household_client(
        make_client, tmp_path / "roots", {"contents-insurance.txt": INSURANCE}
    )
    await says(client, "contents insurance policy no.?", "HCN-0048817-26")
    await says(client, "whats the policy no.", "HCN-0048817-26")
    assert unshortened("the policy no.?") == "the policy number?"
    assert unshortened("No. Not that one") == "No. Not that one"
    asked = decompose("what is the policy no.", lambda part: ["rag"])
    assert asked == ["what is the policy number"]


def test_a_model_number_is_written_as_its_figures() -> None:
    """ "smoke alarm model number" is answered by "SafeHome SA-10 smoke alarm", which gives
    the model number without the words; a serial number must be named as one."""
    assert relevance.attribute_held("smoke alarm model number", "SafeHome SA-10 smoke alarm")
    assert relevance.attribute_held("what's the smoke alarm model number?", "SafeHome SA-10")
    held = relevance.attribute_held("dishwasher serial number", "Bosch dishwasher SMS4HVI33G")
    assert held == (False, ())
    # A bare phrase asks for its last noun too: the title holds no policy number.
    title = "Harbourline Insurance - Home Contents Policy summary"
    assert relevance.attribute_held("contents insurance policy number", title) == (False, ())


async def test_a_document_s_name_is_no_answer(make_client: Client, tmp_path: Path) -> None:
    """A policy summary's name ("Harbourline Insurance - Home Contents Policy summary") and
    a page's breadcrumb ("Reclaim Energy > Support > Owner's guide") say which document
    it is: asked what it does not cover, the summary is not quoted back."""
    client = await household_client(
        make_client, tmp_path / "roots", {"contents-insurance.txt": INSURANCE}
    )
    body = await ask(client, "does our contents policy cover public liability?")
    assert "Policy summary" not in body["result"], body
    assert rag._title_alone("Harbourline Insurance - Home Contents Policy summary")
    assert rag._title_alone("Reclaim Energy > Support > Owner's guide")
    assert not rag._title_alone("Kylie from Bellarine Pool Care does a monthly check")
    assert not rag._title_alone("Geelong Animal Emergency Centre, open 24/7")
    assert not rag._title_alone("Drop Biscuit at Nan's on Saturday")


AIRCON_FAULTS = """# Split system fault codes

| Code | Meaning | What to do |
|---|---|---|
| F3 | Outdoor coil temperature sensor fault | Call a service agent |
| E1 | Indoor room temperature sensor fault | Call a service agent |
"""


async def test_who_do_we_ring_is_answered_by_someone_to_ring(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Who do we ring to get the aircon serviced?" is answered by the firm that services
    it, with its number, never by a fault's "Call a service agent"."""
    contacts = CONTACTS.replace(
        "| Locksmith |",
        "| Air con service | CoolCoast Heating & Cooling | (03) 5550 4093 | split system |\n"
        "| Locksmith |",
    )
    client = await household_client(
        make_client,
        tmp_path / "roots",
        {"contacts.md": contacts, "aircon-manual.md": AIRCON_FAULTS},
    )
    await says(client, "who do we ring to get the aircon serviced", "CoolCoast")
    # With the model, the fault's row and the firm's row were a tie (0.692 / 0.691): the
    # row with no one to ring does not answer "who do we ring".
    asked = "who do we ring to get the aircon serviced"
    assert not relevance.gives_the_number(asked, "F3 | sensor fault | Call a service agent")
    assert relevance.gives_the_number(asked, "Air con service | CoolCoast | (03) 5550 4093")
    assert relevance._asks_phone("who should I call if the toilet overflows?")
    assert not relevance._asks_phone("who do we usually get to service the aircon?")


def test_a_thing_s_name_is_said_as_one_name() -> None:
    """ "water is pouring non stop out of the valve" names no stop valve: the words of a
    thing's name count only said together, so the relief valve's entry may answer it."""
    leak = "water is pouring non stop out of the valve on the side of the hot water tank"
    entry = "A steady flow means the valve needs replacing - call a plumber."
    heading = "Heat pump hot water system > Why does water drip from the relief valve?"
    assert relevance.names_every_thing(leak, entry, heading)
    assert relevance.names_every_thing("did we get the sofa for nothing?", "It was free")
    # "wi-fi key" says the thesaurus's "wifi key" (a password), as words_of reads it.
    wifi_key = frozenset({"wifi", "key"})
    assert relevance._side_by_side(wifi_key, relevance._stems_in_order("the wi-fi key?"))
    assert not relevance.names_every_thing("where is the stop valve?", "The meter is outside")
    assert not relevance.names_every_thing("how do I turn the water off", "The meter is outside")


def test_a_figure_answers_only_what_it_is_a_figure_of() -> None:
    """Three questions nothing in the house answers, each once answered by a figure of
    something else: how often the smoke alarms are checked is no time they were last
    checked, the sum insured is no premium, and a 315 litre tank draws no kW."""
    last = "when were the smoke alarms last checked?"
    assert not relevance.gives_a_time(last, "The smoke alarms are checked every 12 months.")
    assert relevance.gives_a_time(last, "Smoke alarms last checked 3 March 2026.")
    assert relevance.gives_a_time("when is the bin collected?", "every Monday")
    premium = "how much is our contents insurance premium a year"
    assert not relevance.names_the_measured(premium, "Contents sum insured: $85,000")
    assert relevance.names_the_measured(premium, "Premium: $612 a year")
    assert relevance.names_the_measured("how much is the rent?", "Rent: $2,340 per month")
    draw = "how many kW does the hot water heat pump draw?"
    assert not relevance.names_the_measured(draw, "It stores it in a 315 litre tank.")
    assert relevance.names_the_measured("how many kW is the aircon", "KSA-71 (7.1 kW cooling)")
    assert relevance.names_the_measured("how many litres is the pool", "Pool is 42,000 L")


def test_what_day_is_answered_by_a_day() -> None:
    """ "What day does the pool lady come?" asks for a day: the pump's hours ("9am to
    3pm") give none, and were read out for it; her contact row's "2nd Tuesday" does."""
    asked = "what day does the pool lady come each month?"
    assert not relevance.gives_a_time(asked, "Summer (Nov-Mar): 9am to 3pm. Winter: 10am to 2pm.")
    assert relevance.gives_a_time(asked, "Pool | Kylie | monthly visit, 2nd Tuesday")
    assert relevance.gives_a_time("which day does the rent go out?", "paid on the 1st")
    assert relevance.gives_a_time("what date is the interview?", "Tues 9 Dec 5.40pm")
    assert relevance.gives_a_time("when does the pump run?", "9am to 3pm")


def test_another_is_an_other() -> None:
    """ "Are we allowed another pet?" is answered by "Any other pet needs the rental
    provider's written consent": "another" is "an other"."""
    asked = "Mia's begging for a rabbit. Are we even allowed another pet here?"
    line = "One dog (Biscuit) is approved. Any other pet needs the rental provider's consent."
    assert relevance.stem("another") == relevance.stem("others") == "other"
    assert relevance.word_coverage(asked, None, line) > relevance.word_coverage(
        asked, None, line.replace("other", "extra")
    )


def test_may_is_a_month_only_as_one() -> None:
    """ "When is our lease up?" was answered by "the renter may arrange urgent repairs up
    to $2,500": its "may" read as the month. The month is "May", or beside a day's number."""
    asked = "when is our lease up"
    repairs = "If the agent cannot be reached, the renter may arrange urgent repairs up to $2,500."
    assert not relevance.gives_a_time(asked, repairs)
    assert relevance.gives_a_time(asked, "Term: 1 March 2026 to 28 February 2027.")
    assert relevance.gives_a_time("when is the rego due", "Rego due 14 May")
    assert relevance.gives_a_time("when is the rego due", "rego due may 14")


def test_an_address_asked_in_a_place_needs_an_address() -> None:
    """ "What's Nan's street address in Highton?" was answered by Nan's phone line ("she's
    10 mins away in Highton"): asked "… in <place>", the address must still be there."""
    asked = "What's Nan's street address in Highton? I want to put it in the GPS."
    phone = "If you can't get us: Nan (Maureen) on 0491 570 158, she's 10 mins away in Highton."
    assert relevance.attribute_held(asked, phone) == (False, ())
    assert relevance.attribute_held(asked, "Nan lives at 14 Aldous Rd, Highton")
    # "street" says which address, not whose: the school's line need not say "street".
    school = "Belmont Primary School, 3 Reynolds Rd, Belmont"
    assert relevance.attribute_held("what's the school's street address?", school)


def test_switching_on_is_turning_on_said_side_by_side() -> None:
    """ "How do I enable web search?" is answered under "How do I turn on … web search?";
    but "Switch the boiler off" says no "turn off" of the water: a synonym's words count
    only said together."""
    heading = "How do I turn on news, web search, offline Wikipedia or uptime monitors?"
    other = heading.replace("turn on", "read about")
    for asked in ("How do I enable web search?", "how do I switch web search on"):
        on = relevance.word_coverage(asked, None, heading)
        assert on > relevance.word_coverage(asked, None, other)
    asked = "how do I turn off the water"  # "turn the water off" names the stopcock too
    boiler = "Switch the boiler off and let it cool, then top up the water."
    assert relevance.word_coverage(asked, None, boiler) < relevance.word_coverage(
        asked, None, "Switch off the water at the stopcock."
    )


def test_fast_is_quickly() -> None:
    """ "How do I get hot water back fast?" is the manual's FAQ "I have run out of hot
    water. How do I get it back quickly?": speed said either way."""
    asked = "cold showers all round - how do I get hot water back fast?"
    entry = "I have run out of hot water. How do I get it back quickly?"
    slow = entry.replace("quickly", "at all")
    assert relevance.word_coverage(asked, None, entry) > relevance.word_coverage(asked, None, slow)
    faster = "can it heat up faster"
    quicker = relevance.word_coverage(faster, None, "to heat up quicker")
    assert quicker > relevance.word_coverage(faster, None, "to heat up slower")


async def test_which_day_is_asked_as_what_day(make_client: Client, tmp_path: Path) -> None:
    """ "Which day …?" asks for a day as "what day …?" does, and "the 3rd" gives one: the
    line naming the rent and the day it is paid answers, though it never says "day"."""
    notes = (
        "Household money\n\n"
        "Rent: $1,900 a month, paid on the 3rd by direct debit.\n\n"
        "The car insurance renews every March.\n"
    )
    client = await notes_client(make_client, tmp_path, {"money.txt": notes})
    assert relevance.asks_kind("which day does the rent go out?")
    await says(client, "Which day does the rent go out?", "the 3rd")


async def test_a_title_framed_by_dashes_heads_the_lines_under_it(
    make_client: Client, tmp_path: Path
) -> None:
    """Plain-text notes often set a title off with rule marks on both sides ("--- Banana
    bread ---"). Such a line was read as text, so a recipe's baking line, which never
    names its dish, belonged to no dish and the question found nothing to quote."""
    recipes = (
        "FAMILY RECIPES\n(typed up from Grandma's card box)\n\n"
        "--- FLAPJACKS (one tray) ---\n200 g oats\n100 g butter\n3 tbsp syrup\n"
        "Press into the tin and bake at 180 °C for 20 minutes.\n\n"
        "--- BANANA BREAD ---\n(use the blackest bananas)\n3 ripe bananas\n250 g flour\n"
        "1 tsp bicarbonate of soda\n"
        "Bake at 170 °C for 55 minutes, until a skewer comes out clean.\n\n"
        "=== LENTIL SOUP ===\n1 onion, 2 carrots, 200 g red lentils\n"
        "Simmer 25 minutes, then blend.\n"
    )
    client = await notes_client(make_client, tmp_path, {"recipes.txt": recipes})
    await says(client, "How long does the banana bread bake for?", "55 minutes")
    sections = text_sections(recipes)
    assert [s.heading for s in sections] == [
        "FAMILY RECIPES",
        "FLAPJACKS (one tray)",
        "BANANA BREAD",
        "LENTIL SOUP",
    ]
    # A rule alone, or a line only opening with dashes, is no title.
    assert [s.heading for s in text_sections("Notes\n\n-----\n-- call back later\n")] == ["Notes"]


async def test_who_is_the_role_needs_the_role_named(make_client: Client, tmp_path: Path) -> None:
    """ "Who's the treasurer at the tennis club?" asks for a role no line names: the club
    office's number, which says the club's every other word, is no answer. A role the
    line names is ("who's the coach …?"), and a word for any firm or person leaves the
    role to the word before it ("our internet company")."""
    notes = (
        "# Contacts\n\n"
        "- Riverside Tennis Club office: 01632 960 123 (court bookings)\n"
        "- Riverside Tennis Club coach: Priya Shah, 07700 900 456\n"
        "- Internet: Fibrelink, help line 0800 160 999\n"
    )
    client = await notes_client(make_client, tmp_path, {"contacts.md": notes})
    body = await ask(client, "who's the treasurer at Riverside Tennis Club?")
    assert "No source could answer" in body["result"], body
    await says(client, "who's the coach at Riverside Tennis Club?", "Priya Shah")
    assert relevance.names_the_role("who's our internet company?", notes)
    assert not relevance.names_the_role("who's the treasurer at the club?", notes)


def test_a_record_line_giving_the_time_asked_is_the_answer_whole() -> None:
    """ "Paper bin: collected every second Thursday" answers "when is the paper bin
    collected?" by itself: a short record line giving the kind of fact asked is no
    fragment to carry on from, and the next line is another bin's day."""
    bins = (
        "General waste (black lid): every other Tuesday, odd weeks\n"
        "Paper bin: collected every second Thursday\n"
        "Garden waste: every Monday from March to November"
    )
    said = quote("When is the paper bin collected?", {}, "Bins", bins)
    assert said == "Paper bin: collected every second Thursday"


@pytest.mark.parametrize(
    ("question", "language", "lines", "answer"),
    [
        (
            "Where's the spare car key?",
            "en",
            "Spare car key: hook by the back door\n"
            "Spare house key: with Dave at No. 29\n"
            "The shed key is on the blue ring.",
            "Spare car key: hook by the back door",
        ),
        (
            "Le frigo de la cave, il est branché sur quel disjoncteur ?",
            "fr",
            "Disjoncteur 4 : frigo de la cave\n"
            "Disjoncteur 5 : lave-linge et sèche-linge\n"
            "Le frigo de la cave se rallume tout seul après une coupure.",
            "Disjoncteur 4 : frigo de la cave",
        ),
    ],
)
def test_a_record_line_of_its_own_is_quoted_without_the_next(
    question: str, language: str, lines: str, answer: str
) -> None:
    """A line of its own that is a label and its value ("Spare car key: hook by the back
    door") is whole however short: the lines after it are other records, though they
    share its words ("spare", "key", "frigo")."""
    with asked_in(language):
        assert quote(question, {}, "Garage", lines) == answer


async def test_a_label_glossed_in_brackets_over_a_list_is_no_clause(
    make_client: Client, tmp_path: Path
) -> None:
    """ "## Winterising (late October, before the first frost at the latest)" is a title
    with a gloss: the item naming what was asked answers alone. Counted with its gloss,
    the title read as a clause leading into the list and every item was quoted."""
    notes = (
        "# Garden\n\n## Winterising (late October, before the first frost at the latest)\n\n"
        "- Outside tap: shut it off indoors at the red valve under the laundry sink, "
        "then open it outside and let it drain.\n"
        "- Irrigation timer: take it off and remove the batteries.\n"
        "- Cushions: into the storage box on the deck.\n"
    )
    client = await notes_client(make_client, tmp_path, {"house.md": notes})
    body = await ask(client, "How do I winterise the tap before the frost?")
    assert "red valve" in body["result"], body
    assert "Cushions" not in body["result"], body


async def test_how_long_is_the_thing_on_something_needs_the_thing(
    make_client: Client, tmp_path: Path
) -> None:
    """ "How long is the guarantee on the dishwasher?" measures the guarantee: the
    dishwasher's "every 3 months" of descaling is no answer, nor is any duration said
    of the dishwasher without it. The guarantee's own line answers."""
    notes = (
        "# Brightwash dishwasher\n\n## Care\n\n"
        "Every 3 months, run the hot programme empty with a descaling tablet.\n\n"
        "## Filters\n\nRinse the filters under the tap once a week.\n"
    )
    client = await household_client(make_client, tmp_path / "roots", {"dishwasher.md": notes})
    body = await ask(client, "How long is the guarantee on the dishwasher?")
    assert "No source could answer" in body["result"], body
    assert not relevance.names_the_measured(
        "How long is the guarantee on the dishwasher?", "Every 3 months, descale it."
    )
    assert relevance.names_the_measured(
        "How long is the guarantee on the dishwasher?", "Dishwasher: 2-year guarantee."
    )
    # What follows "how long is" without a thing of something is measured as ever.
    assert relevance.names_the_measured("How long is the drive?", "about 20 minutes")


def test_where_a_thing_is_names_no_owner_of_it() -> None:
    """ "What's the password for the wifi in the spare bedroom?": the wifi's password is
    asked, and where the wifi is names no owner its line must say. Whose it is still
    must be said ("the code for the lock in the shed" is the lock's)."""
    held = relevance.attribute_held(
        "What's the password for the wifi in the spare bedroom?", "Wifi password: amber-kettle-19"
    )
    assert held is not None and held[0]
    shed = relevance.attribute_held("What's the code for the lock in the shed?", "Alarm code: 4412")
    assert shed is not None and not shed[0]


async def test_a_story_before_who_do_i_call_names_the_contact(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Biscuit ate a piece of chocolate! Who do I call?": the story names the cat, and
    the one contact row labelled with her ("Vet (Biscuit)") is whom to ring, though the
    row says nothing of chocolate. A story no label names is still refused."""
    contacts = (
        "# Contacts\n\n| Role | Name | Phone | Notes |\n|---|---|---|---|\n"
        "| Vet (Biscuit) | Dr Aubert, Woodside Vet Clinic | 01632 960 412 |"
        " file no. 5531; at weekends the answering machine gives the vet on duty |\n"
        "| Neighbour (flat 3) | Nadia Benali | 01632 960 771 | minds Biscuit in the holidays |\n"
        "| Babysitter | Lea Martin | 07700 900 123 | Wednesdays after school |\n"
    )
    notes = (
        "MINDING BISCUIT\n\n"
        "- Food: 40 g of dry food a day in two meals, morning and evening.\n"
        "- If she is ill: Woodside Vet Clinic (number in the contacts).\n"
        "- She hides under our bed the first days, that's normal.\n"
    )
    files = {"contacts.md": contacts, "cat-sitting.txt": notes}
    client = await household_client(make_client, tmp_path / "roots", files)
    body = await ask(client, "Biscuit ate a piece of chocolate! Who do I call?")
    assert "01632 960 412" in body["result"], body["result"]
    body = await ask(client, "The toilet overflowed this morning, who do I call?")
    assert body["source_used"] == "none", body["result"]
    assert relevance.story_before_call("Biscuit is vomiting, who do I call?")
    assert not relevance.story_before_call("Who do I call about the boiler?")
    assert not relevance.story_before_call("The boiler is broken, who services it?")


async def test_a_label_with_a_word_not_asked_is_another_things(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """ "What was the wifi password again?" beside "Password: …" and "Guest password: …":
    the guests' line adds a word the question never says, so the plain one answers; the
    guest password is still the answer when the guests are asked for (and in German,
    "Gäste-Passwort" beside "Passwort")."""
    notes = {
        "tech.md": (
            "# Wifi and tech\n\n## Wifi\n\n"
            "- Wifi name: Larkspur\n- Password: amber-kettle-19\n"
            "- Guest wifi: Larkspur-Guest\n- Guest password: sunny-porch-7\n\n"
            "The guest wifi switches itself off at night from 23 to 6.\n"
        ),
        "technik.md": (
            "# Technik\n\n## WLAN\n\n"
            "- WLAN-Name: Lindenhof\n- Passwort: Birke-Pfad-2020\n"
            "- Gäste-WLAN: Lindenhof-Gast\n- Gäste-Passwort: Mohnblume-12\n\n"
            "Das Gäste-WLAN schaltet sich nachts von selbst ab.\n"
        ),
    }
    # With the model as by default: it finds the guests' line nearer the question.
    client = await model_household_client(make_client, tmp_path, embedding_model, notes)
    body = await ask(client, "What was the wifi password again?")
    assert "amber-kettle-19" in body["result"], body["result"]
    body = await ask(client, "What's the guest wifi password?")
    assert "sunny-porch-7" in body["result"], body["result"]
    body = await ask(client, "Wie lautet das Passwort fürs WLAN?")
    assert "Birke-Pfad-2020" in body["result"], body["result"]


async def test_a_kind_of_pet_is_what_a_rule_about_pets_speaks_of(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Are we allowed to keep a rabbit?": the lease never says "rabbit" nor "allowed";
    its pets clause ("Any other pet needs the landlord's written consent") answers. A
    line about pets says nothing of a rabbit's hutch cleaning, and a line about the cat
    nothing of pets in general."""
    notes = {
        "lease.md": (
            "# Lease\n\n## Pets\n\n"
            "- One cat (Mochi) is approved. Any other pet needs the landlord's written consent.\n"
            "\n## Parking\n\n- One car space in the basement, number 14.\n"
        ),
        "house.md": (
            "# House\n\n- Mochi's litter tray lives in the laundry.\n"
            "- The bins go out on Tuesday night.\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    body = await ask(client, "Are we allowed to keep a rabbit?")
    assert "written consent" in body["result"], body["result"]
    body = await ask(client, "Where does the rabbit's hutch go?")
    assert body["source_used"] == "none", body["result"]


async def test_what_they_hope_it_brings_about_is_no_part_of_the_question(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """ "What should I set the heat pump to in winter so our power bill stays low?" asks
    the setting: the manual's line on running costs answers, though it says
    nothing of a bill (the model measures the question without the wish)."""
    manual = (
        "<html><body><h1>Heat pump KX-40</h1>"
        "<h2>Remote control</h2><p>The fan button steps through low, medium and high; the"
        " timer button sets an hour to switch off.</p>"
        "<h2>Running costs</h2><p>Each degree lower on the thermostat cuts heating costs"
        " by about a tenth. We recommend 19 degrees in winter.</p>"
        "<h2>Ice on the outdoor unit</h2><p>On frosty mornings the outdoor unit melts its"
        " own ice and blows no warm air for a few minutes.</p></body></html>"
    )
    bills = "# Bills\n\n- Power bill: Sunline Energy, paid quarterly by direct debit.\n"
    files = {"heat-pump.html": manual, "bills.md": bills}
    client = await model_household_client(make_client, tmp_path, embedding_model, files)
    question = "what should I set the heat pump to in winter so our power bill stays low?"
    body = await ask(client, question)
    assert "19 degrees" in body["result"], body["result"]
    assert relevance.without_hopes(question) == "what should I set the heat pump to in winter?"
    assert relevance.without_hopes("What do I say so it saves a note?") is None


async def test_whose_code_is_asked_names_the_thing_it_opens(
    make_client: Client, tmp_path: Path
) -> None:
    """ "What's the code for the garden gate?" asks the gate's code: a memory of the key
    tin's code, tagged "garden", does not answer it, though it says "code" and "garden";
    asked for the tin's code, the memory answers."""
    notes = "# Outside\n\n- Bins go out on Sunday night.\n"
    client = await household_client(make_client, tmp_path / "roots", {"outside.md": notes})
    memory = {
        "content": "The shed key is in the blue tin by the back door, code 4471.",
        "tags": ["keys", "garden"],
    }
    assert (await client.post("/api/memories", json=memory)).status == 201
    body = await ask(client, "what's the code for the key tin?")
    assert "4471" in body["result"], body["result"]
    body = await ask(client, "what's the code for the garden gate?")
    assert "4471" not in body["result"], body["result"]
    asked = "what's the code for the garden gate?"
    assert relevance.names_whose(asked, "Gate padlock: code 0318")
    assert not relevance.names_whose(asked, "The key tin's code is 4471.", "keys, garden")
