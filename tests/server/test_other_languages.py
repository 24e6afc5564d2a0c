"""Documents and questions in another language than English: the question's own function
words carry no subject, its words meet their inflections, and a section's heading frames
its sentences in any language."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import snowballstemmer

from mnemolis.knowledge import foreign_kinds, relevance
from mnemolis.knowledge.database import DocumentDatabase, Hit
from mnemolis.knowledge.documents import Passage
from mnemolis.knowledge.foreign_kinds import other_day
from mnemolis.knowledge.text import query_tokens
from mnemolis.language import (
    asked_in,
    foreign,
    root_in,
    separable_verbs,
    stem_in,
    stop_words_of,
    unaccented,
)
from mnemolis.sentences import split_sentences
from mnemolis.sources import rag

from .knowledge_helpers import (
    household_client,
    make_pdf_lines,
    model_household_client,
    store_of,
)

Client = Callable[..., Any]

HAUS = """# Hausinfos

## WLAN
Das WLAN heißt "Müller-Heim". Das Passwort ist sonnenblume42.
Für Gäste gibt es das Netz "Müller-Gast" mit dem Passwort gastfreundlich7.

## Heizung
Die Heizung ist eine Viessmann Vitodens 200. Der Druck soll zwischen 1,5 und 2 bar liegen.
Wenn der Druck unter 1 bar fällt, am Füllhahn im Keller Wasser nachfüllen.

## Müll
Die gelbe Tonne wird jeden zweiten Dienstag geleert. Die Biotonne kommt jeden Freitag.

