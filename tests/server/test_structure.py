"""Documents read by their structure: FAQ questions head their answers, tables read as
rows under their header, label-value lines and contact lines as pairs, and sentences
never end at an abbreviation (issue 28)."""

from __future__ import annotations

from mnemolis.knowledge.chunking import Chunk, chunk_sections
from mnemolis.knowledge.parsing import read_document
from mnemolis.sentences import split_sentences
from mnemolis.sources.textutil import sentences
from mnemolis.spoken import spoken_form


def chunks_of(name: str, text: str) -> list[Chunk]:
    return chunk_sections(read_document(name, text.encode()).sections, name=name)


def chunk_with(chunks: list[Chunk], words: str) -> Chunk:
    found = [c for c in chunks if words in c.content]
    assert len(found) == 1, (words, chunks)
    return found[0]


def assert_no_bare_question(chunks: list[Chunk]) -> None:
    """No chunk is only a question: a search for it would find itself, not its answer."""
    for c in chunks:
        assert not c.content.rstrip("*_ ").endswith("?"), c


PLAIN_FAQ = """Frequently Asked Questions

(21) Can I use the library in a commercial product?

Yes. The code is in the public domain.

(22) Does the library support foreign keys?

Since version 3.6, foreign key constraints are enforced.
They are off by default; turn them on per connection.

3.4: How do I reset the
  router to factory settings?
  Hold the reset button for ten seconds.

Q: Where is the main water shut-off?
A: Under the kitchen sink, behind the bleach.

6.2 Which release should I run?

Most people want the stable release. For how many there are, read Section 6.1,
\u201cHow many releases are there?\u201d
"""


def test_plain_text_faq_questions_head_their_answers() -> None:
    chunks = chunks_of("faq.txt", PLAIN_FAQ)
    assert_no_bare_question(chunks)
    keys = chunk_with(chunks, "foreign key constraints are enforced")
    assert keys.heading.endswith("(22) Does the library support foreign keys?")
    assert "Does the library" not in keys.content
    commercial = chunk_with(chunks, "public domain")
    assert commercial.heading.endswith("Can I use the library in a commercial product?")
    reset = chunk_with(chunks, "Hold the reset button")
    assert reset.heading.endswith("3.4: How do I reset the router to factory settings?")
    assert reset.content == "Hold the reset button for ten seconds."


def test_answer_label_is_dropped_and_q_label_left_out_of_the_heading() -> None:
    shutoff = chunk_with(chunks_of("faq.txt", PLAIN_FAQ), "kitchen sink")
    assert shutoff.content == "Under the kitchen sink, behind the bleach."
    assert shutoff.heading.endswith(" > Where is the main water shut-off?")


def test_a_cross_reference_to_a_question_stays_in_its_answer() -> None:
    chunks = chunks_of("faq.txt", PLAIN_FAQ)
    answer = chunk_with(chunks, "Section 6.1")
    assert "Most people want the stable release." in answer.content
    assert answer.heading.endswith("6.2 Which release should I run?")
    assert not any(c.heading.endswith("How many releases are there?") for c in chunks)


def test_html_definition_list_faq() -> None:
    html = """<html><body><h1>Tool FAQ</h1><dl>
    <dt>How do I change my name?</dt>
    <dd><p>Set user.name in your config.</p><p>It applies to new commits only.</p></dd>
    <dt>Why is it slow on big folders?</dt><dd>Large folders are slow. Use sparse mode.</dd>
    </dl>
    <p><b>Can I undo a commit?</b></p><p>Use revert; it keeps history.</p>
    <h2>Is the tool free?</h2><p>Yes, under the GPL.</p></body></html>"""
    chunks = chunks_of("faq.html", html)
    assert_no_bare_question(chunks)
    assert chunk_with(chunks, "user.name").heading == "Tool FAQ > How do I change my name?"
    assert chunk_with(chunks, "new commits only").heading == "Tool FAQ > How do I change my name?"
    assert chunk_with(chunks, "sparse mode").heading.endswith("Why is it slow on big folders?")
    assert chunk_with(chunks, "keeps history").heading.endswith("Can I undo a commit?")
    assert chunk_with(chunks, "GPL").heading.endswith("Is the tool free?")


def test_markdown_and_rst_question_titles_head_their_answers() -> None:
    md = chunks_of("help.md", "# Help\n\n## Why does the boiler lose pressure?\n\nA small leak.\n")
    assert [(c.heading, c.content) for c in md] == [
        ("Help > Why does the boiler lose pressure?", "A small leak.")
    ]
    rst = "=================\nWhy is it noisy?\n=================\n\nAir in the pipes.\n"
    chunks = chunks_of("faq.rst", rst)
    assert [c.content for c in chunks] == ["Air in the pipes."]
    assert chunks[0].heading.endswith("Why is it noisy?")


def test_a_list_of_questions_answered_below_is_no_passage() -> None:
    text = (
        "Questions\n\n1. How do I bleed a radiator?\n2. Where is the fuse box?\n\n"
        "Answers\n\n1. How do I bleed a radiator?\n\nTurn the key until water comes out.\n\n"
        "2. Where is the fuse box?\n\nIn the garage, left of the door.\n"
    )
    chunks = chunks_of("house-faq.txt", text)
    assert_no_bare_question(chunks)
    assert chunk_with(chunks, "Turn the key").heading.endswith("How do I bleed a radiator?")


