"""The shipped Varnish edge (Config/varnish-edge.vcl) run by a test, and a probe that times one part through it.

`VarnishEdge` starts Debian's varnishd in the foreground from the committed VCL with origin A's port substituted,
plus varnishncsa logging every backend fetch (what the origin was asked). `EdgeProbe` asks the origin and the edge
for the same blocking playlist and the same preload-hinted part at the same moment, so the edge's added delay per
part is the difference between two last bytes of one run, measured where a viewer is.
"""
from __future__ import annotations

import re
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import requests

from procs import REPO, _stop, free_port
from waiting import eventually

HINT = re.compile(r'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="([^"]+)"')
PART_NAME = re.compile(r"/(\d+)\.(\d+)\.m4s$")


class VarnishEdge:
    """varnishd -F with the shipped VCL (origin substituted) and varnishncsa logging backend fetches."""

    def __init__(self, workdir: Path, origin_port: int, rush_exponent: int = 128):
        self.dir = workdir / "varnish"
        # A fresh instance directory: an earlier run's shared memory log must not be read as this run's.
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        text = (REPO / "Config" / "varnish-edge.vcl").read_text()
        marked = '.port = "8080";                                          # SUBSTITUTE: origin A port'
        assert text.count(marked) == 1, "substitution marker moved"
        self.vcl = self.dir / "edge.vcl"
        self.vcl.write_text(text.replace(marked, f'.port = "{origin_port}";'))
        self.port = free_port()
        self.log = open(self.dir / "varnishd.log", "wb")
        # -j none: the test runs as whoever runs it; the documented command line otherwise.
        self.proc = subprocess.Popen(
            ["varnishd", "-F", "-j", "none", "-n", str(self.dir / "n"), "-a", f"127.0.0.1:{self.port}",
             "-f", str(self.vcl), "-s", "malloc,256m", "-p", f"rush_exponent={rush_exponent}",
             "-p", "thread_pool_min=200", "-p", "timeout_idle=75"],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        def healthy() -> bool:
            assert self.proc.poll() is None, (self.dir / "varnishd.log").read_text()
            return requests.get(self.url("/edge-healthz"), timeout=1).status_code == 200

        if not eventually(healthy, 30, period=0.2, ignoring=requests.RequestException):
            raise AssertionError("varnishd did not answer /edge-healthz:\n" + (self.dir / "varnishd.log").read_text())
        self.fetch_log = self.dir / "backend.log"
        # One line per backend fetch: what the origin was asked, and its status.
        self.ncsa = subprocess.Popen(
            ["varnishncsa", "-n", str(self.dir / "n"), "-b", "-F", "%U%q %s", "-w", str(self.fetch_log)],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def backend_fetches(self) -> list[tuple[str, int]]:
        """(path?query, status) of every request Varnish sent the origin so far."""
        if not self.fetch_log.exists():
            return []
        out = []
        for line in self.fetch_log.read_text(errors="replace").splitlines():
            url, _, status = line.rpartition(" ")
            if url and status.isdigit():
                out.append((url, int(status)))
        return out

    def stop(self) -> None:
        if self.ncsa.poll() is None:
            # SIGINT: varnishncsa flushes its file and exits.
            _stop(self.ncsa, signal.SIGINT, 10)
        if self.proc.poll() is None:
            _stop(self.proc, signal.SIGTERM, 15)
        self.log.close()


@dataclass
class ProbeSample:
    """One part, at the origin and through the edge: kernel arrival instants of the last byte (seconds). The edge is
    asked twice: once at the same moment as the origin, once 20 ms later, so one of them surely waits on a fetch
    already in flight (a collapsed request, what most viewers of a busy edge are)."""
    msn: int
    part: int
    origin_playlist: float
    edge_playlist: float
    edge_playlist_waiter: float
    origin_part: float
    edge_part: float
    edge_part_waiter: float
    edge_part_cache: str

    @property
    def playlist_delay(self) -> float:
        """The later of the edge's two answers after the origin's, milliseconds."""
        return (max(self.edge_playlist, self.edge_playlist_waiter) - self.origin_playlist) * 1000

    @property
    def part_delay(self) -> float:
        return (max(self.edge_part, self.edge_part_waiter) - self.origin_part) * 1000


@dataclass
class ProbeResult:
    samples: list[ProbeSample] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    origin_requests: int = 0


# SO_TIMESTAMPNS (asm-generic/socket.h): each recvmsg carries the kernel's arrival time of its data.
SO_TIMESTAMPNS = 35


class _Conn:
    """One keep-alive HTTP/1.1 connection, as a player holds one, that knows when the last byte reached this host:
    the kernel's receive timestamp, so the probe's own scheduling (2 loaded cores, Python threads) is not measured."""

    def __init__(self, port: int):
        self.port = port
        self.s: Optional[socket.socket] = None
        self.rest = b""

    def _connect(self, timeout: float) -> socket.socket:
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def _recv(self) -> tuple[bytes, Optional[float]]:
        assert self.s is not None
        data, anc, _, _ = self.s.recvmsg(262144, 1024)
        if not data:
            raise ConnectionError("closed by the server")
        for level, kind, raw in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(raw) >= 16:
                sec, nsec = struct.unpack("qq", raw[:16])
                return data, sec + nsec / 1e9
        return data, None

    def get(self, path: str, timeout: float = 10) -> tuple[int, bytes, dict, float]:
        """(status, body, headers, arrival of the last byte in time.time() seconds)."""
        for attempt in range(2):
            try:
                if self.s is None:
                    self.s = self._connect(timeout)
                    self.rest = b""
                self.s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
                return self._response()
            except (OSError, ConnectionError, ValueError):
                if self.s is not None:
                    self.s.close()
                self.s = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def _response(self) -> tuple[int, bytes, dict, float]:
        buf, last = self.rest, time.time()
        while b"\r\n\r\n" not in buf:
            data, at = self._recv()
            buf, last = buf + data, at or time.time()
        head, buf = buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        lower = {k.lower(): v for k, v in headers.items()}
        if "content-length" in lower:
            n = int(lower["content-length"])
            while len(buf) < n:
                data, at = self._recv()
                buf, last = buf + data, at or time.time()
            body, self.rest = buf[:n], buf[n:]
            return status, body, headers, last
        if lower.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                while b"\r\n" not in buf:
                    data, at = self._recv()
                    buf, last = buf + data, at or time.time()
                size_line, buf = buf.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0], 16)
                while len(buf) < size + 2:
                    data, at = self._recv()
                    buf, last = buf + data, at or time.time()
                body, buf = body + buf[:size], buf[size + 2:]
                if size == 0:
                    self.rest = buf
                    return status, body, headers, last
        raise ValueError(f"response without a length: {headers}")


