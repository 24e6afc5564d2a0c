"""This branch, the previous release (f981387) and upstream Mnemolis, side by side in one run.

One Home Assistant 2025.4 core with HA's own `demo:` home (tests/server/hass_fixture.py),
one kiwix-serve with ZIM books written by libzim (tests/server/zim_fixture.py), and
wire-format stubs for the forecast (Open-Meteo's JSON), news (FreshRSS), web
(SearXNG) and uptime (Uptime Kuma) serve all three servers:

* ``this``: the server of this checkout (``PYTHONPATH=addon/src``);
* ``f981387``: the previous release, checked out with ``git worktree add`` into
  /tmp/mn-f981387 and run from the same venv with its own ``addon/src``;
* ``upstream``: upstream Mnemolis (immortalbob/Mnemolis, a FastAPI app) from the
  mirror ``fetch`` brought in, in its own venv (.venv/upstream, installed from its
  requirements.txt when missing). Patched, and only here: its data path (/app/data
  → a temporary folder), its Open-Meteo URL (→ the forecast stub) and the book
  name it reads from kiwix-serve 3.3's catalog (the last path segment of the
  text/html link, which 3.3 does not put under /content/).

The question mix (all sources; home questions from bench/eval/home/questions.yaml)
is asked with a closed-loop asyncio load generator (bench/loadgen.py) from 1, 20 and
50 clients, caches off (each server's own settings) and as shipped, the systems in
interleaved rounds so that load on the machine falls on all of them alike. Server
CPU per request is the utime+stime delta of the server's process over the requests
it answered. Twenty home questions are judged against HA's states read just before
(bench/eval/eval_home.py's judge, on the written answer).

    nice -n 10 .venv/server/bin/python bench/side_by_side.py [--quick] [--rounds 2]
        [--seconds 5] [--systems this,f981387,upstream,commit:SHA]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "bench" / "eval"))

from eval_home import judge, load_cases, rest_areas, rest_states  # noqa: E402
from loadgen import Run, closed_loop, free_port, rss_mb, rss_parts, stop, wait_http  # noqa: E402

from tests.server.faultproxy import BackgroundLoop  # noqa: E402
from tests.server.hass_fixture import HassCore, launch_demo  # noqa: E402
from tests.server.stubs.freshrss import FreshState, freshrss_app  # noqa: E402
from tests.server.stubs.searxng import searxng_app  # noqa: E402
from tests.server.stubs.uptime_kuma import uptime_kuma_app  # noqa: E402
from tests.server.test_forecast_source import open_meteo_body  # noqa: E402
from tests.server.zim_fixture import WIKI_ARTICLES, running_kiwix  # noqa: E402

PREVIOUS = "f981387"
UPSTREAM_MIRROR = Path("/work/.mirror/immortalbob+Mnemolis/repo")
UPSTREAM_VENV = REPO / ".venv" / "upstream"
SERVER_PY = Path(sys.executable)

OTHER_QUESTIONS = [
    *(f"What is {title}?" for title, _ in WIKI_ARTICLES.values()),
    *(f"Tell me about {title}" for title, _ in WIKI_ARTICLES.values()),
    *(f"Who or what is {title}?" for title, _ in WIKI_ARTICLES.values()),
    "Will it rain tomorrow?",
    "What's the weather forecast for this week?",
    "How warm will it be on Saturday?",
    "Is it going to be windy tomorrow?",
    "Do I need an umbrella today?",
    "Will it snow this week?",
    "What's in the news today?",
    "Any news headlines?",
    "What are the latest news stories?",
    "Show me the latest headlines",
    "Search the web for the best pizza dough recipe",
    "Search the web for how to descale a kettle",
    "Look up on the web the population of Iceland",
    "Search online for MQTT broker setup",
    "Is the NAS up?",
    "Are all my services up?",
    "Is the router monitor down?",
    "What is the uptime of the NAS?",
]


def home_questions() -> tuple[list[str], list[Any]]:
    """Every phrasing of the demo home's questions, and one plain case per group to judge."""
    cases = [c for c in load_cases() if c.home == "demo"]
    judged: dict[str, Any] = {}
    for case in cases:
        group = case.id.rsplit(".", 1)[0]
        simple = not ({"if", "all_of"} & set(case.truth))
        if simple and group not in judged:
            judged[group] = case
    return [c.q for c in cases], list(judged.values())[:20]