def test_a_question_nothing_answers_is_kept() -> None:
    chunks = chunks_of("notes.txt", "Todo\n\nShould we repaint the fence this year?\n")
    assert [c.content for c in chunks] == ["Should we repaint the fence this year?"]


def test_a_paragraph_that_tells_then_asks_is_no_heading() -> None:
    text = "Boiler\n\nThe pressure dropped again. Why?\n\nThe valve was open.\n"
    chunks = chunks_of("boiler.txt", text)
    assert [c.content for c in chunks] == [
        "The pressure dropped again. Why?",
        "The valve was open.",
    ]


CAR_LOG = """Car log

Date        Item                  Cost     Miles
----------  --------------------  -------  ------
2025-01-10  Oil change (0W-20)    $45      31,200
2025-03-02  New tires             $612     32,050
2025-06-18  Brake pads (front)    $230     35,400
"""


def test_space_aligned_text_table_reads_as_rows_with_their_header() -> None:
    chunks = chunks_of("car-log.txt", CAR_LOG)
    assert [c.content for c in chunks] == [
        "Date: 2025-01-10 | Item: Oil change (0W-20) | Cost: $45 | Miles: 31,200",
        "Date: 2025-03-02 | Item: New tires | Cost: $612 | Miles: 32,050",
        "Date: 2025-06-18 | Item: Brake pads (front) | Cost: $230 | Miles: 35,400",
    ]
    assert all(c.heading == "Car log" for c in chunks)


def test_prose_with_double_spaces_is_no_table() -> None:
    text = "Notes\n\nThe heater  works fine.\nCall Dave  if it stops working again today.\n"
    chunks = chunks_of("notes.txt", text)
    assert not any("Call Dave:" in c.content or "The heater:" in c.content for c in chunks)


WIFI = """Main wifi
Network: Maple5G
Password: sunflower-77

Guest wifi
Guest network: MapleGuest
Password: welcome-2024
"""


def test_guest_and_main_wifi_pairs_keep_their_own_heading() -> None:
    chunks = chunks_of("wifi.txt", WIFI)
    assert chunk_with(chunks, "welcome-2024").heading == "Guest wifi"
    assert chunk_with(chunks, "welcome-2024").content == "Password: welcome-2024"
    assert chunk_with(chunks, "sunflower-77").heading == "Main wifi"
    md = chunks_of("house.md", "# House\n\n" + WIFI.replace("\n\n", "\n\n\n"))
    assert chunk_with(md, "welcome-2024").heading.endswith("Guest wifi")
    assert chunk_with(md, "MapleGuest").heading.endswith("Guest wifi")
    assert chunk_with(md, "sunflower-77").heading.endswith("Main wifi")


CONTACTS = """Contacts

Plumber \u2013 Joe Smith \u2013 555-0100
Electrician \u2013 Ann Lee \u2013 555-0101
Dr. Patel (pediatrician): 613-555-0199
Window cleaner - Sparkle Co - 613 555 0123
"""


def test_contact_list_is_one_chunk_per_contact() -> None:
    chunks = chunks_of("contacts.txt", CONTACTS)
    assert [c.content for c in chunks] == [
        "Plumber \u2013 Joe Smith \u2013 555-0100",
        "Electrician \u2013 Ann Lee \u2013 555-0101",
        "Dr. Patel (pediatrician): 613-555-0199",
        "Window cleaner - Sparkle Co - 613 555 0123",
    ]
    assert {c.heading for c in chunks} == {"Contacts"}


def test_contact_list_under_a_lead_line_in_markdown() -> None:
    text = (
        "# Home\n\nWho to call:\n"
        "Plumber \u2013 Joe \u2013 555-0100\nVet \u2013 Dr. Jones \u2013 555-0142\n"
    )
    chunks = chunks_of("home.md", text)
    assert [c.content for c in chunks] == [
        "Plumber \u2013 Joe \u2013 555-0100",
        "Vet \u2013 Dr. Jones \u2013 555-0142",
    ]
    assert all(c.heading.endswith("Who to call") for c in chunks)


def test_abbreviations_never_end_a_sentence() -> None:
    text = (
        "Our vet is Dr. Jones at the St. Francis clinic. Book approx. 2 days ahead, "
        "e.g. for shots. Ask Mrs. J. Smith at desk No. 4. Bring forms etc. 3 copies. "
        "It is done. Then go."
    )
    expected = [
        "Our vet is Dr. Jones at the St. Francis clinic.",
        "Book approx. 2 days ahead, e.g. for shots.",
        "Ask Mrs. J. Smith at desk No. 4.",
        "Bring forms etc. 3 copies.",
        "It is done.",
        "Then go.",
    ]
    assert split_sentences(text) == expected
    assert sentences(text) == expected
    assert spoken_form("The vet is Dr. Jones. Call 555-0142.").startswith("The vet is Dr. Jones.")


def test_long_paragraph_is_not_cut_after_a_title() -> None:
    sentence = "Call Dr. Patel about the checkup and the forms. "
    chunks = chunks_of("notes.txt", "Kids\n\n" + sentence * 40)
    assert len(chunks) > 1
    assert all(not c.content.endswith("Dr.") for c in chunks)


