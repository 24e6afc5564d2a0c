"""Local inference: Mnemolis's streaming ``/v1/chat/completions`` against bare llama-cpp-python.

Same GGUF (Gemma 3 270M Q4_K_M from the test package), same prompt, same
context size, threads and sampling (greedy, end-of-text banned so both make
exactly ``--tokens`` tokens); the two paths alternate round by round so
background load hits both alike. Prints time to first token, decode speed
and end-to-end tokens/s, the throughput ratio (target ≥ 0.95), and the
server's RSS with and without the model loaded.

    .venv/server/bin/python bench/llm_bench.py [--rounds 6] [--tokens 128] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.server.conftest import SERVER_BIN, free_port, wait_http  # noqa: E402
from tests.server.model_fixture import chat_model_file  # noqa: E402

MESSAGES = [
    {
        "role": "system",
        "content": "You are a helpful assistant for a smart home. Answer in plain text.",
    },
    {"role": "user", "content": "Count from one to five hundred: 1, 2, 3, 4, 5, 6, 7,"},
]
# Gemma's end-of-generation tokens, banned so every run makes exactly N tokens.
NO_EOS = {1: -100.0, 106: -100.0}


def rss_mib(pid: int) -> float:
    """Resident set size of a process, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Server:
    """A real ``mnemolis serve`` process."""

    def __init__(self, env: dict[str, str], data_dir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOLIS_")}
        full_env.update(env)
        self.log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)  # noqa: SIM115
        self.proc = subprocess.Popen(
            [str(SERVER_BIN), "serve", "--port", str(self.port), "--data-dir", str(data_dir)],
            env=full_env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        wait_http(f"{self.url}/api/health", timeout=60)

    def wait_model(self, timeout: float = 180) -> None:
        """Until readiness says the model is loaded."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/api/health/readiness", timeout=5) as r:
                    body = json.load(r)
            except urllib.error.HTTPError as err:
                body = json.load(err)
            detail = body["components"]["model"]["detail"]
            if body["components"]["model"]["status"] == "ok" and "loaded" in detail:
                return
            if body["components"]["model"]["status"] == "down":
                raise RuntimeError(detail)
            time.sleep(0.2)
        raise TimeoutError("model did not load")

    def stop(self) -> None:
        """SIGTERM, bounded wait."""
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


Run = tuple[float, float, str, int]


def run_server(url: str, tokens: int) -> Run:
    """One streamed completion: (ttft s, total s, text, completion tokens)."""
    body = {
        "messages": MESSAGES,
        "max_tokens": tokens,
        "temperature": 0,
        "stream": True,
        "logit_bias": {str(k): v for k, v in NO_EOS.items()},
        "stream_options": {"include_usage": True},
    }
    req = urllib.request.Request(
        f"{url}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    started = time.perf_counter()
    first = 0.0
    completion = 0
    parts: list[str] = []
    with urllib.request.urlopen(req, timeout=600) as resp:
        for raw in resp:
            line = raw.decode().strip()
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            if chunk.get("usage"):
                completion = chunk["usage"]["completion_tokens"]
            choices = chunk.get("choices") or []
            piece = choices[0]["delta"].get("content") if choices else None
            if piece:
                parts.append(piece)
                first = first or time.perf_counter() - started
    return first, time.perf_counter() - started, "".join(parts), completion


def run_bare(llama: Any, prompt: list[int], stops: list[str], tokens: int) -> Run:
    """The same completion straight through llama-cpp-python's streaming API."""
    started = time.perf_counter()
    first = 0.0
    parts: list[str] = []
    for chunk in llama.create_completion(
        prompt,
        max_tokens=tokens,
        temperature=0,
        stream=True,
        stop=stops,
        logit_bias=NO_EOS,
        repeat_penalty=1.0,
    ):
        piece = chunk["choices"][0]["text"]
        if piece:
            parts.append(piece)
            # Like the server, which trims the answer's leading whitespace.
            if piece.strip():
                first = first or time.perf_counter() - started
    text = "".join(parts)
    # Greedy decoding on the same prompt: the same tokens as the server made.
    return first, time.perf_counter() - started, text, 0


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def main() -> int:
    """Measure both paths and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--context", type=int, default=4096)
    args = parser.parse_args()

    from llama_cpp import Llama

    from mnemolis.llm.catalog import read_metadata
    from mnemolis.llm.templates import build_formatter

    model = chat_model_file()
    with tempfile.TemporaryDirectory() as tmp:
        bare_srv = Server({}, Path(tmp) / "bare")
        time.sleep(1.0)
        rss_without = rss_mib(bare_srv.proc.pid)
        bare_srv.stop()

        server = Server(
            {
                "MNEMOLIS_LLM__MODEL": str(model),
                "MNEMOLIS_LLM__EMBEDDING_MODEL": "off",
                "MNEMOLIS_LLM__THREADS": str(args.threads),
                "MNEMOLIS_LLM__CONTEXT": str(args.context),
            },
            Path(tmp) / "model",
        )
        try:
            server.wait_model()
            rss_with = rss_mib(server.proc.pid)
            llama = Llama(
                model_path=str(model),
                n_ctx=args.context,
                n_threads=args.threads,
                n_threads_batch=args.threads,
                n_batch=512,
                verbose=False,
            )
            formatter, _, extra_stops = build_formatter(read_metadata(model), llama)
            rendered = formatter(messages=MESSAGES)
            prompt = llama.tokenize(rendered.prompt.encode(), add_bos=False, special=True)
            stops = [*extra_stops, *([rendered.stop] if isinstance(rendered.stop, str) else [])]
            stops += list(rendered.stop) if isinstance(rendered.stop, list) else []
            # Warm-up both (page cache, first allocations), not measured.
            run_server(server.url, 8)
            run_bare(llama, prompt, stops, 8)
            results: dict[str, list[Run]] = {"mnemolis": [], "bare": []}
            for i in range(args.rounds):
                order = ["mnemolis", "bare"] if i % 2 == 0 else ["bare", "mnemolis"]
                for path in order:
                    if path == "mnemolis":
                        results[path].append(run_server(server.url, args.tokens))
                    else:
                        results[path].append(run_bare(llama, prompt, stops, args.tokens))
            rss_peak = rss_mib(server.proc.pid)
        finally:
            server.stop()

    load = os.getloadavg()[0]
    print(
        f"model {model.name}, {args.tokens} tokens per run, {args.rounds} runs per path, "
        f"{args.threads} threads, context {args.context}, load average {load:.1f}"
    )
    print()
    texts = {r[2].strip() for runs in results.values() for r in runs}
    if len(texts) != 1:
        raise SystemExit(f"the two paths generated different text; the comparison is void: {texts}")
    n_tokens = results["mnemolis"][0][3]
    print(f"every run generated the same {n_tokens} tokens on both paths")
    print()
    print(
        "| path | runs | TTFT p50 ms | TTFT p95 ms | decode tok/s p50 | "
        "end-to-end tok/s p50 | end-to-end tok/s mean |"
    )
    print("|---|---|---|---|---|---|---|")
    summary: dict[str, float] = {}
    for path, runs in results.items():
        ttft = [r[0] * 1000 for r in runs]
        decode = [(n_tokens - 1) / (r[1] - r[0]) for r in runs if r[1] > r[0]]
        e2e = [n_tokens / r[1] for r in runs]
        summary[path] = statistics.mean(e2e)
        print(
            f"| {path} | {len(runs)} | {pct(ttft, 50):.0f} | {pct(ttft, 95):.0f} | "
            f"{pct(decode, 50):.1f} | {pct(e2e, 50):.1f} | {summary[path]:.1f} |"
        )
    print()
    # Rounds alternate the two paths back to back, so each round's ratio compares
    # runs under the same background load; the median discards load spikes.
    paired = [b[1] / m[1] for m, b in zip(results["mnemolis"], results["bare"], strict=True)]
    ratio = statistics.median(paired)
    mean_ratio = summary["mnemolis"] / summary["bare"]
    verdict = "met" if ratio >= 0.95 else "NOT met"
    print(
        f"Mnemolis / bare throughput: median of paired rounds {ratio:.3f}, "
        f"ratio of means {mean_ratio:.3f} (target ≥ 0.95 on the median: {verdict})"
    )
    print()
    print("| server | RSS MiB |")
    print("|---|---|")
    print(f"| mnemolis serve, no model | {rss_without:.0f} |")
    print(f"| mnemolis serve, model loaded | {rss_with:.0f} |")
    print(f"| mnemolis serve, model loaded, after the runs | {rss_peak:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