# --- the stubs and the systems ---------------------------------------------------------


def forecast_app() -> web.Application:
    """Open-Meteo's /v1/forecast answer for any path (both servers append their own)."""

    async def handle(request: web.Request) -> web.Response:
        return web.json_response(open_meteo_body(date.today(), "Europe/Berlin"))

    app = web.Application()
    app.router.add_get("/{tail:.*}", handle)
    return app


@dataclass
class Backends:
    """Where the shared backends listen."""

    hass: HassCore
    kiwix: str
    forecast: str
    news: str
    web: str
    uptime: str
    weather: str | None


@dataclass
class System:
    """One server under test: how to start it, and what it measured."""

    name: str
    cmd: list[str]
    env: dict[str, str]
    cwd: Path
    url: str
    health: str
    proc: subprocess.Popen[bytes] | None = None
    started_s: float = 0.0
    idle_rss: float = 0.0
    idle_parts: dict[str, float] = field(default_factory=dict)
    peak_rss: float = 0.0  # under load (the peak is reset once the start is idle)
    start_peak: float = 0.0  # the start's own peak (a model conversion included)
    runs: dict[tuple[str, int], list[tuple[int, float, float]]] = field(default_factory=dict)
    second_s: float = 0.0
    busy: bool = False  # still busy when the start limit ran out
    second_busy: bool = False
    home_right: int = 0
    home_asked: int = 0

    def start(self, limit: float = 900.0) -> bool:
        """Start the server and time it until it answers and its CPU stops moving.

        False (with its log's tail printed) when it exits instead of answering.
        """
        began = time.monotonic()
        self.proc = subprocess.Popen(
            self.cmd,
            env=self.env,
            cwd=self.cwd,
            stdout=subprocess.DEVNULL,
            stderr=(self.cwd / f"{self.name}.log").open("wb"),
        )
        try:
            wait_http(self.health, self.proc, timeout=limit)
        except SystemExit as err:
            log = (self.cwd / f"{self.name}.log").read_text(errors="replace")
            print(f"{self.name} did not start: {err}\n{log[-2000:]}", file=sys.stderr)
            self.stop()
            return False
        # Idle: the process's CPU moved less than 20 ms in each half second for 2 s
        # (background work that pauses between steps is not idle).
        last = cpu_seconds(self.proc.pid)
        self.busy = True
        quiet = 0
        while time.monotonic() - began < limit:
            time.sleep(0.5)
            now = cpu_seconds(self.proc.pid)
            quiet = quiet + 1 if now - last < 0.02 else 0
            last = now
            if quiet >= 4:
                self.busy = False
                break
        self.started_s = time.monotonic() - began - (2.0 if not self.busy else 0.0)
        self.idle_rss = rss_mb(self.proc.pid)[0]
        self.idle_parts = rss_parts(self.proc.pid)
        self.start_peak = max(self.start_peak, rss_mb(self.proc.pid)[1])
        reset_peak(self.proc.pid)
        return True

    def stop(self) -> None:
        """Stop the server, keeping its peak RSS."""
        if self.proc is not None and self.proc.poll() is None:
            self.peak_rss = max(self.peak_rss, rss_mb(self.proc.pid)[1])
        stop(self.proc)
        self.proc = None


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def mnemolis_system(name: str, src: Path, b: Backends, tmp: Path, cached: bool) -> System:
    """A Mnemolis server (this tree or the previous release) over the shared backends."""
    port = free_port()
    data = tmp / f"{name}-{'cached' if cached else 'nocache'}"
    data.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOLIS_")}
    env.update(
        {
            "PYTHONPATH": str(src),
            "MNEMOLIS_HA__URL": b.hass.url,
            "MNEMOLIS_HA__TOKEN": b.hass.token,
            "MNEMOLIS_KIWIX__URL": b.kiwix,
            "MNEMOLIS_FORECAST__OPEN_METEO_URL": b.forecast,
            "MNEMOLIS_FORECAST__LATITUDE": "52.52",
            "MNEMOLIS_FORECAST__LONGITUDE": "13.41",
            "MNEMOLIS_NEWS__FRESHRSS_URL": b.news,
            "MNEMOLIS_NEWS__FRESHRSS_USER": "alice",
            "MNEMOLIS_NEWS__FRESHRSS_PASSWORD": "api-pass",
            "MNEMOLIS_WEB__SEARXNG_URL": b.web,
            "MNEMOLIS_UPTIME__URL": b.uptime,
            "MNEMOLIS_UPTIME__SLUG": "home",
            "MNEMOLIS_LIMITS__RATE_PER_MINUTE": "0",
            "MNEMOLIS_LIMITS__CONCURRENCY_PER_CLIENT": "0",
            "MNEMOLIS_LOG_LEVEL": "warning",
        }
    )
    if "exposure" in (src / "mnemolis" / "settings.py").read_text(encoding="utf-8"):
        env["MNEMOLIS_HA__EXPOSURE"] = "all"  # older releases have no such setting
    if not cached:
        ttl = dict.fromkeys(
            ("ha", "forecast", "news", "web", "kiwix", "uptime", "changes", "rag", "memory"), 0
        )
        env["MNEMOLIS_CACHE__TTL"] = json.dumps(ttl)
    cmd = [str(SERVER_PY), "-m", "mnemolis", "serve", "--port", str(port), "--data-dir", str(data)]
    url = f"http://127.0.0.1:{port}"
    return System(name, cmd, env, data, url, f"{url}/api/health")