def test_a_labelled_question_of_several_sentences_heads_its_answer() -> None:
    text = (
        "<h2>Numbers FAQ</h2><p>Q. Values print in many forms. Is there one canonical form?</p>"
        "<p>A. The normalize() method maps them to one.</p>"
        "<p>Q. Within a long calculation, how can I check the rounding.</p>"
        "<p>A. Run it again with more precision.</p>"
    )
    chunks = chunks_of("numbers.html", text)
    assert [c.content for c in chunks] == [
        "The normalize() method maps them to one.",
        "Run it again with more precision.",
    ]
    assert chunks[0].heading.endswith("> Values print in many forms. Is there one canonical form?")
    assert chunks[1].heading.endswith("> Within a long calculation, how can I check the rounding.")


def test_a_sentence_that_only_ends_in_a_question_mark_is_no_heading() -> None:
    text = (
        "# Regex\n\nFor example, this one is verbose; see how much easier it is to read?\n\n"
        "```\nx = 1\n```\n\nWithout it the pattern is dense.\n"
    )
    chunks = chunks_of("regex.md", text)
    assert all(c.heading == "Regex" for c in chunks), chunks
    assert any("see how much easier" in c.content for c in chunks)


def test_answer_units_are_not_cut_at_a_title() -> None:
    from mnemolis.sources.rag import _units

    units = _units("Our vet is Dr. Jones at St. Francis. Call 613-555-0142 to book.")
    assert units == ["Our vet is Dr. Jones at St. Francis.", "Call 613-555-0142 to book."]


def test_numbered_faq_entries_head_their_answers_even_without_a_question_mark() -> None:
    text = (
        "1. How do I set up a mailing list?\n\n\tRead the INTRO file first.\n\n"
        "2. When I compile it the compiler warns about pointers.\n"
        "   Should I be concerned?\n\n\tIgnore these warnings.\n\n"
        "3. The From_ line shows the wrong time zone.\n\n\tThis is a known bug in old mailers.\n"
    )
    chunks = chunks_of("mail-faq.txt", text)
    assert_no_bare_question(chunks)
    headings = {c.content: c.heading.split(" > ")[-1] for c in chunks}
    assert headings == {
        "Read the INTRO file first.": "1. How do I set up a mailing list?",
        "Ignore these warnings.": (
            "2. When I compile it the compiler warns about pointers. Should I be concerned?"
        ),
        "This is a known bug in old mailers.": "3. The From_ line shows the wrong time zone.",
    }


def test_numbered_steps_are_no_faq_entries() -> None:
    text = "Bleeding\n\n1. Turn the heating off.\n\n2. Open the valve a quarter turn.\n"
    chunks = chunks_of("radiators.txt", text)
    assert [c.content for c in chunks] == [
        "1. Turn the heating off.",
        "2. Open the valve a quarter turn.",
    ]
    assert {c.heading for c in chunks} == {"radiators > Bleeding"}


def test_answer_label_under_a_question_title_is_dropped() -> None:
    rst = "What is it for?\n===============\n\n**Answer:** Running work in the background.\n"
    chunks = chunks_of("faq.rst", rst)
    assert [c.content for c in chunks] == ["Running work in the background."]


def test_a_note_of_one_statement_a_line_is_a_chunk_a_line() -> None:
    """A note whose lines each open with a capital and stop without a full stop, short of
    the paragraph's width, holds a fact a line; prose wrapped at a width stays one."""
    note = (
        "THIS WEEK\n"
        "Priya has netball Tues 5.30 at the stadium, needs her bib\n"
        "Arjun's reading folder goes back on Fridays\n"
        "Dentist check-up Wed 3 Sept 4.10pm (Dr. Moss, level 2)\n"
        "\n"
        "The boiler is serviced every autumn by the company that fitted it, Hartley\n"
        "Heating Ltd, and the engineer leaves a note on the side.\n"
    )
    chunks = chunks_of("week.txt", note)
    netball = chunk_with(chunks, "netball")
    assert "reading folder" not in netball.content and "Dentist" not in netball.content
    assert "Dr. Moss" in chunk_with(chunks, "Dentist").content
    # Wrapped at a width, its next line opening with a name: one sentence.
    assert "Hartley\nHeating Ltd" in chunk_with(chunks, "boiler").content


def test_a_line_over_a_text_table_is_no_part_of_its_first_row() -> None:
    """The title over a space-aligned table says something of every row: it is a passage
    of its own, and the first row reads like the others."""
    log = (
        "CAR LOG - service and repairs   (Outback = ABC 123)\n"
        "\n"
        "Date        Car       Work done                 Cost\n"
        "2025-02-11  Outback   Timing belt replaced      $880.00\n"
        "2025-07-30  Corolla   New wiper blades          $42.00\n"
    )
    chunks = chunks_of("car-log.txt", log)
    first = chunk_with(chunks, "Timing belt")
    assert first.content == (
        "Date: 2025-02-11 | Car: Outback | Work done: Timing belt replaced | Cost: $880.00"
    )
    assert chunk_with(chunks, "ABC 123").content.startswith("CAR LOG")


