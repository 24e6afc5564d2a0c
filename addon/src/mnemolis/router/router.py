"""The router: decides which sources answer a question, runs them, and fuses the answers."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import functools
import inspect
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from ..assist import grammar
from ..assist.reader import AssistReader, Reading, Recognized, candidates
from ..hass.client import Registries
from ..knowledge import relevance
from ..knowledge.vectors import REQUEST_VECTORS
from ..language import asked_in
from ..models import (
    Citation,
    ConditionResult,
    Evidence,
    PartResult,
    SearchResult,
    SourceAnswer,
    SourceRun,
)
from ..sources.base import INSTEAD_OF, QueryContext
from ..spoken import spoken_choosing, spoken_form, spoken_from_named
from ..textmatch import without_fillers
from .cache import AnswerCache
from .conditions import ConditionPlan, Verdict, evaluate, parse_condition
from .context import ConversationStore, resolve_follow_up
from .decompose import carry_subject, decompose
from .fusion import compose_extractive, fuse
from .language import (
    ENGLISH_CODE,
    ONLY_ENGLISH,
    code_of,
    detect,
    reply,
    reply_language,
    split_and,
)
from .meaning import MeaningStage, Ranking, usable_embedder
from .profiles import NONE
from .shapes import encyclopedic, happened
from .signals import DynamicVocabulary, Scores, describe, score
from .spoken_condition import with_verdict
from .vocabulary import MATCH

if TYPE_CHECKING:
    from ..core import Mnemolis
    from ..requestmodels import SearchRequest

_LOGGER = logging.getLogger(__name__)

# What a home's state never tells: how a thing *should* be ("what should the boiler
# pressure be?"), who someone is by trade ("who is the window cleaner?"), and an attribute
# kept in notes (a password, a phone number); "who is home?" is the people's state.
_NOT_A_STATE = re.compile(
    r".*\b(?:should|ought to|supposed to|meant to|recommended|normal)\b"
    r"|\s*who(?:'s|\s+is|\s+are|\s+was|\s+do|\s+does|\s+services|\s+fixes|\s+to)\b"
    r"(?!.*\b(?:home|in|at|away|here|there|inside|out|asleep|awake)\b)",
    re.IGNORECASE,
)


def not_a_state(question: str) -> bool:
    """Whether the question asks what no entity's state says (see ``_NOT_A_STATE``)."""
    asked = relevance.asked(question)
    return _NOT_A_STATE.match(asked) is not None or bool(relevance.asked_attribute(asked))


PartMode = Literal["single", "fusion", "default", "explicit", "meaning", "language", "intent"]
MAX_CITATIONS = 8
HOME_SOURCES = frozenset({"ha", "forecast", "uptime", "changes"})
# Sources whose answer the model may write from their passages (llm.compose_documents).
COMPOSED_SOURCES = frozenset({"rag", "memory"})
_WEATHER_SUBJECT = re.compile(r"^\s*(?:it|there|the weather|the forecast)\b", re.IGNORECASE)
PLAN_MEMO = 512  # routing decisions kept for repeated questions
NAME_REFRESH_TIMEOUT = 0.5  # seconds an async name refresh (monitors) may take per question
AREA = "area"  # QueryContext hint: where the question was heard ("in here")
# Sources that read a question in any language: documents and memories match its words.
ANY_LANGUAGE = ("rag", "memory", "web")
# Seconds a plan waits for the embedding model (busy with other questions or indexing)
# before the words decide alone: the model is a routing hint, the deadline is a promise.
MEANING_WAIT = 2.0
# A question whose stages have not all ended by the deadline is answered this much later
# with what the deadline means, whatever is still running (issue 29).
LATE_GRACE = 0.5


