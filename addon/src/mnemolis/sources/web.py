"""Web search through a SearXNG instance's JSON API."""

from __future__ import annotations

from typing import Any

from ..errors import SourceBadResponse, SourceNotConfigured
from ..models import Evidence, SourceAnswer
from .base import QueryContext
from .remote import HttpSource, Response, join_url, short_url
from .textutil import html_to_text, shorten

MAX_RESULTS = 8
ANSWER_RESULTS = 3


def _engine_failures(raw: Any) -> list[dict[str, str]]:
    """SearXNG's ``unresponsive_engines`` ([[engine, reason], ...]) as dicts."""
    out: list[dict[str, str]] = []
    if not isinstance(raw, list):
        return out
    for item in raw:
        if isinstance(item, list | tuple) and item:
            engine = str(item[0])
            reason = str(item[1]) if len(item) > 1 and item[1] else "no answer"
            out.append({"engine": engine, "reason": reason})
    return out


def _direct_answers(raw: Any) -> list[dict[str, str | None]]:
    """``answers`` is a list of strings (older SearXNG) or of answer objects (newer)."""
    out: list[dict[str, str | None]] = []
    if not isinstance(raw, list):
        return out
    for item in raw:
        if isinstance(item, str) and item.strip():
            out.append({"answer": html_to_text(item), "url": None})
        elif isinstance(item, dict) and str(item.get("answer") or "").strip():
            url = item.get("url")
            out.append(
                {"answer": html_to_text(str(item["answer"])), "url": str(url) if url else None}
            )
    return out


def _infobox(raw: Any, source: str) -> Evidence | None:
    if not isinstance(raw, list) or not raw or not isinstance(raw[0], dict):
        return None
    box = raw[0]
    content = html_to_text(str(box.get("content") or ""))
    if not content:
        return None
    url = box.get("id") if isinstance(box.get("id"), str) else None
    urls = box.get("urls")
    if not url and isinstance(urls, list) and urls and isinstance(urls[0], dict):
        url = urls[0].get("url")
    return Evidence(
        source=source,
        title=str(box.get("infobox") or "Infobox"),
        text=shorten(content, 600),
        url=str(url) if url else None,
        ref=str(box.get("engine") or "") or None,
        score=1.0,
    )


class WebSource(HttpSource):
    """Answers from web search results: SearXNG's best snippets with their URLs."""

    name = "web"
    description = "Web search through SearXNG (titles, snippets, URLs)."
    what = "SearXNG"

    @property
    def configured(self) -> bool:
        """A SearXNG base URL is set."""
        return bool(self.settings.web.searxng_url)

    def _base(self) -> str:
        url = self.settings.web.searxng_url
        if not url:
            raise SourceNotConfigured("web.searxng_url is not set")
        return url

    async def probe(self) -> None:
        """SearXNG's own health endpoint answers."""
        resp = await self.get(join_url(self._base(), "/healthz"))
        if resp.status >= 500:
            raise SourceBadResponse(f"SearXNG health check answered HTTP {resp.status}")

    async def search_raw(self, question: str) -> dict[str, Any]:
        """SearXNG's JSON response for a question, validated."""
        resp = await self.get(
            join_url(self._base(), "/search"),
            params={"q": question, "format": "json", "pageno": "1"},
            headers={"Accept": "application/json"},
        )
        self._check(resp)
        data = resp.json("SearXNG search")
        if not isinstance(data, dict) or not isinstance(data.get("results", []), list):
            raise SourceBadResponse(
                f"SearXNG at {short_url(resp.url)} returned JSON without a results list"
            )
        return data

    @staticmethod
    def _check(resp: Response) -> None:
        if resp.status == 403:
            raise SourceBadResponse(
                "SearXNG refused the JSON API (HTTP 403): enable the json format in searxng "
                "settings.yml (search: formats: [html, json])"
            )
        if resp.status == 429:
            raise SourceBadResponse(
                "SearXNG rate-limited the request (HTTP 429): disable its bot limiter for "
                "this client or raise the limit"
            )
        if resp.status >= 400:
            raise SourceBadResponse(f"SearXNG at {short_url(resp.url)} answered HTTP {resp.status}")

    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        """Search the web and answer with the best snippets and their URLs."""
        data = await self.search_raw(question)
        failures = _engine_failures(data.get("unresponsive_engines"))
        answers = _direct_answers(data.get("answers"))
        evidence: list[Evidence] = []
        box = _infobox(data.get("infoboxes"), self.name)
        seen: set[str] = set()
        for item in data.get("results") or []:
            if not isinstance(item, dict) or not isinstance(item.get("url"), str):
                continue
            url = item["url"]
            if url in seen:
                continue
            seen.add(url)
            engines = item.get("engines")
            engine_list = [str(e) for e in engines] if isinstance(engines, list) else []
            if not engine_list and item.get("engine"):
                engine_list = [str(item["engine"])]
            try:
                score = float(item.get("score") or 0.0)
            except (TypeError, ValueError):
                score = 0.0
            published = item.get("publishedDate")
            evidence.append(
                Evidence(
                    source=self.name,
                    title=html_to_text(str(item.get("title") or url)),
                    text=shorten(html_to_text(str(item.get("content") or "")), 500),
                    url=url,
                    ref=", ".join(engine_list) or None,
                    score=score,
                    timestamp=str(published) if published else None,
                )
            )
        evidence.sort(key=lambda e: e.score, reverse=True)
        evidence = evidence[:MAX_RESULTS]
        meta: dict[str, Any] = {
            "query": data.get("query", question),
            "number_of_results": data.get("number_of_results"),
            "unresponsive_engines": failures,
            "answers": answers,
            "suggestions": [str(s) for s in data.get("suggestions") or [] if isinstance(s, str)],
            "corrections": [str(s) for s in data.get("corrections") or [] if isinstance(s, str)],
            "results": [
                {"title": e.title, "url": e.url, "engines": e.ref, "score": e.score}
                for e in evidence
            ],
        }
        if not evidence and not answers and box is None:
            if failures:
                detail = ", ".join(f"{f['engine']} ({f['reason']})" for f in failures)
                raise SourceBadResponse(f"every SearXNG engine failed: {detail}")
            return SourceAnswer(source=self.name, answer="", data=meta)
        lines: list[str] = []
        if answers:
            first = answers[0]
            lines.append(str(first["answer"]) + (f" ({first['url']})" if first["url"] else ""))
        if box is not None:
            lines.append(f"{box.title}: {shorten(box.text, 300)}")
            evidence.insert(0, box)
        for item in [e for e in evidence if e is not box][:ANSWER_RESULTS]:
            snippet = f": {shorten(item.text, 220)}" if item.text else ""
            lines.append(f"- {item.title}{snippet} ({item.url})")
        if failures:
            names = ", ".join(f"{f['engine']} ({f['reason']})" for f in failures)
            lines.append(f"(engines that did not answer: {names})")
        return SourceAnswer(source=self.name, answer="\n".join(lines), evidence=evidence, data=meta)