def test_a_definition_term_heads_its_answer_whether_or_not_it_asks() -> None:
    """An FAQ's <dt> put as a statement ("The fan rattles at night.") heads its <dd>, as
    one put as a question does; neither answer sits under the other's term, and what
    follows the list is under the page's heading again."""
    html = """<html><body><h1>Heater manual</h1><h2>Questions</h2><dl>
    <dt>Why does the light blink?</dt><dd>It is warming up.</dd>
    <dt>The fan rattles at night.</dt><dd>Tighten the two screws on the grille.</dd>
    <dt>The display is blank. What should I do?</dt><dd>Check the fuse in the plug.</dd>
    </dl><p>Still stuck? Ring the helpline on the back cover.</p></body></html>"""
    chunks = chunks_of("heater.html", html)
    assert chunk_with(chunks, "helpline").heading.endswith("Heater manual > Questions")
    assert chunk_with(chunks, "two screws").heading.endswith(
        "Questions > The fan rattles at night."
    )
    assert chunk_with(chunks, "fuse in the plug").heading.endswith(
        "Questions > The display is blank. What should I do?"
    )
    assert chunk_with(chunks, "warming up").heading.endswith("Why does the light blink?")
    assert not any(c.content == "The fan rattles at night." for c in chunks)


# A plain-text FAQ as many GNU packages ship it: a contents list of its numbered
# questions, then each "2.1 Question?" at the margin over its answer, set in.
CONTENTS_FAQ = """Garden Pump
Frequently Asked Questions

     * 1 Getting started
          + 1.1 What is the garden pump?
          + 1.2 Where can I buy a spare filter?

     * 2 Problems
          + 2.1 Why does the pump hum but not
            draw water?

1 Getting started

1.1 What is the garden pump?

   A small electric pump that lifts rain water from the butt to the beds.

1.2 Where can I buy a spare filter?

   The shop is at https://pumps.example.org/filters

2 Problems

2.1 Why does the pump hum but not draw water?

   The inlet is blocked or the pump has lost its prime.  Fill it again:

     prime --fill

   Then start it with the valve half open.

2.2 Is it safe to leave it out in winter?

   No, frost cracks the housing.  Bring it in once nights drop below zero.
"""


def test_a_contents_list_of_questions_answered_below_is_no_passage() -> None:
    """ "+ 1.1 What is …?" in the contents spells the question out: a search for it would
    find the contents line, not the answer under "1.1" further down."""
    chunks = chunks_of("pump-faq.txt", CONTENTS_FAQ)
    assert not any("+ 1.1" in c.content or "+ 2.1" in c.content for c in chunks), chunks
    assert chunk_with(chunks, "lifts rain water").heading.endswith("1.1 What is the garden pump?")


def test_a_contents_entry_that_tells_before_it_asks_is_no_passage() -> None:
    """vim's contents list wraps entries that tell before they ask ("I tried X. None of
    it helped. How do I …?"): the whole entry is one contents line, never a passage."""
    text = """Pump FAQ

CONTENTS

    1.1. How do I prime the pump?
    1.2. The pump hums. I opened the valve and then closed it again.
         Nothing helped. How do I stop the humming?
    1.3. Is the pump waterproof?

1.1. How do I prime the pump?

Fill it through the top plug.

1.2. The pump hums. I opened the valve and then closed it again.
Nothing helped. How do I stop the humming?

Tighten the feet: the hum is the frame shaking.

1.3. Is the pump waterproof?

Yes, to one metre.
"""
    chunks = chunks_of("pump-faq.txt", text)
    assert not any("Nothing helped" in c.content for c in chunks), chunks
    assert chunk_with(chunks, "frame shaking").heading.endswith("How do I stop the humming?")


def test_a_one_line_answer_without_a_full_stop_answers_its_question() -> None:
    """A short answer that ends in a link, not a full stop, is still the answer: it is
    quoted under its question, and the question is no passage of its own."""
    chunks = chunks_of("pump-faq.txt", CONTENTS_FAQ)
    shop = chunk_with(chunks, "pumps.example.org")
    assert shop.heading.endswith("1.2 Where can I buy a spare filter?")
    assert shop.content == "The shop is at https://pumps.example.org/filters"
    assert_no_bare_question(chunks)


def test_a_command_set_in_deeper_is_no_heading() -> None:
    """A short line set in deeper than the text before it is an example in that text,
    not a title over what follows: the answers after it keep their own questions, and
    a lead-in with nothing after it stays under its question."""
    chunks = chunks_of("pump-faq.txt", CONTENTS_FAQ)
    assert not any("prime --fill" in c.heading for c in chunks), chunks
    assert chunk_with(chunks, "frost cracks").heading.endswith(
        "2 Problems > 2.2 Is it safe to leave it out in winter?"
    )
    assert chunk_with(chunks, "valve half open").heading.endswith(
        "2.1 Why does the pump hum but not draw water?"
    )