@dataclass(slots=True)
class PartPlan:
    """How one part of a question will be answered, and why."""

    query: str
    sources: list[str]
    reason: str
    mode: PartMode
    #: What Home Assistant's grammar recognised (mode "intent").
    recognized: Recognized | None = None
    #: The grammar language the part was asked in, when it is not English.
    language: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``parts[]`` entry of ``GET /api/route``."""
        return {"query": self.query, "sources": list(self.sources), "reason": self.reason}


@dataclass(slots=True)
class Plan:
    """The routing decision for a whole question."""

    query: str
    condition: ConditionPlan | None
    parts: list[PartPlan]

    def to_dict(self) -> dict[str, Any]:
        """The ``GET /api/route`` body (SPEC §5)."""
        cond = None
        if self.condition is not None:
            cond = {"text": self.condition.text, "sources": [self.condition.source]}
        return {
            "query": self.query,
            "condition": cond,
            "parts": [p.to_dict() for p in self.parts],
        }


@dataclass(slots=True)
class PartOutcome:
    """What running one part produced."""

    query: str
    text: str
    source_used: str
    runs: list[SourceRun] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    fallback: bool = False
    answered_by: list[str] = field(default_factory=list)
    asks: list[tuple[str, str]] = field(default_factory=list)  # (ask, its quote), several asks


def _asks_of(answer: SourceAnswer) -> list[tuple[str, str]]:
    """The asks a quoting source answered one by one, each with its own quote."""
    return [(str(a), str(q)) for a, q in answer.data.get("asks") or []]


class Router:
    """Rules first, then the local model, then the default order; with fallback and cache."""

    def __init__(self, core: Mnemolis) -> None:
        self.core = core
        self.vocab = DynamicVocabulary()
        self.meaning = MeaningStage()
        self.cache = AnswerCache(core.settings.cache.ttl)
        self.conversations = ConversationStore()
        self._async_names_at = -1e9
        self._memo: dict[str, Scores] | None = None  # scores of texts within one plan()
        # Plans of questions asked without a conversation before them, for as long as
        # the names, configured sources and model they were decided on stay the same.
        self._plans: OrderedDict[tuple[object, ...], Plan] = OrderedDict()
        self._warming: asyncio.Task[None] | None = None
        self._assist: AssistReader | None = None
        self._assist_home: object = None
        self._planner: ThreadPoolExecutor | None = None

    # --- Home Assistant's grammar ----------------------------------------------------

    def reader(self) -> AssistReader:
        """HA's grammar over the live home (an empty one when HA is not set up: the clock)."""
        ha = self.core.services.ha
        # A client without registries (a stand-in) lends the grammar no names.
        home: Any = ha if getattr(ha, "registries", None) is not None else _EMPTY_HOME
        if self._assist is None or self._assist_home is not home:
            forecast = self.core.settings.forecast
            self._assist = AssistReader(
                home,
                version=(lambda: getattr(home, "names_version", 0)),
                exposed=(
                    ha.exposed_to_assist
                    if ha is not None and home is ha and self.core.settings.ha.exposure == "assist"
                    else None
                ),
                weather_entity=lambda: forecast.entity_id,
                fetch_translations=getattr(ha, "state_words", None),
            )
            self._assist_home = home
        return self._assist

    def _tongues(self, language: str | None, text: str) -> tuple[list[str], bool]:
        """The grammar languages to read a question in, and whether the English tables apply."""
        home = getattr(self.core.services.ha, "language", None)
        if language:
            tongues = candidates(language, None, ())
            code = tongues[0] if tongues else language.split("-")[0].lower()
            return tongues, code == "en"
        guess = detect(text)
        tongues = candidates(None, home, code_of(guess.code))
        return tongues, guess.english

    def _recognize(self, text: str, tongues: list[str], area: str | None) -> Recognized | None:
        """The question as HA's grammar reads it, if it does, in the first language that can."""
        if not tongues:
            return None
        try:
            return self.reader().recognize(text, tongues, area, self._local_now())
        except Exception:  # the grammar is a reader among others; never fail a question
            _LOGGER.exception("intent recognition failed for a question")
            return None

    def _local_now(self, now: datetime | None = None) -> datetime:
        """Now (or ``now``) in the home's time zone."""
        tz = getattr(self.core.services.ha, "time_zone", None) or datetime.now().astimezone().tzinfo
        return (now or datetime.now(UTC)).astimezone(tz)

    def _intent_part(self, text: str, rec: Recognized) -> PartPlan:
        why = f"Home Assistant's grammar: {rec.intent} ({rec.language})"
        return PartPlan(text, [rec.source], why, "intent", rec, rec.language)

    def _home_part(self, text: str, tongues: list[str], area: str | None) -> PartPlan:
        """One part: HA's grammar when it reads it, else the router's own rules."""
        rec = self._recognize(text, tongues, area)
        if rec is not None:
            return self._intent_part(text, rec)
        return self.decide(text)

    def _foreign(self, query: str, text: str, tongues: list[str], area: str | None) -> Plan:
        """A question not in English that the grammar does not read whole.

        Parts joined by the language's "and" are read one by one when the grammar
        reads every one; otherwise it goes to what reads any language (documents,
        memories, the web), never to English-only rules.
        """
        language = tongues[0] if tongues else None
        pieces = split_and(text, language)
        if len(pieces) > 1:
            read = [self._recognize(p, tongues, area) for p in pieces]
            if all(r is not None for r in read):
                return Plan(
                    query,
                    None,
                    [self._intent_part(p, r) for p, r in zip(pieces, read, strict=True) if r],
                )
        names = [n for n in ANY_LANGUAGE if self._configured(n)]
        lang = language or "unknown language"
        why = f"not English ({lang}); not a home question HA's grammar reads"
        if not names:
            return Plan(query, None, [PartPlan(text, [], why, "language", language=language)])
        mode: PartMode = "fusion" if len(names) > 1 else "single"
        return Plan(
            query,
            None,
            [
                PartPlan(
                    text,
                    names,
                    f"{why}: documents, memories and the web read any language",
                    mode,
                    language=language,
                )
            ],
        )

    # --- live vocabularies -----------------------------------------------------------

    def _providers(self) -> dict[str, list[Callable[[], Iterable[str]]]]:
        services = self.core.services
        out: dict[str, list[Callable[[], Iterable[str]]]] = {}
        ha = services.ha
        if ha is not None and callable(getattr(ha, "vocabulary", None)):
            out["ha"] = [ha.vocabulary]
        news = self.core.sources.get("news")
        if news is not None and callable(getattr(news, "feed_titles", None)):
            out["news"] = [news.feed_titles]  # type: ignore[attr-defined]
        for source, provider in (("rag", services.rag_names), ("memory", services.memory_tags)):
            if provider is not None:
                out[source] = [provider]
        return out

    def _sync_vocabulary(self) -> DynamicVocabulary:
        self.vocab.set_providers(self._providers())
        return self.vocab

    async def _refresh_async_names(self) -> None:
        """Monitor names come from an async call; refresh them now and then."""
        now = time.monotonic()
        if now - self._async_names_at < self.vocab.ttl:
            return
        self._async_names_at = now
        uptime = self.core.sources.get("uptime")
        if (
            uptime is None
            or not uptime.configured
            or not callable(getattr(uptime, "monitors", None))
        ):
            return
        try:
            async with asyncio.timeout(NAME_REFRESH_TIMEOUT):
                monitors = uptime.monitors()  # type: ignore[attr-defined]
                if inspect.isawaitable(monitors):
                    monitors = await monitors
        except Exception as err:  # names are a routing hint; never fail a question for them
            _LOGGER.debug("monitor names unavailable: %s", err)
            return
        names = []
        for mon in monitors or []:
            name = mon.get("name") if isinstance(mon, dict) else getattr(mon, "name", None)
            if isinstance(name, str) and name:
                names.append(name)
        self.vocab.set_async_names("uptime", names)

    # --- deciding --------------------------------------------------------------------

    def scores(self, query: str) -> Scores:
        """Every source's routing score for a question (vocabulary + live names)."""
        memo = self._memo
        if memo is not None:
            hit = memo.get(query)
            if hit is None:
                hit = memo[query] = score(query, self.vocab)
            return hit
        return score(query, self._sync_vocabulary())

    def _strong(self, text: str) -> list[str]:
        return self.scores(text).strong()

    def _configured(self, name: str) -> bool:
        src = self.core.sources.get(name)
        return src is not None and src.configured

    def _default_chain(self) -> list[str]:
        order = list(self.core.settings.routing.default_sources)
        configured = [n for n in order if self._configured(n)]
        return configured or order

    def decide(self, query: str) -> PartPlan:
        """Route one part: tables, then meaning, then (at run time) the model, then defaults;
        a question no state answers goes to the documents though it shares a home word."""
        part = self._decide_part(query)
        if (
            part.sources == ["ha"]
            and part.mode in ("single", "meaning")
            and self._configured("rag")
        ):
            sc = self.scores(query)
            if not sc.said_name("ha") and not_a_state(query):
                why = f"{part.reason}; but no entity's state answers what is asked: the documents"
                return PartPlan(query, ["rag"], why, "single")
        return part

    def _decide_part(self, query: str) -> PartPlan:
        """Route one part: tables, then meaning, then (at run time) the model, then defaults."""
        sc = self.scores(query)
        strong, note = self._route_out(sc.strong(), sc)
        if NONE in strong:  # "write a poem about rain": no source's data answers it
            label = next(h.label for h in sc.hits[NONE] if h.kind == "shape")
            return self._default(query, sc, f": {label}", None)
        note += _topics(sc, strong)
        if len(strong) >= 2 and not any(sc.named(n) or sc.names.get(n) for n in strong):
            # Table words for several sources, none named or matched on a live name
            # ("how do I clean the dishwasher filter": HA's word, the manuals' question):
            # let meaning choose between them when one is clearly closer.
            among = self._rank(query, strong)
            if among.pick is not None:
                why = (
                    f"matched {describe(sc, strong)}; by meaning ({among.method}) "
                    f"{among.pick}: {among.describe()}"
                )
                return PartPlan(query, [among.pick], why + note, "single")
        if len(strong) >= 2:
            why = "fusion of strong matches — " + describe(sc, strong)
            return PartPlan(query, strong, why + note + self._missing(strong), "fusion")
        if strong == ["ha"] and self._configured("changes") and happened(query):
            # "Did the front door open today?": the home's history, not its state now.
            why = f"matched {describe(sc, strong)}; past tense over a time window: the history"
            return PartPlan(query, ["changes"], why + note, "single")
        if strong:
            why = "matched " + describe(sc, strong)
            return PartPlan(query, strong, why + note + self._missing(strong), "single")
        ranking = self._by_meaning(query, sc)
        if ranking is not None and ranking.pick is not None:
            why = (
                f"no strong table match{note}; by meaning ({ranking.method}): {ranking.describe()}"
            )
            return PartPlan(query, [ranking.pick], why + self._missing([ranking.pick]), "meaning")
        return self._default(query, sc, note, ranking)

    def _default(self, query: str, sc: Scores, note: str, ranking: Ranking | None) -> PartPlan:
        """Nothing decided: the local model at run time when one is loaded, else the defaults."""
        chain = self._default_chain()
        llm = self.core.services.llm
        how = (
            "the local model classifies it at run time, else "
            if llm is not None and getattr(llm, "available", False)
            else ""
        )
        weak = [(s, v) for s, v in sc.ranked() if s != NONE][:2]
        hint = f" (weak: {describe(sc, [s for s, _ in weak])})" if weak else ""
        if ranking is not None and ranking.scores:
            hint += f"; meaning ({ranking.method}) undecided: {ranking.describe()}"
        return PartPlan(
            query,
            chain[:1],
            f"no rule matched{hint}{note}; {how}default order {' → '.join(chain)}",
            "default",
        )

    def _route_out(self, strong: list[str], sc: Scores) -> tuple[list[str], str]:
        """Drop Home Assistant and the uptime monitors when they are not configured and no
        live name of theirs was said.

        Words like "dishwasher", "boiler" or "home" point at HA, "down" at the monitors
        ("the gauge is down below 1, how do I top the pressure up?"); without them the
        answer may still be in the manuals or memories, and "… is not configured" must
        not be the final word while they could answer.
        """
        gone = [
            s
            for s in strong
            if s in _HOME_STATES and not self._configured(s) and not sc.names.get(s)
        ]
        if not gone:
            return strong, ""
        notes = "; ".join(f"{s} is not configured" for s in gone)
        return [s for s in strong if s not in gone], f" ({notes}: routed to the others)"

    def _rank(self, query: str, candidates: list[str]) -> Ranking:
        """Similarity ranking: words when they are sure, else the embedding model, else words.

        The words' comparison is nearly free; the model (a few milliseconds a question)
        is asked only when the words leave doubt.
        """

        def names() -> dict[str, list[str]]:
            return {idx.source: list(idx.exact.values()) for idx in self.vocab.all()}

        ranking = self.meaning.lexical(query, candidates, names, self.vocab.generation)
        embedder = self._embedder()
        if embedder is None or ranking.sure:
            return ranking
        embedded = self.meaning.embedded(query, candidates, embedder)
        if embedded is not None and embedded.pick is not None:
            return embedded
        if ranking.pick is not None:
            return ranking
        return embedded or ranking

    def _by_meaning(self, query: str, sc: Scores) -> Ranking | None:
        """The second stage: similarity with each configured source's profile and names."""
        candidates = [n for n in self.core.sources if self._configured(n)]
        if not candidates or not query.strip():
            return None
        ranking = self._rank(query, [*candidates, NONE])
        if ranking.pick == NONE:  # small talk, a poem: no source's data answers it
            return Ranking(f"{ranking.method}: small talk", ranking.scores, None)
        if ranking.pick is not None:
            return ranking
        # Nothing clearly ahead by similarity: the shape of the question may still tell.
        if "kiwix" in candidates and encyclopedic(query, sc.names):
            return Ranking("question shape: encyclopedic", ranking.scores, "kiwix")
        if "changes" in candidates and happened(query):
            return Ranking("question shape: what happened", ranking.scores, "changes")
        agreed = _agreement(sc, ranking)
        if agreed is not None:
            return Ranking(
                f"{ranking.method}, agreeing with a weak table match", ranking.scores, agreed
            )
        return ranking

    def _household(self) -> list[str]:
        """The household's own manuals and memories, where set up: asked when the home is not."""
        return [n for n in ("rag", "memory") if self._configured(n)]

    def _missing(self, names: list[str]) -> str:
        """What the trace should say about chosen sources that are not configured."""
        missing = [n for n in names if not self._configured(n)]
        if not missing:
            return ""
        notes = []
        for name in missing:
            rest = [n for n in self._chain(name)[1:] if self._configured(n)]
            if not rest and name in HOME_SOURCES:
                rest = self._household()  # what _run_chain asks when the home says nothing
            then = f"falls back to {' → '.join(rest)}" if rest else "nothing to fall back to"
            notes.append(f"{name} is not configured ({then})")
        return " — " + "; ".join(notes)

    def plan(
        self,
        query: str,
        *,
        source: str = "auto",
        fusion_sources: list[str] | None = None,
        conversation_id: str | None = None,
        language: str | None = None,
        area: str | None = None,
    ) -> Plan:
        """The full decision: condition, follow-up rewriting, decomposition, routing.

        With the embedding model loaded, the parts that need it are planned first,
        their questions embedded in one call to the model, and planned again (one
        hop to the model's thread per question, however many parts it has).
        """

        def decide() -> Plan:
            return self._decide(query, source, fusion_sources, conversation_id, language, area)

        embedder = self._embedder()
        if embedder is None:
            return decide()
        try:
            self.meaning.warm_sync(embedder)
        except Exception as err:  # the model is a routing hint; never fail a question for it
            _LOGGER.info("meaning stage without the embedding model: %s", err)
            return decide()
        plan, deferred = self._deferring(decide)
        if not deferred:
            return plan
        try:
            self.meaning.prepare_sync(embedder, deferred)
        except Exception as err:  # the model is a routing hint; never fail a question for it
            _LOGGER.info("meaning stage without the embedding model: %s", err)
            return plan
        return decide()

    def _embedder(self) -> Any:
        """The loaded sentence-embedding model, or None."""
        embedder = self.core.services.embedder
        return embedder if usable_embedder(embedder) else None

    def _deferring[T](self, decide: Callable[[], T]) -> tuple[T, list[str]]:
        """What ``decide()`` returns, and the questions it would have embedded had their
        vectors been there."""
        deferred: list[str] = []
        self.meaning.deferred = deferred
        try:
            return decide(), deferred
        finally:
            self.meaning.deferred = None

    def _decide(
        self,
        query: str,
        source: str,
        fusion_sources: list[str] | None,
        conversation_id: str | None,
        language: str | None = None,
        area: str | None = None,
    ) -> Plan:
        """One planning pass, memoised for questions asked outside a conversation."""
        self._sync_vocabulary()
        key: tuple[object, ...] | None = None
        # Read before planning: the profiles' vectors may be stored meanwhile.
        warm = (model := self._embedder()) is None or self.meaning.ready(model)
        if self.conversations.get(conversation_id) is None:
            self.vocab.combined()  # refresh names first: the key carries their generation
            llm = self.core.services.llm
            embedder = self._embedder()
            key = (
                # Planned on words until the profiles' vectors are in (then planned again).
                warm,
                query,
                source,
                language,
                area,
                getattr(self.core.services.ha, "language", None),
                # Where people are reads as places ("who is at school"), names or not.
                tuple(self.reader().zones()),
                None if fusion_sources is None else tuple(fusion_sources),
                self.vocab.generation,
                tuple(n for n, src in self.core.sources.items() if src.configured),
                bool(llm is not None and getattr(llm, "available", False)),
                None if embedder is None else str(getattr(embedder, "name", "")),
            )
            hit = self._plans.get(key)
            if hit is not None:
                self._plans.move_to_end(key)
                return hit
        self._memo = {}
        try:
            plan = self._plan(query, source, fusion_sources, conversation_id, language, area)
        finally:
            self._memo = None
        # A plan that deferred the vectors it wanted is not kept; one made before the
        # profiles' vectors were computed is kept under its own key (``warm``), so a
        # question asked again while they are computed is not planned again (issue 30).
        if key is not None and not self.meaning.deferred:
            self._plans[key] = plan
            if len(self._plans) > PLAN_MEMO:
                self._plans.popitem(last=False)
        return plan

    def _plan(
        self,
        query: str,
        source: str,
        fusion_sources: list[str] | None,
        conversation_id: str | None,
        language: str | None = None,
        area: str | None = None,
    ) -> Plan:
        vocab = self.vocab
        text = without_fillers(query)
        tongues, english = self._tongues(language, text)
        if source in ("auto", "ha", "forecast"):
            # The grammar has its own skip words; the router's fillers are English ("er").
            asked = query.strip()
            whole = self._recognize(asked, tongues, area)
            if whole is None and english and text != asked:
                whole = self._recognize(asked := text, tongues, area)
            if whole is not None and source in ("auto", whole.source):
                return Plan(query, None, [self._intent_part(asked, whole)])
        if not english and source == "auto":
            return self._foreign(query, text, tongues, area)
        follow_of: str | None = None
        inherited: list[str] | None = None
        previous = self.conversations.get(conversation_id)
        if previous is not None and source == "auto":
            follow = resolve_follow_up(text, previous, vocab, self._strong)
            if follow is not None:
                text, inherited, follow_of = follow.query, follow.sources, follow.previous
        condition = parse_condition(text)
        if condition is not None and condition.kind == "forecast":
            condition = self._home_condition(condition)
        if (
            condition is not None
            and condition.kind in ("ha", "uptime")
            and not self._configured(condition.kind)
        ):
            # No home or monitor states to check "if the dishwasher needs repairing" or
            # "if it breaks down" against: the question is asked whole, as the manuals
            # and memories can answer it ("who do I call if the dishwasher breaks down?").
            condition = None
        body = condition.consequent if condition is not None else text
        if source == "fusion":
            names = list(fusion_sources or [])
            why = "fusion of the requested sources"
            if not names:
                sc = self.scores(body)
                matched = [s for s, v in sc.ranked() if v > 0]
                names = list(dict.fromkeys(matched + self._default_chain()))
                names = [n for n in names if self._configured(n)] or names
                why = "fusion of every matching and default source"
            return Plan(query, condition, [PartPlan(body, names, why, "fusion")])
        if follow_of is not None:
            part = self.decide(body)
            prefix = f"follow-up of “{follow_of}”"
            if part.mode == "default" and inherited:
                part = PartPlan(
                    body,
                    inherited[:1] if len(inherited) == 1 else inherited,
                    f"{prefix}: same source",
                    "single" if len(inherited) == 1 else "fusion",
                )
            else:
                part.reason = f"{prefix}: {part.reason}"
            return Plan(query, condition, [part])
        pieces = carry_subject(decompose(body, self._strong), self._strong)
        if source != "auto":
            parts = [PartPlan(p, [source], "requested", "explicit") for p in pieces]
        elif len(pieces) == 1 and condition is None:
            parts = [self.decide(pieces[0])]  # read whole above already
        else:
            parts = [self._home_part(p, tongues, area) for p in pieces]
        return Plan(query, condition, parts)

    def _home_condition(self, cond: ConditionPlan) -> ConditionPlan:
        """ "the lounge thermometer is above 25 degrees" is about a sensor, not the weather."""
        if _WEATHER_SUBJECT.match(cond.text):
            return cond
        if self.scores(cond.text).names.get("ha"):
            return dataclasses.replace(cond, kind="ha")
        return cond

    def route(
        self,
        query: str,
        conversation_id: str | None = None,
        language: str | None = None,
        area: str | None = None,
    ) -> dict[str, Any]:
        """The decision for a question, without running any source (blocking on the model)."""
        plan = self.plan(query, conversation_id=conversation_id, language=language, area=area)
        return plan.to_dict()

    async def route_async(
        self,
        query: str,
        conversation_id: str | None = None,
        language: str | None = None,
        area: str | None = None,
    ) -> dict[str, Any]:
        """``route`` for the event loop: the embedding model is awaited, never waited on."""
        await self._refresh_async_names()
        plan = await self._plan_async(
            query, conversation_id=conversation_id, language=language, area=area
        )
        return plan.to_dict()

    # --- running ---------------------------------------------------------------------

    async def search(self, req: SearchRequest) -> SearchResult:
        """Answer one question: condition, parts concurrently, fusion, fallback; every
        stage within ``routing.deadline``, and the answer by it whatever still runs."""
        started = time.perf_counter()
        deadline = self.core.settings.routing.deadline
        guard = asyncio.timeout(deadline + LATE_GRACE)
        # The question's vector, once computed, serves every stage of this request.
        scope = REQUEST_VECTORS.set({})
        try:
            async with guard:
                return await self._search(req, started, time.monotonic() + deadline)
        except TimeoutError:
            if not guard.expired():
                raise
            _LOGGER.warning("a question ran past the %g s deadline; answered without it", deadline)
            return _late(req, deadline, started)
        finally:
            REQUEST_VECTORS.reset(scope)

    async def _search(self, req: SearchRequest, started: float, deadline_at: float) -> SearchResult:
        ctx = QueryContext(now=datetime.now(UTC), conversation_id=req.conversation_id)
        if req.area:
            ctx.hints[AREA] = req.area
        await self._refresh_async_names()
        plan = await self._plan_async(
            req.query, req.source, req.fusion_sources, req.conversation_id, req.language, req.area
        )
        verdict_run: tuple[Verdict, SourceRun] | None = None
        outcomes: list[PartOutcome] | tuple[PartOutcome, ...]
        if plan.condition is None and len(plan.parts) == 1:
            # Most questions: one part, nothing to run beside it, no task to spawn.
            outcomes = [await self._run_part(0, plan.parts[0], ctx, deadline_at)]
        else:
            parts = asyncio.gather(
                *(self._run_part(i, part, ctx, deadline_at) for i, part in enumerate(plan.parts))
            )
            if plan.condition is not None:
                verdict_run, outcomes = await asyncio.gather(
                    self._evaluate_condition(plan.condition, ctx, deadline_at), parts
                )
            else:
                outcomes = await parts
            outcomes = await self._with_context(plan, list(outcomes), ctx, deadline_at)
        result = self._assemble(req, plan, verdict_run, list(outcomes))
        result.elapsed_ms = (time.perf_counter() - started) * 1000
        last = outcomes[-1] if outcomes else None
        if last is not None:
            used = last.answered_by or plan.parts[-1].sources
            self.conversations.put(req.conversation_id, plan.parts[-1].query, used)
        return result

    async def _with_context(
        self, plan: Plan, outcomes: list[PartOutcome], ctx: QueryContext, deadline_at: float
    ) -> list[PartOutcome]:
        """A part nothing answered alone is asked again with its neighbour: "…the battery
        in the smoke detector last, and when does the whole unit need replacing?" leaves
        "the whole unit" to the part that named it."""
        out = list(outcomes)
        for i in range(len(out)):
            part = plan.parts[i]
            if out[i].source_used != "none" or part.mode in ("language", "explicit"):
                continue
            if self._remaining(deadline_at) <= 0:
                break  # no time left to ask it again
            # The first part is asked with the one after it, as the question put them.
            prev, after = plan.parts[i - 1].query if i else "", ""
            if not i and len(plan.parts) > 1:
                after = f", and {plan.parts[1].query}"
            asked = f"{prev}. {part.query}{after}" if prev else f"{part.query}{after}"
            plan_again = await self._unblocked(functools.partial(self.decide, asked))
            again = await self._run_part(i, plan_again, ctx, deadline_at)
            if again.source_used != "none":  # the same passage as another part's: said once
                out[i] = dataclasses.replace(again, query=part.query, runs=out[i].runs + again.runs)
        return out

    async def _plan_async(
        self,
        query: str,
        source: str = "auto",
        fusion_sources: list[str] | None = None,
        conversation_id: str | None = None,
        language: str | None = None,
        area: str | None = None,
    ) -> Plan:
        """Plan without blocking the event loop on the embedding model.

        A first plan defers every embedding it would need; they are computed with
        one async call to the model, and the question is planned again with them.
        Until the profiles' vectors are computed (once per model, in the background),
        questions are planned on words.
        """
        return await self._unblocked(
            lambda: self._decide(query, source, fusion_sources, conversation_id, language, area)
        )

    async def _unblocked[T](self, decide: Callable[[], T]) -> T:
        """``decide()`` on the planning thread, with the embeddings it needs computed by
        one awaited call to the model first (it defers them), never by a blocking call
        from the event loop; past MEANING_WAIT the words decide alone."""
        embedder = self._embedder()
        if embedder is None or not callable(getattr(embedder, "embed", None)):
            return await self._planned(decide)
        if not self.meaning.ready(embedder):
            self._warm_soon(embedder)
            return await self._planned(decide)
        first, deferred = await self._planned(functools.partial(self._deferring, decide))
        if not deferred:
            return first
        try:
            async with asyncio.timeout(MEANING_WAIT):
                store = await self.meaning.vectors(embedder, deferred)
        except Exception as err:  # the model is a routing hint; never fail a question for it
            _LOGGER.info("meaning stage without the embedding model: %s", err or "busy")
            return first

        def stored_then_decided() -> T:
            store()
            return decide()

        return await self._planned(stored_then_decided)

    async def _planned[T](self, plan: Callable[[], T]) -> T:
        """``plan()`` on the router's planning thread: reading a long question is CPU work
        the event loop must not do while it serves others (issue 29). One thread, so two
        plans never share the memo of scores; the context goes with it (MCP log capture)."""
        if self._planner is None:
            self._planner = ThreadPoolExecutor(1, thread_name_prefix="mnemolis-plan")
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(self._planner, context.run, plan)

    def close(self) -> None:
        """Stop the planning thread (server shutdown); a later plan starts another."""
        planner, self._planner = self._planner, None
        if planner is not None:
            planner.shutdown(wait=False, cancel_futures=True)

    def _warm_soon(self, embedder: Any) -> None:
        """Compute the profiles' vectors in the background (once per model)."""
        if self._warming is not None and not self._warming.done():
            return

        async def warm() -> None:
            try:
                await self._planned(await self.meaning.vectors(embedder, []))
            except Exception as err:  # words route until the model can
                _LOGGER.info("meaning stage without the embedding model: %s", err)

        self._warming = asyncio.create_task(warm())

    def _remaining(self, deadline_at: float) -> float:
        return deadline_at - time.monotonic()

    def _timeout(self, deadline_at: float) -> float:
        return max(
            0.0, min(self.core.settings.routing.source_timeout, self._remaining(deadline_at))
        )

    async def _evaluate_condition(
        self, cond: ConditionPlan, ctx: QueryContext, deadline_at: float
    ) -> tuple[Verdict, SourceRun]:
        started = time.perf_counter()
        reason = f"condition “{cond.text}”"
        timeout = self._timeout(deadline_at)
        try:
            async with asyncio.timeout(timeout):
                verdict = await evaluate(cond, self.core.sources, self.core.services.ha, ctx.now)
        except TimeoutError:
            ms = (time.perf_counter() - started) * 1000
            msg = f"{cond.source} did not answer within {timeout:g} s"
            return Verdict(None, msg, cond.source), SourceRun(
                cond.source, "timeout", ms, reason, msg
            )
        except Exception as err:
            _LOGGER.warning("condition %r failed: %s", cond.text, err)
            ms = (time.perf_counter() - started) * 1000
            msg = f"could not read {cond.source}: {err}"
            return Verdict(None, msg, cond.source), SourceRun(cond.source, "error", ms, reason, msg)
        ms = (time.perf_counter() - started) * 1000
        if verdict.verdict is not None:
            status: Literal["ok", "empty", "skipped"] = "ok"
        elif "not configured" in verdict.evidence:
            status = "skipped"
        else:
            status = "empty"
        error = verdict.evidence if verdict.verdict is None else None
        return verdict, SourceRun(verdict.source, status, ms, reason, error)

    async def _run_part(
        self, index: int, part: PartPlan, ctx: QueryContext, deadline_at: float
    ) -> PartOutcome:
        # Documents and memories read the part in the language it was asked in.
        with asked_in(part.language):
            outcome = await self._run_part_read(index, part, ctx, deadline_at)
        if outcome.source_used == "none" and part.mode != "language":
            # "Turn off the kitchen light" over REST or MCP: nothing answers a command;
            # say whose it is rather than that no source could answer.
            # On the planning thread, where the grammar reads: the first parse of a
            # language's command sentences is a quarter of a second of CPU.
            intent = await self._planned(functools.partial(self._command, part, ctx))
            if intent is not None:
                outcome = dataclasses.replace(
                    outcome, text=_a_command(part.query, intent, part.language)
                )
        return outcome

    def _command(self, part: PartPlan, ctx: QueryContext) -> str | None:
        """The intent of a command for Home Assistant the part is, read by HA's grammar."""
        tongues, english = self._tongues(part.language, part.query)
        area = ctx.hints.get(AREA)
        try:
            return self.reader().command(
                part.query,
                [*tongues, "en"] if english else tongues,
                area if isinstance(area, str) else None,
            )
        except Exception:  # telling a command apart is a courtesy; never fail a question
            _LOGGER.exception("command recognition failed for a question")
            return None

    async def _run_part_read(
        self, index: int, part: PartPlan, ctx: QueryContext, deadline_at: float
    ) -> PartOutcome:
        if part.mode == "language":
            return PartOutcome(part.query, _not_understood(part.language), "none")
        if part.mode == "intent":
            read = await self._run_intent(index, part, ctx)
            if read is not None:
                return read
            # Recognised but nothing to read now (the entity left): the router's own rules.
            part = await self._unblocked(functools.partial(self._instead_of_intent, part))
        if part.mode == "fusion" and len(part.sources) > 1:
            return await self._run_fusion(index, part, ctx, deadline_at)
        if part.mode == "default":
            chain, reason = await self._classify(part, deadline_at)
        else:
            chain, reason = self._chain(part.sources[0]), part.reason
        return await self._run_chain(index, part, chain, reason, ctx, deadline_at)

    async def _run_intent(
        self, index: int, part: PartPlan, ctx: QueryContext
    ) -> PartOutcome | None:
        """A part HA's grammar read: answered from the live states with HA's semantics."""
        rec = part.recognized
        source = self.core.sources.get(rec.source) if rec is not None else None
        if rec is None or (rec.intent not in _CLOCK and (source is None or not source.configured)):
            return None
        started = time.perf_counter()
        reader = self.reader()
        await reader.prepare(rec.language)
        area = ctx.hints.get(AREA)
        reading = reader.answer(
            rec, area if isinstance(area, str) else None, self._local_now(ctx.now)
        )
        if reading is None:
            return None
        ms = (time.perf_counter() - started) * 1000
        evidence = _intent_evidence(reading)
        return PartOutcome(
            part.query,
            reading.text,
            rec.source,
            [SourceRun(rec.source, "ok", ms, part.reason, part=index)],
            [e.citation() for e in evidence[:MAX_CITATIONS]],
            answered_by=[rec.source],
        )

    def _instead_of_intent(self, part: PartPlan) -> PartPlan:
        """The router's own plan for a recognised part its intent could not answer."""
        if part.language in (None, "en"):
            return self.decide(part.query)
        names = [n for n in ANY_LANGUAGE if self._configured(n)]
        why = f"{part.reason}, but nothing it names can answer now"
        if not names:
            return PartPlan(part.query, [], why, "language", language=part.language)
        mode: PartMode = "fusion" if len(names) > 1 else "single"
        return PartPlan(part.query, names, why, mode, language=part.language)

    def _chain(self, first: str) -> list[str]:
        fallback = self.core.settings.routing.fallback
        return list(dict.fromkeys([first, *fallback.get(first, [])]))

    async def _classify(self, part: PartPlan, deadline_at: float) -> tuple[list[str], str]:
        """Unmatched questions: the local model picks sources, else the default order."""
        default = self._default_chain()
        llm = self.core.services.llm
        classify = getattr(llm, "classify", None) if llm is not None else None
        if not (getattr(llm, "available", False) and callable(classify)):
            return default, part.reason
        candidates = [n for n in self.core.sources if self._configured(n)]
        try:
            async with asyncio.timeout(self._timeout(deadline_at)):
                picked = await classify(part.query, candidates)
        except Exception as err:
            _LOGGER.info("model routing failed, using the default order: %s", err)
            return default, f"no rule matched; the local model failed ({err}); default order"
        valid = [n for n in (picked or []) if isinstance(n, str) and n in self.core.sources]
        if not valid:
            return default, "no rule matched; the local model had no pick; default order"
        chain = list(dict.fromkeys([n for v in valid for n in self._chain(v)]))
        return chain, f"no rule matched; the local model chose {', '.join(valid)}"

    async def _run_chain(
        self,
        index: int,
        part: PartPlan,
        chain: list[str],
        reason: str,
        ctx: QueryContext,
        deadline_at: float,
    ) -> PartOutcome:
        runs: list[SourceRun] = []
        answer: SourceAnswer | None = None
        queue = list(chain)
        tried: set[str] = set()
        # A question about the home's own data (states, forecast, monitors, changes)
        # is not sent to documents or the web when its source is missing.
        extended = part.mode == "explicit" or chain[0] in HOME_SOURCES
        why = reason
        while queue:
            name = queue.pop(0)
            if name in tried:
                continue
            tried.add(name)
            run, got = await self._attempt(index, name, part.query, why, ctx, deadline_at)
            runs.append(run)
            if got is not None and run.status == "ok" and not got.empty:
                answer = got
                break
            why = f"fallback after {name} ({run.status})"
            deferred = _deferred_to(got)
            if deferred and deferred not in tried and part.mode != "explicit":
                # The documents stepped aside for a memory that says it better (or the
                # memories for a document): ask that one next, chosen or not.
                queue.insert(0, deferred)
            if (
                not queue
                and name in HOME_SOURCES
                and part.mode != "explicit"  # source="ha" asked for HA alone
                and run.status in ("skipped", "empty")
            ):
                # Nothing in the home answered (or its source is not set up: "hot water for
                # showers" is no forecast question): the manuals and memories may, but
                # not Mnemolis's own docs ("what's the weather tomorrow?" is not about them).
                queue = [n for n in self._household() if n not in tried]
                ctx = dataclasses.replace(ctx, hints={**ctx.hints, INSTEAD_OF: name})
                continue
            if not queue and not extended and all(r.status == "skipped" for r in runs):
                extended = True  # nothing chosen is configured: try the default order
                queue = [n for n in self._default_chain() if n not in tried and self._configured(n)]
        if answer is None:
            return PartOutcome(part.query, _nothing(part, runs), "none", runs)
        written, by_model = await self._written(part.query, answer, deadline_at)
        if written is None:
            return PartOutcome(part.query, _nothing(part, runs), "none", runs)
        return PartOutcome(
            part.query,
            written,
            answer.source,
            runs,
            [e.citation() for e in answer.evidence[:MAX_CITATIONS]],
            fallback=answer.source != chain[0],
            answered_by=[answer.source],
            asks=[] if by_model else _asks_of(answer),
        )

    async def _attempt(
        self, index: int, name: str, query: str, reason: str, ctx: QueryContext, deadline_at: float
    ) -> tuple[SourceRun, SourceAnswer | None]:
        source = self.core.sources.get(name)
        if source is None:
            return SourceRun(name, "skipped", 0.0, reason, f"{name} is not a source", index), None
        timeout = self._timeout(deadline_at)
        if timeout <= 0:
            msg = f"overall deadline of {self.core.settings.routing.deadline:g} s reached"
            return SourceRun(name, "timeout", 0.0, reason, msg, index), None
        return await self.cache.run(source, query, ctx, timeout=timeout, reason=reason, part=index)

    async def _run_fusion(
        self, index: int, part: PartPlan, ctx: QueryContext, deadline_at: float
    ) -> PartOutcome:
        names = list(dict.fromkeys(part.sources))
        results = await asyncio.gather(
            *(self._attempt(index, n, part.query, part.reason, ctx, deadline_at) for n in names)
        )
        runs = [r for r, _ in results]
        answers = [a for r, a in results if a is not None and r.status == "ok" and not a.empty]
        if not answers:
            backups = [b for n in names for b in self._chain(n)[1:] if b not in names]
            if backups:
                rescue = PartPlan(
                    part.query, backups[:1], part.reason, "single", language=part.language
                )
                out = await self._run_chain(
                    index,
                    rescue,
                    list(dict.fromkeys(backups)),
                    "fallback after every fused source failed",
                    ctx,
                    deadline_at,
                )
                out.runs = runs + out.runs
                out.fallback = out.source_used != "none"
                return out
            return PartOutcome(part.query, _nothing(part, runs), "none", runs)
        if len(answers) == 1:
            only = answers[0]
            written, by_model = await self._written(part.query, only, deadline_at)
            if written is None:
                return PartOutcome(part.query, _nothing(part, runs), "none", runs)
            return PartOutcome(
                part.query,
                written,
                only.source,
                runs,
                [e.citation() for e in only.evidence[:MAX_CITATIONS]],
                answered_by=[only.source],
                asks=[] if by_model else _asks_of(only),
            )
        fused = fuse(answers, self.core.settings.routing.rrf_k)
        evidence = [f.evidence for f in fused]
        text = await self._compose(part.query, evidence, deadline_at) or compose_extractive(
            fused, answers
        )
        used = [a.source for a in answers]
        return PartOutcome(
            part.query,
            text,
            "+".join(used),
            runs,
            [e.citation() for e in evidence[:MAX_CITATIONS]],
            answered_by=used,
        )

    async def _written(
        self, question: str, answer: SourceAnswer, deadline_at: float
    ) -> tuple[str | None, bool]:
        """One source's answer: the model's, written from the passages, when it is set to
        answer documents and memories (``llm.compose_documents``) and its answer is
        grounded; the source's own (extractive) answer otherwise. The flag says the model
        wrote it."""
        own = answer.answer.strip() or compose_extractive(fuse([answer]), [answer])
        llm = self.core.services.llm
        grounded = getattr(llm, "compose_grounded", None) if llm is not None else None
        if (
            answer.source not in COMPOSED_SOURCES
            or not answer.evidence
            or not getattr(llm, "available", False)
            or not self.core.settings.llm.compose_documents
            or not callable(grounded)
        ):
            return own, False
        remaining = self._remaining(deadline_at)
        if remaining <= 0.1:
            return own, False
        try:
            async with asyncio.timeout(remaining):
                written = await grounded(question, answer.evidence, timeout=remaining)
        except Exception as err:
            _LOGGER.info("model answer failed, answering extractively: %s", err)
            return own, False
        # A refusal leaves the reader's answer standing: the reader already says when
        # no passage holds the answer, and the small model says "I do not know" to
        # answers it was shown (bench/compose_bench.py: 20 of 41 answers lost).
        text = str(written.text).strip()
        return (text, True) if text else (own, False)

    async def _compose(
        self, question: str, evidence: list[Evidence], deadline_at: float
    ) -> str | None:
        """A written answer from the local model when one is loaded; None otherwise."""
        llm = self.core.services.llm
        compose = getattr(llm, "compose", None) if llm is not None else None
        if not (getattr(llm, "available", False) and callable(compose)):
            return None
        try:
            async with asyncio.timeout(max(0.1, self._remaining(deadline_at))):
                text = await compose(question, evidence)
        except Exception as err:
            _LOGGER.info("model composition failed, answering extractively: %s", err)
            return None
        return text.strip() if isinstance(text, str) and text.strip() else None

    # --- the answer ------------------------------------------------------------------

    def _assemble(
        self,
        req: SearchRequest,
        plan: Plan,
        verdict_run: tuple[Verdict, SourceRun] | None,
        outcomes: list[PartOutcome],
    ) -> SearchResult:
        runs: list[SourceRun] = []
        condition: ConditionResult | None = None
        lead = ""
        if verdict_run is not None and plan.condition is not None:
            verdict, run = verdict_run
            runs.append(run)
            condition = ConditionResult(plan.condition.text, verdict.verdict, verdict.evidence)
            lead = _condition_sentence(plan.condition.text, verdict)
        for out in outcomes:
            runs.extend(out.runs)
        answered = [o for o in outcomes if o.source_used != "none"]
        used: list[str] = []
        for o in answered:
            for name in o.answered_by:
                if name not in used:
                    used.append(name)
        citations: list[Citation] = []
        seen: set[tuple[str, str, str | None, str | None]] = set()
        for o in outcomes:
            for c in o.citations:
                key = (c.source, c.title, c.url, c.ref)
                if key not in seen:
                    seen.add(key)
                    citations.append(c)
        # Two parts answered by the same passage say it once ("what washing machine have
        # we got and when did we buy it?"); a part nothing answered is not read out
        # before the parts that were.
        texts = list(dict.fromkeys(o.text for o in outcomes))
        body = "\n\n".join(texts)
        result = f"{lead}\n\n{body}" if lead else body
        heard = list(dict.fromkeys(o.text for o in answered)) or texts
        asked_of = {o.text: o.query for o in reversed(answered) if o.source_used in _QUOTED}
        each_ask = {o.text: o.asks for o in answered if o.asks}
        cond = plan.condition if condition is not None else None
        spoken_bits = list(
            # One answer (two parts answered alike) is read as one: two sentences. One
            # quote per ask ("what should the gauge read, and how do I top it up?") says
            # each ask's answer, not the first quote's two sentences.
            dict.fromkeys(
                bit
                for t in heard
                for bit in (
                    [_spoken_answer(q, ask, _sentences_for(q)) for ask, q in each_ask[t]]
                    if t in each_ask
                    # Nothing answered: said in one sentence; which sources failed and
                    # how is for the written result, not for a voice.
                    else [
                        _spoken_answer(
                            t, asked_of.get(t), 1 if len(heard) > 1 or cond or not answered else 2
                        )
                    ]
                )
            )
        )
        if cond is not None and condition is not None:  # said as a person says it
            holds, asked = condition.verdict, cond.consequent
            spoken_bits = [with_verdict(cond.text, cond.kind, holds, asked, spoken_bits)]
        return SearchResult(
            query=req.query,
            result=result,
            source_used="+".join(used) if used else "none",
            fallback=any(o.fallback for o in outcomes),
            parts=[PartResult(o.query, o.source_used, o.text) for o in outcomes],
            condition=condition,
            sources=runs,
            citations=citations,
            spoken=spoken_form(
                " ".join(b for b in spoken_bits if b), max_sentences=len(spoken_bits) + 2
            ),
            conversation_id=req.conversation_id,
        )


