"""Start time and memory (issue 30): `mnemolis serve` on a fresh data dir, then again.

Starts the server, polls until it is idle (the bundled docs indexed with a vector for
every chunk from the embedding model, the model loaded, the process quiet), prints the
seconds and RSS; then stops it and starts it again on the same data dir. A third row
starts with the embedding model switched off (RSS without the model).

    PYTHONPATH=addon/src .venv/server/bin/python bench/start_bench.py [--models DIR]

``--models`` is the models folder (default: a fresh one, so the first start converts
the bundled MiniLM like a first start on a user's machine).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

DOCS = "mnemolis-docs"
QUIET_CPU = 0.05  # CPU seconds per poll below which the process is idle
POLL_S = 0.25


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> dict[str, object] | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            data: dict[str, object] = json.loads(resp.read())
            return data
    except (OSError, ValueError):
        return None


def _proc(pid: int) -> tuple[float, float]:
    """(CPU seconds, RSS MiB) of a process from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / tick
    rss = int(fields[21]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    return cpu, rss


def start(data: Path, models: Path, *, model: bool, timeout: float) -> dict[str, float]:
    """One start until idle: seconds, CPU seconds, idle RSS."""
    port = _port()
    cfg = data / "bench.yaml"
    cfg.write_text(
        f"data_dir: {data}\nport: {port}\nllm:\n  models_dir: {models}\n"
        + ("" if model else "  embedding_model: none\n"),
        encoding="utf-8",
    )
    env = {**os.environ, "MNEMOLIS_LOG_LEVEL": "warning"}
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mnemolis", "serve", "--config", str(cfg)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    last_cpu, quiet, ready_at = 0.0, 0, None
    try:
        while time.monotonic() - t0 < timeout:
            time.sleep(POLL_S)
            if proc.poll() is not None:
                raise RuntimeError(f"server exited with {proc.returncode}")
            status = _get(f"{base}/api/rag/{DOCS}")
            cpu, _ = _proc(proc.pid)
            busy = cpu - last_cpu > QUIET_CPU
            last_cpu = cpu
            done = False
            if status is not None:
                emb = status.get("embedder") or {}
                assert isinstance(emb, dict)
                chunks = int(status.get("chunks") or 0)  # type: ignore[call-overload]
                name = str(emb.get("name") or "")
                done = (
                    chunks > 0
                    and int(emb.get("vectors") or 0) >= chunks
                    and (name != "hashing-fallback" or not model)
                )
            if done:  # and the model loaded (a second start has the vectors at once)
                health = _get(f"{base}/api/health/readiness") or {}
                parts = health.get("components") or {}
                assert isinstance(parts, dict)
                done = (parts.get("model") or {}).get("status") == "ok"
            if done and ready_at is None:
                ready_at = time.monotonic() - t0
            quiet = quiet + 1 if done and not busy else 0
            if quiet >= 4:  # a second without work
                cpu, rss = _proc(proc.pid)
                return {
                    "ready_s": ready_at or 0.0,
                    "idle_s": max(ready_at or 0.0, time.monotonic() - t0 - 1.0),
                    "cpu_s": cpu,
                    "rss_mib": rss,
                }
        raise RuntimeError(f"not idle after {timeout:.0f} s")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def main() -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, help="models folder (default: a fresh one)")
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mnemolis-start-") as tmp:
        models = args.models or Path(tmp) / "models"
        models.mkdir(parents=True, exist_ok=True)
        rows = []
        data = Path(tmp) / "data"
        data.mkdir()
        rows.append(
            ("first start (fresh data dir)", start(data, models, model=True, timeout=args.timeout))
        )
        rows.append(
            ("second start (same data dir)", start(data, models, model=True, timeout=args.timeout))
        )
        bare = Path(tmp) / "bare"
        bare.mkdir()
        rows.append(
            ("no embedding model (fresh)", start(bare, models, model=False, timeout=args.timeout))
        )
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} cores")
    print("| start | ready s | idle s | CPU s | idle RSS MiB |")
    print("|---|---|---|---|---|")
    for name, r in rows:
        cells = f"{r['ready_s']:.1f} | {r['idle_s']:.1f} | {r['cpu_s']:.1f} | {r['rss_mib']:.0f}"
        print(f"| {name} | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
