"""The reader: which part of a passage is quoted as the answer, and when there is none (issue 28).

Small documents in the shapes of the issue's failures (a US family's notes, a
contact list, a car log with a space-aligned table, an FAQ whose questions stand
on their own lines), asked through ``POST /search``. Without the embedding model
(the hashing fallback), so the reader's own evidence decides; bench/eval/eval_docs.py
asks the household suites with the model.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnemolis.knowledge import relevance
from mnemolis.knowledge.database import Hit
from mnemolis.knowledge.documents import Passage
from mnemolis.sources import rag
from mnemolis.spoken import spoken_from_named

from .knowledge_helpers import (
    HOUSE_NOTES,
    WARRANTY,
    ask,
    household_client,
    make_pdf_lines,
    model_household_client,
)

Client = Callable[..., Any]

NOTES = """Family notes

Internet
If the internet is down, unplug the black box in the hall closet, wait thirty seconds
and plug it back in.
Main wifi network: Birchwood-5G
Main wifi password: maple-syrup-88
Guest network: Birchwood-Guest
Guest password: welcome-friends-2

Streaming
Netflix kids profile: Sprouts
The TV remote batteries are AAA, spares in the kitchen drawer.
"""

CONTACTS = """Important contacts

Vet: Dr. Alvarez at Riverside Animal Clinic, 555-0147
Pediatrician: Dr. Amy Chen, Maple Kids Clinic, (555) 201-3344
Plumber: Joe Ruiz, Ruiz Plumbing, 555-0199
HVAC: Summit Heating services the furnace every October, 555-0120
Window cleaner: Sparkle Bright, 555-0175
Babysitter: Hannah Lee, 555-0162
"""

CAR_LOG = """Honda CR-V maintenance log

Oil: the CR-V takes 0W-20 full synthetic, 4.4 quarts with the filter.

Date        Item                 Mileage   Cost
2024-01-12  Oil change           41,200    $79.95
2024-03-02  New tires (4)        43,010    $612.40
2024-06-20  Brake pads, front    46,880    $245.00
"""

LEASE = """Apartment lease summary

The lease runs from 1 September 2023 and ends on 31 August 2025.
Rent is $1,850 a month, due on the first.
"""

FAQ = """Orbital Notes FAQ

1.1 What is Orbital Notes?

Orbital Notes is a small program that keeps plain-text notes in a folder and syncs
them between computers.

1.2 Which release should I use?

For most people the stable release is best. To learn more about the releases,
read Section 2.1, "How many releases are there?".

2.1 How many releases are there?

There are three releases: stable, testing and nightly.

2.2 Does Orbital Notes support encryption?

Yes: Orbital Notes supports encryption. Notes are encrypted with a passphrase you
choose when you create the folder.
"""


async def family(make_client: Client, tmp_path: Path) -> Any:
    """A server with the family's folder registered as "household"."""
    files = {
        "family-notes.txt": NOTES,
        "contacts.txt": CONTACTS,
        "car-log.txt": CAR_LOG,
        "lease.txt": LEASE,
        "orbital-faq.txt": FAQ,
    }
    return await household_client(
        make_client,
        tmp_path / "roots",
        files,
    )


async def says(client: Any, question: str, *expected: str, absent: tuple[str, ...] = ()) -> None:
    """The answer says every expected text and none of the absent ones."""
    body = await ask(client, question)
    for text in expected:
        assert text in body["result"], (question, body["result"])
    for text in absent:
        assert text not in body["result"], (question, body["result"])


async def test_every_wifi_phrasing_reads_the_password(make_client: Client, tmp_path: Path) -> None:
    """ "What is the wifi password?" is the password line, not the line about the router."""
    client = await family(make_client, tmp_path)
    for question in (
        "What is the wifi password?",
        "what's the wi-fi password",
        "wifi password?",
        "What's the password for our wifi?",
    ):
        await says(client, question, "maple-syrup-88", absent=("unplug",))
    await says(
        client,
        "What's the guest wifi network and password?",
        "welcome-friends-2",
        "Birchwood-Guest",
        absent=("maple-syrup-88",),
    )


async def test_contacts_are_read_from_their_line(make_client: Client, tmp_path: Path) -> None:
    """A contact's line whole (never cut at "Dr."), found by what the person does."""
    client = await family(make_client, tmp_path)
    await says(client, "What's the vet number?", "555-0147")
    await says(client, "What's the pediatrician's phone number?", "(555) 201-3344")
    await says(client, "Who services the furnace?", "Summit Heating")
    await says(client, "Who is the window cleaner?", "Sparkle Bright")