## Fernsehen
Das Netflix-Profil für die Kinder heißt "Kinderkino".
"""


async def _asked(client: Any, question: str, language: str | None) -> dict[str, Any]:
    body: dict[str, Any] = {"query": question}
    if language:
        body["language"] = language
    resp = await client.post("/search", json=body)
    answer: dict[str, Any] = await resp.json()
    assert resp.status == 200, answer
    return answer


def test_a_questions_function_words_are_its_languages() -> None:
    """ "Wie", "das", "soll" are German function words; an English question keeps its own
    list (the knowledge store's), and "die" there is a word like any other."""
    assert foreign("Welchen Druck soll die Heizung haben?") == "German"
    assert {"welchen", "soll", "die", "haben"} <= stop_words_of(
        "Welchen Druck soll die Heizung haben?"
    )
    assert query_tokens("Welchen Druck soll die Heizung haben?") == ["druck", "heizung"]
    assert foreign("What should the boiler pressure be?") is None
    assert stop_words_of("Why did the plant die?") == frozenset()
    assert "die" in query_tokens("Why did the plant die?")


def test_a_words_inflections_meet_in_its_language() -> None:
    """Snowball's German stems: the plural and the singular, umlaut or not."""
    assert stem_in("German", "Tonnen") == stem_in("German", "Tonne")
    assert stem_in("German", "Gäste") == stem_in("German", "Gast")
    assert stem_in("French", "poubelles") == stem_in("French", "poubelle")


async def test_german_notes_answer_german_questions(make_client: Client, tmp_path: Path) -> None:
    """The sentence that says what is asked, not the section's first: the password under
    "## WLAN", the pressure under "## Heizung"; "Tonnen" finds "Tonne"; whether or not
    the pipeline names the language."""
    client = await household_client(make_client, tmp_path / "roots", {"haus.md": HAUS})
    for language in ("de", None):
        body = await _asked(client, "Wie lautet das WLAN-Passwort?", language)
        assert "sonnenblume42" in body["result"], body
        assert "Müller-Heim" not in body["spoken"], body
        body = await _asked(client, "Welchen Druck soll die Heizung haben?", language)
        assert "1,5 und 2 bar" in body["result"], body
        body = await _asked(client, "Wann werden die gelben Tonnen geleert?", language)
        assert "Dienstag" in body["result"] and "Freitag" not in body["result"], body


def test_another_languages_abbreviations_end_no_sentence() -> None:
    """ "z. B.", "d. h.", "bzw." and "inkl." go on; a sentence still ends before a capital."""
    assert split_sentences(
        "Die Wäsche ist ungleich verteilt, z. B. bei einem Badetuch. Dann neu starten."
    ) == ["Die Wäsche ist ungleich verteilt, z. B. bei einem Badetuch.", "Dann neu starten."]
    assert len(split_sentences("Das kostet 20 € inkl. Versand bzw. Abholung. Danke.")) == 2
    assert len(split_sentences("Es ist voll, d. h. Wir warten.")) == 1
    assert len(split_sentences("Call Dr. Patel. Then rest.")) == 2
    # A sentence opens with a capital beyond A to Z, a section sign or "¿" too.
    assert len(split_sentences("Das Fenster ist zu. Übrigens klemmt es.")) == 2
    assert len(split_sentences("Fermée le lundi. École le mardi.")) == 2
    assert len(split_sentences("Llega a las 5. ¿Quién abre?")) == 2


async def test_a_german_question_nothing_answers_is_refused(
    make_client: Client, tmp_path: Path
) -> None:
    """The Netflix password is not the wifi password, nor the Netflix profile's name: the
    English model's nearness between German texts never answers on its own."""
    client = await household_client(make_client, tmp_path / "roots", {"haus.md": HAUS})
    for language in ("de", None):
        body = await _asked(client, "Was ist das Netflix-Passwort?", language)
        assert body["source_used"] == "none", body


# A flat's notes whose words are compounds the questions take apart or put together.
WOHNUNG = """# Wohnung

## Keller
Der Schlüssel für den Fahrradkeller hängt am Brett im Flur.

## Gasheizung
Der Wasserdruck soll zwischen 1,2 und 1,8 bar liegen.

## Verein
Die Jahresgebühr (netto) beträgt 120 €.
Die Hefte mit den Protokollen liegen im Regal.
"""


def test_a_compounds_parts_meet_where_a_language_joins_them() -> None:
    """German writes "Wasserdruck" as one word: "Druck" is said by it, "Heizung" by
    "Gasheizung", and "Nettogebühr" by "netto" beside "Jahresgebühr". English does not
    join words so, and its "pressure" is never found inside another word."""
    with asked_in("de"):
        assert relevance.word_coverage("Welchen Druck soll die Heizung haben?", None, WOHNUNG) > 0.7
        assert relevance.word_coverage("Wie ist die Nettogebühr?", None, WOHNUNG) > 0.7
        # Two compounds of one last part are two things unless the first part is said too.
        assert relevance.word_coverage("Wie ist die Raumgebühr?", None, "Die Jahresgebühr") == 0.0
        # A first part alone is no compound's head: "Fahrrad" is not said by "Fahrradkeller".
        assert relevance.word_coverage("Wo ist das Fahrrad?", None, WOHNUNG) == 0.0
    assert relevance.word_coverage("what is the pressure?", None, "The airpressure") == 0.0


async def test_a_compound_finds_the_passage_that_names_its_part(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Keller" finds the line about the "Fahrradkeller", and "Gasheizung" the pressure
    under that heading although the line itself says only "Wasserdruck"."""
    client = await household_client(make_client, tmp_path / "roots", {"wohnung.md": WOHNUNG})
    body = await _asked(client, "Wo hängt der Schlüssel für den Keller?", "de")
    assert "Brett im Flur" in body["result"], body
    body = await _asked(client, "Wie hoch soll der Druck an der Gasheizung sein?", "de")
    assert "1,2 und 1,8 bar" in body["result"], body


async def test_a_compound_is_said_by_its_last_part_under_a_compound_of_its_first(
    make_client: Client, tmp_path: Path
) -> None:
    """ "die Kellertür" asked: the line "Die Tür hat ein Zahlenschloss" under the heading
    "Fahrradkeller" says it (the door of that cellar); the attic's door does not."""
    notes = (
        "# Haus\n\n## Fahrradkeller\nDie Tür hat ein Zahlenschloss, Code 4412.\n\n"
        "## Dachboden\nDie Luke klemmt im Winter.\n"
    )
    client = await household_client(make_client, tmp_path / "roots", {"haus.md": notes})
    body = await _asked(client, "Wie ist der Code für die Kellertür?", "de")
    assert "4412" in body["result"], body
    with asked_in("de"):
        asked = "Wie ist der Code für die Kellertür?"
        line = "Die Tür hat Code 4412."
        said = relevance.word_coverage(asked, None, line, weak=["Fahrradkeller"])
        assert said > relevance.word_coverage(asked, None, line, weak=["Dachboden"])


async def test_two_asked_words_are_said_by_a_compounds_last_two_parts(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Darf ich mittags Hecke schneiden?" is answered by the line about the
    "Akkuheckenschneider": the two words are the compound's parts after its first."""
    notes = (
        "# Garten\n\nDer Akkuheckenschneider läuft nicht mittags (13 bis 15 Uhr Ruhe).\n"
        "Der Komposthaufen wird im Herbst umgesetzt.\n"
    )
    client = await household_client(make_client, tmp_path / "roots", {"garten.md": notes})
    body = await _asked(client, "Darf ich mittags Hecke schneiden?", "de")
    assert "13 bis 15 Uhr" in body["result"], body


async def test_a_name_after_a_spelled_out_title_is_whose_the_thing_is(
    make_client: Client, tmp_path: Path
) -> None:
    """ "il codice del cancello della signora Bassi" asks for Bassi's gate code, as "della
    Sig.ra Bassi" does: the household's own gate code is no answer."""
    notes = "# Casa\n\nIl codice del cancello è 4412.\n"
    client = await household_client(make_client, tmp_path / "roots", {"casa.md": notes})
    body = await _asked(client, "Qual è il codice del cancello?", "it")
    assert "4412" in body["result"], body
    body = await _asked(client, "Qual è il codice del cancello della signora Bassi?", "it")
    assert "4412" not in body["result"], body
    with asked_in("it"):
        assert relevance.names_named_owner("l'IBAN del signor Bassi", "IBAN di Bassi: IT60X05")
        assert not relevance.names_named_owner("l'IBAN del signor Bassi", "IBAN: IT60X05")


async def test_what_has_the_thing_asked_is_whose_it_is(make_client: Client, tmp_path: Path) -> None:
    """ "¿Qué código tiene la alarma del garaje?" asks for the garage alarm's code (what
    "has" it), as "¿Cuál es el código de la alarma del garaje?" does: the house alarm's
    code is no answer."""
    notes = "# Casa\n\nAlarma de casa: el código es 4721, se desactiva en la entrada.\n"
    client = await household_client(make_client, tmp_path / "roots", {"casa.md": notes})
    body = await _asked(client, "¿Qué código tiene la alarma de casa?", "es")
    assert "4721" in body["result"], body
    body = await _asked(client, "¿Qué código tiene la alarma del garaje?", "es")
    assert "4721" not in body["result"], body
    with asked_in("fr"):
        asked = "Quel code a le portail du jardin ?"
        assert relevance.names_whose(asked, "Portail du jardin : code 1234")
        assert not relevance.names_whose(asked, "Portail du garage : code 1234")


async def test_whose_a_thing_is_is_said_by_a_compounds_first_part(
    make_client: Client, tmp_path: Path
) -> None:
    """ "der Schlüssel fürs Gartenhaus" is the "Gartenhausschlüssel": German joins whose a
    thing is onto its front. The key of something else is still not it."""
    notes = (
        "# Schlüssel\n\nDer Gartenhausschlüssel hängt am Haken in der Garage.\n"
        "Der Ersatzschlüssel fürs Auto liegt in der Küchenschublade.\n"
    )
    client = await household_client(make_client, tmp_path / "roots", {"schluessel.md": notes})
    body = await _asked(client, "Wo ist der Schlüssel fürs Gartenhaus?", "de")
    assert "Garage" in body["result"], body
    body = await _asked(client, "Wo ist der Schlüssel fürs Fahrrad?", "de")
    assert "Küchenschublade" not in body["result"], body
    with asked_in("de"):
        asked = "Welche Nummer hat der Schlüssel vom Briefkasten?"
        assert relevance.names_whose(asked, "Briefkastenschlüssel: Nummer 14")
        assert not relevance.names_whose(asked, "Kellerschlüssel: Nummer 14")


async def test_a_separable_verbs_particle_is_read_with_its_verb(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Wen rufe ich an, wenn …?" asks whom to "anrufen", "Waar haal ik … op?" where to
    "ophalen": the lines that say the verb whole answer. The particle goes back on the
    verb only where the notes say the verb so, and a statement or a preposition is left
    as it is."""
    kontakte = (
        "# Kontakte\n\n| Rolle | Name | Telefon | Notizen |\n|---|---|---|---|\n"
        "| Gastherme | Wärmewerk Brandt | 0251 555 0100 | bei Störung der Therme anrufen |\n"
    )
    pakketten = "# Post\n\nPakketten ophalen bij de buren op nummer 12, na zes uur.\n"
    files = {"kontakte.md": kontakte, "post.md": pakketten}
    client = await household_client(make_client, tmp_path / "roots", files)
    body = await _asked(client, "Wen rufe ich an, wenn die Therme ausfällt?", "de")
    assert "0251 555 0100" in body["result"], body
    body = await _asked(client, "Waar haal ik een pakket op?", "nl")
    assert "nummer 12" in body["result"], body

    def first(question: str, tongue: str) -> tuple[str, str] | None:
        readings = separable_verbs(question, tongue)
        return readings[0] if readings else None

    assert first("Wo fange ich mit dem Entlüften an?", "German") == (
        "anfangen",
        "Wo anfangen ich mit dem Entlüften?",
    )
    assert first("Rufst du ihn morgen an?", "German") == ("anrufen", "anrufen du ihn morgen?")
    # "Hoe laat": the verb stands before the subject; Dutch's "haal" is of "halen".
    assert ("ophalen", "Hoe laat ophalen ik de kinderen?") in separable_verbs(
        "Hoe laat haal ik de kinderen op?", "Dutch"
    )
    assert first("Die Kaffeemaschine zeigt E7 an", "German") is None
    assert first("Wann kommt der Müll an die Straße?", "German") is None
    assert first("Who do I call, an hour on?", "English") is None


def test_the_language_a_request_names_is_the_questions() -> None:
    """ "Welches Waschmittel nehmen wir?" has too few German function words to tell; a
    request that says German makes "welches" and "wir" function words, and its words are
    stemmed as German's."""
    question = "Welches Waschmittel nehmen wir?"
    assert foreign(question) is None
    assert "welches" in query_tokens(question)
    with asked_in("de-DE"):
        assert foreign(question) == "German"
        assert query_tokens(question) == ["waschmittel", "nehmen"]
        assert "welches" not in relevance.content_words(question)
    assert "welches" in relevance.content_words(question)  # read apart, not from a cache
    with asked_in("en"):
        assert foreign("Welchen Druck soll die Heizung haben?") is None


def test_a_short_word_is_the_last_part_of_a_compound_of_two_words() -> None:
    """ "Öl" is said by "Motoröl" (Motor + Öl, both German words) and "Tor" by
    "Gartentor"; "Alkohol" and "Motor" end with the same letters but are no compounds."""
    with asked_in("de"):
        oil = "Welches Öl kommt in den Rasenmäher?"
        assert relevance.word_coverage(oil, None, "Rasenmäher: Motoröl SAE 30") > 0.5
        assert relevance.word_coverage(oil, None, "Rasenmäher: kein Alkohol im Benzin") < 0.5
        gate = "Wo hängt der Schlüssel fürs Tor?"
        assert (
            relevance.word_coverage(gate, None, "Der Schlüssel vom Gartentor hängt im Flur.") > 0.7
        )
        assert relevance.word_coverage(gate, None, "Der Schlüssel vom Motor hängt im Flur.") < 0.7


def test_another_first_part_before_the_same_last_names_another_thing() -> None:
    """ "Hausratversicherung" asked, a line about the "Autoversicherung" speaks of another
    insurance; the plain "Versicherung", a closer name ("Gasabsperrhahn" for "Gashahn")
    or a kind of the thing ("Außenwasserhahn" for "Wasserhahn") do not."""
    with asked_in("de"):
        asked = "Wie lautet die Nummer der Hausratversicherung?"
        assert not relevance.names_no_sibling(asked, "Autoversicherung: Nummer KV-1234")
        assert relevance.names_no_sibling(asked, "Die Hausratversicherung hat die Nummer 9.")
        assert relevance.names_no_sibling(asked, "Versicherung: Nummer 7")
        gas = "Ist der Gashahn offen?"
        assert relevance.names_no_sibling(gas, "Gasabsperrhahn: quer ist zu.")
        tap = "Wie mache ich den Wasserhahn winterfest?"
        assert relevance.names_no_sibling(tap, "Außenwasserhahn: innen absperren.")
    with asked_in("nl"):
        health = "Wat is het polisnummer van de zorgverzekering?"
        assert not relevance.names_no_sibling(health, "Reisverzekering, polisnummer RV-7")


async def test_another_insurance_does_not_answer_for_the_one_asked(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """The travel insurance's policy number is not in the notes: the contents insurance's
    "Polisnummer" line is no answer, though it says "polisnummer" (real embedding model)."""
    policy = (
        "# Verzekeringen\n\nSchade aan onze spullen dekt de inboedelverzekering van "
        "Maasland, polisnummer IB-5521-3310-02.\n\nEigen risico: € 100 per schadegeval.\n"
    )
    # Nor the record line under the policy's heading, whose label is the word asked.
    record = "# Inboedelverzekering\n\nPolisnummer: IB-5521-3310-02\n"
    files = {"verzekeringen.md": policy, "polis.md": record, "haus.md": HAUS, "w.md": WOHNUNG}
    client = await model_household_client(make_client, tmp_path, embedding_model, files)
    travel = await _asked(client, "Wat is het polisnummer van onze reisverzekering?", "nl")
    assert "IB-5521" not in travel["result"], travel["result"]
    contents = await _asked(client, "Wat is het polisnummer van de inboedelverzekering?", "nl")
    assert "IB-5521" in contents["result"], contents["result"]


async def test_a_word_of_another_language_is_no_slip(make_client: Client, tmp_path: Path) -> None:
    """The English dictionary cannot tell a German word from a slip, the German one can:
    "heute" stays, though the notes hold "Hefte" one letter away."""
    client = await household_client(make_client, tmp_path / "roots", {"wohnung.md": WOHNUNG})
    store = store_of(client)
    assert await store.respelled("Wo liegen heute die Protokolle?") == (
        "Wo liegen heute die Protokolle?"
    )
    with asked_in("de"):
        assert await store.respelled("Was ist heute los?") == "Was ist heute los?"


GERAETE = """# Geräte

## Spülmaschine
Zeigt die Spülmaschine E24, ist das Abpumpen gestört: das Sieb reinigen.

## Waschmaschine
Zeigt die Waschmaschine E24, ist die Tür nicht verriegelt: die Tür fest zudrücken.

## Garten
Der Code der Gartentür ist 4711.

## Vaatwasser
De afwasmachine staat op het eco-programma.
"""


async def test_a_slip_in_another_language_is_mended_by_its_dictionary(
    make_client: Client, tmp_path: Path
) -> None:
    """A word that is neither in the language's dictionary nor two of its words joined is a
    typing slip of the one word the notes hold a letter away: "Spülmaschiene" asks about
    the dishwasher's E24, not the washing machine's. "Gartentor" (Garten + Tor) is a
    word of its own, not a slip of the notes' "Gartentür"; Spanish, whose list holds no
    plurals or verb forms, mends nothing."""
    client = await household_client(make_client, tmp_path / "roots", {"geraete.md": GERAETE})
    store = store_of(client)
    with asked_in("de"):
        assert "spülmaschine zeigt" in await store.respelled("Die Spülmaschiene zeigt E24?")
        gate = "Wie lautet der Code vom Gartentor?"
        assert await store.respelled(gate) == gate
    with asked_in("nl"):
        assert "afwasmachine" in await store.respelled("Welk programma heeft de afwasmachiene?")
    with asked_in("es"):
        question = "¿Qué programa tiene la afwasmachiene?"
        assert await store.respelled(question) == question
    answer = await _asked(client, "Die Spülmaschiene zeigt E24, was nun?", "de")
    assert "Sieb reinigen" in answer["result"], answer["result"]
    assert "verriegelt" not in answer["result"], answer["result"]


GEBRAUCH = """# Geräte

## Trockner
Der Knitterschutz bewegt die Trommel nach dem Programmende noch eine Weile. Drücken Sie
dazu die Taste „Knitter“ zwei Sekunden lang.

## Forno
Il blocco tasti impedisce ai bambini di cambiare programma. Tenere premuto il tasto con
la chiave per tre secondi finché si accende la spia.
"""


async def test_how_to_in_another_language_is_read_on_to_what_to_do(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Wie stelle ich … ein?" and "Come si attiva …?" ask what to do: the sentence that
    says what the thing is reads on to the one that tells it ("Drücken Sie …", "Tenere
    premuto …"). "Come si chiama …?" asks a name, not how."""
    client = await household_client(make_client, tmp_path / "roots", {"geraete.md": GEBRAUCH})
    german = await _asked(client, "Wie stelle ich beim Trockner den Knitterschutz ein?", "de")
    assert "Drücken Sie" in german["result"], german["result"]
    italian = await _asked(client, "Come si attiva il blocco tasti del forno?", "it")
    assert "Tenere premuto" in italian["result"], italian["result"]
    with asked_in("it"):
        assert rag.asks_how("Come si attiva il blocco tasti?")
        assert not rag.asks_how("Come si chiama la pediatra?")
    with asked_in("fr"):
        assert rag.asks_how("Ça sent le gaz, je fais quoi ?")
        assert rag.instructs("Ça sent le gaz ?", "Ouvrir les fenêtres et couper le gaz.")
        assert not rag.instructs("Ça sent le gaz ?", "Le gaz arrive par la cour.")


async def test_shorthand_is_not_written_out_where_it_is_a_word_of_the_language(
    make_client: Client, tmp_path: Path
) -> None:
    """German's "wen" asks whom, not "when" (a question for a time); English's "wen is bin
    day" is still "when"."""
    client = await household_client(make_client, tmp_path / "roots", {"wohnung.md": WOHNUNG})
    store = store_of(client)
    with asked_in("de"):
        question = "Wen rufe ich wegen dem Keller an?"
        assert await store.respelled(question) == question
    with asked_in("en"):
        assert (await store.respelled("wen is the Verein due")).startswith("when is")


def test_how_a_question_is_put_carries_no_subject() -> None:
    """What English drops ("actually", "tell me", "where") is dropped in German and Dutch
    too: their particles ("eigentlich", "doch", "even") and the question words Dutch's
    stop-word list lacks ("waar", "wanneer")."""
    with asked_in("de"):
        assert query_tokens("Weißt du eigentlich, wo der Schlüssel ist?") == ["schlüssel"]
        assert query_tokens("Sag mal, wann kommt denn die Tonne?") == ["kommt", "tonne"]
    with asked_in("nl"):
        assert query_tokens("Zeg, waar ligt eigenlijk de sleutel?") == ["ligt", "sleutel"]
        assert query_tokens("Wanneer komt de glasbak even?") == ["komt", "glasbak"]


def test_a_compound_says_two_words_of_the_question() -> None:
    """ "Schlüssel für die Garage" is what the notes call the "Garagenschlüssel" (a
    linking "n" between the parts), "sleutel van de fiets" the "fietssleutel"."""
    with asked_in("de"):
        garage = relevance.word_coverage(
            "Wo ist der Schlüssel für die Garage?", None, "Der Garagenschlüssel hängt am Haken."
        )
        assert garage >= 0.8
    with asked_in("nl"):
        fiets = relevance.word_coverage(
            "Waar is de sleutel van de fiets?", None, "De fietssleutel ligt in de la."
        )
        assert fiets >= 0.8


def test_the_compounds_a_word_finds_follow_the_index(tmp_path: Path) -> None:
    """The full-text search looks up the index's compounds ending with a German word
    ("Druck": "Wasserdruck") from a list read once per change of the index: a file added
    later brings its compounds ("Reifendruck") to the next question."""

    class Never:
        def is_set(self) -> bool:
            return False

    folder = tmp_path / "haus"
    folder.mkdir()
    (folder / "heizung.md").write_text("# Heizung\n\nDer Wasserdruck soll 1,5 bar sein.\n")
    db = DocumentDatabase("haus", folder, tmp_path / "data")
    db.open()
    try:
        db.scan(Never())
        with asked_in("de"):
            first = db.search_keyword("Welchen Druck?", 5)
            assert [h.path for h in first] == ["heizung.md"]
            (folder / "fahrrad.md").write_text("# Fahrrad\n\nDer Reifendruck: 3 bar.\n")
            db.scan(Never())
            hits = db.search_keyword("Welchen Druck?", 5)
        assert sorted(h.path for h in hits) == ["fahrrad.md", "heizung.md"]
    finally:
        db.close()


# A French contact list and a Spanish one, numbers as each country writes them.
CONTACTS_FR = """# Contacts

| Rôle | Nom | Téléphone | Notes |
|---|---|---|---|
| Plombier | Plomberie Girard | 06 12 34 56 78 | urgences le week-end |
| Électricien | Élec Services Morel | 01 44 55 66 77 | devis gratuit |
| Serrurier | Clés Minute | 01 40 20 30 40 | ouvert 7j/7 |
"""

CONTACTS_ES = """# Contactos

| Rol | Nombre | Teléfono | Notas |
|---|---|---|---|
| Fontanero | Fontanería Ruiz | 600 12 34 56 | también festivos |
| Electricista | Electro Sanz | 91 123 45 67 | presupuesto gratis |
"""


def test_a_phone_number_says_the_word_for_it_in_any_language() -> None:
    """ "Le numéro du plombier", "el teléfono del fontanero", "den Klempner anrufen": the
    row with a number says "numéro", "teléfono" or "anrufen", as an English row says
    "number"; a number written as France, Spain or the Netherlands write one counts, an
    amount, a date or a serial number does not."""
    with asked_in("fr"):
        assert relevance.word_coverage("Quel est le numéro du plombier ?", None, CONTACTS_FR) > 0.9
        assert relevance.word_coverage("J'appelle qui pour le plombier ?", None, CONTACTS_FR) > 0.9
        assert (
            relevance.word_coverage("Le numéro du plombier ?", None, "Plombier : M. Girard") < 0.7
        )
    with asked_in("es"):
        assert (
            relevance.word_coverage("¿Cuál es el teléfono del fontanero?", None, CONTACTS_ES) > 0.6
        )
    with asked_in("de"):
        assert (
            relevance.word_coverage(
                "Welche Nummer hat der Klempner?", None, "Klempner Ott, 0351 4412345"
            )
            > 0.9
        )
    for number in ("01 99 00 90 71", "06 2345 6801", "91 000 12 34", "+49 351 4412345"):
        assert relevance.has_phone_number(f"Gardienne | Rosa | {number} | loge"), number
        assert relevance.has_phone_number(f"Bel {number} voor een afspraak."), number
    for other in ("2 770,00 €", "14/09/2022  48 950 km", "Bicycode n° 9438 7721 C", "3 290,00 €"):
        assert not relevance.has_phone_number(other), other


async def test_a_french_question_for_a_number_finds_the_row(
    make_client: Client, tmp_path: Path
) -> None:
    """Asked in French for the plumber's number, the contact list's row answers with it;
    it never said "numéro", and "No source could answer" was the reply."""
    client = await household_client(make_client, tmp_path / "roots", {"contacts.md": CONTACTS_FR})
    body = await _asked(client, "C'est quoi le numéro du plombier ?", "fr")
    assert "06 12 34 56 78" in body["result"], body
    assert "01 44 55 66 77" not in body["result"], body
    body = await _asked(client, "Quel est le numéro de l'électricien ?", "fr")
    assert "01 44 55 66 77" in body["result"], body


def test_french_and_spanish_fillers_carry_no_subject() -> None:
    """ "Vraiment", "dis", "oye", "dime", "ya" say how a question is put, as "actually" and
    "tell me" do in English; the question words stay, since they say what is asked."""
    with asked_in("fr"):
        assert query_tokens("Dis, c'est vraiment le plombier qui vient ?") == ["plombier", "vient"]
    with asked_in("es"):
        assert query_tokens("Oye, dime, ¿ya viene el fontanero?") == ["viene", "fontanero"]


async def test_in_another_language_the_words_lead_the_fusion(
    make_client: Client, tmp_path: Path
) -> None:
    """The bundled model reads English. For "E20 sur le lave-linge" it ranked a manual's
    other passages above the E20 row, which the full-text search ranked first, so the row
    fell out of the passages judged and the answer was "No source could answer". For a
    question in English the model's ranking still leads, as it ranks natural questions
    better than the words do."""
    client = await household_client(make_client, tmp_path / "roots", {"haus.md": HAUS})
    documents = store_of(client).documents

    def hit(n: int) -> Hit:
        return Hit(n, "manual.html", n, "Lave-linge", f"passage {n}", 0.0)

    # The E20 row (1) first by its words and 30th by the model; the manual's other
    # passages the other way round.
    keyword = [hit(n) for n in (1, *range(31, 60), *range(2, 31))]
    semantic = [hit(n) for n in (*range(2, 31), 1)]
    with asked_in("fr"):
        french = documents._fuse("E20 sur le lave-linge ?", keyword, semantic, "hybrid", 5)
    assert french[0].chunk_id == 1, [h.chunk_id for h in french]
    english = documents._fuse("E20 on the washing machine?", keyword, semantic, "hybrid", 5)
    assert 1 not in [h.chunk_id for h in english]


def test_another_languages_question_words_ask_for_a_kind_of_fact() -> None:
    """ "Combien de temps", "wann", "hoe laat", "¿cuándo?" ask for a duration, a day, a
    time, as "how long" and "when" do in English: a line giving that kind answers."""
    asks = [
        ("fr", "Combien de temps cuit le gâteau ?", "Au four 35 minutes.", "Le gâteau au yaourt."),
        (
            "de",
            "Wie lange dauert das Programm?",
            "Es dauert zwei Stunden.",
            "Das Programm Baumwolle.",
        ),
        (
            "de",
            "Wann kommt die Biotonne?",
            "Die Biotonne kommt dienstags.",
            "Die Biotonne ist braun.",
        ),
        (
            "nl",
            "Hoe laat gaat de school uit?",
            "De school gaat om 15.15 uit.",
            "De school is groot.",
        ),
        (
            "es",
            "¿Cuándo es el cumpleaños de Ana?",
            "Ana cumple el 3 de mayo.",
            "Ana es mi hermana.",
        ),
        ("es", "¿Cuánto cuesta la luz?", "La luz cuesta 60 € al mes.", "La luz es cara."),
        ("it", "A che ora chiude la piscina?", "Chiude alle 19:30.", "La piscina è comunale."),
        ("it", "Quanto tempo cuoce la torta?", "In forno per 35 minuti.", "La torta di mele."),
        (
            "pt",
            "Quando é o aniversário da Ana?",
            "A Ana faz anos a 3 de maio.",
            "A Ana é minha irmã.",
        ),
        (
            "pt",
            "De quanto em quanto tempo se muda o filtro?",
            "Todos os meses.",
            "O filtro é azul.",
        ),
        # "Zweimal" says how often; "normal" does not, though it ends in "mal".
        ("de", "Wie oft wird der Rasen gemäht?", "Zweimal pro Woche.", "Das ist ganz normal."),
        # A time of day is never a duration: "24 heures" gives no hour.
        (
            "fr",
            "À quelle heure ferme la piscine ?",
            "Elle ferme à 19h30.",
            "Déclarer sous 24 heures.",
        ),
    ]
    for language, question, giving, other in asks:
        with asked_in(language):
            assert relevance.asks_kind(question), question
            assert relevance.gives_what_is_asked(question, giving), (question, giving)
            assert not relevance.gives_what_is_asked(question, other), (question, other)
    with asked_in("fr"):
        assert not relevance.asks_kind("C'est quoi le code du portail ?")
    # English keeps its own kinds; another language's words ask nothing of it.
    with asked_in("en"):
        assert not relevance.asks_kind("Is the combien de temps sign still up?")


async def test_a_french_when_is_answered_by_the_line_with_the_day(
    make_client: Client, tmp_path: Path
) -> None:
    """Asked when the yellow bins go out, the line that says which day answers, not the
    line before it that shares more of the question's words but names no day."""
    notes = (
        "## Poubelles\n\n"
        "Les poubelles jaunes se sortent dans la cour, devant le local vélos.\n"
        "La collecte des poubelles jaunes passe le mardi matin.\n"
    )
    client = await household_client(make_client, tmp_path / "roots", {"maison.md": notes})
    body = await _asked(client, "Les poubelles jaunes, on les sort quand ?", "fr")
    assert "mardi" in body["result"], body


def test_the_thing_asked_before_de_must_be_said() -> None:
    """In French and Spanish the thing asked comes before "de" and whose it is after:
    "le numéro de la femme de ménage" asks for a number, which a line about when she
    comes does not give (issue 28, point 3), and "la franchise de l'assurance" is told
    by the franchise's line more than by one about the insurance. Two words joined by a
    bare "de" are one thing ("femme de ménage"), which either of them says."""
    with asked_in("fr"):
        number = "Quel est le numéro de la femme de ménage ?"
        assert relevance.word_coverage(number, None, "Elle passe le jeudi.") == 0.0
        comes = relevance.word_coverage(number, None, "La femme de ménage passe le jeudi.")
        assert comes < relevance.ANSWERS
        franchise = "C'est combien la franchise de l'assurance auto ?"
        insurance = "L'assurance auto est chez Maif, valeur à neuf 22 000 €."
        own = "Franchise : 300 € par sinistre."
        assert relevance.word_coverage(franchise, None, own) >= relevance.word_coverage(
            franchise, None, insurance
        )
        when = "La femme de ménage vient quel jour ?"
        by_one_word = relevance.word_coverage(when, None, "Mme Rosa fait le ménage le jeudi.")
        assert by_one_word == relevance.word_coverage(when, None, "Le ménage, c'est le jeudi.")
        assert by_one_word > 0
    # German and Dutch put whose it is after "für", "von", "van", "voor".
    for language, asked, where, said in (
        (
            "de",
            "Wie ist das Passwort für den Router?",
            "Der Router steht im Flur.",
            "Router-Passwort: x",
        ),
        (
            "nl",
            "Wat is het wachtwoord van de router?",
            "De router staat in de gang.",
            "Wachtwoord router: x",
        ),
    ):
        with asked_in(language):
            apart = relevance.word_coverage(asked, None, where)
            assert 0 < apart <= relevance.word_coverage(asked, None, said) / 4, asked
    with asked_in("es"):
        password = "¿Cuál es la contraseña del router?"
        where = relevance.word_coverage(password, None, "El router está en el salón.")
        said = relevance.word_coverage(password, None, "La contraseña del router es girasol-22.")
        assert where <= said / 4, (where, said)


def _answered_by_its_own_line(language: str, asked: str, other: str, own: str) -> None:
    """The question's words are said by its own line, not by the other one's."""
    with asked_in(language):
        assert relevance.word_coverage(asked, None, other) < relevance.ANSWERS, asked
        assert relevance.word_coverage(asked, None, own) >= relevance.ANSWERS, asked


def test_whose_thing_is_asked_must_be_said() -> None:
    """In a Romance language a name after "de"/"di"/"do" says whose the thing asked is:
    Luca's passport row does not answer "il passaporto di Matilde", nor Tom's
    orthodontist "l'orthodontiste de Léa" (issue 28, point 3). German capitals mark every
    noun and Dutch "de" is "the": neither tells an owner there."""
    for language, asked, other, own in (
        (
            "it",
            "Quando scade il passaporto di Matilde?",
            "Passaporto di Luca: scade il 15 maggio 2025.",
            "Passaporto di Matilde: scade il 3 marzo 2027.",
        ),
        (
            "fr",
            "C'est quoi le numéro de l'orthodontiste de Léa ?",
            "Orthodontiste de Tom : Dr Morel, 01 23 45 67 89.",
            "Orthodontiste de Léa : Dr Morel, 01 23 45 67 89.",
        ),
        (
            "pt",
            "Tens o telemóvel do Sr. Lopes?",
            "Telemóvel do Sr. Rui: 912 345 678.",
            "Telemóvel do Sr. Lopes: 912 345 678.",
        ),
    ):
        _answered_by_its_own_line(language, asked, other, own)
    with asked_in("nl"):
        asked = "Waar ligt de krik in de Toyota?"
        assert relevance.word_coverage(asked, None, "De krik ligt in de kofferbak.") >= 0.5
    with asked_in("de"):
        asked = "Wo ist der Schlüssel von Oma?"
        assert relevance.word_coverage(asked, None, "Der Schlüssel hängt am Brett.") >= 0.5


def test_a_name_after_de_says_whose_the_thing_is() -> None:
    """ "La password di Netflix" is Netflix's password, not a compound either of whose words
    says it: the line about Netflix's profiles does not answer it (issue 28, point 3).
    In lower case the two stay one thing ("femme de ménage", above)."""
    for language, asked, other, own in (
        (
            "it",
            "Qual è la password di Netflix?",
            "Netflix: profili Luca, Giulia e Bambini.",
            "Password di Netflix: girasole-42",
        ),
        (
            "pt",
            "Qual é o PIN do Multibanco?",
            "Multibanco: o cartão está na carteira azul.",
            "PIN do Multibanco: 4821",
        ),
    ):
        _answered_by_its_own_line(language, asked, other, own)


def test_whose_thing_a_which_is_question_asks_for_must_be_said() -> None:
    """ "Quel est le numéro de la carte vitale ?" asks for the card's number: a doctor's
    phone number is no answer, though it is a number and names the same child; "del
    colegio" is said by the school's own row (issue 28, point 3)."""
    with asked_in("fr"):
        asked = "Quel est le numéro de la carte vitale de Léa ?"
        doctor = "Pédiatre de Léa : Dr Martin, 01 23 45 67 89"
        card = "Carte vitale de Léa : numéro 2 15 03 75 123 456"
        assert not relevance.match(asked, None, [doctor]).answers
        assert relevance.match(asked, None, [card]).answers
    with asked_in("es"):
        asked = "¿Cuál es el teléfono del colegio?"
        assert relevance.match(asked, None, ["Colegio: 91 000 52 30"]).answers


def test_the_thing_asked_may_come_before_what_it_is_for() -> None:
    """ "La tessera per la piscina di Luca" asks for the card: the line naming Luca's card
    answers, though it does not say what the card is for."""
    with asked_in("it"):
        asked = "Quando scade la tessera per la piscina di Luca?"
        assert relevance.match(asked, None, ["Tessera di Luca: scade il 12 maggio 2026"]).answers
        assert not relevance.match(asked, None, ["Piscina: apre alle 9"]).answers


def test_each_owner_in_a_chain_says_whose_the_thing_is() -> None:
    """ "O número da apólice do seguro da mota" is the motorbike's insurance: neither the
    house's insurance nor a line about the motorbike's helmet answers it. "De los niños"
    is the household's own children, whom no line of theirs names."""
    with asked_in("pt"):
        asked = "Qual é o número da apólice do seguro da mota?"
        for other in (
            "Seguro da casa: apólice n.º 55-1234",
            "Lugar de garagem n.º 3; o capacete da mota está no armário",
        ):
            assert not relevance.match(asked, None, [other]).answers, other
        assert relevance.match(asked, None, ["Seguro da mota: apólice n.º 77-9876"]).answers
    with asked_in("es"):
        asked = "¿Cuál es el teléfono del dentista de los niños?"
        assert relevance.match(asked, None, ["Dentista: Dra. Gil, 91 000 11 22"]).answers


def test_whose_thing_a_german_question_asks_for_must_be_said() -> None:
    """After "von"/"für" German says whose the thing is: the phone's PIN does not answer
    the garage's. Said by the parts of a compound ("fürs Rasenmähen": "mäht den Rasen")
    or by a longer compound of its first and last part ("vom Gashahn": "Gasabsperrhahn")."""
    with asked_in("de"):
        asked = "Wie ist die PIN für die Garage?"
        assert not relevance.match(asked, None, ["Die PIN fürs Handy ist 4711."]).answers
        assert relevance.match(asked, None, ["PIN für die Garage: 2580"]).answers
        for asked, text in (
            ("Wie viel bekommt Herr Kunz fürs Rasenmähen?", "Herr Kunz mäht den Rasen für 30 €."),
            ("Wo ist der Griff vom Gashahn?", "Gasabsperrhahn: gelber Griff unter der Therme."),
        ):
            assert relevance.names_whose(asked, text), asked


def test_the_noun_a_german_or_dutch_which_opens_with_is_the_thing_asked() -> None:
    """ "Welke accu heeft de Volvo?" asks for the battery: the garage that services the
    Volvo does not answer it; "Welche Batterie braucht der Rauchmelder?" the same."""
    for language, asked, other, own in (
        (
            "nl",
            "Welke accu heeft de Volvo?",
            "Garage De Vries (onderhoud van de Volvo): 010 555 0199",
            "Accu van de Volvo: 70 Ah, vervangen in 2023.",
        ),
        (
            "de",
            "Welche Batterie braucht der Rauchmelder?",
            "Rauchmelder im Flur: einmal im Monat die Prüftaste drücken.",
            "Rauchmelder: Batterie 9-Volt-Block, jedes Jahr im März wechseln.",
        ),
    ):
        _answered_by_its_own_line(language, asked, other, own)


def test_the_words_asking_for_a_kind_of_fact_are_not_what_is_asked_about() -> None:
    """ "¿Cuánto tiempo …?" asks for a duration, as "how long" does: "tiempo" is not a
    word the answer must say, while the answer must give a duration."""
    with asked_in("es"):
        asked = "¿Cuánto tiempo tarda la lavadora en el programa de algodón?"
        duration = "Programa algodón: 2 horas y 30 minutos."
        assert relevance.word_coverage(asked, None, duration) >= relevance.ANSWERS
        other = "Programa algodón: lavar a 40 grados."
        assert relevance.word_coverage(asked, None, other) < relevance.ANSWERS


def test_a_day_asked_is_said_by_the_days_a_rule_speaks_of() -> None:
    """ "Am Samstag" is what "am Wochenende" rules on, "el sábado" what "solo entre semana"
    rules out: the line says the day asked about, as a synonym does."""
    for language, asked, span, plain in (
        (
            "de",
            "Wie lange darf Lena am Samstag aufbleiben?",
            "Am Wochenende darf Lena bis 20:45 Uhr aufbleiben.",
            "Lena darf bis 20:45 Uhr aufbleiben.",
        ),
        (
            "es",
            "¿Podemos usar el taladro el sábado?",
            "Taladro: solo entre semana, de 9:00 a 14:00.",
            "Taladro: solo de 9:00 a 14:00.",
        ),
        (
            "fr",
            "Je peux tondre la pelouse dimanche ?",
            "Tondre la pelouse : jamais le week-end.",
            "Tondre la pelouse : jamais après 20h.",
        ),
    ):
        with asked_in(language):
            said = relevance.word_coverage(asked, None, span)
            assert said > relevance.word_coverage(asked, None, plain), asked


async def test_a_hyphenated_word_is_said_by_the_same_word_in_a_text(
    make_client: Client, tmp_path: Path
) -> None:
    """ "A password do wi-fi" is the line under "Wi-fi": the text's own "Wi-fi" was read
    only joined ("wifi"), so the question's "wi" and "fi" were never said."""
    client = await household_client(make_client, tmp_path / "roots", _WIFI_NOTES)
    body = await _asked(client, "Qual é a password do wi-fi?", "pt")
    assert "Gaivota!Paranhos27" in body["result"], body


async def test_a_label_nearest_in_meaning_must_say_whose_thing_is_asked(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """The record line whose label the model finds nearest ("Password: …") answers "a
    password do wi-fi", never "a password da Netflix": the name after "da" is whose."""
    client = await model_household_client(make_client, tmp_path, embedding_model, _WIFI_NOTES)
    body = await _asked(client, "Qual é a password da Netflix?", "pt")
    assert "Gaivota" not in body["result"], body
    body = await _asked(client, "Qual é a password do wi-fi?", "pt")
    assert "Gaivota!Paranhos27" in body["result"], body


_LABEL_CASES = {
    # "… Spotify-Passwort?" names its thing with a hyphen: Spotify's line ("… Profile:
    # …") never says a password.
    "a hyphenated thing": (
        "de",
        "# Technik\n\n## WLAN\n\n- WLAN-Name: Lindenhof\n- Passwort: Birke-Bogen-2021\n\n"
        "## Fernsehen\n\n- Kindersicherung-PIN am Fernseher: 4711\n"
        "- Spotify läuft über Bens Konto. Profile: Anna, Ben, Kinderkino.\n",
        "Sag mal, wie ist eigentlich das Spotify-Passwort?",
        "Bens Konto",
    ),
    # "A che ora …?" asks for a time, which the library's line does not give.
    "the kind of fact": (
        "it",
        "# Frigo\n\n- Pediatra: dott.ssa Neri, 051 000 12 12\n"
        "- Biblioteca Marconi: il calendario è appeso in portineria\n"
        "- Palestra: martedì e giovedì\n",
        "A che ora apre la Biblioteca Marconi?",
        "portineria",
    ),
}


@pytest.mark.parametrize("case", list(_LABEL_CASES))
async def test_a_label_nearest_in_meaning_passes_the_checks_of_a_passage(
    make_client: Client, tmp_path: Path, embedding_model: Path, case: str
) -> None:
    """The record line whose label the model finds nearest the question, when no passage
    answers by its words, is held to what such a passage is: it must say each part of a
    hyphenated thing, and give the kind of fact asked. Both lines were quoted before."""
    language, notes, question, never = _LABEL_CASES[case]
    files = {"notes.md": notes}
    client = await model_household_client(make_client, tmp_path, embedding_model, files)
    body = await _asked(client, question, language)
    assert never not in body["result"], body


_WIFI_NOTES = {
    "internet.md": (
        "# Internet e televisão\n\n## Wi-fi\n\n- Rede: Casa-Ferraz\n"
        "- Password: Gaivota!Paranhos27\n- Router: no móvel da sala\n"
    ),
}


async def test_an_italian_question_for_a_cards_number_is_not_answered_by_a_phone(
    make_client: Client, tmp_path: Path
) -> None:
    """With only the pediatrician's row written down, nothing answers the number of
    Marta's card, though the row gives a number and names her; it answers for the
    pediatrician's phone."""
    notes = {
        "contatti.md": (
            "# Contatti\n\n| Ruolo | Nome | Telefono | Note |\n|---|---|---|---|\n"
            "| Pediatra (Marta e Pablo) | Dott.ssa Ruiz | 051 000 1122 | studio in via Po |\n"
            "| Idraulico | Luigi Gil | 051 000 3344 | |\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    body = await _asked(client, "Qual è il numero della tessera di Marta?", "it")
    assert body["source_used"] == "none", body
    body = await _asked(client, "Qual è il telefono della pediatra di Marta?", "it")
    assert "051 000 1122" in body["result"], body


async def test_a_french_question_for_someones_number_is_not_answered_by_anothers(
    make_client: Client, tmp_path: Path
) -> None:
    """Léa's orthodontist is not Tom's: with only his written down, nothing answers the
    number of hers; his line answers for his."""
    notes = {
        "contacts.md": (
            "## Santé\n\n- Orthodontiste de Tom : Dr Morel, 01 23 45 67 89\n"
            "- Léa : école Jean Jaurès, en CM1\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    body = await _asked(client, "C'est quoi le numéro de l'orthodontiste de Léa ?", "fr")
    assert body["source_used"] == "none", body
    body = await _asked(client, "C'est quoi le numéro de l'orthodontiste de Tom ?", "fr")
    assert "01 23 45 67 89" in body["result"], body


async def test_a_french_question_is_answered_by_the_thing_it_asks_for(
    make_client: Client, tmp_path: Path
) -> None:
    """The franchise's line answers "la franchise de l'assurance auto", not the line
    about the insurance; "le numéro du dentiste" is not in a line about an appointment
    at the dentist's, so nothing answers; "la femme de ménage" is found by her line."""
    notes = {
        "voiture.md": (
            "## Assurance auto\n\nL'assurance auto est chez Maif, contrat à tous risques, "
            "valeur à neuf du véhicule 22 000 €.\nFranchise : 300 € par sinistre.\n"
        ),
        "maison.md": (
            "## Maison\n\n- Le rendez-vous chez le dentiste de Paul est le mardi 4 mars à 10h.\n"
            "- La femme de ménage passe le jeudi matin.\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    body = await _asked(client, "Quelle est la franchise de l'assurance auto ?", "fr")
    assert "300 €" in body["result"] and "Maif" not in body["result"], body
    body = await _asked(client, "Quel est le numéro du dentiste de Paul ?", "fr")
    assert body["source_used"] == "none", body
    body = await _asked(client, "La femme de ménage passe quel jour ?", "fr")
    assert "jeudi" in body["result"], body


def test_give_me_carries_no_subject_in_any_language() -> None:
    """ "Dá-me o contacto do eletricista", "Gib mir die Nummer vom Klempner": "give me"
    asks as "tell me" does; "dá-me" is read as one word, "dáme", as "wi-fi" is "wifi"."""
    asks = {
        "pt": ("dá-me o contacto do eletricista", ["contacto", "eletricista"]),
        "es": ("Dame el número del fontanero", ["número", "fontanero"]),
        "it": ("Dammi il numero dell'idraulico", ["numero", "idraulico"]),
        "de": ("Gib mir die Nummer vom Klempner", ["nummer", "klempner"]),
        "nl": ("Geef me het nummer van de loodgieter", ["nummer", "loodgieter"]),
    }
    for language, (question, words) in asks.items():
        with asked_in(language):
            assert query_tokens(question) == words, (language, query_tokens(question))


async def test_a_question_for_a_figure_is_not_answered_without_one(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Quanto costa il corso di nuoto?" was answered by the line saying when the course
    is: in another language a text that gives no fact of the kind asked (no figure for
    "quanto", no time for "a que horas") is worth half its words, and nothing answers."""
    notes = {
        "attivita.md": (
            "## Attività\n\n- Il corso di nuoto di Marco è il martedì alla piscina comunale.\n"
        ),
        "casa.md": (
            "## Lixo\n\n- O lixo indiferenciado desce-se para o contentor verde da rua.\n"
            "- O lixo desce-se depois das 20h, nunca ao domingo.\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    body = await _asked(client, "Quanto costa il corso di nuoto di Marco?", "it")
    assert body["source_used"] == "none", body
    body = await _asked(client, "A que horas se pode descer o lixo?", "pt")
    assert "20h" in body["result"], body
    with asked_in("it"):
        question = "Quanto costa il corso di nuoto?"
        when = relevance.word_coverage(question, None, "Il corso di nuoto è il martedì.")
        price = relevance.word_coverage(question, None, "Il corso di nuoto costa 40 €.")
        assert when <= price / 2, (when, price)


async def test_mnemolis_english_docs_do_not_answer_another_languages_home_question(
    make_client: Client, tmp_path: Path
) -> None:
    """Mnemolis's own docs are English: "qual è la temperatura?" met them only by reading
    "temperatura" as a slip of "temperature", and was answered with the MCP tool's
    temperature argument. A question in another language that names Mnemolis still
    reaches them."""
    client = await household_client(
        make_client, tmp_path / "roots", {"casa.md": "## Casa\n\nLa caldaia è in cantina.\n"}
    )
    for question, language in (
        ("qual è la temperatura?", "it"),
        ("che temperatura c'è?", "it"),
        ("jaka jest temperatura?", "pl"),  # a language without a stemmer, too
    ):
        body = await _asked(client, question, language)
        refs = [c.get("ref", "") for c in body["citations"]]
        assert body["source_used"] == "none", (question, body)
        assert not any("bundled_docs" in r for r in refs), (question, body)
    body = await _asked(client, "Come collego Claude Desktop a Mnemolis?", "it")
    assert any("bundled_docs" in c.get("ref", "") for c in body["citations"]), body


def test_a_german_verb_meets_the_noun_made_of_it() -> None:
    """Snowball keeps "gewartet" from "Wartung" and "abgeholt" from "Abholung": a German
    participle ("ge-…-t", after a separable prefix too) and an "-ung" noun share a root,
    and a text saying one says the other as a synonym does (issue 28)."""
    for verb, noun in (
        ("gewartet", "Wartung"),
        ("abgeholt", "Abholung"),
        ("eingelagert", "Einlagerung"),
        ("geimpft", "Impfung"),
    ):
        assert root_in("German", verb) == root_in("German", noun), (verb, noun)
    assert root_in("German", "gewaschen") == root_in("German", "waschen")
    assert root_in("German", "Gerät") == stem_in("German", "Gerät")  # no participle
    assert root_in("French", "réparation") == stem_in("French", "réparation")
    with asked_in("de"):
        asked = "Wann wurde die Heizung zuletzt gewartet?"
        assert relevance.word_coverage(asked, None, "Letzte Wartung der Heizung: 14. März.") > (
            relevance.word_coverage(asked, None, "Die Heizung ist eine Vaillant ecoTEC.")
        )


async def test_a_german_participle_finds_the_line_with_its_noun(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Wann wurde die Heizung gewartet?" is answered by the line of the "Wartung", not by
    another line about the heating."""
    notes = (
        "# Heizung\n\nDie Heizung ist eine Vaillant ecoTEC im Keller.\n\n"
        "Letzte Wartung: 14. März 2024 durch Firma Schulze.\n\n"
        "Der Druck soll zwischen 1,5 und 2 bar liegen.\n"
    )
    client = await household_client(make_client, tmp_path / "roots", {"heizung.md": notes})
    body = await _asked(client, "Wann wurde die Heizung gewartet?", "de")
    assert "14. März 2024" in body["result"], body


def test_a_verb_with_its_pronoun_is_no_compound() -> None:
    """ "dá-me", "diz-me" are a verb and its pronoun, not a compound like "Netflix-Passwort"
    whose every part a text must say (issue 28): the plumber's row answers "diz-me o
    contacto do canalizador" though it never says "diz"."""
    row = "Função: Canalizador | Nome: Paulo Sá | Telefone: 93 000 1234"
    with asked_in("pt"):
        for asked in ("diz-me o contacto do canalizador", "dá-me o contacto do canalizador"):
            assert relevance.names_compounds(asked, row), asked
    with asked_in("de"):
        assert not relevance.names_compounds("Wie ist das Netflix-Passwort?", "WLAN-Passwort: x")


async def test_a_portuguese_give_me_is_answered_by_the_row(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Dá-me o contacto do canalizador" reads out the plumber's row, as "Qual é …?" does."""
    contacts = (
        "# Contactos\n\n| Função | Nome | Telefone |\n|---|---|---|\n"
        "| Canalizador | Paulo Sá | 93 000 1234 |\n| Eletricista | Rui Pacheco | 93 000 2745 |\n"
    )
    client = await household_client(make_client, tmp_path / "roots", {"contactos.md": contacts})
    body = await _asked(client, "dá-me o contacto do canalizador", "pt")
    assert "93 000 1234" in body["result"] and "2745" not in body["result"], body


def test_in_another_language_the_reader_judges_more_of_the_ranking() -> None:
    """A German line that says the answer by a compound ranks below lines sharing the
    question's plain words (the keyword ranking leads, the model reads English): the
    twelfth passage is still judged, and answers "Wie lang ist die Kündigungsfrist?"."""

    def line(n: int, content: str) -> Passage:
        hit = Hit(n, "wohnung.md", n, "Wohnung", content, 1.0)
        return Passage("household", hit, "wohnung.md", 0.03, 0.5)

    others = [line(n, f"Die Wohnung hat {n} Fenster zum Hof.") for n in range(11)]
    own = line(20, "Kündigungsfrist für die Wohnung: drei Monate zum Monatsende.")
    with asked_in("de"):
        ranked = rag._judged("Wie lang ist die Kündigungsfrist?", {}, [*others, own], None, True)
    assert ranked and ranked[0][1] is own, [p.hit.content for _, p in ranked]


def test_a_numbers_abbreviation_says_the_word_for_it() -> None:
    """ "n.º 3", "Nr. 12", "n. 7" before a figure say "número", "Nummer", "numero": the
    letterbox line answers "qual é o número da caixa do correio?" (issue 28)."""
    for language, asked, line in (
        ("pt", "Qual é o número da caixa do correio?", "Caixa do correio n.º 3, à esquerda."),
        ("de", "Welche Nummer hat unser Stellplatz?", "Stellplatz Nr. 12 in der Tiefgarage."),
        ("it", "Qual è il numero della cantina?", "Cantina n. 7, in fondo al corridoio."),
    ):
        with asked_in(language):
            assert relevance.word_coverage(asked, None, line) >= relevance.ANSWERS, asked
    with asked_in("it"):
        asked = "Qual è il numero della cantina?"
        assert relevance.word_coverage(asked, None, "La cantina è in fondo.") < relevance.ANSWERS


async def test_a_note_written_one_fact_per_line_is_quoted_by_its_line(
    make_client: Client, tmp_path: Path
) -> None:
    """A text note with one fact per line and no full stops is not one long sentence: the
    question is answered by its own line, not with the lines about the cat and the bins
    after it. Wrapped prose (a line going on in lower case) stays one sentence."""
    notes = {
        "vicini.txt": (
            "Ciao Marco! Due appunti per la settimana in cui badi alla casa\n\n"
            "ORARI\n"
            "Il gatto mangia alle 8 e alle 19, la scatoletta è nel mobile basso\n"
            "Le piante del terrazzo si bagnano la sera, solo se la terra è asciutta\n\n"
            "CUCINA\n"
            "Nel freezer c'è il minestrone: 6 minuti nel microonde alla massima potenza\n"
            "Per il gatto ci sono anche i croccantini, la busta gialla è sua\n"
            "Il pane secco non si butta, va nel sacchetto di carta per le anatre\n"
            "Caffè: la moka piccola è sul fornello, la polvere nel barattolo blu\n\n"
            "Il portone si chiude a chiave di notte perché l'amministratore ha chiesto\n"
            "a tutti di farlo dopo i furti dell'anno scorso.\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    body = await _asked(client, "Quanto tempo devo scaldare il minestrone nel microonde?", "it")
    assert "6 minuti" in body["result"], body
    assert "gatto" not in body["result"], body
    body = await _asked(client, "Perché si chiude il portone di notte?", "it")
    assert "dopo i furti" in body["result"], body


async def test_a_contracts_clause_is_quoted_without_the_clauses_before_it(
    make_client: Client, tmp_path: Path
) -> None:
    """In a PDF's text a clause opens with "§ 9" after the full stop of the one before:
    a new sentence, so the notice period is read out without the balcony's rules."""
    contract = make_pdf_lines(
        [
            [
                "Mietvertrag",
                "§ 8 Balkon",
                "Markisen dürfen nur in Grau angebracht werden.",
                "§ 9 Kündigung",
                "Die Kündigungsfrist für die Mieter beträgt drei Monate.",
            ]
        ]
    )
    client = await household_client(make_client, tmp_path / "roots", {"vertrag.pdf": contract})
    body = await _asked(client, "Mit welcher Frist können wir kündigen?", "de")
    assert "drei Monate" in body["result"], body
    assert "Markisen" not in body["result"], body


async def test_a_compound_asked_about_finds_the_text_naming_its_last_part(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Kaltmiete" is nowhere in the lease, which says "Miete" in a heading and "Grundmiete
    (kalt)" in its clause: the search looks for the compound's last part too, and "wie
    hoch" asks for a figure, as "how high" does, not for something high."""
    lease = {
        "mietvertrag.md": (
            "# Mietvertrag\n\n## § 3 Miete\n\n"
            "Die Grundmiete (kalt) beträgt monatlich 720,00 €.\n\n"
            "## § 9 Heizung\n\nDie Heizung ist im Winter auf mindestens 20 Grad zu stellen.\n\n"
            "## § 12 Kaffeemaschine\n\nDie Brühtemperatur steht auf hoch.\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", lease)
    body = await _asked(client, "Wie hoch ist die Kaltmiete im Monat?", "de")
    assert "720,00" in body["result"], body


async def test_the_day_of_a_date_is_no_amount_asked_for(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Hoeveel huur …?" asks for an amount: the "1" of "per 1 januari" is a date's day, so
    the line giving the rent's figure answers, not the line on when it changes."""
    lease = {
        "huurcontract.pdf": make_pdf_lines(
            [
                [
                    "Artikel 2 Huurprijs",
                    "De kale huurprijs bedraagt EUR 940,00 per maand.",
                    "De servicekosten bedragen EUR 40,00 per maand (verlichting trappenhuis).",
                    "De huur gaat elk jaar per 1 januari omhoog.",
                    "De huur moet vóór de eerste dag van de maand betaald zijn.",
                ]
            ]
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", lease)
    body = await _asked(client, "Hoeveel huur betalen we per maand?", "nl")
    assert "940,00" in body["result"], body


async def test_what_a_code_means_is_answered_by_its_meaning(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Ça veut dire quoi ?" asks what a code means, as "what does it mean": the table
    row giving its meaning answers, not the sentence that only says the code is shown."""
    notice = {
        "lave-vaisselle.md": (
            "# Notice du lave-vaisselle\n\n"
            "Si le bac du fond se remplit d'eau, le lave-vaisselle s'arrête et affiche le code "
            "E15.\n\n## Codes d'erreur\n\n"
            "| Code | Signification | Que faire |\n|---|---|---|\n"
            "| E15 | Fuite d'eau détectée | Couper l'eau et appeler le SAV |\n"
            "| E24 | Vidange bouchée | Nettoyer le filtre |\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notice)
    body = await _asked(client, "Le lave-vaisselle affiche E15, ça veut dire quoi ?", "fr")
    assert "Fuite d'eau détectée" in body["result"], body


def test_a_year_in_the_heading_dates_none_of_its_lines() -> None:
    """ "Quando começa a feira do livro?" asks for a date: the line giving the fair's dates
    is worth more than the line about the fair whose only date is its heading's year."""
    heading = "Agenda da biblioteca 2026"
    asked = "Quando é que começa a feira do livro?"
    story = "No primeiro dia da feira do livro a avó leva os miúdos à sessão de autógrafos."
    dated = "Feira do livro: de 4 de maio a 9 de maio."
    with asked_in("pt"):
        assert relevance.word_coverage(asked, None, story, heading) < relevance.word_coverage(
            asked, None, dated, heading
        )


def test_a_question_for_what_a_value_should_be_wants_its_range() -> None:
    """ "Che temperatura deve avere il frigo?" asks what the temperature should be, as
    "what should the temperature be": the line giving its range is worth more than the
    steps to set it, though both say the temperature, the fridge and a figure."""
    asked = "Che temperatura deve avere il frigo?"
    steps = "Per cambiare la temperatura del frigo: girare la manopola fino al numero 4."
    range_ = "Nel frigo la temperatura deve stare tra 3 e 5 gradi."
    with asked_in("it"):
        assert relevance.word_coverage(asked, None, steps) < relevance.word_coverage(
            asked, None, range_
        )


def test_how_to_ring_someone_is_answered_by_a_line_with_a_number() -> None:
    """ "Comment on appelle Tonton Marcel à Lyon ?" asks for his number, as "how do I ring
    him?": the note about his party that names him and Lyon is worth less than his
    contact row. Asked whether ("Peut-on appeler …"), no number is due."""
    with asked_in("fr"):
        asked = "Comment on appelle Tonton Marcel à Lyon ?"
        party = "Du 3 au 6 mai chez Tonton Marcel à Lyon, apporter le gâteau."
        row = "Rôle: Oncle (Lyon) | Nom: Marcel Girard | Téléphone: 04 99 00 12 34"
        assert relevance.word_coverage(asked, None, party) < relevance.word_coverage(
            asked, None, row
        )
        asked = "Peut-on appeler Tonton Marcel le dimanche ?"
        text = "Tonton Marcel : le dimanche il est à la pêche, pas de téléphone"
        assert relevance.match(asked, None, [text]).answers


async def test_a_question_word_typed_with_its_accent_is_still_a_function_word(
    make_client: Client, tmp_path: Path
) -> None:
    """Spanish's stop-word list holds "donde", "cuanto", "cual" without their accents. So
    "¿Dónde …?" kept "dónde" as a word the answer had to say, and the same question typed
    with and without accents was answered differently, the accented one not at all."""
    notes = {
        "casa.md": (
            "# Casa\n\n## Guardería\n\n"
            "La guardería cuesta 310 € al mes, comedor incluido.\n\n"
            "## Trastero\n\nLa llave está en el cajón de la entrada.\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    for question in ("¿Dónde está la llave?", "donde esta la llave"):
        body = await _asked(client, question, "es")
        assert "cajón de la entrada" in body["result"], (question, body)
    with asked_in("es"):
        assert query_tokens("¿Cuál es el código del portal?") == ["código", "portal"]
        assert query_tokens("¿Cuánto cuesta?") == query_tokens("cuanto cuesta")


async def test_a_thing_the_text_gives_another_owner_is_not_the_one_asked(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Comment on nettoie le filtre du lave-vaisselle ?" asks for the dishwasher's filter.
    The hood's filter, washed in the dishwasher, says both words and is not it: the text's
    own "de la hotte" names another owner. A figure or a bare "de" names none ("fijo de
    trabajo" is a kind of phone)."""
    upkeep = (
        "# Entretien\n\n"
        "- Filtre de la hotte : le passer au lave-vaisselle tous les deux mois.\n"
        "- Joint du frigo : nettoyer au vinaigre blanc.\n"
    )
    client = await household_client(make_client, tmp_path / "roots", {"entretien.md": upkeep})
    body = await _asked(client, "Comment on nettoie le filtre du lave-vaisselle ?", "fr")
    assert "hotte" not in body["result"], body
    with asked_in("fr"):
        question = "Comment on nettoie le filtre du lave-vaisselle ?"
        own = "Filtre du lave-vaisselle : le rincer sous l'eau chaude chaque mois."
        assert relevance.names_whose(question, own)
    with asked_in("es"):
        question = "¿Cuál es el fijo de los abuelos?"
        assert relevance.names_whose(question, "Abuelos | 91 000 12 34 | fijo de trabajo")


async def test_where_a_code_shows_is_not_the_thing_asked(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Sur l'écran du four il y a F3, ça veut dire quoi ?" asks what F3 means. The screen
    is where it shows, after "sur": read as the thing asked, the code's row, which never
    says "écran", was worth half its words and nothing answered."""
    manual = {
        "four.md": (
            "# Notice du four\n\nL'écran du four affiche l'heure quand il est éteint.\n\n"
            "## Codes\n\n| Code | Signification | Que faire |\n|---|---|---|\n"
            "| F3 | Porte mal fermée | Refermer la porte |\n"
            "| F7 | Sonde de température en panne | Appeler le SAV |\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", manual)
    body = await _asked(client, "Sur l'écran du four il y a F3, ça veut dire quoi ?", "fr")
    assert "Porte mal fermée" in body["result"], body
    with asked_in("es"):
        assert relevance._thing_of("¿Cuál es el teléfono del colegio?") == ("telefono",)


async def test_two_asks_joined_by_und_are_each_answered(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Wie heißt das Büro-WLAN und wie ist das Passwort?" asks two things, as English's
    "what's it called and what's the password?". Read as one ask, the password line
    (which says "Büro" and sits under "WLAN") answered all of it; the network's name, a
    line naming the "Büro-WLAN" itself, was never said."""
    notes = {
        "technik.md": (
            "# Technik\n\n## WLAN\n\n- WLAN-Name: Sonnenhof\n- Passwort: Kiefer-Allee-88\n"
            "- Büro-WLAN: Sonnenhof-Office\n- Büro-Passwort: Ahorn-Weg-41\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    body = await _asked(client, "Wie heißt das Büro-WLAN und wie ist das Passwort?", "de")
    assert "Sonnenhof-Office" in body["result"], body
    assert "Ahorn-Weg-41" in body["result"], body
    with asked_in("fr"):
        asks = relevance.clause_asks("Quel est le réseau des invités et quel est le code ?")
    assert asks == ["Quel est le réseau des invités", "quel est le code ?"]


def test_a_line_of_another_day_is_no_answer_for_the_day_asked() -> None:
    """ "La médiathèque ferme à quelle heure le dimanche ?" names Sunday: a line giving
    Saturday's story time at the médiathèque gives a time, but of another day, and
    counts half of the same line naming no day; a span of days or a range of them is no
    other day."""
    question = "La médiathèque ferme à quelle heure le dimanche ?"
    saturday = "- Heure du conte le samedi de 10h30 à 11h à la médiathèque"
    with asked_in("fr"):
        other = relevance.word_coverage(question, None, saturday)
        no_day = relevance.word_coverage(question, None, saturday.replace(" le samedi", ""))
    assert other == pytest.approx(no_day / 2) and other > 0
    assert not other_day(question, "Médiathèque : du mardi au dimanche, 10h-18h")
    assert not other_day(question, "Médiathèque fermée le week-end")
    assert not other_day("Wann schließt die Bücherei?", saturday)


def test_a_phone_asked_for_is_its_number() -> None:
    """ "¿Tienes el teléfono del club de natación de Lucas?" asks for a number: the
    timetable row naming Lucas, the swimming and the club gives none, and no longer
    answers on the words it shares. A thing's "número" may be any figure."""
    row = "Quién: Lucas | Actividad: Natación | Días: martes | Dónde: Club Delfín"
    with asked_in("es"):
        question = "¿Tienes el teléfono del club de natación de Lucas?"
        assert not relevance.gives_the_number(question, row)
        assert relevance.gives_the_number(question, row + " | Teléfono: 91 000 44 21")
        card = "Tarjeta sanitaria de Lucas: BBBB 0000 1111 22"
        assert relevance.gives_the_number("¿Cuál es el número de la tarjeta sanitaria?", card)
    with asked_in("fr"):
        assert not relevance.gives_the_number("Tu as le portable de Manon ?", "Manon : le samedi")


def test_the_noun_after_which_is_the_is_the_thing_asked() -> None:
    """ "¿Cuál es la contraseña para entrar en la web del banco?" asks for a password. The
    thing was looked for only before a "de", and "web" there is where ("en la web"),
    so no thing was asked and a line about the bank's website, with no password,
    counted all its words. A "de" inside the noun phrase itself ("el grupo sanguíneo
    de Lucas") still reads as before."""
    with asked_in("es"):
        question = "¿Cuál es la contraseña para entrar en la web del banco?"
        assert relevance._thing_of(question) == ("contrasena",)
        assert relevance._thing_of("¿Cuál es el grupo sanguíneo de Lucas?") == ("sanguineo",)
    with asked_in("it"):
        assert relevance._thing_of("Come si accende il forno sulla cucina?") == ("forno",)


def test_next_and_last_say_which_time_not_what() -> None:
    """ "Wann ist die nächste Papiertonne?" asks about the paper bin: "nächste" says which
    collection, as "la prochaine", "el próximo" do. Weighed as a rare word, it let a
    memory of the child's next dentist visit answer on it alone with the model's nod."""
    cases = {
        "de": ("Wann ist die nächste Papiertonne?", "nachste"),
        "nl": ("Wanneer is de volgende papierbak?", "volgende"),
        "fr": ("Quand passe la prochaine benne à papier ?", "prochaine"),
        "es": ("¿Cuándo es la próxima recogida de papel?", "proxima"),
        "it": ("Quando passa il prossimo ritiro della carta?", "prossimo"),
        "pt": ("Quando é a última recolha do papel?", "ultima"),
    }
    for language, (question, word) in cases.items():
        with asked_in(language):
            words = relevance.content_words(question)
        assert word not in words and words, (language, words)


def test_a_thing_said_as_part_of_a_compound_is_named() -> None:
    """German writes the garage into "Garagenregal": a note on the shelf names the garage
    a question speaks of, as "Wasserdruck" names the pressure. Read as a thing never
    said, the note could not answer "Wo hängt in der Garage der Ersatzschlüssel?" on
    the model's agreement."""
    note = "Ersatzschlüssel: im Schlüsselkasten am Garagenregal."
    with asked_in("de"):
        assert relevance.names_every_thing("Wo hängt in der Garage der Ersatzschlüssel?", note)
        # A compound's part is at least three letters and leaves three over.
        assert not relevance.names_every_thing("Wo ist die Garage?", "Garagen")
    with asked_in("en"):
        # English writes its compounds apart: no part is read out of a word.
        assert not relevance.names_every_thing("Where is the garage?", "garageband")


async def test_a_when_that_names_the_day_asks_for_its_time(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Wann hat Mia mittwochs Musikschule aus?" tells the day and asks the time: a line
    naming Wednesday, and no time, gives no "when" (it was quoted before the timetable)."""
    notes = {
        "kinder.md": (
            "# Mia\n\n## Musikschule\n\n"
            "- Die Flöte am Mittwoch und am Freitag mitgeben.\n"
            "- Unterricht: Montag und Mittwoch, Schluss um 15:10 Uhr, freitags um 14:20 Uhr.\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    body = await _asked(client, "Wann hat Mia mittwochs Musikschule aus?", "de")
    assert "15:10" in body["result"], body
    assert "Flöte" not in body["result"], body


async def test_how_many_degrees_is_answered_by_a_temperature(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Op hoeveel graden …?" asks for a temperature, as English "what temperature": the
    sentence giving "25 °C" answers, not the one saying "graad" without any."""
    manual = {
        "airco.md": (
            "# Airco woonkamer\n\n## Instellen\n\n"
            "In de zomer op 25 °C in de stand KOELEN, in de winter op 20 °C in de stand "
            "VERWARMEN. Elke graad lager in de zomer kost ongeveer 6 % meer stroom.\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", manual)
    body = await _asked(client, "Op hoeveel graden zet ik de airco in de zomer?", "nl")
    assert "25 °C" in body["result"], body


async def test_what_a_thing_is_wanted_for_weighs_less_than_the_thing(
    make_client: Client, tmp_path: Path
) -> None:
    """ "…, damit Ben beim Spielen nicht an die Drehregler kommt?" says why they ask, as
    English "so that" or "I need to …": its words weigh a quarter together. They
    outweighed the question's own, and the hob's lock, which names none of them, was
    no answer."""
    notes = {
        "kueche.md": (
            "# Küche\n\n## Kochfeld\n\n"
            "- Sperren: das Schlüssel-Symbol 4 Sekunden gedrückt halten, bis ein Punkt leuchtet.\n"
            "- Reinigen nur mit dem Glaskeramik-Schaber.\n\n"
            "## Ben\n\n- Ben darf die Knöpfe am Radio drücken, nicht am Backofen.\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    question = "Wie sperre ich das Kochfeld, damit Ben beim Spielen nicht an die Drehregler kommt?"
    body = await _asked(client, question, "de")
    assert "4 Sekunden" in body["result"], body


def test_a_question_for_two_kinds_of_fact_frames_both() -> None:
    """ "Welcher Tag und um wie viel Uhr …?" asks for a day and a time: "Tag" is a frame
    word as "Uhr" is, not a word a line must say, nor the thing asked. A rota's row
    labelled "Tag: …" outweighed the line giving the day and the time."""
    question = "Welcher Tag und um wie viel Uhr hat Mia Schwimmen?"
    row = "Tag: Donnerstag | Wer: Papa | Wie: bringt Mia zum Schwimmen, holt sie um 18 Uhr"
    line = "Mia hat Schwimmen donnerstags von 16:45 bis 17:30 im Hallenbad Süd."
    with asked_in("de"):
        kind = relevance.kind_asked("German", question)
        assert kind is not None and {"tag", "uhr"} <= kind.words
        assert relevance.word_coverage(question, None, line) == 1.0
        assert relevance.word_coverage(question, None, row) == 1.0


async def test_a_bin_put_out_is_asked_by_its_bin(make_client: Client, tmp_path: Path) -> None:
    """ "Wann muss die Papiertonne raus?": "raus" says where the bin goes, as English
    "out" does, and no line need say it; the bin's own line answers, without the next
    bin's."""
    notes = {
        "kuechenzettel.txt": (
            "Küchenzettel\n\nMüll\n"
            "Restmüll (schwarze Tonne): jeden zweiten Montag, in den geraden Wochen\n"
            "Papiertonne (blau): jeden zweiten Donnerstag\n"
            "Gelber Sack: alle zwei Wochen dienstags, in den ungeraden Wochen\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    body = await _asked(client, "Wann muss die Papiertonne raus?", "de")
    assert "Donnerstag" in body["result"], body
    assert "Gelber Sack" not in body["result"], body


async def test_what_a_thing_should_be_is_answered_by_its_norm(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Wie viel bar soll der Druck am Kessel sein?" asks for the norm, as English's
    "what should the pressure be?": the sentence giving the range answers before the
    one saying what happens below a figure, though both give bar."""
    manual = {
        "kessel.html": (
            "<html><body><h1>Kessel Brennwert 24</h1><h2>Druck</h2>"
            "<p>Den Druck liest du am Manometer unten am Kessel ab. Kalt soll der Druck"
            " zwischen 1,3 und 1,8 bar liegen.</p>"
            "<p>Fällt der Druck am Kessel unter 1,0 bar, Wasser nachfüllen. Unter 0,8 bar"
            " schaltet der Kessel ab und zeigt F1.</p></body></html>"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", manual)
    body = await _asked(client, "Wie viel bar soll der Druck am Kessel sein?", "de")
    assert "1,3 und 1,8" in body["result"], body
    assert foreign_kinds.asks_what_it_should_be("¿A cuánto debe estar la presión?")
    assert not foreign_kinds.asks_what_it_should_be("¿Cuánto cuesta la revisión?")
    assert foreign_kinds.gives_a_norm("la pressione deve essere tra 1 e 1,5 bar")


def test_a_phone_number_before_a_comma_is_a_phone_number() -> None:
    """ "Urgencias: 93 111 22 33, también por WhatsApp": a comma closing the clause is no
    decimal comma, so the number is a phone number and answers "¿a qué teléfono
    llamo?"; a price's decimal comma still is one."""
    assert relevance.has_phone_number("Urgencias: 93 111 22 33, también por WhatsApp.")
    assert relevance.has_phone_number("Notdienst 0341 555 72 90, auch sonntags")
    assert not relevance.has_phone_number("Kaution: 1 250,50 € bei Einzug")


async def test_how_do_i_make_it_go_asks_about_the_thing(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Wie mach ich die Tastensperre an?": "mach" is "machen", which the
    German stop-word list holds, said as the speaker says it; no line need say it, and
    the entry on the key lock answers."""
    manual = {
        "trockner.html": (
            "<html><body><h1>Trockner Lindholm TK 8</h1><dl>"
            "<dt>Wie stelle ich den Trockengrad ein?</dt>"
            "<dd>Mit der Taste „Trocken“ zwischen Schranktrocken und Bügeltrocken wählen."
            "</dd><dt>Wie schalte ich die Tastensperre ein?</dt>"
            "<dd>Die Taste „Start“ 5 Sekunden gedrückt halten, bis ein Schloss leuchtet."
            "</dd></dl></body></html>"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", manual)
    body = await _asked(client, "wie mach ich die tastensperre an", "de")
    assert "5 Sekunden" in body["result"], body


async def test_a_thing_asked_by_another_of_its_names_is_said(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Le frigo, on le règle sur combien ?": the note says "réfrigérateur", and the
    plumber's row says "fontanero" for "el plomero": each language's own household
    words name one thing as English's "fridge" and "refrigerator" do."""
    notes = {
        "cuisine.md": (
            "# Cuisine\n\n"
            "- Réfrigérateur : régler le thermostat sur 4 °C, le bac à légumes se déclipse.\n"
            "- Congélateur : régler sur -18 °C, dégivrer une fois par an.\n"
        ),
        "contactos.md": (
            "| Rol | Nombre | Teléfono |\n|---|---|---|\n"
            "| Fontanero | Quique Robles | 600 11 22 33 |\n"
            "| Electricista | Marga Soto | 600 44 55 66 |\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    body = await _asked(client, "Le frigo, on le règle sur combien ?", "fr")
    assert "4 °C" in body["result"], body
    body = await _asked(client, "¿Cuál es el teléfono del plomero?", "es")
    assert "600 11 22 33" in body["result"], body


async def test_a_label_near_in_meaning_says_a_word_of_a_question_in_another_language(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """ "Wat is het wachtwoord van Netflix?" with no Netflix password written down: the
    bundled model reads English, and the TV box's label near the question in its cosine
    is no answer when the line says none of the question's words."""
    notes = {
        "tv.md": (
            "# Tv en internet\n\n"
            "- Tv-kastje van Glasnet: bij storing eerst de stekker er tien tellen uit.\n"
            "- Afstandsbediening: de knop Bron kiest HDMI 1.\n"
            "- Spotify: familie-abonnement op naam van Joost.\n"
        ),
    }
    client = await model_household_client(make_client, tmp_path, embedding_model, notes)
    body = await _asked(client, "Wat is het wachtwoord van Netflix?", "nl")
    assert body["source_used"] == "none", body


def test_a_name_of_a_thing_is_said_by_its_other_names_only() -> None:
    """A member of a group is said by another member ("koelkast" by "ijskast"), every word
    of a phrase by its stem ("lave-vaisselle" by "machine à laver la vaisselle"), never
    by a word of another group."""
    with asked_in("nl"):
        q = "Hoe koud moet de koelkast staan?"
        assert relevance.word_coverage(q, None, "IJskast: op 4 graden zetten.") > (
            relevance.word_coverage(q, None, "Vriezer: op -18 graden zetten.")
        )
    with asked_in("de"):
        q = "Wo ist das Sieb der Spülmaschine?"
        assert relevance.word_coverage(q, None, "Geschirrspüler: Sieb unten rechts") > (
            relevance.word_coverage(q, None, "Waschmaschine: Sieb unten rechts")
        )
    with asked_in("fr"):
        q = "Comment on détartre le lave-vaisselle ?"
        assert relevance.word_coverage(q, None, "Machine à laver la vaisselle : détartrer") > (
            relevance.word_coverage(q, None, "Lave-linge : détartrer tous les mois")
        )


@pytest.mark.parametrize(
    ("language", "question", "word"),
    [
        # A direction written apart from its verb, as English's "out", "back".
        ("de", "Wann müssen die Tonnen raus?", "raus"),
        ("de", "Wann kommt der Sperrmüll wieder rein?", "rein"),
        ("nl", "Wanneer gaat het hek weer toe?", "toe"),
        # A preposition joined to its article: "bei dem", "für das".
        ("de", "Wann war der Wagen zuletzt beim Ölwechsel?", "beim"),
        ("de", "Was brauchen wir fürs Zelten?", "furs"),
        ("pt", "Onde está a chave dum cacifo?", "dum"),
        # A modal verb, as English's "can we", "must we".
        ("it", "Possiamo tenere un coniglio in casa?", "possiamo"),
        ("it", "Quando dobbiamo cambiare il filtro?", "dobbiamo"),
        ("pt", "Devemos regar o jardim à noite?", "devemos"),
        ("fr", "Quand pouvons-nous sortir les poubelles ?", "pouvons"),
        ("es", "¿Debemos avisar al casero?", "debemos"),
        # "machen", "fare", "fazer" as the speaker says them, as French's "fais".
        ("de", "Wie mach ich die Lüftung aus?", "mach"),
        ("de", "Was macht man bei Frost mit dem Wasserhahn?", "macht"),
        ("it", "Cosa fa la spia rossa sul forno?", "fa"),
        ("pt", "Como faço para ligar o forno?", "faco"),
    ],
)
def test_words_around_a_question_are_no_words_asked(
    language: str, question: str, word: str
) -> None:
    """Words the stop-word lists leave out but that only say how a question is put: read
    as rare words, each was asked of every line ("Wann muss die Biotonne raus?" wanted a
    line saying "raus", "Possiamo tenere Pepe?" one saying "possiamo")."""
    with asked_in(language):
        words = relevance.content_words(question)
    assert word not in words and words, words


async def test_a_story_before_whom_to_ring_names_the_contact_in_another_language(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Birba ha mangiato del cioccolato! Chi chiamo?": the story names the dog, and the
    one row labelled with her ("Veterinario di Birba") is whom to ring; the neighbour
    who walks her is named in a note, not in her row's label."""
    notes = {
        "contatti.md": (
            "# Contatti\n\n| Ruolo | Nome | Telefono | Note |\n|---|---|---|---|\n"
            "| Veterinario di Birba | Dott. Franco Neri, Clinica Borgo | 051 000 64 20 |"
            " urgenze allo stesso numero |\n"
            "| Vicina (interno 4) | Carla Bassi | 051 000 18 77 | porta fuori Birba d'estate |\n"
            "| Idraulico | Sergio Pini | 051 000 90 31 | anche il sabato |\n"
        ),
        "cane.txt": (
            "BIRBA\n\n- Pappa: una tazza di crocchette la mattina e una la sera.\n"
            "- Se sta male: Clinica Borgo (numero nei contatti).\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    body = await _asked(client, "Birba ha mangiato del cioccolato! Chi chiamo?", "it")
    assert "051 000 64 20" in body["result"], body["result"]


async def test_the_row_a_role_heads_answers_for_it_in_another_language(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """ "Ik moet de verhuurder even bellen over de deurbel, welk nummer is dat?": three
    rows say "verhuurder" and give a number; the row headed "Verhuurder" answers, not
    the emergency line headed "Spoed verhuurder" nor the electrician's whose notes
    mention the landlord. The English model's cosine between Dutch texts decides none."""
    notes = {
        "contacten.md": (
            "# Contacten\n\n| Rol | Naam | Telefoon | Notities |\n|---|---|---|---|\n"
            "| Verhuurder | Woonbedrijf Kade | 010 555 0270 | Verzoeken liefst per mail |\n"
            "| Spoed verhuurder | Kade storingsdienst | 0800 555 0271 |"
            " Alleen buiten kantoortijd, bij lekkage |\n"
            "| Elektricien | Installatiebedrijf Visser | 010 555 0272 |"
            " Bij storing mogen we zelf Visser bellen (afgesproken met de verhuurder) |\n"
            "| Huisarts | Dokter Smit | 010 555 0273 | Spreekuur 8:00 tot 10:00 |\n"
        ),
        "huis.md": "# Huis\n\n- De deurbel doet het niet, staat op de lijst voor de verhuurder.\n",
    }
    client = await model_household_client(make_client, tmp_path, embedding_model, notes)
    question = "Ik moet de verhuurder even bellen over de deurbel, welk nummer is dat?"
    body = await _asked(client, question, "nl")
    assert "010 555 0270" in body["result"], body["result"]


async def test_a_thing_at_someone_elses_home_is_not_ours(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Wie ist das WLAN-Passwort bei Oma?" and "C'est quoi le code du portail chez
    Josette ?": the notes hold only our own wifi password and gate code, so nothing
    answers; asked without whose home, ours does. "bei uns" is our own."""
    notes = {
        "technik.md": "# Technik\n\n- WLAN-Passwort: Birke-Pfad-2020\n- Router im Flur.\n",
        "maison.md": "# Maison\n\n- Code du portail : 4471B\n- Boîte aux lettres n° 12.\n",
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    body = await _asked(client, "Wie ist das WLAN-Passwort bei Oma?", "de")
    assert body["source_used"] == "none", body["result"]
    body = await _asked(client, "C'est quoi le code du portail chez Josette ?", "fr")
    assert body["source_used"] == "none", body["result"]
    body = await _asked(client, "Wie ist das WLAN-Passwort bei uns?", "de")
    assert "Birke-Pfad-2020" in body["result"], body["result"]
    body = await _asked(client, "C'est quoi le code du portail ?", "fr")
    assert "4471B" in body["result"], body["result"]


async def test_a_persons_number_is_their_phone_in_another_language(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Dá-me o número do pai da Inês, preciso de combinar a boleia da natação": a
    person's "número" is a phone number, and the line saying what Inês's father does on
    Tuesdays gives none; a thing's "número" may still be any figure."""
    notes = {
        "escola.md": (
            "# Escola e atividades\n\n- Às terças, o pai da Inês leva o Tiago à natação e nós"
            " vamos buscar os dois às 18h30.\n- Cacifo n.º 4, no ginásio: mochila e chuteiras.\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    question = "Dá-me o número do pai da Inês, preciso de combinar a boleia da natação"
    body = await _asked(client, question, "pt")
    assert body["source_used"] == "none", body["result"]
    with asked_in("pt"):
        line = "Às terças, o pai da Inês leva o Tiago à natação."
        assert not relevance.gives_the_number(question, line)
        assert relevance.gives_the_number(question, "Pai da Inês: 912 345 678")
        assert relevance.gives_the_number("Qual é o número do cacifo?", "Cacifo n.º 4")


async def test_a_story_told_before_the_clause_that_asks_weighs_less(
    make_client: Client, tmp_path: Path
) -> None:
    """ "Léo a de la fièvre et doit rentrer plus tôt, quel est le numéro du secrétariat du
    collège ?": the story before the clause that asks weighs as an English story told
    first does, so the lines about Léo at school do not drown the office's row."""
    notes = {
        "ecole.md": (
            "# École et activités\n\n"
            "- Léo est en 6e B au collège Jean Moulin, Inès en CM1.\n"
            "- Cantine : Léo mange sans porc, le certificat a été donné en septembre.\n"
            "- Professeurs de Léo : Mme Bernard (français), M. Caron (maths).\n"
            "- Piscine : 180 € le trimestre, on paie au secrétariat de la piscine.\n"
        ),
        "contacts.md": (
            "# Contacts\n\n| Rôle | Nom | Téléphone | Notes |\n|---|---|---|---|\n"
            "| Secrétariat du collège | Collège Jean Moulin | 01 99 00 25 63 |"
            " ouvert de 8 h à 9 h 30 |\n"
            "| Médecin | Dr Perrin | 01 99 00 58 30 | sur rendez-vous |\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    question = (
        "Léo a de la fièvre et doit rentrer plus tôt,"
        " quel est le numéro du secrétariat du collège ?"
    )
    body = await _asked(client, question, "fr")
    assert "01 99 00 25 63" in body["result"], body["result"]
    with asked_in("fr"):
        assert relevance._aside_words(question) >= {"fievre", "rentrer"}
        # A clause asking little of its own leaves the story asked ("…, je fais quoi ?").
        assert not relevance._aside_words("Le lave-linge sent le moisi, qu'est-ce qu'on fait ?")


def test_a_day_of_every_month_is_no_amount() -> None:
    """ "Le loyer, il est de combien ?" asks an amount: "payable le 1er de chaque mois",
    "el día 5 de cada mes" give a day, no amount; "fixé à 950,00 €" does."""
    french = foreign_kinds.kind_asked("French", "Le loyer, il est de combien ?")
    assert french is not None
    assert not french.given_by("Le loyer est payable d'avance le 1er de chaque mois.")
    assert not french.given_by("Le loyer se paie le 5 de chaque mois.")
    assert french.given_by("Le loyer mensuel est fixé à 950,00 €.")
    spanish = foreign_kinds.kind_asked("Spanish", "¿Cuánto pagamos de alquiler?")
    assert spanish is not None
    assert not spanish.given_by("El alquiler se paga el día 5 de cada mes.")
    assert spanish.given_by("El alquiler es de 780 € al mes.")


def test_a_phone_number_is_no_amount_and_a_compound_may_be_one_word() -> None:
    """ "On paie combien la nounou de l'heure ?": the nanny's contact row gives a phone
    number, no amount; the note "On te paie 11 € de l'heure" under "NOUNOU" in a file
    called "babysitter" says the hyphenated "baby-sitter" written as one word."""
    french = foreign_kinds.kind_asked("French", "On paie combien la nounou de l'heure ?")
    assert french is not None
    assert not french.given_by("Rôle: Nounou | Nom: Jade | Téléphone: 06 99 00 12 34")
    assert french.given_by("On te paie 11 € de l'heure.")
    question = "On paie combien la baby-sitter de l'heure ?"
    with asked_in("fr"):
        assert relevance.names_compounds(question, "On te paie 11 € de l'heure.", "babysitter")
        assert not relevance.names_compounds(question, "On te paie 11 € de l'heure.", "baby")


async def test_a_kind_of_pet_and_permission_are_said_by_their_general_words(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """ "On a le droit d'avoir un lapin ?": the lease says "animaux" and "autorisée",
    never "lapin" nor "droit"; its clause answers, not the toy rabbit's line nor the
    stopcock's "à droite"."""
    notes = {
        "bail.md": (
            "# Bail\n\n## Animaux\n\n"
            "- La détention d'animaux familiers est autorisée s'ils ne gênent pas les voisins.\n"
            "\n## Travaux\n\n- Les travaux dans l'appartement demandent l'accord du bailleur.\n"
        ),
        "maison.md": (
            "# Maison\n\n- Robinet d'arrêt de l'appartement : sous l'évier, à droite.\n"
            "- Le lapin en peluche de Zoé dort dans le panier du salon.\n"
        ),
    }
    client = await model_household_client(make_client, tmp_path, embedding_model, notes)
    question = "On a le droit d'avoir un lapin ?"
    body = await _asked(client, question, "fr")
    assert "autorisée" in body["result"], body["result"]


def test_in_another_language_the_words_outweigh_the_models_meaning() -> None:
    """The bundled model reads English: between French texts it put a line on the
    flat's stopcock (words 0.53, meaning 0.62) before the lease's pets clause (words
    0.75, meaning 0.24). In another language the words weigh more; in English both
    weigh alike."""
    clause = relevance.Match(0.75, 0.24, alone=False)
    stopcock = relevance.Match(0.53, 0.62, alone=False)
    assert clause.value > stopcock.value
    clause = relevance.Match(0.75, 0.24)
    stopcock = relevance.Match(0.53, 0.62)
    assert clause.value < stopcock.value


def test_when_again_is_answered_by_the_next_one_not_the_last() -> None:
    """ "Wann muss der Wagen wieder zur HU?": last year's log entry says "HU" as much as
    the line "Nächste HU: Mai 2027", and the English model puts it nearer; asked when
    again, the next one answers (and in Dutch, "weer" and "Volgende APK")."""

    def line(n: int, content: str, similarity: float) -> Passage:
        hit = Hit(n, "wagen.txt", n, "Logbuch", content, 1.0)
        return Passage("household", hit, "wagen.txt", 0.03, similarity)

    for language, question, last, upcoming in (
        (
            "de",
            "Wann muss der Wagen wieder zur HU?",
            "12.05.2025  61.200   Hauptuntersuchung (HU) bestanden   121,00 €",
            "Nächste HU: Mai 2027\nNächste Inspektion: bei 75.000 km oder im April 2026",
        ),
        (
            "nl",
            "Wanneer moet de auto weer naar de APK?",
            "14.03.2025  48.100   APK auto goedgekeurd          45,00 €",
            "Volgende APK: maart 2026\nVolgende beurt: bij 60.000 km of in oktober 2026",
        ),
    ):
        log, next_one = line(1, last, 0.5), line(2, upcoming, 0.35)
        with asked_in(language):
            ranked = rag._judged(question, {}, [log, next_one], None, True)
        assert ranked and ranked[0][1] is next_one, [p.hit.content for _, p in ranked]


async def test_open_is_said_by_opening_hours(make_client: Client, tmp_path: Path) -> None:
    """ "Wann hat die Apotheke offen?": the pharmacy's row gives its "Öffnungszeiten",
    never "offen" (and in Spanish, "¿Cuándo está abierta la farmacia?" by its
    "horario")."""
    notes = {
        "kontakte.md": (
            "# Kontakte\n\n| Rolle | Name | Telefon | Notizen |\n|---|---|---|---|\n"
            "| Apotheke | Linden-Apotheke | 030 555 0190 | Öffnungszeiten Mo-Sa 8-19 Uhr |\n"
            "| Hausarzt | Dr. Brandt | 030 555 0191 | Termine nur telefonisch |\n"
        ),
        "contactos.md": (
            "# Contactos\n\n| Rol | Nombre | Teléfono | Notas |\n|---|---|---|---|\n"
            "| Farmacia | Farmacia Lozano | 91 000 44 10 | horario de 9:30 a 21:00 |\n"
            "| Pediatra | Dra. Mora | 91 000 44 11 | cita previa por la app |\n"
        ),
    }
    client = await household_client(make_client, tmp_path / "roots", notes)
    body = await _asked(client, "Wann hat die Apotheke offen?", "de")
    assert "8-19" in body["result"], body["result"]
    body = await _asked(client, "¿Cuándo está abierta la farmacia?", "es")
    assert "21:00" in body["result"], body["result"]


def test_words_stemmed_on_several_threads_at_once_are_stemmed_right() -> None:
    """The memory search stems a question's words on a worker thread while the documents
    are judged on another: a Snowball stemmer keeps the word it works on in itself, and
    one shared between threads cut words wrong or raised mid-word ("source memory failed
    unexpectedly")."""
    parts = ("haus", "garten", "wasser", "strom", "heiz", "fenster", "keller", "dach")
    ends = ("schlüssel", "leitung", "anlage", "zähler", "kasten", "hahn", "platz", "rinne")
    runs = [
        [
            f"{a}{b}{'ungen' if n % 2 else 'en'}{'x' * (run * 12 + n)}"
            for a in parts
            for b in ends
            for n in range(12)
        ]
        for run in range(4)
    ]
    # Each word's stem, worked out first on this thread alone.
    truth = snowballstemmer.stemmer("german")
    right = {w: unaccented(truth.stemWord(w)) for words in runs for w in words}
    wrong: list[str] = []

    def stem_all(words: list[str]) -> None:
        for word in words:
            try:
                if stem_in("German", word) != right[word]:
                    wrong.append(word)
            except (IndexError, AssertionError):
                wrong.append(word)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often, as a busy server does
    try:
        threads = [threading.Thread(target=stem_all, args=(words,)) for words in runs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not wrong, wrong[:5]


async def test_a_sentence_that_sends_the_reader_on_is_no_answer(
    make_client: Client, tmp_path: Path, embedding_model: Path
) -> None:
    """ "Der Trockner zeigt F07, was nun?": the manual's "Meist ist das Sieb voll. Siehe
    Fehlercode F07." only sends the reader to the code's row, which answers (the English
    model calls that German row unrelated); a closing "…, siehe oben" after an answer
    still answers."""
    notes = {
        "trockner.html": (
            "<html><body><h1>Trockner Nordholm T 300</h1>"
            "<h2>Wenn die Wäsche nicht trocken wird</h2>"
            "<p>Meist ist das Flusensieb voll oder der Kondensatbehälter. Siehe Fehlercode F07."
            "</p><h2>Fehlercodes</h2><table>"
            "<tr><th>Code</th><th>Bedeutung</th><th>Was tun?</th></tr>"
            "<tr><td>F07</td><td>Luftweg verstopft</td><td>Flusensieb und Wärmetauscher"
            " ausspülen</td></tr>"
            "<tr><td>F12</td><td>Behälter voll</td><td>Kondensatbehälter leeren</td></tr>"
            "</table></body></html>"
        ),
    }
    client = await model_household_client(make_client, tmp_path, embedding_model, notes)
    body = await _asked(client, "Der Trockner zeigt F07, was nun?", "de")
    assert "Wärmetauscher" in body["result"], body["result"]
    assert "Siehe" not in body["result"], body["result"]
