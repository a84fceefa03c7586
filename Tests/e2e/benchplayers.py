"""One `sluice bench --player ...` run with real players in headless Chromium, for the tests that read its report and
traces (hls.js from `make hlsjs`; skipped where Chromium or hls.js is missing)."""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import warnings
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


def hlsjs_first_playlist_edge(trace: dict) -> tuple[float, str]:
    """How much media (seconds) the first video playlist hls.js read listed, and its trace line."""
    first = next((e["detail"] for e in trace["events"]
                  if e["viewer"] == 1 and e["type"] == "levelUpdated" and e["detail"].startswith("main ")), None)
    assert first is not None, trace["events"][:20]
    return float(re.search(r"edge=([0-9.]+)", first).group(1)), first


def _viewer_1(trace: dict) -> tuple[list[dict], float, float, list[tuple[float, str]]]:
    """Viewer 1's events, first and last frame shown (ms), and errors ([ms, what])."""
    mine = [e for e in trace["events"] if e["viewer"] == 1]
    shown = [f["shown"] for f in trace["frames"] if f["viewer"] == 1]
    first, last = (min(shown), max(shown)) if shown else (math.inf, 0.0)
    return mine, first, last, [(e["at"], e.get("detail") or "") for e in mine
                               if e["type"] in ("error", "fatal", "pageError")]


def assert_hlsjs_started_cleanly(row: dict, trace: dict) -> None:
    """Viewer 1 had no fatal error and no error before its first frame but hls.js's own append race
    (`hlsjs.APPEND_RACE`), which is let through with a warning."""
    assert row["fatalErrors"] == 0, row
    _, first, _, errors = _viewer_1(trace)
    startup = [(t, said) for t, said in errors if t < first]
    assert len(startup) == row["startupErrors"], (startup, row)
    assert all(hlsjs.is_append_race(said) for _, said in startup), f"hls.js errors before its first frame: {startup}"
    if startup:
        warnings.warn(f"hls.js's own append race before its first frame: {startup}")


def assert_hlsjs_played_cleanly(row: dict, trace: dict, seconds: int) -> None:
    """No error (but hls.js's own append race), no stall (but a short one that race explains), and at least 15 frames
    a second."""
    assert row["levelLoadErrors"] == 0, row
    assert_hlsjs_started_cleanly(row, trace)
    mine, first, last, errors = _viewer_1(trace)
    # The report counts stalls while the publisher ran: the first `stalls` waits after the first frame.
    waits = [e["at"] for e in mine if e["type"] == "waiting" and e["at"] > first][:row["stalls"]]
    if waits:
        assert waits[-1] < last and hlsjs.append_race_explains(errors, waits, row["stalledMs"]), row
        warnings.warn(f"hls.js stalled {row['stalledMs']:.0f} ms after its own append race: {errors}")
    assert row["frames"] >= seconds * 15, row


def run_hlsjs(out: Path, scenario: str, source: str, seconds: int,
              env: Optional[dict[str, str]] = None) -> tuple[dict, dict]:
    """One hls.js run of `scenario`: its report row and its player trace."""
    _, report = run(out, scenario, "hlsjs", source, seconds, env=env)
    [row] = [s for s in report["scenarios"] if s["player"] == "hlsjs"]
    return row, json.loads((out / f"{scenario}-hlsjs.json").read_text())