def upstream_tree(tmp: Path) -> Path:
    """Upstream's tree with the three patches (data path, Open-Meteo URL, book names)."""
    tree = tmp / "upstream"
    tree.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(UPSTREAM_MIRROR), "archive", "HEAD"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    for py in (tree / "app").rglob("*.py"):
        text = py.read_text(encoding="utf-8")
        patched = text.replace('"/app/data/', 'os.environ["UPSTREAM_DATA"] + "/')
        patched = patched.replace(
            '"https://api.open-meteo.com/v1/forecast"', 'os.environ["UPSTREAM_OPEN_METEO"]'
        )
        patched = patched.replace(
            'full_name = href.rstrip("/").split("/content/")[-1]',
            'full_name = href.rstrip("/").split("/content/")[-1].split("#")[-1].rsplit("/", 1)[-1]',
        )
        if patched != text:
            if not patched.startswith("import os\n"):
                patched = "import os\n" + patched
            py.write_text(patched, encoding="utf-8")
    return tree


def ensure_upstream_venv(tree: Path) -> Path:
    """The upstream venv's python, installed from its requirements.txt when missing."""
    py = UPSTREAM_VENV / "bin" / "python"
    probe = [str(py), "-c", "import fastapi, uvicorn, pydantic_settings, mcp, requests"]
    if py.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return py
    subprocess.run([sys.executable, "-m", "venv", str(UPSTREAM_VENV)], check=True)
    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "-r", str(tree / "requirements.txt")], check=True
    )
    return py


def upstream_system(tree: Path, py: Path, b: Backends, tmp: Path, cached: bool) -> System:
    """Upstream Mnemolis (uvicorn app.main:app) over the same backends."""
    port = free_port()
    data = tmp / f"upstream-{'cached' if cached else 'nocache'}"
    data.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env.update(
        {
            "PYTHONPATH": str(tree),
            "UPSTREAM_DATA": str(data),
            "UPSTREAM_OPEN_METEO": f"{b.forecast}/v1/forecast",
            "KIWIX_URL": b.kiwix,
            "HA_URL": b.hass.url,
            "HA_TOKEN": b.hass.token,
            "FRESHRSS_URL": b.news,
            "FRESHRSS_USER": "alice",
            "FRESHRSS_API_PASSWORD": "api-pass",
            "SEARXNG_URL": b.web,
            "UPTIME_KUMA_URL": b.uptime,
            "FORECAST_LATITUDE": "52.52",
            "FORECAST_LONGITUDE": "13.41",
            "FORECAST_LOCATION_NAME": "Berlin",
        }
    )
    if not cached:
        for src in ("KIWIX", "FORECAST", "NEWS", "WEB", "UPTIME", "HA", "CHANGES", "FUSION"):
            env[f"CACHE_TTL_{src}_SECONDS"] = "0"
        env["ROUTING_CACHE_TTL_SECONDS"] = "0"
    cmd = [str(py), "-m", "uvicorn", "app.main:app", "--port", str(port), "--log-level", "warning"]
    url = f"http://127.0.0.1:{port}"
    return System("upstream", cmd, env, data, url, f"{url}/health")