def test_an_unnumbered_question_inside_a_numbered_answer_is_part_of_it() -> None:
    """Where every question is numbered, a question quoted inside an answer (a reader's
    letter) is the answer's text: what follows it stays under the numbered question."""
    text = (
        "3.1 Why does the pump stop after an hour?\n\n"
        "   A reader wrote: it runs fine, then stops and will not start again.\n\n"
        "   Is it broken?\n\n"
        "   No. The thermal cut-out trips when the housing gets too hot; let it cool.\n\n"
        "3.2 How do I clean the filter?\n\n"
        "   Rinse it under the tap once a month.\n"
    )
    chunks = chunks_of("pump-faq.txt", text)
    assert_no_bare_question(chunks)
    cut_out = chunk_with(chunks, "thermal cut-out")
    assert cut_out.heading.endswith("3.1 Why does the pump stop after an hour?")
    assert "Is it broken?" in cut_out.content
    assert chunk_with(chunks, "Rinse it").heading.endswith("3.2 How do I clean the filter?")


# A plain-text FAQ in chapters: its contents list the numbered questions under their
# chapter lines, then each chapter repeats them over their answers, set in.
CHAPTERS_FAQ = """Frequently asked questions about the Pond shell

Chapter 1:  Introducing the shell
1.1:  What is it?
1.2:  On what machines will it run?

Chapter 2:  Getting things to work
2.1:  Why does `$var' not split into
      two words?
2.2:  In which startup file do I put my prompt?

Chapter 1:  Introducing the shell

1.1:  What is it?

  A command interpreter for small ponds.

1.2:  On what machines will it run?

  Any machine with a C compiler and a POSIX library.

Chapter 2:  Getting things to work

2.1:  Why does `$var' not split into
      two words?

  Pond does not split a variable's value at spaces.  Use ${=var} to split it.

2.2:  In which startup file do I put my prompt?

  Put it in ~/.pondrc, which every interactive shell reads.
"""


def test_chapter_lines_head_their_questions() -> None:
    """ "Chapter 2:  Getting things to work" is a heading, though it holds a colon and
    six words: the contents under it are a list of questions answered below (no
    passage), and the questions after it in the text are in that chapter."""
    chunks = chunks_of("pond-faq.txt", CHAPTERS_FAQ)
    assert_no_bare_question(chunks)
    assert not any("Chapter" in c.content for c in chunks), chunks
    split = chunk_with(chunks, "does not split")
    assert split.heading.endswith(
        "Chapter 2:  Getting things to work > 2.1:  Why does `$var' not split into two words?"
    )


def test_a_question_opening_with_a_preposition_heads_its_answer() -> None:
    """ "In which startup file …?" and "On what machines …?" ask as "Which …?" does: in a
    list of the questions they are no answer to the one before them."""
    text = (
        "Contents\n\n1.1:  What is it?\n1.2:  On what machines will it run?\n"
        "1.3:  In which startup file do I put my prompt?\n\n"
        "1.1:  What is it?\n\n  A command interpreter for small ponds.\n\n"
        "1.2:  On what machines will it run?\n\n  Any machine with a C compiler.\n\n"
        "1.3:  In which startup file do I put my prompt?\n\n  Put it in ~/.pondrc.\n"
    )
    chunks = chunks_of("pond-faq.txt", text)
    assert_no_bare_question(chunks)
    assert not any("On what machines" in c.content for c in chunks), chunks
    assert chunk_with(chunks, "~/.pondrc").heading.endswith(
        "1.3:  In which startup file do I put my prompt?"
    )
    assert chunk_with(chunks, "C compiler").heading.endswith("1.2:  On what machines will it run?")


def test_a_contents_list_names_the_entries_that_do_not_ask() -> None:
    """Numbered entries put as titles ("1.1:  Sources of information") head their
    answers when the contents list names them, as the ones that ask do; the contents
    list itself is no passage, and a chapter named by a question is still a chapter."""
    text = (
        "Pond shell FAQ\n\n"
        "Chapter 1:  Introducing the shell\n1.1:  Sources of information\n"
        "1.2:  What is it?\n\n"
        "Chapter 2:  How does it differ from other shells?\n"
        "2.1:  Differences from the Bourne shell\n2.2:  Why do my aliases not work?\n\n"
        "Chapter 1:  Introducing the shell\n\n"
        "1.1:  Sources of information\n\n  The manual pages first, then the mailing list.\n\n"
        "1.2:  What is it?\n\n  A command interpreter for small ponds.\n\n"
        "Chapter 2:  How does it differ from other shells?\n\n"
        "2.1:  Differences from the Bourne shell\n\n  Arrays start at one.\n\n"
        "2.2:  Why do my aliases not work?\n\n  They are expanded when a line is read.\n"
    )
    chunks = chunks_of("pond-faq.txt", text)
    assert not any(c.content.startswith(("1.1:", "1.2:", "2.1:", "2.2:")) for c in chunks)
    assert chunk_with(chunks, "manual pages").heading.endswith(
        "Chapter 1:  Introducing the shell > 1.1:  Sources of information"
    )
    assert chunk_with(chunks, "Arrays start").heading.endswith(
        "Chapter 2:  How does it differ from other shells? > "
        "2.1:  Differences from the Bourne shell"
    )
    assert chunk_with(chunks, "when a line is read").heading.endswith(
        "2.2:  Why do my aliases not work?"
    )


