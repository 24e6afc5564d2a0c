"""Routing eval: fresh questions (bench/eval/route/questions.yaml), scored per class and half.

Asks ``GET /api/route``'s service call (``Mnemolis.route``) for every question against
the fake home of tests/server/routing_cases.py with every source configured, and
judges the decision: which sources each part goes to, how the question is split,
which condition is read and who judges it, and whether a non-English question is
recognised. The router's own tuned cases (tests/server/routing_cases.yaml) are
scored beside it. Runs twice when the embedding model can be loaded: without a
model, then with all-MiniLM-L6-v2 (GGUF) as the router's meaning stage.

    .venv/server/bin/python bench/eval/eval_route.py [--threshold 0.95] [--no-model]
                                                     [--show-failures tune|tuned]
    .venv/server/bin/python bench/eval/eval_route.py --dev   # the engineer's own batches

Exits 1 when the held-out half or the tuned cases score below ``--threshold``
(without a model) or ``--threshold-model`` (with the embedding model).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.server.routing_cases import load_cases, make_home  # noqa: E402

QUESTIONS = Path(__file__).with_name("route") / "questions.yaml"
DEV = Path(__file__).with_name("route") / "dev.yaml"  # the engineer's own batches
TARGET = 0.95  # the bar without a model
TARGET_MODEL = 0.97  # and with the embedding model
THREADS = 1  # one short question embeds fastest on one thread (no hand-off between cores)
CLASSES = ("route", "decompose", "conditional", "no_decompose", "language")

Decision = dict[str, Any]


@dataclass(slots=True)
class Tally:
    """Right/total per (class, half), plus what went wrong."""

    right: dict[tuple[str, str], int] = field(default_factory=dict)
    total: dict[tuple[str, str], int] = field(default_factory=dict)
    failures: list[tuple[str, str, str, str]] = field(default_factory=list)

    def add(self, cls: str, half: str, ok: bool, question: str, why: str) -> None:
        """Count one judged question."""
        key = (cls, half)
        self.total[key] = self.total.get(key, 0) + 1
        self.right[key] = self.right.get(key, 0) + int(ok)
        if not ok:
            self.failures.append((cls, half, question, why))

    def score(self, half: str, cls: str | None = None) -> tuple[int, int]:
        """(right, total) of one half, over one class or all."""
        keys = [k for k in self.total if k[1] == half and (cls is None or k[0] == cls)]
        return sum(self.right[k] for k in keys), sum(self.total[k] for k in keys)


def _sources(spec: str, default: list[str]) -> list[str]:
    if spec == "default":
        return list(default)
    return sorted(spec.split("+"))


def _got(decision: Decision) -> list[list[str]]:
    return [sorted(p["sources"]) for p in decision["parts"]]


def _show(decision: Decision) -> str:
    cond = decision["condition"]
    parts = "; ".join(f"{p['query']!r}→{'+'.join(p['sources']) or '-'}" for p in decision["parts"])
    head = f"if {cond['text']!r}→{'+'.join(cond['sources'])} | " if cond else ""
    return head + parts


def judge(cls: str, row: list[Any], decision: Decision, default: list[str]) -> bool:
    """Whether one decision is right for its class."""
    parts = decision["parts"]
    if cls == "language":
        # Never the English rules: Home Assistant's grammar reads it (a home question),
        # or it goes to what reads any language (documents, memories, the web) or nowhere.
        return bool(parts) and all(
            p["reason"].startswith("Home Assistant's grammar")
            or (
                p["reason"].startswith("not English")
                and set(p["sources"]) <= {"rag", "memory", "web"}
            )
            for p in parts
        )
    if cls in ("route", "no_decompose"):
        return decision["condition"] is None and _got(decision) == [_sources(row[1], default)]
    if cls == "decompose":
        want = [_sources(s.strip(), default) for s in row[1].split("|")]
        return decision["condition"] is None and _got(decision) == want
    if cls == "conditional":
        cond = decision["condition"]
        if cond is None or cond["sources"] != [row[1]]:
            return False
        if str(row[2]).lower() not in cond["text"].lower():
            return False
        want = [_sources(s.strip(), default) for s in str(row[3]).split("|")]
        return _got(decision) == want
    raise ValueError(f"unknown class {cls}")


def run_fresh(
    route: Callable[[str], Decision], default: list[str], path: Path = QUESTIONS
) -> Tally:
    """Judge every fresh question (of the eval, or of the dev batches)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    tally = Tally()
    for cls in CLASSES:
        for half in data.get(cls, {}):
            for row in data[cls][half]:
                decision = route(str(row[0]))
                ok = judge(cls, row, decision, default)
                tally.add(cls, half, ok, str(row[0]), _show(decision))
    return tally


