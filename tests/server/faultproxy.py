"""A fault-injecting TCP proxy (and a background event loop to run it and stub apps).

The proxy sits in front of a real backend (kiwix-serve, Home Assistant, the
wire-format stubs) and, per mode, passes traffic through, delays the
backend's bytes, refuses connections, cuts the response off after a few
bytes, or answers with garbage without asking the backend. Switching mode
closes every open connection, so long-lived websockets see the fault too.
Everything runs on its own thread, so tests that drive real server processes
(sync or async) and benchmarks can use it alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, Literal

from aiohttp import web

Mode = Literal["pass", "slow", "refuse", "drop", "garbage"]
MODES: tuple[Mode, ...] = ("slow", "refuse", "drop", "garbage")

GARBAGE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 48\r\n"
    b"Connection: close\r\n\r\n\x00\x17<<< not what you asked for {{{ \xff\xfe ]]] \x00\x00\x00\x00"
)


class BackgroundLoop:
    """An asyncio loop on a daemon thread; coroutines are run on it from any thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self._runners: list[web.AppRunner] = []
        self._proxies: list[FaultProxy] = []

    def run[T](self, coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        """Run ``coro`` on the loop and wait for its result."""
        fut: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return fut.result(timeout)

    def serve_app(self, app: web.Application) -> str:
        """Serve an aiohttp app on a free local port; returns its base URL."""

        async def start() -> str:
            runner = web.AppRunner(app, handle_signals=False)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            self._runners.append(runner)
            server = site._server
            assert server is not None
            port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            return f"http://127.0.0.1:{port}"

        return self.run(start())

    def proxy(self, upstream_host: str, upstream_port: int) -> FaultProxy:
        """A fault proxy in front of ``upstream_host:upstream_port``, in pass mode."""
        proxy = FaultProxy(self, upstream_host, upstream_port)
        self.run(proxy.start())
        self._proxies.append(proxy)
        return proxy

    def close(self) -> None:
        """Stop every app and the loop."""

        async def stop() -> None:
            for proxy in self._proxies:
                await proxy._stop_listening()
                proxy._cut_all()
            for runner in self._runners:
                await runner.cleanup()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        with contextlib.suppress(Exception):
            self.run(stop(), timeout=15)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()


class FaultProxy:
    """One listening port forwarding to one backend, with a switchable failure mode."""

    def __init__(self, owner: BackgroundLoop, upstream_host: str, upstream_port: int) -> None:
        self._owner = owner
        self.upstream = (upstream_host, upstream_port)
        self.mode: Mode = "pass"
        self.delay = 5.0
        self.drop_after = 64
        self.port = 0
        self._server: asyncio.Server | None = None
        self._conns: set[asyncio.StreamWriter] = set()
        self.connections = 0

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` of the proxy."""
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Listen (on the same port again after a ``refuse`` phase)."""
        self._server = await asyncio.start_server(
            self._handle, "127.0.0.1", self.port, reuse_address=True
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def _stop_listening(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    def _cut_all(self) -> None:
        for writer in list(self._conns):
            writer.transport.abort()
        self._conns.clear()

    def set(self, mode: Mode) -> None:
        """Switch mode; open connections are cut so the new mode applies at once."""

        async def switch() -> None:
            previous = self.mode
            self.mode = mode
            self._cut_all()
            if mode == "refuse":
                await self._stop_listening()
            elif previous == "refuse" or self._server is None:
                await self.start()

        self._owner.run(switch())

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self._conns.add(writer)
        mode = self.mode
        try:
            if mode == "garbage":
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(reader.read(65536), 2)
                writer.write(GARBAGE)
                await writer.drain()
                return
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
            try:
                await asyncio.gather(
                    self._pump(reader, up_writer, mode, upstream=False),
                    self._pump(up_reader, writer, mode, upstream=True),
                )
            finally:
                up_writer.transport.abort()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            self._conns.discard(writer)
            writer.transport.abort()

    async def _pump(
        self, src: asyncio.StreamReader, dst: asyncio.StreamWriter, mode: Mode, upstream: bool
    ) -> None:
        """Copy one direction; the backend's direction carries the fault."""
        sent = 0
        while True:
            data = await src.read(65536)
            if not data:
                dst.transport.abort() if upstream else dst.write_eof()
                return
            if upstream and mode == "slow":
                await asyncio.sleep(self.delay)
            if upstream and mode == "drop":
                room = self.drop_after - sent
                if room <= 0 or len(data) >= room:
                    dst.write(data[: max(room, 0)])
                    with contextlib.suppress(OSError):
                        await dst.drain()
                    dst.transport.abort()
                    return
            dst.write(data)
            sent += len(data)
            await dst.drain()
