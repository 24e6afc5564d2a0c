"""The web UI in a real headless Chromium against a real ``mnemolis serve`` process.

Answers come from the SearXNG wire-format stub, documents from a real folder
indexed by the server; the ingress run goes through a small reverse proxy that
behaves like Home Assistant's (strips the prefix, adds ``X-Ingress-Path``).
Screenshots of every page land in ``test-output/screenshots/``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, expect, sync_playwright

from .conftest import REPO, ServerProcess, free_port
from .stubs.searxng import searxng_app

SHOTS = REPO / "test-output" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 20_000
INGRESS_PREFIX = "/api/hassio_ingress/Xy9kQ2-token_abc"

pytestmark = pytest.mark.slow


class ThreadedApp:
    """An aiohttp application served from its own thread and event loop."""

    def __init__(self, app: web.Application) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._app = app
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._serve())

    async def _serve(self) -> None:
        runner = web.AppRunner(self._app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", self.port).start()
        self._stop = asyncio.Event()
        self._ready.set()
        await self._stop.wait()
        await runner.cleanup()

    def __enter__(self) -> ThreadedApp:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("test HTTP server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        stop = self._stop
        if stop is not None:
            self._loop.call_soon_threadsafe(stop.set)
        self._thread.join(10)
        self._loop.close()


def ingress_proxy(upstream: str, prefix: str, seen: list[str]) -> web.Application:
    """What HA's ingress does: strip the prefix, forward (Host too), add X-Ingress-Path."""
    hop = {"content-length", "transfer-encoding", "connection", "accept-encoding"}

    async def forward(request: web.Request) -> web.StreamResponse:
        seen.append(request.path_qs)
        if not request.path.startswith(prefix):
            return web.Response(status=404, text="not an ingress path")
        tail = request.path_qs[len(prefix) :] or "/"
        headers = {k: v for k, v in request.headers.items() if k.lower() not in hop}
        headers["X-Ingress-Path"] = prefix
        headers["X-Forwarded-For"] = request.remote or ""
        async with (
            aiohttp.ClientSession(auto_decompress=False) as session,
            session.request(
                request.method, upstream + tail, headers=headers, data=await request.read()
            ) as resp,
        ):
            body = await resp.read()
            out = {k: v for k, v in resp.headers.items() if k.lower() not in hop}
            return web.Response(status=resp.status, body=body, headers=out)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", forward)
    return app


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as pw:
        yield pw


@pytest.fixture
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def searxng() -> Iterator[ThreadedApp]:
    with ThreadedApp(searxng_app()) as stub:
        yield stub


@pytest.fixture
def docs_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "house-docs"
    folder.mkdir()
    (folder / "boiler.md").write_text(
        "# Boiler manual\n\nBleed the radiators every October. The boiler pressure "
        "should read between 1.0 and 1.5 bar when cold.\n",
        encoding="utf-8",
    )
    (folder / "wifi.txt").write_text(
        "Guest wifi: network 'Meadow-Guest'. The router lives in the hall cupboard.\n",
        encoding="utf-8",
    )
    (folder / "warranty.pdf").write_bytes(b"%PDF-1.7\n\x00\x01 this is not really a pdf\n")
    return folder


def server_env(searxng: ThreadedApp, docs_folder: Path, **extra: str) -> dict[str, str]:
    env = {
        "MNEMOLIS_WEB__SEARXNG_URL": searxng.url,
        "MNEMOLIS_RAG__ROOTS": json.dumps([str(docs_folder.parent)]),
        "MNEMOLIS_RAG__WATCH": "false",
    }
    env.update(extra)
    return env


