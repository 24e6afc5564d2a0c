"""Home Assistant's own intent tests, asked of Mnemolis in en, de, fr, es, nl, it and pt.

The questions and the expected answers are Home Assistant's (home-assistant/intents,
``tests/<language>/``, copied unchanged into ``../shared/ha-intents-tests`` with
their source commit and CC BY 4.0 notice; Italian and Portuguese, of the same commit,
into ``bench/eval/intents``): every sentence of the question intents
(HassGetState, HassClimateGetTemperature, HassGetWeather, HassGetCurrentTime,
HassGetCurrentDate) whose test says the answer (Italian's climate tests only check
recognition: they give no response, and HA's Assist answers none of them). For each
language a real Home Assistant 2025.4 is built from that language's ``_fixtures.yaml``
(tests/server/intents_home: floors, areas and entities of every domain with the
fixture's names, states and attributes, in HA's registries), Mnemolis is started
in-process against it, and every sentence is asked through the service layer REST and
MCP call (``Mnemolis.search``) with the language HA's pipeline would pass and, for
"in here" tests, the area the test hears it in.

Each answer is judged against the test's expected response by rules that know
nothing of Mnemolis's answering code (``judge`` below): the same yes/no first, every
word of the expected response present (a state word as the fixture's ``in`` word,
its raw HA state or HA's own translation of it, a raw state the response says as it is
also as HA's translation; numbers equal within the rounding
shown; "°C", "degrees", "Grad" alike), no device named that the expected answer does
not name, no number it does not give. The current time and date are checked against
the clock when asked. HA's own Assist is asked the same sentence on the same home
(``intents_fixture.ask``) and judged by the same rules, printed beside as reference.

Exits 1 when a language scores below --threshold (0.97).

    MNEMOLIS_HA_VENV=.venv/ha .venv/server/bin/python bench/eval/eval_intents.py \
        [--languages en,de] [--threshold 0.97] [--failures] [--no-reference] [--detect]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from mnemolis.core import Mnemolis  # noqa: E402
from mnemolis.requestmodels import SearchRequest  # noqa: E402
from mnemolis.settings import load_settings  # noqa: E402
from tests.server.hass_fixture import HassCore  # noqa: E402
from tests.server.intents_home import (  # noqa: E402
    INTENTS_TESTS,
    VENDORED_TESTS,
    ask_assist,
    launch_intents_home,
    tests_of,
)

LANGUAGES = ("en", "de", "fr", "es", "nl", "it", "pt")
CLOCK = ("HassGetCurrentTime", "HassGetCurrentDate")
THRESHOLD = 0.97  # the bar, per language
QUESTION_FILES = re.compile(r"^[a-z_]+_Hass[A-Za-z]+\.yaml$")
YES = {"yes", "ja", "oui", "sí", "si", "jazeker"}
NO = {"no", "nein", "non", "nee", "neen"}
# The unit symbol and the words languages say for degrees: one and the same.
DEGREES = {"°c", "°f", "°", "degree", "degrees", "grad", "grade", "grados", "grado",
           "degré", "degrés", "graden", "graad", "c", "f"}  # fmt: skip
_TOKEN = re.compile(r"-?\d+(?:[.,]\d+)?|°[cf]?|[^\W\d_]+(?:['\u2019][^\W\d_]+)?", re.UNICODE)


# --- the tests -----------------------------------------------------------------------


@dataclass(slots=True)
class Case:
    """One sentence of one test."""

    language: str
    file: str
    sentence: str
    intent: str
    slots: dict[str, Any]
    response: str
    area: str | None


def load_cases(language: str) -> list[Case]:
    """Every question-intent sentence of a language's tests."""
    out = []
    for path in sorted(tests_of(language).glob("*.yaml")):
        if not QUESTION_FILES.match(path.name):
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for test in data.get("tests") or []:
            intent = test.get("intent") or {}
            if not test.get("response") and intent.get("name") not in CLOCK:
                # A test of recognition only (Italian's climate tests): it says no answer
                # to judge by, and HA's Assist on its fixture gives none either.
                continue
            area = (intent.get("context") or {}).get("area")
            for sentence in test.get("sentences") or []:
                out.append(
                    Case(
                        language,
                        path.stem,
                        str(sentence),
                        str(intent.get("name", "")),
                        dict(intent.get("slots") or {}),
                        str(test.get("response", "")),
                        str(area) if area else None,
                    )
                )
    return out


# --- truth from the fixture ----------------------------------------------------------