def test_box_drawn_underlines_mark_titles() -> None:
    """Text rendered from HTML draws its titles' underlines with box-drawing rules
    ("──────"): the title heads what follows, and the rule is no passage."""
    text = (
        "1. Definitions\n\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\n\n"
        "1.1. Who keeps the pond?\n\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\n\n"
        "The garden club, every second Saturday.\n"
    )
    chunks = chunks_of("pond-faq.txt", text)
    assert not any("\u2500" in c.content for c in chunks), chunks
    assert chunk_with(chunks, "garden club").heading.endswith("1.1. Who keeps the pond?")


def test_a_sentence_opening_with_chapter_is_no_heading() -> None:
    """ "Chapter 2 explains the pump." is a sentence about a chapter, not its title, and
    a "Part 3 of the manual covers" that runs on below is one too."""
    text = (
        "Pump notes\n\nChapter 2 explains how to prime the pump.\n\nPrime it before use.\n\n"
        "Part 3 of the manual covers\nwinter storage in detail.\n"
    )
    chunks = chunks_of("pump-notes.txt", text)
    assert not any("Chapter 2" in c.heading or "Part 3" in c.heading for c in chunks), chunks
    assert chunk_with(chunks, "Chapter 2 explains")


DOCBOOK_QANDASET = """<html><head><title>Pump FAQ</title></head><body>
<div><table class="nav" summary="Navigation header"><tr>
<td><a href="index.html">Prev</a></td><th>Pump FAQ</th><td><a href="n.html">Next</a></td>
</tr></table></div>
<div class="article"><h1 class="title">Pump Frequently Asked Questions</h1>
<div class="qandaset"><dl>
<dt>1. <a href="faq.html#faq.background">Background</a></dt>
<dd>1.1. <a href="faq.html#faq.name">Where does the name "Pondpump" come from?</a></dd>
<dd>1.2. <a href="faq.html#faq.prime">How do I prime the pump?</a></dd>
</dl>
<table summary="Q and A Div" border="0">
<tr class="qandadiv"><td colspan="2"><h3 class="title">1. Background</h3></td></tr>
<tr class="toc"><td colspan="2">1.1. <a href="faq.html#faq.name">Where does the name
"Pondpump" come from?</a><br>1.2. <a href="faq.html#faq.prime">How do I prime the
pump?</a><br></td></tr>
<tr class="question"><td><a name="faq.name"></a><b>1.1.</b></td>
<td><b>Where does the name "Pondpump" come from?</b></td></tr>
<tr class="answer"><td></td><td><p>From the first pond it drained, in 1998.</p>
<p>The second pond kept its own name.</p></td></tr>
<tr class="question"><td><b>1.2.</b></td><td><b>How do I prime the pump?</b></td></tr>
<tr class="answer"><td></td><td><p>Fill the housing with water through the top plug.</p>
<pre>open the bleed valve</pre><p>Then start it with the valve open.</p></td></tr>
</table></div></div></body></html>"""


def test_docbook_question_and_answer_rows_head_their_answers() -> None:
    """DocBook's qandaset is a table of question and answer rows after a contents list
    of numbered links: each question heads its answer, the contents are no passage."""
    chunks = chunks_of("faq.html", DOCBOOK_QANDASET)
    assert_no_bare_question(chunks)
    name = chunk_with(chunks, "first pond it drained")
    assert name.heading.endswith('1. Background > 1.1. Where does the name "Pondpump" come from?')
    assert chunk_with(chunks, "second pond kept its own name").heading == name.heading
    assert "|" not in name.content
    prime = chunk_with(chunks, "through the top plug")
    assert prime.heading.endswith("1.2. How do I prime the pump?")
    assert "valve open" in " ".join(c.content for c in chunks if c.heading == prime.heading)
    assert not any("1.2." in c.content or "Next" in c.content for c in chunks)


def test_a_line_after_a_lead_in_is_no_heading() -> None:
    """ "After the above, then:" introduces the command set below it ("make install"): it
    is part of the answer, not a title heading every entry after it."""
    text = """Pump FAQ

14. How do I install the pump on a slope?

    After the above, then:

    bolt the feet down

    However, most slopes need no bolts. Check the level first.

15. Is the pump waterproof?

    Yes, to one metre.
"""
    chunks = chunks_of("faq.txt", text)
    slope = chunk_with(chunks, "bolt the feet")
    assert slope.heading.endswith("14. How do I install the pump on a slope?")
    waterproof = chunk_with(chunks, "to one metre")
    assert waterproof.heading.endswith("Pump FAQ > 15. Is the pump waterproof?")


def test_a_bold_list_item_standing_alone_heads_its_answer() -> None:
    """A Markdown FAQ whose questions are bold items of their own ("* **1.1 What is
    this?**", cryptsetup's) answered by the paragraphs under them: each question heads
    its answer and is no passage of its own."""
    md = """# Pump FAQ

# 1. General Questions

  * **1.1 Can the pump run dry?**

  No. Running dry for more than a minute ruins the seal.
  Always prime it first.

  * **1.2 WARNINGS**

  Never open the housing while it is plugged in.

  * **1.3 Where is the mailing list?**

  It is at lists.example.org.
"""
    chunks = chunks_of("faq.md", md)
    assert_no_bare_question(chunks)
    dry = chunk_with(chunks, "ruins the seal")
    assert dry.heading.endswith("1. General Questions > 1.1 Can the pump run dry?")
    assert chunk_with(chunks, "housing").heading.endswith("1.2 WARNINGS")
    lists = chunk_with(chunks, "lists.example.org")
    assert lists.heading.endswith("1.3 Where is the mailing list?")