def open_page(browser: Browser, url: str, **context: Any) -> tuple[Page, list[str]]:
    """A page whose console errors and failed requests are collected."""
    context.setdefault("viewport", {"width": 1280, "height": 900})
    ctx = browser.new_context(**context)
    page = ctx.new_page()
    page.set_default_timeout(WAIT_MS)
    problems: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            problems.append(f"console: {msg.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda err: problems.append(f"page error: {err}"))
    page.goto(url)
    return page, problems


# Every visible control is labelled, every image has alt text, and visible text
# meets WCAG AA contrast against its (opaque) background: 4.5:1, 3:1 when large.
A11Y_AUDIT = r"""() => {
  const problems = [];
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const st = getComputedStyle(el);
    return r.width > 1 && r.height > 1 && st.visibility !== "hidden" && st.display !== "none";
  };
  for (const el of document.querySelectorAll("input, select, textarea")) {
    if (!visible(el) || el.type === "hidden") continue;
    if (!(el.labels && el.labels.length) && !el.getAttribute("aria-label"))
      problems.push(`unlabelled ${el.tagName.toLowerCase()}#${el.id}`);
  }
  for (const el of document.querySelectorAll("button, [role=tab], a[href]")) {
    if (!visible(el)) continue;
    if (!(el.textContent.trim() || el.getAttribute("aria-label")))
      problems.push(`nameless ${el.tagName.toLowerCase()}`);
  }
  for (const img of document.querySelectorAll("img")) {
    if (!img.hasAttribute("alt")) problems.push(`img without alt: ${img.src}`);
  }
  const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (let n = el; n; n = n.parentElement) {
      const c = rgb(getComputedStyle(n).backgroundColor);
      if (c.length >= 3 && (c.length < 4 || c[3] === 1)) return c;
    }
    return [255, 255, 255];
  };
  for (const el of document.querySelectorAll("body *")) {
    const text = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!text || !visible(el) || el.closest(".visually-hidden, option")) continue;
    const st = getComputedStyle(el);
    const fg = lum(rgb(st.color)), bg = lum(background(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    const size = parseFloat(st.fontSize), bold = Number(st.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    const what = el.textContent.trim().slice(0, 40);
    if (ratio < need) problems.push(`contrast ${ratio.toFixed(2)} < ${need}: "${what}"`);
  }
  return problems;
}"""


def audit(page: Page) -> None:
    """Fail with the list of accessibility problems on what the page shows now."""
    problems = page.evaluate(A11Y_AUDIT)
    assert problems == [], problems


def shot(page: Page, name: str, *, scroll_to: str | None = None) -> None:
    """Save the whole page, or the window scrolled to one element."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    if scroll_to is None:
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
        return
    page.locator(scroll_to).first.evaluate("el => el.scrollIntoView()")
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def api(server: ServerProcess, method: str, path: str, body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        server.url + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def ask(page: Page, question: str, source: str) -> None:
    page.get_by_role("tab", name="Ask").click()
    page.get_by_label("Question", exact=True).fill(question)
    page.get_by_label("Source", exact=True).select_option(source)
    page.get_by_role("button", name="Ask", exact=True).click()


def test_ask_sources_knowledge_log(
    browser: Browser,
    start_server: Callable[..., ServerProcess],
    searxng: ThreadedApp,
    docs_folder: Path,
) -> None:
    server = start_server(env=server_env(searxng, docs_folder))
    page, problems = open_page(browser, server.url + "/")
    expect(page).to_have_title("Mnemolis")

    # Ask: the answer, the routing trace and the citations with links.
    ask(page, "what is an MQTT broker?", "web")
    answer = page.get_by_test_id("answer")
    expect(answer).to_contain_text("MQTT")
    expect(page.get_by_test_id("source-used")).to_have_text("web")
    trace = page.get_by_test_id("trace")
    expect(trace.locator("tbody tr")).to_have_count(1)
    expect(trace).to_contain_text("web")
    expect(trace).to_contain_text("ok")
    expect(trace).to_contain_text("requested")
    link = page.get_by_test_id("citations").get_by_role("link", name="MQTT - Home Assistant")
    expect(link).to_have_attribute("href", "https://www.home-assistant.io/integrations/mqtt/")
    expect(page.locator("#ask-status")).to_have_text("Answered by web.")
    audit(page)
    shot(page, "ask")
    page.get_by_role("button", name="Explain routing").click()
    expect(page.locator("#ask-result")).to_contain_text("Routing decision (nothing was run)")
    expect(page.locator("#ask-result")).to_contain_text("what is an MQTT broker")

    # Automatic routing of a compound question: parts, fallback and every source in the trace.
    ask(page, "what is mqtt and how do I connect Claude Desktop?", "auto")
    expect(page.get_by_test_id("source-used")).not_to_have_text("none")
    expect(page.get_by_role("heading", name="Parts")).to_be_visible()
    expect(page.get_by_test_id("trace").locator("tbody tr").nth(1)).to_be_visible()
    audit(page)
    shot(page, "ask-auto", scroll_to="#ask-result .meta")

    # The same question through a source that is not configured: trace says why.
    ask(page, "is the garage door open?", "uptime")
    expect(page.get_by_test_id("source-used")).to_have_text("none")
    expect(page.get_by_test_id("trace")).to_contain_text("uptime is not configured")

    # Sources: configured/healthy states and the test button.
    page.get_by_role("tab", name="Sources").click()
    web_card = page.locator('[data-source="web"]')
    expect(web_card).to_contain_text("healthy")
    expect(page.locator('[data-source="ha"]')).to_contain_text("not configured")
    page.get_by_label("Test question", exact=True).fill("mosquitto mqtt")
    web_card.get_by_role("button", name="Test web").click()
    expect(web_card.locator(".result-box")).to_contain_text("Mosquitto")
    expect(web_card.locator(".result-box .badge")).to_have_text("ok")
    # How to connect Claude Desktop: this server's MCP URL, no key on an open server.
    connect = page.locator("#connect")
    expect(connect.locator("#connect-url")).to_have_text(server.url + "/mcp")
    expect(connect.locator("#connect-config")).to_contain_text('"mcp-remote"')
    expect(connect.locator("#connect-config")).to_contain_text(server.url + "/mcp")
    expect(connect.locator("#connect-config")).not_to_contain_text("Authorization")
    expect(connect).to_contain_text("none set")
    audit(page)
    shot(page, "sources")

    # Knowledge: add a database and watch it get indexed, failures with reasons.
    page.get_by_role("tab", name="Knowledge").click()
    page.get_by_label("Name", exact=True).fill("house")
    page.get_by_label("Folder on the server", exact=True).fill(str(docs_folder))
    page.get_by_role("button", name="Add and index").click()
    card = page.locator('[data-db="house"]')
    expect(card).to_contain_text("ready", timeout=60_000)
    expect(card.locator("dl")).to_contain_text("Files indexed2")
    expect(card).to_contain_text("Failed files (1)")
    card.get_by_text("Failed files (1)").click()
    expect(card).to_contain_text("warranty.pdf")
    status = api(server, "GET", "/api/rag/house")
    assert status["files_indexed"] == 2 and status["files_failed"] == 1
    # Try the new database out from its card.
    card.get_by_label("Search house", exact=True).fill("radiators")
    card.get_by_role("button", name="Search", exact=True).click()
    expect(card.locator(".result-box ol")).to_contain_text("boiler.md")
    expect(card.locator(".result-box ol")).to_contain_text("Bleed the radiators")
    card.get_by_label("Search house", exact=True).fill("zeppelin")
    card.get_by_role("button", name="Search", exact=True).click()
    expect(card).to_contain_text("Nothing in house matches “zeppelin”.")

    # Bad input is a message, not a blank page.
    page.get_by_label("Name", exact=True).fill("bad name!")
    page.get_by_label("Folder on the server", exact=True).fill("/etc")
    page.get_by_role("button", name="Add and index").click()
    expect(page.locator("#db-error .notice")).to_contain_text("HTTP 400")
    expect(card).to_be_visible()

    # Memories: remember, edit, change status, delete with confirm.
    page.get_by_label("New memory", exact=True).fill("The spare key is under the blue pot.")
    page.get_by_label("Tags", exact=True).fill("home, kind:rule")
    page.get_by_role("button", name="Remember").click()
    memory = page.locator("[data-memory]").filter(has_text="blue pot")
    expect(memory).to_have_count(1)
    expect(memory).to_contain_text("kind:rule")
    memory.get_by_role("button", name="Edit this memory").click()
    page.get_by_label("Content", exact=True).fill("The spare key is under the red pot.")
    page.get_by_role("button", name="Save").click()
    edited = page.locator("[data-memory]").filter(has_text="red pot")
    expect(edited).to_have_count(1)
    # Keyboard users land back on the Edit button; Escape cancels an edit.
    edit_button = edited.get_by_role("button", name="Edit this memory")
    expect(edit_button).to_be_focused()
    page.keyboard.press("Enter")
    page.get_by_label("Content", exact=True).fill("this edit is abandoned")
    page.keyboard.press("Escape")
    expect(edited).to_contain_text("red pot")
    expect(edit_button).to_be_focused()
    mem_id = edited.get_attribute("data-memory")
    edited.get_by_label("Status", exact=True).select_option("Core")
    expect(edited).to_contain_text("Status set to Core.")
    stored = api(server, "GET", f"/api/memories/{mem_id}")
    assert stored["content"] == "The spare key is under the red pot."
    assert stored["status"] == "Core"
    assert sorted(stored["tags"]) == ["home", "kind:rule"]
    page.get_by_label("New memory", exact=True).fill("Bins go out on Tuesday night.")
    page.get_by_label("Tags", exact=True).fill("chores")
    page.get_by_role("button", name="Remember").click()
    expect(page.locator("[data-memory]")).to_have_count(2)
    # Filter by tag and by status.
    page.get_by_label("With tags", exact=True).fill("chores")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("[data-memory]")).to_have_count(1)
    expect(page.locator("[data-memory]")).to_contain_text("Bins")
    page.get_by_label("With tags", exact=True).fill("")
    page.get_by_label("With status", exact=True).select_option("Core")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("[data-memory]")).to_have_count(1)
    expect(page.locator("[data-memory]")).to_contain_text("red pot")
    page.get_by_label("With status", exact=True).select_option("")
    page.get_by_label("Search memories", exact=True).fill("spare key")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("[data-memory]")).to_have_count(1)
    expect(page.locator("[data-memory]")).to_contain_text("red pot")
    page.get_by_label("Search memories", exact=True).fill("")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("[data-memory]")).to_have_count(2)
    audit(page)
    shot(page, "knowledge")
    bins = page.locator("[data-memory]").filter(has_text="Bins")
    bins.get_by_role("button", name="Delete this memory").click()
    dialog = page.get_by_role("dialog", name="Delete this memory?")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Cancel").click()
    expect(bins).to_have_count(1)
    bins.get_by_role("button", name="Delete this memory").click()
    dialog.get_by_role("button", name="Delete").click()
    expect(page.locator("[data-memory]")).to_have_count(1)
    assert api(server, "GET", "/api/memories")["total"] == 1

    # Log: recent questions with source, fallback and latency; open one trace.
    page.get_by_role("tab", name="Log").click()
    rows = page.locator("#log-rows tr")
    expect(rows.first).to_contain_text("mosquitto mqtt")
    expect(page.locator("#log-rows")).to_contain_text("what is an MQTT broker?")
    expect(page.locator("#log-status")).to_contain_text("of 4 logged questions")
    page.get_by_label("Outcome", exact=True).select_option("failed")
    page.get_by_role("button", name="Filter").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("is the garage door open?")
    page.get_by_label("Outcome", exact=True).select_option("")
    page.get_by_label("Question contains", exact=True).fill("broker")
    page.get_by_role("button", name="Filter").click()
    expect(rows).to_have_count(1)
    rows.first.get_by_role("button").click()
    detail = page.locator("#log-detail")
    expect(detail.get_by_test_id("answer")).to_contain_text("MQTT")
    expect(detail.get_by_test_id("trace")).to_contain_text("web")
    expect(detail).to_contain_text("via ui")
    expect(detail).to_be_focused()
    page.get_by_label("Question contains", exact=True).fill("")
    page.get_by_role("button", name="Filter").click()
    expect(rows).to_have_count(4)
    rows.nth(1).get_by_role("button").click()
    expect(detail).to_contain_text("is the garage door open?")
    audit(page)
    shot(page, "log")

    # Keyboard: arrow keys move between tabs.
    page.get_by_role("tab", name="Log").focus()
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_role("tab", name="Knowledge")).to_be_focused()
    expect(page.get_by_role("tab", name="Knowledge")).to_have_attribute("aria-selected", "true")
    page.keyboard.press("Home")
    expect(page.get_by_role("tab", name="Ask")).to_have_attribute("aria-selected", "true")

    # The only failed request is the bad database name sent on purpose (400).
    assert len(problems) == 1 and "status of 400" in problems[0], problems
    page.context.close()


def test_phone_and_dark_mode(
    browser: Browser,
    start_server: Callable[..., ServerProcess],
    searxng: ThreadedApp,
    docs_folder: Path,
) -> None:
    server = start_server(env=server_env(searxng, docs_folder))
    page, problems = open_page(
        browser, server.url + "/", viewport={"width": 390, "height": 844}, color_scheme="dark"
    )
    ask(page, "mqtt broker", "web")
    expect(page.get_by_test_id("answer")).to_contain_text("MQTT")
    # Nothing overflows sideways on a phone.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg == "rgb(17, 19, 24)"
    audit(page)
    shot(page, "ask-phone-dark")
    page.get_by_role("tab", name="Log").click()
    expect(page.locator("#log-rows tr")).to_have_count(1)
    audit(page)
    shot(page, "log-phone-dark")
    page.get_by_role("tab", name="Sources").click()
    expect(page.locator('[data-source="web"]')).to_contain_text("healthy")
    page.get_by_role("tab", name="Knowledge").click()
    expect(page.locator('[data-db="mnemolis-docs"]')).to_contain_text("Files indexed")
    for name in ("Ask", "Sources", "Knowledge", "Log"):
        page.get_by_role("tab", name=name).click()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, name
        audit(page)
    page.get_by_role("tab", name="Knowledge").click()
    shot(page, "knowledge-phone-dark")
    assert problems == []
    page.context.close()


def test_behind_ingress_every_request_stays_under_the_prefix(
    browser: Browser,
    start_server: Callable[..., ServerProcess],
    searxng: ThreadedApp,
    docs_folder: Path,
) -> None:
    server = start_server(env=server_env(searxng, docs_folder))
    seen: list[str] = []
    with ThreadedApp(ingress_proxy(server.url, INGRESS_PREFIX, seen)) as proxy:
        page, problems = open_page(browser, f"{proxy.url}{INGRESS_PREFIX}/")
        requested: list[str] = []
        page.on("request", lambda req: requested.append(req.url))
        page.reload()
        expect(page.locator("html")).to_have_attribute("data-ingress", "true")
        expect(page.locator("#auth-state")).to_have_text("via Home Assistant")
        ask(page, "mqtt broker", "web")
        expect(page.get_by_test_id("answer")).to_contain_text("MQTT")
        page.get_by_role("tab", name="Sources").click()
        expect(page.locator('[data-source="web"]')).to_contain_text("healthy")
        page.get_by_role("tab", name="Log").click()
        expect(page.locator("#log-rows tr")).to_have_count(1)
        shot(page, "ingress-log")
        assert problems == []
        page.context.close()
    assert requested, "the page made no requests"
    outside = [u for u in requested if not u.startswith(f"{proxy.url}{INGRESS_PREFIX}/")]
    assert outside == []
    assert {"/ui/app.js", "/ui/app.css", "/api/sources", "/search"} <= {
        p.split("?")[0][len(INGRESS_PREFIX) :] for p in seen
    }


def test_api_key_prompt_and_read_key_errors(
    browser: Browser,
    start_server: Callable[..., ServerProcess],
    searxng: ThreadedApp,
    docs_folder: Path,
) -> None:
    env = server_env(
        searxng,
        docs_folder,
        MNEMOLIS_API_KEY="full-key-for-ui-test",
        MNEMOLIS_READ_API_KEY="read-key-for-ui-test",
    )
    server = start_server(env=env)
    page, problems = open_page(browser, server.url + "/#sources")
    dialog = page.get_by_role("dialog", name="API key needed")
    expect(dialog).to_be_visible()
    page.get_by_label("API key", exact=True).fill("wrong")
    dialog.get_by_role("button", name="Use key").click()
    expect(page.locator("#key-reason")).to_have_text("That key was not accepted.")
    page.get_by_label("API key", exact=True).fill("read-key-for-ui-test")
    shot(page, "api-key-prompt")
    page.get_by_label("API key", exact=True).fill("read-key-for-ui-test")
    dialog.get_by_role("button", name="Use key").click()
    expect(page.locator('[data-source="web"]')).to_contain_text("healthy")
    expect(page.locator("#auth-state")).to_have_text("API key set")
    # The read key does not reveal the keys that connect a client.
    expect(page.locator("#connect")).to_contain_text("shown with the full API key")
    expect(page.locator("#connect-key")).to_have_count(0)
    shot(page, "api-key-read")
    # The read key reads, but cannot change anything: a clear message says why.
    page.get_by_role("tab", name="Knowledge").click()
    page.get_by_label("New memory", exact=True).fill("read keys cannot write")
    page.get_by_role("button", name="Remember").click()
    notice = page.locator("#mem-list .notice")
    expect(notice).to_contain_text("HTTP 403")
    expect(notice).to_contain_text("full API key")
    # Forgetting the key brings the prompt back on the next call.
    page.get_by_role("button", name="API key").click()
    page.get_by_role("dialog").get_by_role("button", name="Forget key").click()
    expect(page.locator("#auth-state")).to_have_text("")
    page.get_by_role("tab", name="Sources").click()
    expect(page.get_by_role("dialog", name="API key needed")).to_be_visible()
    # With the full key the Sources tab shows the key (masked until asked) and the
    # Claude Desktop config that carries it.
    page.get_by_label("API key", exact=True).fill("full-key-for-ui-test")
    page.get_by_role("dialog").get_by_role("button", name="Use key").click()
    key = page.locator("#connect-key")
    expect(key).not_to_have_text("full-key-for-ui-test")
    expect(page.locator("#connect-config")).to_contain_text("Bearer YOUR_API_KEY")
    page.get_by_role("button", name="Show key").click()
    expect(key).to_have_text("full-key-for-ui-test")
    expect(page.locator("#connect-config")).to_contain_text("Bearer full-key-for-ui-test")
    expect(page.locator("#connect")).to_contain_text("set in the options")
    audit(page)
    # Console errors here are the browser reporting the expected 401/403 answers.
    assert all("401" in p or "403" in p for p in problems), problems
    page.context.close()


def test_missing_endpoints_and_dead_server_show_messages(
    browser: Browser,
    start_server: Callable[..., ServerProcess],
    searxng: ThreadedApp,
    docs_folder: Path,
) -> None:
    """An older server without the knowledge routes, then a server that went away."""
    server = start_server(env=server_env(searxng, docs_folder))
    page, _problems = open_page(browser, server.url + "/")

    def no_route(route: Any) -> None:
        path = route.request.url.split(server.url, 1)[1].split("?")[0]
        message = f"no route for {route.request.method} {path}"
        route.fulfill(status=404, json={"error": {"code": "not_found", "message": message}})

    page.route("**/api/rag", no_route)
    page.route("**/api/list", no_route)
    page.route("**/api/memories*", lambda route: route.abort("connectionrefused"))
    page.get_by_role("tab", name="Knowledge").click()
    dbs = page.locator("#db-list .notice")
    expect(dbs).to_contain_text("Document databases could not be loaded")
    expect(dbs).to_contain_text("no route for GET /api/list")
    expect(dbs).to_contain_text("does not offer this feature")
    expect(page.locator("#mem-list .notice")).to_contain_text("could not be reached")
    shot(page, "knowledge-missing-endpoints")
    # The rest of the page still works.
    ask(page, "mqtt broker", "web")
    expect(page.get_by_test_id("answer")).to_contain_text("MQTT")

    server.stop()
    ask(page, "mqtt broker", "web")
    expect(page.locator("#ask-result .notice")).to_contain_text("could not be reached")
    page.get_by_role("tab", name="Log").click()
    expect(page.locator("#log-detail .notice")).to_contain_text("could not be reached")
    expect(page.locator("h1")).to_have_text("Mnemolis")
    page.context.close()