def probe(origin_port: int, edge_port: int, playlist_path: str, seconds: float) -> ProbeResult:
    """For each part in turn: the blocking playlist that lists it and the part itself (its preload hint), asked of
    the origin and of the edge at the same moment; a failed or mismatched answer is counted, never dropped."""
    result = ProbeResult()
    base = playlist_path.rsplit("/", 1)[0]
    keys = ("op", "ep", "epw", "oh", "eh", "ehw")
    conns = {k: _Conn(origin_port if k.startswith("o") else edge_port) for k in keys}
    status, body, _, _ = conns["op"].get(playlist_path)
    result.origin_requests += 1
    assert status == 200, f"{playlist_path}: {status}"
    hint = HINT.search(body.decode())
    end = time.monotonic() + seconds
    while hint and time.monotonic() < end:
        uri = hint.group(1)
        m = PART_NAME.search(uri)
        assert m, uri
        msn, part = int(m.group(1)), int(m.group(2))
        query = f"{playlist_path}?_HLS_msn={msn}&_HLS_part={part}"
        hint_path = f"{base}/{uri}"
        answers: dict[str, tuple] = {}

        def ask(k: str, path: str) -> None:
            if k.endswith("w"):
                time.sleep(0.02)
            try:
                answers[k] = conns[k].get(path)
            except Exception as e:  # noqa: BLE001 - counted as a failure below
                answers[k] = (0, str(e).encode(), {}, time.time())

        threads = [threading.Thread(target=ask, args=(k, p)) for k, p in
                   (("op", query), ("ep", query), ("epw", query), ("oh", hint_path), ("eh", hint_path),
                    ("ehw", hint_path))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(15)
        result.origin_requests += 2
        if any(answers.get(k, (0,))[0] != 200 for k in conns):
            result.failures.append(f"{msn}.{part}: " + ", ".join(f"{k}={answers.get(k, (None,))[0]}" for k in conns))
        elif not answers["oh"][1] == answers["eh"][1] == answers["ehw"][1]:
            result.failures.append(f"{msn}.{part}: the edge's part differs from the origin's")
        else:
            result.samples.append(ProbeSample(msn, part, answers["op"][3], answers["ep"][3], answers["epw"][3],
                                              answers["oh"][3], answers["eh"][3], answers["ehw"][3],
                                              answers["ehw"][2].get("X-Cache", "")))
        # The next hint comes from the origin's answer (the edge's is the same bytes when it works).
        text = answers.get("op", (0, b""))[1].decode(errors="replace")
        hint = HINT.search(text)
        if not hint:
            status, body, _, _ = conns["op"].get(playlist_path)
            result.origin_requests += 1
            hint = HINT.search(body.decode(errors="replace"))
    return result


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]
