"""Fixtures for the end-to-end suite. Nothing here builds: `make test` builds first.

Every process a fixture starts is killed by its finalizer.
"""
from __future__ import annotations

import re
import signal
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import ARTIFACTS, FAST_SEGMENTS, Gateway, Publisher  # noqa: E402


@pytest.fixture
def workdir(request) -> Path:
    d = ARTIFACTS / re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    d.mkdir(parents=True, exist_ok=True)
    for old in d.iterdir():
        if old.is_file():
            old.unlink()
    return d


@pytest.fixture
def gateway(workdir):
    gw = Gateway(workdir, FAST_SEGMENTS)
    yield gw.start()
    gw.stop()


@pytest.fixture
def publishers(workdir):
    """Factory: publishers(cmd) starts one; all are stopped at teardown."""
    started: list[Publisher] = []

    def start(cmd: list[str], name: str = "publisher") -> Publisher:
        p = Publisher(cmd, workdir / f"{name}.log")
        started.append(p)
        return p

    yield start
    for p in started:
        if p.proc.poll() is None:
            p.stop(signal.SIGKILL)