@dataclass(slots=True)
class Truth:
    """What the fixture and HA say about state words and names, for judging."""

    said: dict[str, set[str]] = field(default_factory=dict)  # in-word → raw/translated words
    names: list[str] = field(default_factory=list)  # every device name, longest first
    entities: list[dict[str, Any]] = field(default_factory=list)  # the fixture's entities
    areas: dict[str, dict[str, Any]] = field(default_factory=dict)  # fixture area id → area

    def about(self, slots: dict[str, Any]) -> set[str]:
        """Names of the devices a test's slots are about (by the fixture, not by our code):
        an answer may name these ("5: A, B…", "No, Phone is normal") without being wrong."""
        domains = _as_set(slots.get("domain"))
        classes = _as_set(slots.get("device_class"))
        area = norm(str(slots.get("area") or ""))
        floor = norm(str(slots.get("floor") or ""))
        out = set()
        for entity in self.entities:
            if domains and str(entity["id"]).split(".", 1)[0] not in domains:
                continue
            if classes and (entity.get("attributes") or {}).get("device_class") not in classes:
                continue
            where = self.areas.get(str(entity.get("area"))) or {}
            if area and norm(str(where.get("name", ""))) != area:
                continue
            if floor and norm(str(where.get("floor_name", ""))) != floor:
                continue
            out.add(norm(str(entity["name"])))
        return out


def _as_set(value: Any) -> set[str]:
    if value is None:
        return set()
    return {str(v) for v in value} if isinstance(value, list) else {str(value)}


def fixture_truth(language: str, translations: dict[str, str]) -> Truth:
    """State words and names from the fixture (and HA's translations of raw states)."""
    data = yaml.safe_load((tests_of(language) / "_fixtures.yaml").read_text("utf-8"))
    truth = Truth()
    floors = {str(f["id"]): str(f["name"]) for f in data.get("floors") or []}
    truth.areas = {
        str(a["id"]): {**a, "floor_name": floors.get(str(a.get("floor")), "")}
        for a in data.get("areas") or []
    }
    truth.entities = list(data.get("entities") or [])
    names: set[str] = set()
    for entity in data.get("entities") or []:
        names.add(norm(str(entity["name"])))
        state = entity.get("state")
        domain = str(entity["id"]).split(".", 1)[0]
        if isinstance(state, str):
            # A raw state the tests' responses say as it is ("Não, off"): HA's own word
            # for it in the language says it too ("Desligado").
            key = f"component.{domain}.entity_component._.state.{state}"
            if key in translations:
                truth.said.setdefault(norm(state), {state.lower()}).add(translations[key].lower())
            continue
        if not isinstance(state, dict):
            continue
        raw = str(state.get("out"))
        dclass = (entity.get("attributes") or {}).get("device_class") or "_"
        words = {raw.lower()}
        for key in (
            f"component.{domain}.entity_component.{dclass}.state.{raw}",
            f"component.{domain}.entity_component._.state.{raw}",
        ):
            if key in translations:
                words.add(translations[key].lower())
        truth.said.setdefault(norm(str(state.get("in"))), set()).update(words)
    truth.names = sorted((n for n in names if n), key=len, reverse=True)
    return truth


# --- the judge (independent of Mnemolis's answering code) ----------------------------


def norm(text: str) -> str:
    """Lower case, punctuation out, spaces folded."""
    return " ".join(t for t in _TOKEN.findall(text.lower()))


def _number(token: str) -> float | None:
    try:
        return float(token.replace(",", "."))
    except ValueError:
        return None


def _same(a: str, b: str) -> bool:
    """Two words alike: equal, the same number as shown, a degree unit, one stem."""
    if a == b:
        return True
    x, y = _number(a), _number(b)
    if x is not None and y is not None:
        # As precise as the less precise of the two shows it: 21.47 is "21.5" and "21".
        shown = min(len(t.replace(",", ".").partition(".")[2]) for t in (a, b))
        return abs(x - y) <= 0.5 * 10**-shown + 1e-9
    if a in DEGREES and b in DEGREES:
        return True
    # Gender and number of one adjective ("ouverts"/"ouvertes", "apagado"/"apagada").
    shorter = min(len(a), len(b))
    common = len(os.path.commonprefix([a, b]))
    return shorter >= 5 and common >= shorter - 2


def _names_in(text: str, names: list[str]) -> set[str]:
    found = set()
    rest = f" {text} "
    for name in names:
        if f" {name} " in rest:
            found.add(name)
            rest = rest.replace(f" {name} ", " | ")
    return found