def test_rest_underlines_of_quotes_and_pluses_mark_titles() -> None:
    """reStructuredText underlines a title with any punctuation: ''''' and +++++ too
    (mdadm's FAQ), so the title heads its text instead of being read as a sentence."""
    text = """Pump notes

Old pumps (before 2010)
'''''''''''''''''''''''
  Prime them by hand through the top plug.

New pumps
+++++++++
  They prime themselves.
"""
    chunks = chunks_of("notes.txt", text)
    assert chunk_with(chunks, "by hand").heading.endswith("Old pumps (before 2010)")
    assert chunk_with(chunks, "themselves").heading.endswith("New pumps")
    assert not any("'''" in c.content or "+++" in c.content for c in chunks)
    code = 'Example\n\nText.\n\n    def add(x, y):\n        """\n        Add them.\n        """\n'
    code += "        return x + y\n"
    assert [c.heading for c in chunks_of("ex.rst", code) if "return" in c.content] == ["Example"]


def test_any_punctuation_repeated_underlines_a_rest_title() -> None:
    """reStructuredText takes any punctuation mark as an underline: coverage.py's FAQ
    underlines its questions with dots. The dots are no passage, the question heads its
    answer."""
    text = """Pump FAQ
========

Q: Why does the pump hum at night?
..................................

The timer runs it for an hour after midnight to keep the seal wet.

Q: Can I paint the pump?
________________________

Yes, with any outdoor paint.
"""
    chunks = chunks_of("faq.rst", text)
    hum = chunk_with(chunks, "keep the seal wet")
    assert hum.heading.endswith("Why does the pump hum at night?")
    assert chunk_with(chunks, "outdoor paint").heading.endswith("Can I paint the pump?")
    assert all(any(ch.isalnum() for ch in c.content) for c in chunks), chunks


def test_a_definition_list_term_that_asks_heads_its_definition() -> None:
    """psycopg2's FAQ is a reStructuredText definition list: each term asks, however it
    opens ("It fails with an error. Why?"), and its definition set in below answers."""
    text = """Pump FAQ
========

Running
-------

The pump starts but stops after a second. Why?
    The float switch is stuck: lift it and let it drop.

My pump hums at night. Can I oil it?
    No. The bearings are sealed.

- Have you read the manual?
    It is in the box.
"""
    chunks = chunks_of("faq.rst", text)
    float_switch = chunk_with(chunks, "float switch")
    assert float_switch.heading.endswith("Running > The pump starts but stops after a second. Why?")
    assert chunk_with(chunks, "sealed").heading.endswith("My pump hums at night. Can I oil it?")
    assert_no_bare_question(chunks)
    assert not any("manual?" in c.heading for c in chunks)


def test_a_rest_comment_is_not_indexed() -> None:
    """A block set in under a bare ".." is a reStructuredText comment, never shown (lxml's
    hidden contents list): none of its lines is a passage to quote."""
    text = """Pump FAQ
========

..
   1  General
     1.1  Why does the pump hum?
     1.2  My pump leaks
   2  Installation

Why does the pump hum?
----------------------

The timer runs it at night.

..

Leaks are covered by the warranty.
"""
    chunks = chunks_of("faq.rst", text)
    assert not any("1.2" in c.content or "Installation" in c.content for c in chunks), chunks
    assert chunk_with(chunks, "timer").heading.endswith("Why does the pump hum?")
    assert chunk_with(chunks, "warranty")  # an empty comment hides nothing after it
    assert all(any(ch.isalnum() for ch in c.content) for c in chunks), chunks


def test_rest_markup_the_page_never_shows_is_no_passage() -> None:
    """Hyperlink targets (".. _faq-question:", a target's address run on below it),
    a directive's own line and its options (".. contents::", ":local:") are markup: a
    passage of them would be quoted as an answer ("Meta — .. _faq-question: .."). What
    a directive holds stays."""
    text = """Pump FAQ
========

.. contents::
   :local:

.. _faq-hum:
.. cssclass:: faq

Why does the pump hum?
----------------------

.. _`the pump's page`:
   https://pumps.example.org/hum

The timer runs it at night.

.. note::
   Unplug it before you open it.
"""
    chunks = chunks_of("faq.rst", text)
    assert not any(".. " in c.content or ":local:" in c.content for c in chunks), chunks
    assert not any("pumps.example.org" in c.content for c in chunks), chunks
    assert chunk_with(chunks, "timer").heading.endswith("Why does the pump hum?")
    assert chunk_with(chunks, "Unplug it").heading.endswith("Why does the pump hum?")


def test_underlined_titles_nest_by_their_marks() -> None:
    """As in reStructuredText, a title underlined with a mark not seen yet is one level
    below the last; a mark seen before closes the titles under it."""
    text = """Pump FAQ
========

3. How does the pump pick its speed?
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  It reads the dial first.

  Old pumps (before 2010)
  '''''''''''''''''''''''
    They run at one speed only.

4. Is the pump loud?
~~~~~~~~~~~~~~~~~~~~
  No, 40 dB.
"""
    chunks = chunks_of("faq.txt", text)
    old = chunk_with(chunks, "one speed only")
    assert old.heading.endswith(
        "Pump FAQ > 3. How does the pump pick its speed? > Old pumps (before 2010)"
    )
    assert chunk_with(chunks, "40 dB").heading.endswith("Pump FAQ > 4. Is the pump loud?")