# --- measuring -------------------------------------------------------------------------


async def load(system: System, questions: list[str], clients: int, seconds: float) -> None:
    """``clients`` callers asking the mix in turn; requests, seconds and CPU are kept."""
    assert system.proc is not None
    offset = len(system.runs.get(("", clients), []))

    def body(n: int) -> dict[str, Any]:
        return {"query": questions[(n + offset * 37) % len(questions)]}

    run = Run(system.name, clients)
    before = cpu_seconds(system.proc.pid)
    await closed_loop(f"{system.url}/search", run, seconds, body)
    cpu = cpu_seconds(system.proc.pid) - before
    system.peak_rss = max(system.peak_rss, rss_mb(system.proc.pid)[1])
    system.runs.setdefault(("", clients), []).append((len(run.latencies), run.seconds, cpu))


def reset_peak(pid: int) -> None:
    """Start the kernel's peak-RSS count (VmHWM) again, so the load's peak is its own."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError as err:  # not the process's owner: the peak then includes the start
        print(f"cannot reset the peak RSS of {pid}: {err}", file=sys.stderr)


def _frame(raw: str) -> str:
    """``func (path/file.py:12)`` as ``func (file.py)``."""
    name, _, where = raw.partition(" (")
    return f"{name} ({where.split(':', 1)[0].rsplit('/', 1)[-1].rstrip(')')})"


def profile_summary(raw: Path, top: int = 40) -> None:
    """Where the profiled server's CPU went: the share of samples inside each function."""
    inside: dict[str, int] = {}
    total = 0
    for line in raw.read_text(encoding="utf-8").splitlines():
        stack, _, n = line.rpartition(" ")
        if not n.isdigit():
            continue
        total += int(n)
        for frame in {_frame(f) for f in stack.split(";")}:
            inside[frame] = inside.get(frame, 0) + int(n)
    print(f"\npy-spy of 'this' at 20 clients, caches off: {total} samples; share inside\n")
    print("| function (file) | share |\n|---|---|")
    ranked = [kv for kv in sorted(inside.items(), key=lambda kv: -kv[1]) if kv[1] < 0.9 * total]
    for frame, n in ranked[:top]:
        print(f"| {frame} | {100 * n / max(total, 1):.1f} % |")


async def judge_home(system: System, cases: list[Any], hass: HassCore) -> None:
    """Ask the judged home questions once each; right when the answer holds HA's truth."""
    areas = await asyncio.to_thread(rest_areas, hass)
    async with aiohttp.ClientSession() as http:
        for case in cases:
            states = await asyncio.to_thread(rest_states, hass)
            async with http.post(f"{system.url}/search", json={"query": case.q}) as resp:
                body = await resp.json() if resp.status == 200 else {}
            verdict = judge(case, "start", body, states, areas)
            system.home_asked += 1
            system.home_right += int(verdict.result_ok)


@dataclass
class Figures:
    """Per system: (req/s, CPU ms per request) per client count."""

    rate: dict[int, float]
    cpu_ms: dict[int, float]


def figures(system: System) -> Figures:
    """Sum the rounds of each client count."""
    rate, cpu_ms = {}, {}
    for (_, clients), rounds in system.runs.items():
        n = sum(r[0] for r in rounds)
        rate[clients] = n / max(sum(r[1] for r in rounds), 1e-9)
        cpu_ms[clients] = sum(r[2] for r in rounds) * 1000 / max(n, 1)
    return Figures(rate, cpu_ms)


def uptime_load() -> str:
    """The machine's load averages, printed beside the figures."""
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()