_NUMBERED_STEP = re.compile(r"^\s*\d{1,2}[.)]\s", re.MULTILINE)


def _sentences_for(quote: str) -> int:
    """Sentences said of one ask's quote: a procedure's first step alone ("switch it off
    and let it cool") is no way to do it, so two of those; one otherwise."""
    return 2 if _NUMBERED_STEP.search(quote) else 1


# Sources whose answer quotes the household's own words, sentence by sentence.
_QUOTED = frozenset({"rag", "memory"})


def _spoken_answer(text: str, question: str | None, sentences: int) -> str:
    """A quoted answer's spoken form says the sentence that gives the kind of fact asked
    (a date for "when", a number for "how much"), wherever the quote put it; for other
    questions it skips an opening sentence that names nothing asked about."""
    if question is None:
        return spoken_form(text, sentences)
    if not relevance.asks_kind(question):
        return spoken_from_named(
            text,
            sentences,
            functools.partial(relevance.named_asked, question),
            steps=bool(_NUMBERED_STEP.search(text)),
        )
    return spoken_choosing(
        text, sentences, functools.partial(relevance.gives_what_is_asked, question)
    )


# Sources of the home's own live states, whose words are everyday household words.
_HOME_STATES = ("ha", "uptime")
WEAK_AGREEMENT = 0.5  # a table score this low still counts when similarity agrees with it