def _variants(expected: str, truth: Truth) -> list[str]:
    """The expected response, with each state word also as its raw or translated form."""
    out = [norm(expected)]
    for word, said in truth.said.items():
        pattern = re.compile(rf"(?<!\S){re.escape(word)}(?!\S)")
        for text in list(out):
            if pattern.search(text):
                out += [pattern.sub(norm(w), text) for w in said]
    return list(dict.fromkeys(out))


def judge(
    answer: str, expected: str, truth: Truth, subject: str | None, about: set[str] | None = None
) -> bool:
    """Whether an answer says what the expected response says, and nothing against it."""
    got = norm(answer).split()
    if not got:
        return False
    for variant in _variants(expected, truth):
        want = variant.split()
        if not want:
            continue
        if want[0] in YES | NO:
            if got[0] not in (YES if want[0] in YES else NO):
                continue
            want, rest = want[1:], got[1:]
        else:
            rest = got
        if not all(any(_same(w, g) for g in rest) for w in want):
            continue
        allowed = _names_in(variant, truth.names) | ({norm(subject)} if subject else set())
        allowed |= about or set()
        if _names_in(" ".join(rest), truth.names) - allowed:
            continue
        numbers = [g for g in rest if _number(g) is not None]
        if any(not any(_same(n, w) for w in want) for n in numbers):
            continue
        return True
    return False


def judge_clock(answer: str, intent: str, now: datetime) -> bool:
    """The time (hour and minute, 12- or 24-hour, ±1 minute) or the date (day and year)."""
    text = answer.lower()
    if intent == "HassGetCurrentTime":
        for minute in (-1, 0, 1):
            t = now.replace(second=0, microsecond=0).timestamp() + minute * 60
            at = datetime.fromtimestamp(t, now.tzinfo)
            hours = {at.hour, at.hour % 12 or 12}
            for h in hours:
                if re.search(rf"(?<!\d){h}[:.h ]\s?{at.minute:02d}(?!\d)", text):
                    return True
                if at.minute == 0 and re.search(rf"(?<!\d){h}(?!\d)", text):
                    return True
        return False
    day = re.search(rf"(?<!\d){now.day}(?!\d)", text)
    return bool(day and str(now.year) in text)


# --- asking --------------------------------------------------------------------------


@dataclass(slots=True)
class Verdict:
    """One sentence asked of Mnemolis (and HA's Assist)."""

    case: Case
    answer: str
    ok: bool
    reference: str | None = None
    reference_ok: bool | None = None
    detected_ok: bool | None = None
    ms: float = 0.0


def right(case: Case, answer: str, truth: Truth, now: datetime, clock: str | None = None) -> bool:
    """Judge one answer to one case; ``clock`` is HA's own answer asked the same minute."""
    if case.intent in CLOCK:
        # Digits when the language writes them; else what HA itself says at that minute.
        return judge_clock(answer, case.intent, now) or (
            clock is not None and norm(answer) == norm(clock)
        )
    return judge(answer, case.response, truth, case.slots.get("name"), truth.about(case.slots))


async def ask_language(
    language: str, core: HassCore, data_dir: Path, reference: bool, detect: bool
) -> list[Verdict]:
    """Start Mnemolis against this language's home and ask every sentence."""
    settings = load_settings(
        environ={},
        overrides={
            "data_dir": str(data_dir),
            "ha": {"url": core.url, "token": core.token, "exposure": "all"},
            "cache": {"ttl": {"ha": 0, "forecast": 0}},
        },
    )
    translations = core.ws_command(
        {
            "type": "frontend/get_translations",
            "language": language,
            "category": "entity_component",
            "integration": sorted({e.split(".")[0] for e in rest_states(core)}),
        }
    )["resources"]
    truth = fixture_truth(language, translations)
    mn = Mnemolis(settings)
    await mn.start()
    out: list[Verdict] = []
    try:
        client = mn.services.ha
        assert client is not None
        await client.wait_ready(30)
        for case in load_cases(language):
            now = datetime.now(core.time_zone)
            started = time.perf_counter()
            result = await mn.search(
                SearchRequest(query=case.sentence, language=language, area=case.area)
            )
            ms = (time.perf_counter() - started) * 1000
            said = None
            if reference or case.intent in CLOCK:
                said = await asyncio.to_thread(ask_assist, core, case.sentence, language, case.area)
            clock = said if datetime.now(core.time_zone).minute == now.minute else None
            # "No source could answer" is no "No": an answer no source gave is never right.
            verdict = Verdict(
                case,
                result.result,
                result.source_used != "none" and right(case, result.result, truth, now, clock),
                ms=ms,
            )
            if detect:
                auto = await mn.search(SearchRequest(query=case.sentence, area=case.area))
                verdict.detected_ok = auto.source_used != "none" and right(
                    case, auto.result, truth, now, clock
                )
            if reference and said is not None:
                verdict.reference = said
                verdict.reference_ok = right(case, said, truth, now, clock)
            out.append(verdict)
    finally:
        await mn.stop()
    return out