async def test_car_log_answers_from_its_rows(make_client: Client, tmp_path: Path) -> None:
    """A row of a space-aligned table, not its header; the oil line for the CR-V."""
    client = await family(make_client, tmp_path)
    await says(client, "What did we pay for the new tires?", "$612.40")
    await says(client, "What kind of oil does the CR-V take?", "0W-20")


async def test_an_absent_fact_is_not_answered_by_a_related_line(
    make_client: Client, tmp_path: Path
) -> None:
    """The Netflix password is not in a line about a Netflix profile."""
    client = await family(make_client, tmp_path)
    body = await ask(client, "What's our Netflix password?")
    assert "Sprouts" not in body["result"], body["result"]
    assert body["source_used"] == "none", body


async def test_an_faq_is_answered_by_its_answer(make_client: Client, tmp_path: Path) -> None:
    """Never the question read back, nor a cross-reference to it."""
    client = await family(make_client, tmp_path)
    await says(
        client,
        "How many releases are there?",
        "three releases",
        absent=("Section 2.1",),
    )
    await says(
        client,
        "Does Orbital Notes support encryption?",
        "supports encryption",
        absent=("Does Orbital Notes support encryption?",),
    )


async def test_each_part_of_a_two_part_question_from_its_own_file(
    make_client: Client, tmp_path: Path
) -> None:
    """ "What oil does the CR-V take and when does the lease end?": two files, two quotes."""
    client = await family(make_client, tmp_path)
    body = await ask(client, "What oil does the CR-V take and when does the lease end?")
    assert "0W-20" in body["result"] and "31 August 2025" in body["result"], body["result"]


async def with_model(
    make_client: Client,
    tmp_path: Path,
    embedding_model: Path,
    files: dict[str, str | bytes] | None = None,
) -> Any:
    """The family's folder (or these files) searched with the real embedding model."""
    files = files or {"contacts.txt": CONTACTS, "family-notes.txt": NOTES}
    return await model_household_client(make_client, tmp_path, embedding_model, files)