# What a source that stepped aside says answers instead (sources/rag.py, memory.py).
_DEFERRED = {"memory_answers": "memory", "documents_answer": "rag"}


def _deferred_to(got: SourceAnswer | None) -> str | None:
    """The source an empty answer says answers instead, if it says one."""
    if got is None or not got.empty:
        return None
    return next((name for flag, name in _DEFERRED.items() if got.data.get(flag)), None)


def _agreement(sc: Scores, ranking: Ranking) -> str | None:
    """Two weak signals that point at the same source, each ahead of its runner-up."""
    table = sc.ranked()
    if not table or not ranking.scores or table[0][1] < WEAK_AGREEMENT:
        return None
    if len(table) > 1 and table[1][1] >= table[0][1]:
        return None
    best = ranking.scores[0]
    if len(ranking.scores) > 1 and ranking.scores[1][1] >= best[1]:
        return None
    return best[0] if best[0] == table[0][0] else None


def _topics(sc: Scores, strong: list[str]) -> str:
    """Sources a question shape outranked ("ha's “fridge” is the topic"), for ``reason``."""
    out = sc.outranked()
    notes = [
        f"{source} {sc.explain(source)}"
        for source in out
        if sc.totals.get(source, 0.0) >= MATCH and source not in strong
    ]
    return f" (only the topic: {'; '.join(notes)})" if notes else ""