def test_a_rest_literal_block_is_no_heading() -> None:
    """A line set in under ".. code-block::" or a paragraph ending "::" is code or a
    config line ("Defaults requiretty"), never a title over the entries after it."""
    text = """Pump FAQ
========

Why does the pump not start from cron?
--------------------------------------

The service file needs a line that makes it wait for the network:

.. code-block:: text

    After network-online

    Wants network

If that line is missing, the pump starts before the network is up.

Can I run two pumps?
--------------------

Yes. Give each its own name, like this::

    pump --name left

    pump --name right
"""
    chunks = chunks_of("faq.rst", text)
    assert not any("network" in c.heading.lower() or "pump --name" in c.heading for c in chunks)
    network = chunk_with(chunks, "starts before the network")
    assert network.heading.endswith("Why does the pump not start from cron?")
    assert chunk_with(chunks, "--name right").heading.endswith("Can I run two pumps?")


def test_a_texinfo_node_bar_is_no_passage() -> None:
    """texinfo's HTML heads every node with "Next: …, Up: … [Contents][Index]": links
    and the bar's own words, no text of the page."""
    html = """<html><body><h1>Pump manual</h1>
<div class="section" id="Priming"><div class="header"><p>
Next: <a href="#Noise" rel="next">Why Is It Loud?</a>, Up: <a href="#FAQ" rel="up">Pump
questions</a> &nbsp; [<a href="#SEC_Contents" rel="contents">Contents</a>][<a
href="#Indices" rel="index">Index</a>]</p></div>
<h3 class="section">20.1 How Do I Prime It?</h3>
<p>Fill the housing through the top plug.</p></div></body></html>"""
    chunks = chunks_of("manual.html", html)
    assert [c.content for c in chunks] == ["Fill the housing through the top plug."]


def test_a_table_of_questions_and_answers_reads_as_entries() -> None:
    """A table whose rows are a question and its answer (a "Question | Answer" header):
    each question heads its answer, so the answer is quoted without it."""
    html = """<html><body><h1>Pump help</h1><h2>Quick answers</h2>
<table><tr><th>Question</th><th>Answer</th></tr>
<tr><td>What voltage does it use?</td><td>It runs on 12 V from the transformer.</td></tr>
<tr><td>Is the cable replaceable?</td><td>No, the cable is sealed into the motor.</td></tr>
</table></body></html>"""
    chunks = chunks_of("help.html", html)
    assert_no_bare_question(chunks)
    volts = chunk_with(chunks, "12 V")
    assert volts.heading.endswith("Quick answers > What voltage does it use?")
    assert volts.content == "It runs on 12 V from the transformer."
    cable = chunk_with(chunks, "sealed")
    assert cable.heading.endswith("Quick answers > Is the cable replaceable?")
    assert not any(c.content.startswith("Question") for c in chunks)
    pattern = "<table><tr><th>Pattern</th><th>Meaning</th></tr><tr><td>?</td><td>any one</td></tr>"
    assert [c.content for c in chunks_of("p.html", pattern)] == ["Pattern: ? | Meaning: any one"]


def test_a_question_under_a_title_line_in_a_pdf_heads_its_answer() -> None:
    """A PDF's text has no blank lines between paragraphs: a question opening with a
    capital after a title that ends no clause ("Pond pump: frequently asked questions")
    heads its answer, not a run-on of the title."""
    text = """Pond pump: frequently asked questions
Why does the pump hum but not turn?
The impeller is blocked. Unplug the pump and clear the impeller.
Can the pump run dry?
No. Running dry ruins the seal."""
    chunks = chunks_of("faq.txt", text)
    assert_no_bare_question(chunks)
    hum = chunk_with(chunks, "impeller is blocked")
    assert hum.heading.endswith("Why does the pump hum but not turn?")
    assert "frequently asked" not in hum.content


def test_a_table_inside_a_docbook_answer_stays_a_table_of_that_answer() -> None:
    """An answer row may hold a table of its own: its rows keep their cells, and the
    question after it still heads its own answer."""
    html = """<html><body><h1>Pump FAQ</h1><table>
<tr class="question"><td><b>1.1.</b></td><td><b>Which fuses fit?</b></td></tr>
<tr class="answer"><td></td><td><p>These do:</p>
<table><tr><th>Model</th><th>Fuse</th></tr><tr><td>P10</td><td>3 A</td></tr></table>
</td></tr>
<tr class="question"><td><b>1.2.</b></td><td><b>Is it loud?</b></td></tr>
<tr class="answer"><td></td><td><p>No, 40 dB.</p></td></tr>
</table></body></html>"""
    chunks = chunks_of("faq.html", html)
    assert_no_bare_question(chunks)
    assert chunk_with(chunks, "3 A").heading.endswith("1.1. Which fuses fit?")
    assert "Model: P10 | Fuse: 3 A" in chunk_with(chunks, "3 A").content
    assert chunk_with(chunks, "40 dB").heading.endswith("1.2. Is it loud?")