def run_tuned(route: Callable[[str], Decision], default: list[str]) -> Tally:
    """Judge the router's tuned cases (the routing suite's table) the same way."""
    cases = load_cases()
    tally = Tally()
    for case in cases["routing"]:
        d = route(case["q"])
        want = [
            default if e == ["default"] else sorted(e)
            for e in case.get("parts") or [case["sources"]]
        ]
        cls = "route" if len(want) == 1 else "decompose"
        tally.add(cls, "tuned", _got(d) == want, case["q"], _show(d))
    for case in cases["decomposition"]:
        d = route(case["q"])
        cls = "decompose" if len(case["parts"]) > 1 else "no_decompose"
        got = [p["query"] for p in d["parts"]]
        tally.add(cls, "tuned", got == case["parts"], case["q"], _show(d))
    for case in cases["conditions"]:
        d = route(case["q"])
        want_cond = (
            None
            if case["condition"] is None
            else {
                "text": case["condition"],
                "sources": [case["source"]],
            }
        )
        ok = d["condition"] == want_cond and [p["query"] for p in d["parts"]] == case["parts"]
        tally.add("conditional", "tuned", ok, case["q"], _show(d))
    return tally


def run_without_ha() -> tuple[int, int]:
    """HA not configured (no live names): questions for HA must reach a configured source.

    The route half's HA questions and the tuned cases' HA questions, both halves:
    none may end on "ha is not configured" while documents and memories could answer.
    """
    home = make_home()
    home.fakes["ha"]._configured = False
    home.core.services.ha = None
    home.core.router.vocab.set_async_names("ha", [])
    data = yaml.safe_load(QUESTIONS.read_text(encoding="utf-8"))
    qs = [r[0] for half in ("tune", "held") for r in data["route"][half] if r[1] == "ha"]
    qs += [c["q"] for c in load_cases()["routing"] if c.get("sources") == ["ha"]]
    ok = 0
    for q in qs:
        parts = home.core.route(q)["parts"]
        ok += all(p["sources"] and "ha" not in p["sources"] for p in parts)
    return ok, len(qs)


def _pct(right: int, total: int) -> str:
    return f"{right / total:.3f} ({right}/{total})" if total else "-"


def report(title: str, fresh: Tally, tuned: Tally, target: float) -> tuple[float, float]:
    """Print the per-class table; returns (held-out score, tuned-cases score)."""
    print(f"\n### {title}\n")
    print("| class | fresh: tune half | fresh: held-out half | tuned cases (routing_cases.yaml) |")
    print("|---|---|---|---|")
    for cls in CLASSES:
        print(
            f"| {cls} | {_pct(*fresh.score('tune', cls))} | {_pct(*fresh.score('held', cls))} "
            f"| {_pct(*tuned.score('tuned', cls))} |"
        )
    held = fresh.score("held")
    tune = fresh.score("tune")
    tc = tuned.score("tuned")
    print(f"| **all** | **{_pct(*tune)}** | **{_pct(*held)}** | **{_pct(*tc)}** |")
    print(f"\nissue target: ≥ {target:.2f} on the held-out half and on the tuned cases")
    return held[0] / held[1], tc[0] / tc[1]


def print_failures(tallies: list[Tally], which: str) -> None:
    """The wrong decisions of the chosen half (never look at `held` while tuning)."""
    for tally in tallies:
        for cls, half, q, why in tally.failures:
            if which == "all" or half == which:
                print(f"- [{half}/{cls}] {q}\n    got: {why}")


