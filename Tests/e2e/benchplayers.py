"""One `sluice bench --player ...` run with real players in headless Chromium, for the tests that read its report and
traces (hls.js from `make hlsjs`; skipped where Chromium or hls.js is missing)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Optional

import pytest

import hlsjs
from procs import SLUICE

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def run(out: Path, scenario: str, players: str, source: str, seconds: int,
        env: Optional[dict[str, str]] = None) -> tuple[str, dict]:
    """Runs the bench into `out` (report out.json, stdout/stderr, one trace per player); returns stdout and the
    report."""
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed")
    try:
        chunk = hlsjs.extract()
    except hlsjs.Unavailable as e:
        pytest.skip(str(e))
    out.mkdir(parents=True, exist_ok=True)
    report = out / "out.json"
    report.unlink(missing_ok=True)
    cmd = [str(SLUICE), "bench", "--scenarios", scenario, "--player", players, "--source", source,
           "--duration", str(seconds), "--hlsjs", str(chunk), "--json", str(report), "--player-trace", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=dict(os.environ, **(env or {})))
    (out / "stdout.txt").write_text(p.stdout)
    (out / "stderr.txt").write_text(p.stderr)
    assert p.returncode == 0, f"sluice bench exited {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-2000:]}"
    return p.stdout, json.loads(report.read_text())