async def test_who_to_call_is_found_by_meaning(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """ "Who do I call if the toilet overflows?": the note says "plumber", which only the
    model relates to a toilet; and an absent password is still none."""
    client = await with_model(make_client, tmp_path, embedding_model)
    await says(client, "Who do I call if the toilet overflows?", "555-0199")
    await says(client, "What's the pediatrician's phone number?", "(555) 201-3344")
    body = await ask(client, "What's our Netflix password?")
    assert body["source_used"] == "none", body


async def test_a_yes_no_question_is_not_answered_by_a_label(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """A record line whose label the model finds nearest says which thing, never whether:
    "Network: Larkspur" is no answer to "does anything leave my network?", while the
    same line still answers "what's our network called?"."""
    notes = (
        "Cottage notes\n\nWifi\nNetwork: Larkspur\nPassword: heron-field-17\n\n"
        "Bins\nThe black bin goes out on Tuesday night.\n\n"
        "Heating\nThe heating comes on at 6:30 on weekdays.\n"
    )
    client = await with_model(make_client, tmp_path, embedding_model, {"notes.txt": notes})
    body = await ask(client, "Does anything leave my network when I ask a question?")
    assert "Larkspur" not in body["result"], body
    await says(client, "What's our network called?", "Larkspur")


KITCHEN = """Kitchen notes

How do I use the oven?
Set the top dial to fan and the bottom dial to the temperature. It runs hot,
so take 10 degrees off what a recipe says.

How do I run the dishwasher?
Tablet in the door, then the Eco programme. Empty the filter on Sundays.

Bins
Green bin on Mondays, yellow bin every other Thursday.
"""


async def test_the_nearest_passage_answers_though_its_words_do_not(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """ "Why does the oven burn my cakes?" shares only "oven" with "It runs hot, so take
    10 degrees off": the model ranks that line nearest of all, near enough, so it answers.
    Nearest to "what's the dishwasher's energy rating?" is how to run it, which says
    nothing of a rating: none."""
    client = await with_model(make_client, tmp_path, embedding_model, {"kitchen.txt": KITCHEN})
    for question in (
        "why does the oven burn my cakes?",
        "the oven seems to burn everything, is that normal?",
    ):
        await says(client, question, "runs hot")
    body = await ask(client, "What's the dishwasher's energy rating?")
    assert body["source_used"] == "none", body


async def test_a_home_entity_answers_only_a_question_about_its_state() -> None:
    """ "What should the boiler pressure be?", "who is the window cleaner?", "the guest wifi
    password": the documents, though a home entity shares a word; states stay the home's."""
    from .assist_home import make_assist_home

    core, _ = make_assist_home("en")
    for question in (
        "What should the boiler pressure be?",
        "What is the guest wifi password?",
        "Who is the window cleaner?",
    ):
        plan = core.router.plan(question)
        assert [p.sources for p in plan.parts] == [["rag"]], (question, plan.to_dict())
    for question in ("Is the kitchen window open?", "What is the thermostat set to?"):
        plan = core.router.plan(question)
        assert [p.sources for p in plan.parts] == [["ha"]], (question, plan.to_dict())


GARAGE = """Garage notes

Date        Car       Work done                 Cost
2025-02-11  Outback   Timing belt replaced      $880.00
2025-07-30  Corolla   New wiper blades          $42.00

Next Outback service due at 120,000 km. Corolla tyres are getting thin.
"""

TERM_NOTE = """THINGS THIS WEEK
Priya has netball Tues 5.30 at the stadium, needs her bib + water bottle
Arjun's reading folder goes back on Fridays
Dentist check-up Wed 3 Sept 4.10pm (Dr. Moss, level 2)
"""

CLASSES = """CLASSES 2026
Priya - Year 5, Mrs. Okafor, room 14
Arjun - Year 1, Mr. Dunn, room 3
"""


async def test_whose_it_is_must_be_in_the_answer(make_client: Client, tmp_path: Path) -> None:
    """ "When is the Corolla's registration due?" is not answered by the Outback's memory nor
    by a line that names the Corolla beside the Outback's service; "Tom's birthday" not by
    Nan's. The one asked about still answers."""
    client = await household_client(
        make_client, tmp_path / "roots", {"garage.txt": GARAGE, "classes.txt": CLASSES}
    )
    for content in (
        "The Outback's registration is due on 12 March.",
        "Nan's birthday is on 9 April; she loves lavender soap.",
    ):
        resp = await client.post("/api/memories", json={"content": content})
        assert resp.status in (200, 201), await resp.text()
    await says(client, "When is the Outback's registration due?", "12 March")
    for question in ("When is the Corolla's registration due?", "When is Tom's birthday?"):
        body = await ask(client, question)
        assert body["source_used"] == "none", (question, body["result"])
    await says(client, "What did the Outback's timing belt cost?", "$880.00", absent=("$42",))


async def test_a_note_of_one_fact_a_line_is_quoted_by_its_line(
    make_client: Client, tmp_path: Path
) -> None:
    """Lines without full stops are separate facts: netball's line, not the folder's."""
    client = await household_client(make_client, tmp_path / "roots", {"week.txt": TERM_NOTE})
    await says(
        client,
        "What time is Priya's netball and what does she need to bring?",
        "5.30",
        "bib",
        absent=("reading folder", "Dentist"),
    )


SHORTBREAD = """GRAN'S SHORTBREAD

Method
1. Oven to 160. Rub the butter into the flour and sugar.
2. Bake 20-25 minutes till pale gold.

Gran says: soft = take them out at 20 min, crisp = 25. Keep in the blue tin.
"""


async def test_a_part_that_refers_back_is_not_answered_from_another_subject(
    make_client: Client, tmp_path: Path
) -> None:
    """ "… and what does she need to take?" is about Priya's netball: her line says it
    ("needs her bib"), not the recipe that says "take them out"."""
    client = await household_client(
        make_client, tmp_path / "roots", {"week.txt": TERM_NOTE, "shortbread.txt": SHORTBREAD}
    )
    await says(
        client,
        "what time is Priya's netball on Tuesday and what does she need to take?",
        "5.30",
        "bib",
        absent=("Gran", "20 min", "tin"),
    )


HEATER = """<html><body><h1>Heater manual</h1>
<h2>Settings</h2>
<p>The default temperature is 21 degrees. Do not set it above 28 degrees near children.
The timer is set to run from 6 am to 9 am.</p>
<h2>Questions</h2><dl>
<dt>The fan rattles at night.</dt>
<dd>Tighten the two screws on the grille. If the rattle goes on, book a service.</dd>
</dl></body></html>"""

RECIPE = """GRANDMA'S SCONES  (makes 12)

Method
1. Oven to 220 fan. Line a tray.
2. Rub the butter into the flour.
3. Bake 12 minutes till golden.
"""

SPA = """Spa notes

Weekly
- Test strip: chlorine 3-5 ppm, pH between 7.2 and 7.8

pH too high
Add acid: approx. 100 mL of dry acid dissolved in a bucket, with the pump running.
"""


async def test_the_answer_gives_the_figure_asked_for(make_client: Client, tmp_path: Path) -> None:
    """ "What temperature …?" by a temperature (not a title's "makes 12", not the timer's
    hours after it); "what should the pH be?" by the range, not the fix for a high one;
    an FAQ entry put as a statement is answered from its first sentence."""
    client = await household_client(
        make_client,
        tmp_path / "roots",
        {"heater.html": HEATER, "scones.txt": RECIPE, "spa.txt": SPA},
    )
    await says(
        client,
        "What temperature should the heater be set to?",
        "degrees",
        absent=("6 am",),
    )
    await says(client, "What temperature should the oven be for Grandma's scones?", "220")
    await says(client, "What should the spa pH be?", "7.2 and 7.8", absent=("dry acid",))
    await says(client, "The fan rattles at night", "Tighten the two screws")


def test_a_sentence_saying_he_is_quoted_alone_when_the_question_names_him() -> None:
    """ "Arjun won't sleep, does he have a blanket?": "He needs his blue blanket …" is
    understood without the bath time before it, the question having said who "he" is;
    asked without the name, the sentence that says who is quoted with it."""
    from mnemolis.sources.rag import quote

    text = "Arjun (6) - bath at 7, asleep by 7.45. He needs his blue blanket or he won't sleep."
    said = quote("Arjun won't sleep, does he have a blanket?", {}, "Kids", text)
    assert said.startswith("He needs his blue blanket"), said
    said = quote("does the little one have a blanket he sleeps with?", {}, "Kids", text)
    assert "Arjun" in said and "blue blanket" in said, said
    # "It" after a sentence opening with a verb the question says is still read with it.
    faq = "Rescan the folder with the Rescan button. It re-reads every file, slowly."
    said = quote("rescan every file", {}, "FAQ", faq)
    assert said.startswith("Rescan the folder"), said


LOGINS = """Logins

Internet provider: Wavelink Broadband
Account no.: 5512 0098
Support line: 1300 555 010
Guest network: Harbour-Guest
"""


async def test_a_second_ask_about_the_first_is_answered_from_its_own_line(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Who's our internet provider and what's their support number?": the provider's
    line and the support line (an Australian number says "number"), not the account."""
    client = await household_client(make_client, tmp_path / "roots", {"logins.txt": LOGINS})
    await says(
        client,
        "who's our internet provider and what's their support number?",
        "Wavelink",
        "1300 555 010",
        absent=("5512",),
    )


TENANCY = """Tenancy summary

Term: the agreement ends on 30 April 2026, 12 months after it began.

Ending the agreement
The tenant must give at least 30 days' notice to end the agreement.
"""


async def test_when_is_answered_by_a_time_not_a_length_of_time(
    make_client: Client, tmp_path: Path
) -> None:
    """ "When does the agreement end?" is the end date, not the notice period under the
    heading "Ending the agreement"."""
    client = await household_client(make_client, tmp_path / "roots", {"tenancy.txt": TENANCY})
    await says(client, "When does the agreement end?", "30 April 2026", absent=("30 days",))


async def test_a_rule_of_dots_is_never_the_answer(make_client: Client, tmp_path: Path) -> None:
    """A line of dots or dashes set apart under a question says nothing: the answer
    after it answers."""
    faq = "Pump FAQ\n\nWhy does the pump hum at night?\n\n" + "." * 40 + "\n\n"
    faq += "The timer runs it for an hour after midnight to keep the seal wet.\n"
    client = await household_client(make_client, tmp_path / "roots", {"pump-faq.txt": faq})
    await says(client, "Why does the pump hum at night?", "keep the seal wet")


def test_calling_a_program_asks_for_no_phone_number() -> None:
    """ "How do I call external programs from a function?" calls no one: a phone number is
    asked for only when whom to call is a person, a name or a short "the …"."""
    for question in ("How do I ring him?", "how do I contact Nan?", "How can I reach the plumber?"):
        assert not relevance.gives_the_number(question, "Ring after 6pm."), question
    for question in (
        "How do I call external programs from a Vim function?",
        "How do I call/use the built-in functions?",
    ):
        assert relevance.gives_the_number(question, "Use the system() function."), question


async def test_a_question_asked_word_for_word_is_answered_by_its_entry(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """ "Who's behind this?" holds no word a passage could share and means little on its
    own, but an FAQ entry under that very question answers it."""
    faq = """Pump FAQ
========

Who's behind this?
==================

The pump was designed by the Harbour Makers club in 2019 and is kept going by
volunteers.

Is the pump waterproof?
=======================

Yes, to one metre.
"""
    client = await with_model(make_client, tmp_path, embedding_model, {"faq.rst": faq})
    await says(client, "Who's behind this?", "Harbour Makers")


def _under(heading: str, ord_: int, content: str, similarity: float) -> Passage:
    """A paragraph of the Orbit FAQ under this heading, as the search hands it to the reader."""
    hit = Hit(ord_, "faq.txt", ord_, f"Orbit FAQ > {heading}", content, 1.0)
    return Passage("household", hit, "faq.txt", 0.03, similarity)


def test_the_entry_asking_the_question_itself_comes_before_one_sharing_its_words() -> None:
    """ "How can I use Orbit?" is answered under that very heading, not under "Who uses
    Orbit?", whose words are the same: a short item of that list is as near the question
    as the answer (the cosines all-MiniLM-L6-v2 gives Pygments' FAQ), and it came first."""

    item = _under("Who uses Orbit?", 3, "* `Wikipedia <https://en.wikipedia.org/>`_", 0.801)
    answer = _under(
        "How can I use Orbit?",
        7,
        "Orbit is usable as a command-line tool as well as a library.",
        0.887,
    )
    ranked = rag._judged("How can I use Orbit?", {}, [item, answer], None, True)
    assert ranked[0][1] is answer, [p.hit.content for _, p in ranked]


def test_the_entry_asking_the_question_itself_outranks_a_sibling_rated_higher() -> None:
    """ "Why can't I select/paste in Orbit?" is answered under that very heading, though
    a paragraph under "Why can't I select/paste to/from other programs?" says every word
    of it (the cosines all-MiniLM-L6-v2 gives xterm's FAQ)."""

    sibling = _under(
        "Odd behavior > Why can't I select/paste to/from other programs?",
        9,
        "Orbit can ask to select and paste UTF-8 even if it is not set up for it. Then it "
        "converts the characters it can.",
        0.740,
    )
    own = _under(
        "Odd behavior > Why can't I select/paste in Orbit?",
        4,
        "When a program turns on mouse tracking, it takes the plain mouse clicks for itself: "
        "hold shift while you click.",
        0.845,
    )
    ranked = rag._judged("Why can't I select/paste in Orbit?", {}, [sibling, own], None, True)
    assert ranked[0][1] is own, [p.hit.content for _, p in ranked]


def test_the_entry_asked_word_for_word_is_read_under_a_list_lead_in() -> None:
    """xterm's "What is the latest version?" is answered by its lead-in sentence, which
    heads the list after it ("… is the one that I maintain:"), though the search ranks
    it below a dozen short items of "What versions are available?"."""

    items = [_under("What versions are available?", n, f"* orbit-{n}", 0.44) for n in range(20, 32)]
    lead = "The most recent (and well supported) version of orbit is the one that I maintain"
    own = _under(f"What is the latest version? > {lead}", 5, "* source\n* archives", 0.31)
    ranked = rag._judged("What is the latest version?", {}, [*items, own], None, True)
    assert ranked and ranked[0][1] is own, [p.hit.content for _, p in ranked]


async def test_the_entry_asked_word_for_word_is_looked_up_by_its_words() -> None:
    """xterm's "Can I improve the scrollbars?": the model ranks thirty rows of a timing
    table under "Can I improve the scrolling speed?" above the entry, which the words
    find first; the entry answers, and under its own opening question too."""
    heading = "Orbit FAQ > Odd behavior > Can I improve the scrollbars? > Is it the look?"
    entry = Passage(
        "household",
        Hit(
            90,
            "faq.html",
            90,
            heading,
            "The look can be changed by linking another widget set.",
            1.0,
        ),
        "faq.html",
        0.01,
        None,
    )
    rows = [
        Passage(
            "household",
            Hit(
                n,
                "faq.html",
                n,
                "Orbit FAQ > Can I improve the scrolling speed?",
                f"orbit | 0.{n}",
                1.0,
            ),
            "faq.html",
            0.02,
            0.55,
        )
        for n in range(10, 40)
    ]

    class Store:
        async def search_all(self, question: str, *, limit: int, mode: str, **_: Any) -> Any:
            return ([entry] if mode == "keyword" else rows)[:limit]

        def model_embedder(self) -> bool:
            return True

    question = "Can I improve the scrollbars?"
    assert rag.heading_asks_it(question, heading)
    assert not rag.heading_asks_it(question, "Orbit FAQ > Can I improve the scrolling speed?")
    found = await rag.relevant_passages(Store(), question, ["household"], {})  # type: ignore[arg-type]
    assert found and found[0][1] is entry, [p.hit.content for _, p in found]


def test_a_short_answer_under_the_question_asked_word_for_word_is_no_title() -> None:
    """irssi's "Q: How to pronounce Irssi?" is answered "Check here" (a link in its HTML):
    a line that short reads like a title, but under the question asked word for word it
    is the answer, not a title to pass over for another entry's words."""

    own = _under("Q: How to pronounce Orbit?", 40, "Check here", 0.942)
    other = _under(
        "Q: How to make UTF-8 work with Orbit?",
        30,
        "Make sure your terminal supports UTF-8. In Orbit do /SET term_charset utf-8.",
        0.653,
    )
    ranked = rag._judged("How to pronounce Orbit?", {}, [own, other], None, True)
    assert ranked and ranked[0][1] is own, [p.hit.content for _, p in ranked]


def test_a_figure_with_its_unit_is_no_date() -> None:
    """ "7.1 kW" is a size, not the 7th of January: no answer to "when was it put in?"."""
    question = "When was the split system put in?"
    assert not relevance.gives_a_time(question, "Model KSA-71 (7.1 kW cooling / 8.0 kW heating).")
    assert relevance.gives_a_time(question, "Installed 7.1.2019 by CoolCoast.")
    assert relevance.gives_a_time(question, "Put in on 3/2 last year, 7.1 kW.")


HOT_WATER = """House notes

Urgent repairs
If the landlord can't be reached, ring the plumber and spend what it takes: urgent
repairs are usually done within 24 hours.
"""

RENTAL = """Rental agreement

Urgent repairs
If the landlord cannot be reached, the tenant may arrange urgent repairs up to $800
and be paid back.
"""


async def test_how_much_can_we_spend_is_a_sum_of_money(make_client: Client, tmp_path: Path) -> None:
    """ "How much can we spend on urgent repairs?" is answered by the $800 the lease
    allows, not by the notes' "within 24 hours" about the same repairs."""
    client = await household_client(
        make_client, tmp_path / "roots", {"notes.txt": HOT_WATER, "rental.txt": RENTAL}
    )
    await says(
        client,
        "how much can we spend on urgent repairs if the landlord can't be reached?",
        "$800",
        absent=("24 hours",),
    )


async def test_a_document_title_answers_what_model_it_is_and_nothing_else(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """A guide's title line ("SafeHome SA-10 smoke alarm") over its first section is a
    passage of its own: it says which model is fitted, read without a "page 1" label,
    and it never stands in for a section's answer though it says "smoke alarm"."""
    guide = make_pdf_lines(
        [
            [
                "SafeHome SA-10 smoke alarm",
                "Testing",
                "Press the test button once a week. The alarm sounds a loud beep.",
            ],
            [
                "Battery",
                "The sealed lithium battery lasts ten years. Replace the whole alarm by June 2033.",
            ],
            ["Cleaning", "Every six months, vacuum the vents with a soft brush attachment."],
        ]
    )
    files: dict[str, str | bytes] = {
        "smoke-alarm-guide.pdf": guide,
        "house-notes.txt": HOUSE_NOTES,
        "dishwasher-warranty.txt": WARRANTY,
    }
    client = await with_model(make_client, tmp_path, embedding_model, files)
    body = await ask(client, "Which smoke alarm model do we have fitted?")
    assert "SA-10" in body["result"] and "SA-10" in body["spoken"], body
    assert "page 1" not in body["result"], body
    body = await ask(client, "What should I use to get the dust out of the smoke alarm?")
    assert "vacuum" in body["result"] and "vacuum" in body["spoken"], body


QUEUE_NOTES = """Job queue notes

Retrying a failed job

Task.retry sends a job back to the queue after an error the code can catch, with a
delay between tries and a limit on how many.

The worker acknowledges a job as soon as it starts. The acks_late setting moves the
acknowledgement to the end, so a job whose worker dies halfway runs again.

Use retry for errors the job raises itself, and turn on acks_late as well when running
the job twice does no harm.
"""


async def test_a_name_joined_by_underscores_holds_its_words(
    make_client: Client, tmp_path: Path
) -> None:
    """ "What does acks_late do?" is answered from the lines that name it as code writes it
    (the question's "acks_late" is the words "acks" and "late")."""
    client = await household_client(
        make_client, tmp_path / "roots", {"queue-notes.txt": QUEUE_NOTES}
    )
    for question in ("What does acks_late do?", "Should I use retry or acks_late?"):
        body = await ask(client, question)
        assert body["source_used"] == "rag", body
        assert "acks_late" in body["result"], (question, body["result"])


def test_what_follows_the_question_mark_is_told_not_asked() -> None:
    """ "How do I use it? When I type procmail it does nothing." asks how (by its steps),
    not "when"; what is told after the question weighs as what is told before it."""
    question = "How do I use it? When I type procmail on the command line it does nothing."
    assert relevance.asked(question) == "How do I use it?"
    assert relevance.asked("How do I reset the boiler? It shows F22.") == (
        "How do I reset the boiler?"
    )
    assert relevance.asked("The gauge says 1.2, is that ok?") == "The gauge says 1.2, is that ok?"
    # A question mark inside a quote ends no question: the display's message is asked of.
    shown = 'What does "Ready?" mean on the display'
    assert relevance.asked(shown) == shown


RENTAL_LEASE = """Residential tenancy agreement - excerpt

Premises: 14 Banksia Court, Geelong VIC 3220
Rental provider: Margaret Osei, c/- Bayside Property
Renters: Dana Whitlock and Sam Whitlock
Start date: 1 February 2025
Rent: $560 per week, paid fortnightly

One cat (Pepper) is approved. Any other pet needs the rental provider's written consent.
"""

KIDS = """Kids

Noor (8) - bed at 8pm, can read until 8.30.
Noor has swimming on Tuesdays at 4.15, needs goggles and two towels.
Pepper sleeps in the laundry and is not allowed on the beds.
"""


async def test_a_line_found_by_the_question_alone_needs_its_words(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """ "Noor's desperate for a guinea pig. Are we actually allowed one under the lease?":
    searched by the question alone too ("… under the lease?"), the lease's record lines
    are near it in meaning, but they say nothing of what is asked: never the answer."""
    client = await with_model(
        make_client, tmp_path, embedding_model, {"lease.txt": RENTAL_LEASE, "kids.txt": KIDS}
    )
    body = await ask(
        client, "Noor's desperate for a guinea pig. Are we actually allowed one under the lease?"
    )
    # The pets line, or no answer: never the lease's record of who or where.
    assert "consent" in body["result"] or body["source_used"] == "none", body["result"]


ORBITD_FAQ = "Orbitd FAQ\n\n" + "\n\n".join(
    [
        "Orbitd works around this problem to some extent.",
        "Orbitd logs to syslog.",
        "Restart orbitd after an upgrade.",
        "Orbitd needs no root.",
        "Orbitd reads its config once.",
        "Orbitd ignores SIGHUP.",
        "Stop orbitd first.",
        "Orbitd binds port 4011.",
        "Orbitd keeps no state.",
        "Orbitd runs on BSD too.",
        "Orbitd writes a pid file.",
        "Orbitd is a small daemon that keeps the clocks of the machines on a home network in "
        "step with one another, without asking the internet, by letting the machine with "
        "the best clock answer the others on the local network every few minutes.",
    ]
)


async def test_what_is_x_is_answered_by_the_line_saying_what_it_is(
    make_client: Client, tmp_path: Path
) -> None:
    """ "What is orbitd?" in a folder all about orbitd: every line names it, and the one
    that says what it is ranks below ten shorter ones; it is still found and quoted."""
    client = await household_client(make_client, tmp_path / "roots", {"faq.txt": ORBITD_FAQ})
    await says(client, "What is orbitd?", "keeps the clocks")


ORBIT_FAQ = """# Orbit FAQ

## How can I make orbit smaller? It is far too big!

Several parts of orbit can be left out when you build it: give the configure script
the options below.

```
--disable-sync   leave out syncing
--disable-color  leave out colours
```

## Where are the notes kept?

In a folder named .orbit in your home folder, one file per note.
"""


async def test_a_question_heading_with_a_remark_after_it_still_asks(
    make_client: Client, tmp_path: Path
) -> None:
    """ "How can I make orbit smaller? It is far too big!" heads an FAQ entry like any
    question: its answer opens the entry, not the list of options below it."""
    client = await household_client(make_client, tmp_path / "roots", {"faq.md": ORBIT_FAQ})
    await says(
        client,
        "How can I make orbit smaller? It is far too big!",
        "configure script",
        absent=("--disable-sync",),
    )


def _entry(ord_: int, content: str, similarity: float) -> Passage:
    """A paragraph of the orbit FAQ's entry 7.1, as the search hands it to the reader."""
    heading = "faq > 7. Miscellaneous > 7.1. Where can I ask questions or send suggestions?"
    hit = Hit(ord_, "faq.html", ord_, heading, content, 1.0)
    return Passage("household", hit, "faq.html", 0.03, similarity)


def test_an_faq_entry_opens_with_its_answer_not_its_shortest_line() -> None:
    """Under one question heading, the model puts the list of addresses (mostly the heading
    they share) nearer the question than the paragraph saying which list is for what (the
    cosines all-MiniLM-L6-v2 gives nano's FAQ entry); the addresses say no more of the
    question in their own words, so the entry's opening paragraph is the answer. A line
    further down that does say more of it stays the answer."""
    question = "Where can I ask questions or send suggestions?"
    opening = _entry(
        1,
        "There are three mailing lists for orbit: info-orbit, help-orbit and orbit-devel. "
        "help-orbit is for getting help with the program without hearing how it is made.",
        0.585,
    )
    links = _entry(2, "help-orbit - https://lists.gnu.org/mailman/listinfo/help-orbit/", 0.64)
    ranked = rag._judged(question, {}, [links, opening], None, True)
    assert ranked[0][1] is opening, [p.hit.content for _, p in ranked]
    says_more = _entry(2, "Send questions to help-orbit and suggestions to orbit-devel.", 0.64)
    ranked = rag._judged(question, {}, [says_more, opening], None, True)
    assert ranked[0][1] is says_more, [p.hit.content for _, p in ranked]


ORBIT_NOTES = """Orbit notes

No, orbit works with any editor you like, graphical or in a terminal.

No, orbit can keep notes in any format.

Plain text, Markdown and Org files all sync the same way, and orbit never rewrites
what it does not understand.

Markdown previews open in your browser: orbit itself only ever shows plain text.
"""


async def test_a_yes_or_no_is_read_with_the_reasons_after_it(
    make_client: Client, tmp_path: Path
) -> None:
    """ "No, orbit can keep notes in any format." answers "Is orbit only for Markdown files?"
    though only the paragraphs after it say Markdown: a one-sentence yes or no is judged
    with the rest of its entry, and the direct answer is quoted rather than a reason after
    it or a line that merely mentions Markdown."""
    client = await household_client(make_client, tmp_path / "roots", {"orbit.txt": ORBIT_NOTES})
    await says(client, "Is orbit only for Markdown files?", "any format", absent=("previews",))


PUMP_FAQ = """# Pump FAQ

## Does the pump support timers, like night or holiday mode?

We support timers through the use of schedules, which give you:

- a night mode that halves the flow
  after 22:00
- a holiday mode that runs ten minutes an hour
- a frost guard that runs the pump below 3 degrees

## Where is the serial number?

On the label under the lid.
"""


async def test_one_item_of_a_list_is_not_the_whole_answer(
    make_client: Client, tmp_path: Path
) -> None:
    """When the clause leading into a list says what was asked, the answer is the clause
    with every item, not "… — a frost guard …" as if one item were all there is."""
    client = await household_client(make_client, tmp_path / "roots", {"pump-faq.md": PUMP_FAQ})
    await says(
        client,
        "Does the pump support timers?",
        "We support timers through the use of schedules",
        "night mode that halves the flow after 22:00",
        "holiday mode",
        "frost guard",
    )


async def test_a_spoken_answer_skips_a_preamble_that_names_nothing_asked(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """The note's first sentence says nothing the question asks about and its second
    does: the spoken answer starts at the second, so the third, which answers, is said."""
    note = (
        "Medicines\n\n"
        "Ben is allergic to bee stings. His EpiPen is in the red pouch by the back door. "
        "Push it into the side of the thigh, then call an ambulance.\n"
    )
    client = await with_model(make_client, tmp_path, embedding_model, {"medicines.txt": note})
    body = await ask(client, "where do you jab the epipen?")
    assert "side of the thigh" in body["result"], body
    assert body["spoken"].startswith("His EpiPen is in the red pouch"), body
    assert "side of the thigh" in body["spoken"], body


async def test_a_spoken_answer_says_the_later_sentence_that_names_what_is_asked(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """The quote's second sentence names nothing asked that its first does not, its third
    names the one it is asked for: the voice says the first and the third."""
    note = (
        "Takeaway\n\n"
        "For curry: Spice Garden, 03 5550 1234. They deliver until 11pm, minimum order $20. "
        "Their korma is mild enough for Noah.\n"
    )
    client = await with_model(make_client, tmp_path, embedding_model, {"takeaway.txt": note})
    body = await ask(client, "Is there a curry Noah can eat?")
    assert "mild enough for Noah" in body["result"], body
    assert "Spice Garden" in body["spoken"], body
    assert "mild enough for Noah" in body["spoken"], body
    assert "minimum order" not in body["spoken"], body


def test_a_procedures_steps_are_said_in_order() -> None:
    """Step 2 names nothing asked, step 3 does: step 2 is still said after step 1."""
    steps = "1. Switch the pump off.\n2. Open the lid.\n3. Clean the pump filter.\n"
    named = functools.partial(relevance.named_asked, "how do I clean the pump?")
    said = spoken_from_named(steps, 2, named, steps=True)
    assert "Open the lid" in said and "filter" not in said, said
    # Not a procedure: the sentence that names the filter is said in the lid's place.
    said = spoken_from_named("Switch the pump off. Open the lid. Clean the pump filter.", 2, named)
    assert "filter" in said and "lid" not in said, said
