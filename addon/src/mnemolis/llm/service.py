"""The inference service the rest of Mnemolis uses: chat, compose, classify, spoken, embed."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp

from ..errors import MnemolisError, Unavailable
from ..models import Evidence
from ..readiness import ComponentHealth, ComponentState
from ..settings import Settings
from ..spoken import spoken_form
from . import bundled, prompts
from .catalog import GGUFError, ModelFile, models_dir, read_metadata, resolve, scan
from .embedding_model import LocalEmbedder
from .engine import LocalEngine
from .remote import RemoteBackend
from .types import ChatParams, ChatResult, Generation
from .worker import ThreadedModel

if TYPE_CHECKING:
    from ..services import Services

_LOGGER = logging.getLogger(__name__)

# One engine per model file in the process ("load one model once"): several
# cores (tests, CLI + server) share it, and ``auto`` prefers what is loaded.
_ENGINES: dict[tuple[str, int, int], tuple[LocalEngine, int]] = {}
_EMBEDDERS: dict[tuple[str, int], tuple[LocalEmbedder, int]] = {}
_REGISTRY_LOCK = threading.Lock()

# x86 feature names as llama.cpp prints them → /proc/cpuinfo flags.
_CPU_FLAGS = {
    "SSE3": "pni",
    "SSSE3": "ssse3",
    "AVX": "avx",
    "AVX2": "avx2",
    "F16C": "f16c",
    "FMA": "fma",
    "BMI2": "bmi2",
    "AVX512": "avx512f",
    "AVX512_VBMI": "avx512vbmi",
    "AVX512_VNNI": "avx512_vnni",
    "AVX512_BF16": "avx512_bf16",
}
_PROBE = "import llama_cpp, sys; sys.stdout.write(llama_cpp.llama_print_system_info().decode())"
_cpu_verdict: str | None = None


def cpu_problem() -> str:
    """Empty when llama.cpp runs on this CPU; else why not (checked in a subprocess once)."""
    global _cpu_verdict
    if _cpu_verdict is not None:
        return _cpu_verdict
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        _cpu_verdict = f"cannot start the llama.cpp check: {err}"
        return _cpu_verdict
    if proc.returncode < 0:
        _cpu_verdict = (
            f"llama.cpp crashed on this CPU (signal {-proc.returncode}); it was built for "
            "instruction sets this CPU lacks — reinstall llama-cpp-python with "
            'CMAKE_ARGS="-DGGML_NATIVE=OFF"'
        )
        return _cpu_verdict
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["unknown error"])[-1]
        _cpu_verdict = f"llama.cpp cannot be loaded: {last}"
        return _cpu_verdict
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        cpuinfo = ""
    _cpu_verdict = missing_features(proc.stdout, cpuinfo)
    return _cpu_verdict


def missing_features(system_info: str, cpuinfo: str) -> str:
    """Why this llama.cpp build cannot run on this CPU ('' when it can)."""
    flags_line = next((ln for ln in cpuinfo.splitlines() if ln.startswith("flags")), "")
    if not flags_line:
        return ""  # not x86 (or no flags reported): nothing to compare
    flags = set(flags_line.split(":", 1)[1].split())
    built = {
        k.strip()
        for part in system_info.split("|")
        if "=" in part
        for k, v in [part.rsplit("=", 1)]
        if v.strip() == "1"
    }
    built = {b.split(":")[-1].strip() for b in built}
    missing = sorted(f for f in built if f in _CPU_FLAGS and _CPU_FLAGS[f] not in flags)
    if missing:
        return (
            "llama.cpp was built for CPU features this machine lacks: "
            + ", ".join(missing)
            + ' — reinstall llama-cpp-python with CMAKE_ARGS="-DGGML_NATIVE=OFF"'
        )
    return ""


def _acquire[K, M: ThreadedModel](
    registry: dict[K, tuple[M, int]], key: K, make: Callable[[], M]
) -> M:
    """The live model under ``key`` with one more user, or a new one (a failed one is replaced)."""
    with _REGISTRY_LOCK:
        found = registry.get(key)
        if found and found[0].state not in ("failed", "closed"):
            registry[key] = (found[0], found[1] + 1)
            return found[0]
        model = make()
        registry[key] = (model, 1)
        return model


def _acquire_engine(info: ModelFile, settings: Settings) -> LocalEngine:
    key = (str(info.path.resolve()), settings.llm.context, settings.llm.threads)
    return _acquire(_ENGINES, key, lambda: LocalEngine(info, settings.llm))


def _acquire_embedder(info: ModelFile, settings: Settings) -> LocalEmbedder:
    key = (str(info.path.resolve()), settings.llm.threads)
    return _acquire(_EMBEDDERS, key, lambda: LocalEmbedder(info, settings.llm))


def _release(registry: dict[Any, tuple[Any, int]], obj: Any) -> Any:
    """Drop one reference; returns the object when nobody uses it any more."""
    with _REGISTRY_LOCK:
        for key, (held, refs) in list(registry.items()):
            if held is obj:
                if refs > 1:
                    registry[key] = (held, refs - 1)
                    return None
                del registry[key]
                return held
    return obj


COMPOSE_TOKENS = 96  # one or two sentences; a small model rambles past them


@dataclass(slots=True)
class Composed:
    """What the model wrote from the passages: ``text`` when it stands (cited), ``refused``
    when it said it does not know, else ``why`` the extractive answer stands instead."""

    text: str
    refused: bool = False
    why: str = ""


def judge_composed(output: str, question: str, evidence: Sequence[Evidence]) -> Composed:
    """The model's raw output checked against the passages: kept (cited), a refusal, or
    dropped with the reason (the extractive answer is the fallback)."""
    text = prompts.first_paragraph(output)
    if not text:
        return Composed("", why="the model wrote nothing")
    if prompts.is_refusal(text):
        return Composed("", refused=True, why="the model said it does not know")
    problem = prompts.grounding_problem(text, question, [prompts.passage_text(e) for e in evidence])
    if problem:
        _LOGGER.info("compose answer not grounded (%s); using extractive", problem)
        return Composed("", why=problem)
    return Composed(prompts.label_citations(prompts.add_citations(text, evidence), evidence))


def loaded_chat_models() -> list[LocalEngine]:
    """Chat engines loaded in this process (``auto`` prefers these)."""
    with _REGISTRY_LOCK:
        return [e for e, _ in _ENGINES.values() if e.state == "ready"]


class LLMService:
    """``core.services.llm``: the one way Mnemolis talks to a model."""

    def __init__(
        self,
        settings: Settings,
        session: Callable[[], aiohttp.ClientSession | None],
        services: Services | None = None,
    ) -> None:
        self.settings = settings
        self._services = services
        self.folder = models_dir(settings)
        self.backend: LocalEngine | RemoteBackend | None = None
        self.embedder: LocalEmbedder | None = None
        self.problem = ""  # why the configured chat model cannot run
        self.note = ""  # why there is no chat model, when that is fine
        self.embedding_problem = ""
        self._convert_bundled = False  # auto found no embedding GGUF: convert the default one
        self._session = session
        self._load_task: asyncio.Task[None] | None = None

    # --- configuration -------------------------------------------------------

    @property
    def configured(self) -> bool:
        """A chat model is configured (maybe still loading or broken)."""
        return self.backend is not None or bool(self.problem)

    @property
    def available(self) -> bool:
        """A loaded, healthy local model or a configured remote server."""
        return self.backend is not None and self.backend.ready

    def _pick_chat(self) -> ModelFile | None:
        spec = (self.settings.llm.model or "").strip()
        if not spec or spec.lower() in ("off", "none"):
            return None
        if spec.lower() == "auto":
            loaded = loaded_chat_models()
            if loaded:
                return loaded[0].info
            found = scan(self.folder)
            if found.chat:
                return found.chat[0]
            if found.unreadable:
                name, why = next(iter(found.unreadable.items()))
                self.problem = f"no usable chat model in {self.folder}: {name}: {why}"
            else:
                self.note = f"no chat model in {self.folder} yet (llm.model: auto)"
            return None
        try:
            path = resolve(spec, self.folder)
        except GGUFError as err:
            self.problem = str(err)
            return None
        if not path.is_file():
            self.problem = f"model file {path} not found (llm.model={spec!r})"
            return None
        try:
            info = read_metadata(path)
        except GGUFError as err:
            self.problem = f"model file {path.name} is unusable: {err}"
            return None
        if info.is_embedding:
            self.problem = (
                f"{path.name} is an embedding model ({info.arch}); set it as "
                "llm.embedding_model and choose a chat model for llm.model"
            )
            return None
        return info

    def _pick_embedding(self) -> ModelFile | None:
        if not self.settings.llm.embedding_expected:
            return None
        spec = (self.settings.llm.embedding_model or "auto").strip()
        if spec.lower() == "auto":
            found = scan(self.folder)
            if found.embedding:
                return found.embedding[0]
            # Nothing dropped in: the bundled all-MiniLM-L6-v2, converted on first start.
            self._convert_bundled = bundled.available()
            return None
        try:
            path = resolve(spec, self.folder)
            if not path.is_file():
                self.embedding_problem = f"embedding model file {path} not found"
                return None
            info = read_metadata(path)
        except GGUFError as err:
            self.embedding_problem = f"embedding model {spec!r} is unusable: {err}"
            return None
        if not info.is_embedding:
            self.embedding_problem = (
                f"{path.name} is a {info.arch} model, not an embedding model "
                f"(expected one of bert, nomic-bert, …)"
            )
            return None
        return info

    # --- lifecycle -----------------------------------------------------------

    async def start(self) -> None:
        """Choose models and start loading them in the background."""
        llm = self.settings.llm
        if llm.base_url:
            self.backend = RemoteBackend(llm, self._session)
        else:
            info = self._pick_chat()
            if info is not None:
                self.backend = _acquire_engine(info, self.settings)
        emb = self._pick_embedding()
        if emb is not None:
            self.embedder = _acquire_embedder(emb, self.settings)
        local = [
            x for x in (self.backend, self.embedder) if isinstance(x, LocalEngine | LocalEmbedder)
        ]
        if local or self._convert_bundled:
            self._load_task = asyncio.create_task(self._load(local), name="mnemolis-model-load")

    def _bundled_model(self) -> ModelFile | None:
        """Convert the default embedding model into the models folder (blocking)."""
        try:
            return read_metadata(bundled.ensure_converted(self.folder))
        except Exception as err:  # a read-only folder, a full disk, a broken package
            self.embedding_problem = (
                f"cannot prepare the default embedding model {bundled.NAME} in "
                f"{self.folder}: {err} (semantic search uses the hashing fallback)"
            )
            _LOGGER.warning("%s", self.embedding_problem)
            return None

    async def _load(self, parts: Sequence[LocalEngine | LocalEmbedder]) -> None:
        problem = await asyncio.to_thread(cpu_problem)
        if problem:
            for part in parts:
                part.state, part.error = "failed", problem
            _LOGGER.error("local inference disabled: %s", problem)
            return
        if self._convert_bundled and self.embedder is None:
            info = await asyncio.to_thread(self._bundled_model)
            if info is not None:
                self.embedder = _acquire_embedder(info, self.settings)
                parts = [*parts, self.embedder]
        for part in parts:
            if part.state == "loading":
                await part.wait_loaded()
        # Published once usable, so the knowledge store never waits on a broken model.
        if self.embedder is not None and self.embedder.ready and self._services is not None:
            self._services.embedder = self.embedder

    async def wait_ready(self) -> None:
        """Wait until background loading has finished (either way)."""
        if self._load_task is not None:
            await asyncio.shield(self._load_task)

    async def stop(self) -> None:
        """Release the models (freed when no other core uses them)."""
        if self._load_task is not None and not self._load_task.done():
            self._load_task.cancel()
        if isinstance(self.backend, LocalEngine):
            engine = _release(_ENGINES, self.backend)
            if engine is not None:
                await asyncio.to_thread(engine.close)
        if self.embedder is not None:
            if self._services is not None and self._services.embedder is self.embedder:
                self._services.embedder = None
            embedder = _release(_EMBEDDERS, self.embedder)
            if embedder is not None:
                await asyncio.to_thread(embedder.close)
        self.backend = None
        self.embedder = None

    async def health(self) -> ComponentHealth:
        """Readiness of the model component: down when a configured model cannot run."""
        parts: list[str] = []
        state: ComponentState = "ok"
        backend = self.backend
        if self.problem:
            return ComponentHealth("down", self.problem)
        if backend is None:
            parts.append((self.note or "no chat model configured") + " (answers are extractive)")
        elif isinstance(backend, RemoteBackend):
            try:
                await backend.models()
                parts.append(f"remote {backend.base_url} ({backend.model_id})")
            except MnemolisError as err:
                state = "degraded"
                parts.append(err.message)
        elif backend.state == "ready":
            parts.append(f"{backend.model_id} loaded (context {backend.n_ctx})")
        elif backend.state == "loading":
            state = "degraded"
            parts.append(f"loading {backend.model_id}")
        else:
            return ComponentHealth("down", backend.error or f"{backend.model_id} unusable")
        if self.embedding_problem:
            state = "degraded" if state == "ok" else state
            parts.append(self.embedding_problem)
        elif self.embedder is None and self._convert_bundled:
            state = "degraded" if state == "ok" else state
            parts.append(f"preparing the embedding model {bundled.NAME}")
        elif self.embedder is not None:
            if self.embedder.state == "ready":
                parts.append(f"embeddings: {self.embedder.name} ({self.embedder.dim} dims)")
            elif self.embedder.state == "loading":
                state = "degraded" if state == "ok" else state
                parts.append(f"loading embeddings {self.embedder.name}")
            else:
                state = "degraded" if state == "ok" else state
                parts.append(self.embedder.error)
        return ComponentHealth(state, "; ".join(parts))

    # --- requests ------------------------------------------------------------

    def _backend(self) -> LocalEngine | RemoteBackend:
        if self.backend is None:
            raise Unavailable(
                self.problem
                or "no model is configured: set llm.model (a GGUF file in "
                f"{self.folder}, or auto) or llm.base_url"
            )
        return self.backend

    async def chat(self, params: ChatParams) -> Generation:
        """Start a chat completion on the configured backend."""
        return await self._backend().start(params)

    async def complete(self, params: ChatParams, timeout: float | None = None) -> ChatResult:
        """A whole completion; the generation stops if the timeout passes."""
        gen = await self.chat(params)
        try:
            async with asyncio.timeout(timeout or self.settings.llm.timeout):
                return await gen.collect()
        finally:
            gen.cancel()

    async def list_models(self) -> list[dict[str, Any]]:
        """Chat model(s) and the embedding model, in ``/v1/models`` form."""
        out: list[dict[str, Any]] = []
        if isinstance(self.backend, RemoteBackend):
            out.extend(await self.backend.models())
        elif isinstance(self.backend, LocalEngine):
            out.append(self.backend.describe())
        if self.embedder is not None:
            out.append(self.embedder.describe())
        return out

    def _short_timeout(self) -> float:
        return min(self.settings.llm.timeout, self.settings.routing.source_timeout)

    async def compose(self, question: str, evidence: list[Evidence]) -> str | None:
        """A grounded answer over fused evidence with citations; None on failure or refusal."""
        written = await self.compose_grounded(question, evidence)
        return written.text or None

    async def compose_grounded(
        self,
        question: str,
        evidence: list[Evidence],
        timeout: float | None = None,
        now: datetime | None = None,
    ) -> Composed:
        """The model's answer from the passages alone, cited; empty with the reason when the
        extractive answer should stand (no model, no output, ungrounded, too slow)."""
        if not self.available or not evidence:
            return Composed("", why="no model" if evidence else "no passages")
        params = ChatParams(
            messages=prompts.compose_messages(question, evidence, now),
            max_tokens=COMPOSE_TOKENS,
            temperature=0.0,
            seed=0,
            stop=prompts.COMPOSE_STOPS,
        )
        try:
            result = await self.complete(params, timeout=timeout or self.settings.routing.deadline)
        except (MnemolisError, TimeoutError) as err:
            _LOGGER.info("compose fell back to the extractive answer: %s", err)
            return Composed("", why=f"the model failed or was too slow: {err or 'timeout'}")
        return judge_composed(result.content, question, evidence)

    async def classify(self, question: str, sources: list[str]) -> list[str] | None:
        """Sources that can answer, chosen by the model under a JSON schema; None on failure."""
        if not self.available or not sources:
            return None
        params = ChatParams(
            messages=prompts.classify_messages(question, sources),
            max_tokens=48,
            temperature=0.0,
            seed=0,
            json_schema=prompts.classify_schema(sources),
            choices=prompts.classify_choices(sources),
        )
        try:
            result = await self.complete(params, timeout=self._short_timeout())
            data = json.loads(result.content)
        except (MnemolisError, TimeoutError, ValueError) as err:
            _LOGGER.info("model routing failed: %s", err)
            return None
        picked = data.get("sources") if isinstance(data, dict) else None
        if not isinstance(picked, list):
            return None
        chosen = [s for s in dict.fromkeys(picked) if isinstance(s, str) and s in sources]
        return chosen or None

    async def spoken(self, text: str) -> str:
        """A voice-friendly form: no markdown or URLs, one or two sentences."""
        fallback = spoken_form(text)
        if not self.available or not fallback:
            return fallback
        params = ChatParams(
            messages=prompts.spoken_messages(text),
            max_tokens=80,
            temperature=0.0,
            seed=0,
            stop=["\n\n"],
        )
        try:
            result = await self.complete(params, timeout=self._short_timeout())
        except (MnemolisError, TimeoutError):
            return fallback
        short = spoken_form(prompts.first_paragraph(result.content))
        # A small model may drift: keep its wording only when it says the same thing.
        if (
            not short
            or len(short) > len(fallback) * 1.5
            or not prompts.grounded(short, text)
            or prompts.overlap(short, text) < 0.75
            or not prompts.keeps_every_sentence(short, fallback)
        ):
            return fallback
        return short

    async def embed(self, texts: list[str]) -> tuple[list[list[float]], int, str]:
        """Vectors, tokens used and the model name (for ``/v1/embeddings``)."""
        if self.embedder is None:
            raise Unavailable(
                self.embedding_problem
                or f"no embedding model: drop a GGUF embedding model (bert, nomic-bert, …) "
                f"into {self.folder} or set llm.embedding_model"
            )
        vectors, tokens = await self.embedder.embed_counted(texts)
        return vectors, tokens, self.embedder.name