_CLOCK = frozenset({"HassGetCurrentTime", "HassGetCurrentDate"})


class _EmptyHome:
    """No Home Assistant: no states or names, only the clock for the grammar."""

    def __init__(self) -> None:
        self.states: dict[str, dict[str, Any]] = {}
        self.registries = Registries()

    def area_id_of(self, entity_id: str) -> str | None:
        """No areas."""
        return None


_EMPTY_HOME = _EmptyHome()


def _intent_evidence(reading: Reading) -> list[Evidence]:
    """Each state an intent's answer rests on, as evidence with its entity id."""
    source = reading.recognized.source
    out = []
    for state in reading.states:
        entity_id = str(state["entity_id"])
        name = reading.names.get(entity_id, entity_id)
        unit = (state.get("attributes") or {}).get("unit_of_measurement")
        value = f"{state.get('state')} {unit}" if unit else str(state.get("state"))
        out.append(
            Evidence(
                source,
                name,
                f"{name}: {value}",
                ref=entity_id,
                score=1.0,
                timestamp=state.get("last_changed"),
            )
        )
    return out


def _not_understood(language: str | None) -> str:
    """What is said when nothing reads a question's language: HA's own words for it."""
    loaded = grammar.load(language) if language else None
    said = loaded.error("no_intent") if loaded is not None else None
    return said or ONLY_ENGLISH