def load_embedder(threads: int = THREADS) -> Any:
    """The embedding model the router's meaning stage uses, or None when unavailable.

    ``threads`` is ``llm.threads`` (0: llama.cpp's default, what the add-on runs with).
    """
    try:
        from mnemolis.llm.catalog import read_metadata
        from mnemolis.llm.embedding_model import LocalEmbedder
        from mnemolis.settings import load_settings
        from tests.server.model_fixture import embedding_model_file

        path = embedding_model_file()
        settings = load_settings(
            environ={},
            overrides={"data_dir": "/tmp/mnemolis-route-eval", "llm": {"threads": threads}},
        )
        emb = LocalEmbedder(read_metadata(path), settings.llm)

        async def _load() -> None:
            await emb.wait_loaded()

        asyncio.run(_load())
        if emb.state != "ready":
            print(f"embedding model not loaded: {emb.error}")
            return None
        return emb
    except Exception as err:  # the model is optional here: say so and go on
        print(f"embedding model unavailable ({type(err).__name__}: {err})")
        return None


def dev_report(title: str, dev: Tally, fresh: Tally, tuned: Tally, show: bool) -> None:
    """Per-class scores of the dev batches beside the tune half and the tuned cases."""
    batches = sorted({k[1] for k in dev.total})
    print(f"\n### {title}\n")
    print("| class | " + " | ".join(f"dev {b}" for b in batches) + " | tune half | tuned cases |")
    print("|---|" + "---|" * (len(batches) + 2))
    for cls in (*CLASSES, None):
        cells = [_pct(*dev.score(b, cls)) for b in batches]
        cells += [_pct(*fresh.score("tune", cls)), _pct(*tuned.score("tuned", cls))]
        print(f"| {cls or '**all**'} | " + " | ".join(cells) + " |")
    if show:
        print()
        for tally in (dev, fresh, tuned):
            for cls, half, q, why in tally.failures:
                if half != "held":
                    print(f"- [{half}/{cls}] {q}\n    got: {why}")


def run_dev(with_model: bool, show: bool) -> None:
    """The engineer's loop: dev batches, tune half, tuned cases; never the held-out half."""
    home = make_home()
    default = home.core.router._default_chain()[:1]
    route = home.core.route
    dev_report(
        "dev, no model",
        run_fresh(route, default, DEV),
        run_fresh(route, default),
        run_tuned(route, default),
        show,
    )
    if with_model:
        emb = load_embedder()
        if emb is not None:
            home = make_home()
            home.core.services.embedder = emb
            route = home.core.route
            dev_report(
                f"dev, {emb.name}",
                run_fresh(route, default, DEV),
                run_fresh(route, default),
                run_tuned(route, default),
                show,
            )
            emb.close()


def main() -> int:
    """Run the eval, print the tables, exit 1 below the threshold."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threshold", type=float, default=TARGET, help="exit bar, no model")
    parser.add_argument(
        "--threshold-model", type=float, default=TARGET_MODEL, help="exit bar, embedding model"
    )
    parser.add_argument("--no-model", action="store_true", help="skip the embedding-model run")
    parser.add_argument("--show-failures", choices=("tune", "held", "tuned", "all"), default=None)
    parser.add_argument(
        "--dev",
        action="store_true",
        help="score the dev batches (route/dev.yaml), the tune half and the tuned cases "
        "with their failures; the held-out half is not run",
    )
    args = parser.parse_args()
    if args.dev:
        run_dev(not args.no_model, show=True)
        return 0

    home = make_home()
    default = home.core.router._default_chain()[:1]
    fresh = run_fresh(home.core.route, default)
    tuned = run_tuned(home.core.route, default)
    held, tc = report("No model loaded (every source configured)", fresh, tuned, TARGET)
    failed = held < args.threshold or tc < args.threshold
    routed, asked = run_without_ha()
    print(
        f"\nHA not configured: {_pct(routed, asked)} of the HA questions go to a configured "
        'source (documents, memories) instead of ending on "ha is not configured"'
    )
    failed = failed or routed < asked
    tallies = [fresh, tuned]
    if not args.no_model:
        emb = load_embedder()
        if emb is not None:
            home = make_home()
            home.core.services.embedder = emb
            fresh_m = run_fresh(home.core.route, default)
            tuned_m = run_tuned(home.core.route, default)
            held_m, tc_m = report(
                f"Embedding model {emb.name} loaded (meaning stage)", fresh_m, tuned_m, TARGET_MODEL
            )
            failed = failed or held_m < args.threshold_model or tc_m < args.threshold_model
            tallies = [fresh_m, tuned_m]
            emb.close()
    print(f"\nexit thresholds: {args.threshold:.2f} (no model), {args.threshold_model:.2f} (model)")
    if args.show_failures:
        print("\n### Failures\n")
        print_failures(tallies, args.show_failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
