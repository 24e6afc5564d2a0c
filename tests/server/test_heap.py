"""Memory a burst of indexing freed goes back to the system (issue 30)."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from mnemolis import heap
from mnemolis.knowledge.worker import IndexWorker

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _burst() -> bytes:
    """What a parse does: many mid-sized buffers, freed, one small survivor on top."""
    buffers = [bytes(2048) + str(i).encode() for i in range(40_000)]  # about 80 MiB
    survivor = bytes(4096) + buffers[-1][-8:]  # past pymalloc: on the C heap, on top
    del buffers
    return survivor


def test_an_idle_index_worker_gives_freed_memory_back() -> None:
    worker = IndexWorker("test-heap")
    try:
        heap.limit_arenas()
        before = _rss_mib()
        kept = worker.submit(_burst).result(timeout=60)
        # The job's queue emptied: the worker handed the freed pages back.
        worker.submit(lambda: None).result(timeout=60)
        assert kept
        assert _rss_mib() - before < 40, "the burst's 80 MiB stayed resident"
    finally:
        worker.shutdown()


def test_give_back_is_harmless_when_there_is_nothing_to_give() -> None:
    heap.give_back()
    heap.give_back()