def _late(req: SearchRequest, deadline: float, started: float) -> SearchResult:
    """The answer when the deadline passed before the question's stages all ended."""
    text = reply("late", reply_language(req.language, req.query), deadline=f"{deadline:g}")
    return SearchResult(
        query=req.query,
        result=text,
        source_used="none",
        parts=[PartResult(req.query, "none", text)],
        spoken=spoken_form(text),
        conversation_id=req.conversation_id,
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )


def _a_command(query: str, intent: str, language: str | None) -> str:
    """What is said of a command nothing answered: Mnemolis reads, it never switches."""
    return reply("command", reply_language(language), query=query.strip(), intent=intent)


def _nothing(part: PartPlan, runs: list[SourceRun]) -> str:
    """That no source answered, in the part's language, and how each one that failed did."""
    language = reply_language(part.language)
    text = reply("nothing", language)
    failed = [f"{r.name} ({_how_it_failed(r, language)})" for r in runs if r.status != "ok"]
    if failed:
        text += " " + reply("tried", language, runs=", ".join(failed))
    return text


def _how_it_failed(run: SourceRun, language: str) -> str:
    """How a source failed: in English the API's own words (``sources[].error``), in
    another language its status, since a German answer should not carry English."""
    if language == ENGLISH_CODE:
        return run.error or run.status
    return reply(run.status, language)  # "skipped": not set up on this server


def _condition_sentence(text: str, verdict: Verdict) -> str:
    if verdict.verdict is True:
        return f"Condition “{text}” is met: {verdict.evidence}."
    if verdict.verdict is False:
        return (
            f"Condition “{text}” is not met: {verdict.evidence}. "
            "So it does not apply for now; for reference:"
        )
    return f"Condition “{text}” cannot be checked: {verdict.evidence}."
