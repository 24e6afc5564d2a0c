"""HTML to text, question keywords and extracts used by the outside connectors."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mnemolis.sources.textutil import (
    extract,
    html_paragraphs,
    html_to_text,
    keywords,
    overlap,
    sentences,
)


def test_paragraphs_without_scripts_styles_or_chrome() -> None:
    html = """<!doctype html><html><head><title>T</title>
    <style>p { color: red }</style><script>var x = "<p>not text</p>";</script></head>
    <body><nav><a href="/">Home</a></nav>
    <span class="kiwix"><span id="kiwixtoolbar">toolbar <b>text</b></span></span>
    <h1>Heading</h1><p>First &amp; <i>only</i> paragraph.</p>
    <div hidden>secret</div><p aria-hidden="true">invisible</p>
    <table><tr><td>a</td><td>b</td></tr></table><p>Line<br>break</p>
    <noscript>enable js</noscript></body></html>"""
    assert html_paragraphs(html) == ["Heading", "First & only paragraph.", "a b", "Line", "break"]


def test_unclosed_head_and_tags_do_not_swallow_the_body() -> None:
    html = "<html><head><title>x</title><meta charset=utf-8><p>Body text<p>Second"
    assert html_paragraphs(html) == ["Body text", "Second"]


def test_plain_text_passes_through() -> None:
    assert html_to_text("  AT&T  profits rise ") == "AT&T profits rise"
    assert html_to_text("a < b and c > d") == "a < b and c > d"


@given(st.text(max_size=300))
def test_never_raises_and_never_leaks_script(body: str) -> None:
    html = f"<p>{body}</p><script>SECRET_SCRIPT()</script><style>.SECRET_STYLE{{}}</style>"
    text = html_to_text(html)
    assert "SECRET_SCRIPT" not in text
    assert "SECRET_STYLE" not in text


def test_keywords_drop_question_words() -> None:
    assert keywords("What is the highest mountain on Earth?") == ["highest", "mountain", "earth"]
    assert keywords("Who was Ada Lovelace?") == ["ada", "lovelace"]
    assert keywords("what is it?") == []


def test_overlap_matches_simple_inflections() -> None:
    assert overlap(["mountains"], "the highest mountain") == 1.0
    assert overlap(["mountain", "river"], "the highest mountain") == 0.5
    assert overlap([], "anything") == 0.0


def test_sentences_and_extract() -> None:
    text = "Mount Everest is the highest mountain. It is in Nepal. The first ascent was in 1953."
    assert sentences(text) == [
        "Mount Everest is the highest mountain.",
        "It is in Nepal.",
        "The first ascent was in 1953.",
    ]
    paragraphs = [
        "Mount Everest is Earth's highest mountain above sea level, in the Himalayas.",
        "Its elevation is 8,849 metres, as measured by a Chinese and Nepali survey team.",
        "The first confirmed ascent was made in 1953 by Tenzing Norgay and Edmund Hillary.",
    ]
    out = extract(paragraphs, "when was the first ascent?")
    assert out.startswith("Mount Everest is Earth's highest mountain")
    assert "1953" in out
    assert len(extract(paragraphs, "x", max_chars=60)) <= 60