def start_profile(system: System, out: Path, seconds: float) -> subprocess.Popen[bytes] | None:
    """py-spy (in this venv) sampling the server while the next load runs, if installed."""
    spy = SERVER_PY.parent / "py-spy"
    if not spy.exists() or system.proc is None:
        print("py-spy not installed in this venv: no profile", file=sys.stderr)
        return None
    cmd = [str(spy), "record", "--format", "raw", "-d", str(max(1, int(seconds))), "-r", "200"]
    cmd += ["-p", str(system.proc.pid), "-o", str(out)]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def prepare_previous(commit: str = PREVIOUS) -> Path:
    """A commit's addon/src (the previous release by default), checked out once into /tmp."""
    tree = Path(f"/tmp/mn-{commit}")
    if not (tree / "addon" / "src").exists():
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), commit],
            check=True,
            capture_output=True,
        )
    return tree / "addon" / "src"


async def main(args: argparse.Namespace) -> None:
    names = args.systems.split(",")
    levels = [int(x) for x in args.levels.split(",")]
    home_all, judged = home_questions()
    questions = home_all + OTHER_QUESTIONS
    tmp = Path(tempfile.mkdtemp(prefix="mnemolis-sbs-"))
    loop = BackgroundLoop()
    hass: HassCore | None = None
    systems: list[System] = []
    try:
        (tmp / "zim").mkdir()
        with running_kiwix(tmp / "zim") as kiwix:
            (tmp / "hass").mkdir()
            hass = launch_demo(tmp / "hass")
            states = rest_states(hass)
            weather = sorted(e for e in states if e.startswith("weather."))
            backends = Backends(
                hass,
                kiwix.url,
                loop.serve_app(forecast_app()),
                loop.serve_app(freshrss_app(FreshState())),
                loop.serve_app(searxng_app()),
                loop.serve_app(uptime_kuma_app()),
                weather[0] if weather else None,
            )
            tree = py = None
            if "upstream" in names:
                tree = upstream_tree(tmp)
                py = ensure_upstream_venv(tree)
            for cached in (False, True):
                if cached and args.quick:
                    break
                mode = "as shipped" if cached else "caches off"
                batch: list[System] = []
                for name in names:
                    if name == "this":
                        batch.append(
                            mnemolis_system("this", REPO / "addon" / "src", backends, tmp, cached)
                        )
                    elif name == PREVIOUS:
                        src = prepare_previous()
                        batch.append(mnemolis_system(PREVIOUS, src, backends, tmp, cached))
                    elif name.startswith("commit:"):  # any other commit, to compare two changes
                        src = prepare_previous(name.removeprefix("commit:"))
                        batch.append(mnemolis_system(name, src, backends, tmp, cached))
                    elif name == "upstream" and tree is not None and py is not None:
                        batch.append(upstream_system(tree, py, backends, tmp, cached))
                systems += batch  # stopped in `finally` whatever happens
                started = []
                for system in batch:
                    # A fresh start: first start until idle, idle RSS.
                    if not system.start(args.start_limit):
                        continue
                    started.append(system)
                    if not cached:
                        await judge_home(system, judged, hass)
                    print(
                        f"{system.name} ({mode}) started in {system.started_s:.1f} s, "
                        f"{'(still busy) ' if system.busy else ''}"
                        f"idle RSS {system.idle_rss:.0f} MiB; load {uptime_load()}",
                        file=sys.stderr,
                    )
                batch = started
                for system in batch:  # warm-up: every question once
                    await load(system, questions, 1, 1.0 if args.quick else 3.0)
                    system.runs.clear()
                for rnd in range(args.rounds):
                    for clients in levels:
                        for system in batch:  # interleaved: each round visits every system
                            spy = None
                            if args.profile and system.name == "this" and clients == 20:
                                spy = start_profile(system, tmp / "profile.txt", args.seconds)
                            await load(system, questions, clients, args.seconds)
                            if spy is not None:
                                spy.wait(30)
                                profile_summary(tmp / "profile.txt")
                    print(f"{mode}: round {rnd + 1} done; load {uptime_load()}", file=sys.stderr)
                for system in batch:
                    system.stop()
                    if not cached:  # a second start over the data the first one left
                        first, idle, busy = system.started_s, system.idle_rss, system.busy
                        system.start(args.start_limit)
                        system.second_s, system.second_busy = system.started_s, system.busy
                        system.started_s, system.idle_rss, system.busy = first, idle, busy
                        system.stop()
                report(batch, mode, levels, len(questions), args)
    finally:
        for system in systems:
            system.stop()
        if hass is not None:
            hass.stop()
        loop.close()
        shutil.rmtree(tmp, ignore_errors=True)


