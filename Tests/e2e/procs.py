"""Processes for the end-to-end suite: the gateway, publishers, free ports, artifact folders.

Nothing here builds: `make test` builds first. The binary is SLUICE_BIN or .build/debug/sluice.
Callers stop what they start (conftest fixtures do it in finalizers).
"""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Optional

import pytest

from waiting import eventually

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / ".build" / "e2e-artifacts"
SLUICE = Path(os.environ.get("SLUICE_BIN", REPO / ".build" / "debug" / "sluice"))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def config_path() -> Optional[Path]:
    if os.environ.get("SLUICE_CONFIG"):
        return Path(os.environ["SLUICE_CONFIG"])
    for name in ("sluice.yaml", "sluice.yml", "default.yaml"):
        p = REPO / "Config" / name
        if p.exists():
            return p
    return None


def _stop(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 10) -> Optional[int]:
    """Signal one process (never a group we did not make), then kill it if it lingers."""
    if proc.poll() is not None:
        return proc.returncode
    try:
        proc.send_signal(sig)
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
        return None


class Gateway:
    """One `sluice serve` on free loopback ports, logging to the test's artifact folder."""

    def __init__(self, workdir: Path, extra: Optional[list[str]] = None, config: Optional[Path] = None,
                 env: Optional[dict[str, str]] = None, cpus: Optional[set[int]] = None):
        self.workdir = workdir
        # CPUs the gateway (every thread it starts) may run on; None: all.
        self.cpus = cpus
        self.env = {**os.environ, **env} if env else None
        self.config = config
        self.rtmp_port, self.http_port = free_port(), free_port()
        self.srt_port: Optional[int] = None
        self.log_path = workdir / "gateway.log"
        self.extra = extra or []
        self.proc: Optional[subprocess.Popen] = None
        self.exit_code: Optional[int] = None
        self.stop_seconds: Optional[float] = None

    def start(self, timeout: float = 30) -> "Gateway":
        if not SLUICE.exists():
            pytest.fail(f"{SLUICE} does not exist: run `make build` (or `make test`, which builds first)")
        cmd = [str(SLUICE), "serve"]
        cfg = self.config or config_path()
        if cfg:
            cmd += ["--config", str(cfg)]
        cmd += ["--bind", "127.0.0.1", "--rtmp-port", str(self.rtmp_port), "--http-port", str(self.http_port),
                "--log-level", os.environ.get("SLUICE_E2E_LOG_LEVEL", "info")] + self.extra
        if "--webrtc-port" not in self.extra:
            # The WebRTC UDP port is exclusive (8189 by default): each test gateway takes a free one.
            cmd += ["--webrtc-port", str(free_port())]
        if "--srt-port" not in self.extra:
            # The SRT UDP port is exclusive too (8890 by default).
            self.srt_port = free_port()
            cmd += ["--srt-port", str(self.srt_port)]
        self.cmd = cmd
        self._log = open(self.log_path, "wb")
        cpus = self.cpus
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=self.env,
                                     preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
        def announced() -> bool:
            if self.proc.poll() is not None:
                pytest.fail(f"sluice serve exited with {self.proc.returncode} at start:\n{self.log()[-3000:]}")
            text = self.log()
            return "rtmp://" in text and bool(re.search(r"http://.*index\.m3u8", text)) and self._accepts()

        if eventually(announced, timeout):
            return self
        pytest.fail(f"sluice serve did not announce rtmp:// and http://...index.m3u8 within {timeout} s:\n"
                    f"{' '.join(cmd)}\n{self.log()[-3000:]}")

    def _accepts(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.http_port), timeout=0.5):
                return True
        except OSError:
            return False

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def rtmp_url(self, key: str) -> str:
        return f"rtmp://127.0.0.1:{self.rtmp_port}/live/{key}"

    def srt_url(self, streamid: str, **params: str) -> str:
        query = "".join(f"&{k}={v}" for k, v in params.items())
        return f"srt://127.0.0.1:{self.srt_port}?streamid={streamid}{query}"

    def hls_url(self, key: str) -> str:
        return f"http://127.0.0.1:{self.http_port}/live/{key}/index.m3u8"

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> Optional[int]:
        if self.proc is None:
            return None
        if self.exit_code is None and self.proc.poll() is None:
            t0 = time.monotonic()
            self.exit_code = _stop(self.proc, sig, timeout)
            self.stop_seconds = time.monotonic() - t0
        elif self.exit_code is None:
            self.exit_code = self.proc.returncode
        self._log.close()
        return self.exit_code


class Publisher:
    """A publishing process (ffmpeg or `sluice publish`) with its own log."""

    def __init__(self, cmd: list[str], log_path: Path):
        self.cmd, self.log_path = cmd, log_path
        self._log = open(log_path, "ab")
        self._log.write(("$ " + " ".join(cmd) + "\n").encode())
        self._log.flush()
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def wait(self, timeout: float) -> Optional[int]:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, sig: int = signal.SIGTERM) -> Optional[int]:
        code = _stop(self.proc, sig, 5)
        self._log.close()
        return code

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


# One-second segments (the encoders below use a 1 s GOP) give the short runs enough segments.
FAST_SEGMENTS = ["--segment-target-seconds", "1", "--part-target-ms", "200"]


def ffmpeg_cmd(url: str, seconds: float, *, bframes: int = 0, size: str = "1280x720", rate: int = 30,
               gop: Optional[int] = None) -> list[str]:
    cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "warning", "-re",
           "-f", "lavfi", "-i", f"testsrc2=size={size}:rate={rate}",
           "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
           "-t", str(seconds), "-c:v", "libx264", "-preset", "veryfast"]
    cmd += ["-bf", str(bframes)] if bframes else ["-tune", "zerolatency"]
    # A fixed GOP when asked (no scene-cut keyframes in between); else one second.
    cmd += ["-g", str(gop), "-keyint_min", str(gop), "-sc_threshold", "0"] if gop else ["-g", str(rate)]
    cmd += ["-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-f", "flv", url]
    return cmd


def sluice_publish_cmd(url: str, seconds: float, source: str = "testsrc", bframes: Optional[int] = None) -> list[str]:
    cmd = [str(SLUICE), "publish", source, url, "--duration", str(seconds)]
    if bframes is not None:
        cmd += ["--bframes", str(bframes)]
    return cmd


def format_violations(vs, limit: int = 40) -> str:
    vs = list(vs)
    lines = [str(v) for v in vs[:limit]]
    if len(vs) > limit:
        lines.append(f"... and {len(vs) - limit} more")
    return "\n".join(lines)