def rest_states(core: HassCore) -> dict[str, Any]:
    """HA's states by entity id."""
    return {s["entity_id"]: s for s in core._http("GET", "/api/states") or []}


# --- reporting -----------------------------------------------------------------------


def _score(ok: int, n: int) -> str:
    return f"{ok}/{n} = {ok / n:.3f}" if n else "-"


def report(verdicts: list[Verdict], failures: bool, every: bool = False) -> dict[str, float]:
    """Markdown tables: per language (with HA's Assist), per test file; returns scores."""
    by_lang: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_lang[v.case.language].append(v)
    print("\n| language | Mnemolis | HA's Assist (reference) | language detected | p50 ms |")
    print("|---|---|---|---|---|")
    scores = {}
    for lang, vs in by_lang.items():
        ok = sum(v.ok for v in vs)
        ref = [v for v in vs if v.reference_ok is not None]
        det = [v for v in vs if v.detected_ok is not None]
        ms = sorted(v.ms for v in vs)
        scores[lang] = ok / len(vs)
        print(
            f"| {lang} | {_score(ok, len(vs))} | "
            f"{_score(sum(bool(v.reference_ok) for v in ref), len(ref))} | "
            f"{_score(sum(bool(v.detected_ok) for v in det), len(det))} | "
            f"{ms[len(ms) // 2]:.1f} |"
        )
    print("\n| language | test file | Mnemolis | HA's Assist |")
    print("|---|---|---|---|")
    for lang, vs in by_lang.items():
        files: dict[str, list[Verdict]] = defaultdict(list)
        for v in vs:
            files[v.case.file].append(v)
        for name, fv in sorted(files.items()):
            ref = [v for v in fv if v.reference_ok is not None]
            print(
                f"| {lang} | {name} | {_score(sum(v.ok for v in fv), len(fv))} | "
                f"{_score(sum(bool(v.reference_ok) for v in ref), len(ref))} |"
            )
    if failures or every:
        print("\nAnswers (sentence → ours | expected | HA's Assist):")
        for v in verdicts:
            if every or not v.ok:
                mark = "ok " if v.ok else "BAD"
                print(
                    f"  {mark} [{v.case.language}] {v.case.sentence!r} → {v.answer!r} | "
                    f"{v.case.response!r} | {v.reference!r}"
                )
    return scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--threshold", type=float, default=THRESHOLD)
    parser.add_argument("--failures", action="store_true", help="list every wrong answer")
    parser.add_argument("--all", action="store_true", help="list every answer")
    parser.add_argument(
        "--no-reference", action="store_true", help="do not ask HA's own Assist as well"
    )
    parser.add_argument(
        "--detect", action="store_true", help="also ask without the language (detected)"
    )
    args = parser.parse_args()
    languages = [lang.strip() for lang in args.languages.split(",") if lang.strip()]
    print(
        f"Intents tests from {INTENTS_TESTS}, else {VENDORED_TESTS} "
        "(home-assistant/intents, CC BY 4.0)"
    )
    verdicts: list[Verdict] = []
    with tempfile.TemporaryDirectory(prefix="mnemolis-intents-") as tmp:
        for lang in languages:
            started = time.monotonic()
            core = launch_intents_home(Path(tmp) / f"ha-{lang}", lang)
            try:
                verdicts += asyncio.run(
                    ask_language(
                        lang, core, Path(tmp) / f"data-{lang}", not args.no_reference, args.detect
                    )
                )
            finally:
                core.stop()
            print(f"{lang}: asked in {time.monotonic() - started:.0f} s", flush=True)
    scores = report(verdicts, args.failures, args.all)
    low = {lang: s for lang, s in scores.items() if s < args.threshold}
    print(
        f"\nbar: ≥ {args.threshold} per language — "
        + ("met" if not low else f"NOT met for {', '.join(sorted(low))}")
    )
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