def report(batch: list[System], mode: str, levels: list[int], n_q: int, args: Any) -> None:
    """The Markdown table of one mode (caches off or as shipped)."""
    figs = {s.name: figures(s) for s in batch}
    print(
        f"\n### {mode}: {n_q} questions, {args.rounds} interleaved rounds of {args.seconds:g} s "
        f"per client count; {os.cpu_count()} CPUs shared; load {uptime_load()}\n"
    )
    print("| figure | " + " | ".join(s.name for s in batch) + " |")
    print("|---|" + "---|" * len(batch))
    rates = [" / ".join(f"{figs[s.name].rate.get(c, 0):.0f}" for c in levels) for s in batch]
    print(f"| req/s, {' / '.join(map(str, levels))} clients | " + " | ".join(rates) + " |")
    for c in levels:
        cells = [f"{figs[s.name].cpu_ms.get(c, 0):.2f} ms" for s in batch]
        print(f"| server CPU per request, {c} clients | " + " | ".join(cells) + " |")
    print("| idle RSS (fresh start) | " + " | ".join(f"{s.idle_rss:.0f} MiB" for s in batch) + " |")
    print("| peak RSS under load | " + " | ".join(f"{s.peak_rss:.0f} MiB" for s in batch) + " |")
    cells = [f"{s.start_peak:.0f} MiB" for s in batch]
    print("| peak RSS while starting (conversion included) | " + " | ".join(cells) + " |")
    cells = [f"{'> ' if s.busy else ''}{s.started_s:.1f} s" for s in batch]
    print("| first start until idle | " + " | ".join(cells) + " |")
    if any(s.second_s for s in batch):
        cells = [f"{'> ' if s.second_busy else ''}{s.second_s:.1f} s" for s in batch]
        print("| second start until idle | " + " | ".join(cells) + " |")
    if any(s.home_asked for s in batch):
        cells = [f"{s.home_right} / {s.home_asked}" for s in batch]
        print("| home questions right (HA's states) | " + " | ".join(cells) + " |")
    parts = sorted(
        {k for s in batch for k in s.idle_parts},
        key=lambda k: -max(s.idle_parts.get(k, 0) for s in batch),
    )
    if parts:
        print("\nidle RSS by mapping (MiB; /proc/PID/smaps at the fresh start)\n")
        print("| mapping | " + " | ".join(s.name for s in batch) + " |")
        print("|---|" + "---:|" * len(batch))
        for part in parts:
            cells = [f"{s.idle_parts.get(part, 0.0):.1f}" for s in batch]
            if max(s.idle_parts.get(part, 0.0) for s in batch) >= 1.0:
                print(f"| {part} | " + " | ".join(cells) + " |")
    up = figs.get("upstream")
    this = figs.get("this")
    if up and this and 20 in levels and up.rate.get(20):
        print(f"\nthis ÷ upstream at 20 clients: {this.rate[20] / up.rate[20]:.1f}x (budget 10x)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="caches off only, 1 round of 2 s")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--levels", default="1,20,50")
    parser.add_argument(
        "--start-limit", type=float, default=900.0, help="seconds a start may take to idle"
    )
    parser.add_argument("--profile", action="store_true", help="py-spy 'this' at 20 clients")
    parser.add_argument("--systems", default=f"this,{PREVIOUS},upstream")
    parsed = parser.parse_args()
    if parsed.quick:
        parsed.rounds, parsed.seconds = 1, 2.0
        parsed.start_limit = min(parsed.start_limit, 120.0)
    # Stopped from outside: still stop the servers, HA and kiwix-serve it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    asyncio.run(main(parsed))
