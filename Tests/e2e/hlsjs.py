"""hls.js for the e2e tests and `sluice bench --player hlsjs`: one extraction step, one place on disk.

hls.js 1.6 reaches us inside the PyPI wheel `gradio==6.31.0` (npm is unreachable): its templates hold an
ES-module chunk containing hls.js; that chunk exports a helper `(video, url) -> Hls instance`, and the
instance's `constructor` is the Hls class. `make hlsjs` (a dependency of `make test` and `make bench`)
runs this file, which downloads the wheel with pip into .build/hlsjs/ and writes the chunk to
.build/hlsjs/hls-chunk.js. Never commit either.

    python3 Tests/e2e/hlsjs.py      # prints the chunk's path; exit 1 (with the reason) if it cannot
"""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

GRADIO = "gradio==6.31.0"
DIRECTORY = Path(__file__).resolve().parents[2] / ".build" / "hlsjs"
CHUNK = DIRECTORY / "hls-chunk.js"


# Stock hls.js 1.6's append-queue race (buffer-controller), which no playlist or media layout of ours avoids. When one
# SourceBuffer's queue ends a fragment, hls.js steps *every* queue (`stepOperationQueue`): it shifts the other buffer's
# append if that buffer is no longer `updating`, even when the append's `updateend` has not fired yet. That late event
# then shifts the next append while it runs (`onSBUpdateEnd` shifts whatever is first), and the one after is started
# on a busy buffer: Chromium throws, the part is lost, and hls.js seeks over the hole (stalls of 15-133 ms seen).
# Traced with a logging copy of hls.js (hlsjs_race_probe.py) at start-up, where both buffers append a segment's parts
# in step: 4 of 105 and 7 of 108 joins beside a busy core and two other players, none of 87 alone; equal audio and
# video part counts did not avoid it (docs/LLHLS.md).
APPEND_RACE = "This SourceBuffer is still processing an 'appendBuffer'"
# The longest stall the race may explain, and how soon after the lost part it comes (hls.js finds the hole when
# playback reaches it).
APPEND_RACE_STALL_MS = 300
APPEND_RACE_WINDOW_MS = 3000


def is_append_race(said: str) -> bool:
    """True for hls.js's `bufferAppendError` of its own append race (`APPEND_RACE`), by what the browser said."""
    return "bufferAppendError" in said and APPEND_RACE in said


def append_race_explains(errors: list[tuple[float, str]], waits: list[float], stalled_ms: float) -> bool:
    """True when hls.js's own append race explains a player's stalls: one is among `errors` ([ms, what]), at most two
    stalls (`waits`: when each began, ms; the caller has seen each one end) each began within the window after one,
    and together they lasted `stalled_ms`, no longer than a hole that race leaves."""
    races = [t for t, said in errors if is_append_race(said)]
    return bool(races) and len(waits) <= 2 and stalled_ms <= APPEND_RACE_STALL_MS and all(
        any(0 <= w - t <= APPEND_RACE_WINDOW_MS for t in races) for w in waits)


class Unavailable(Exception):
    """The wheel could not be downloaded (no route to PyPI?) or holds no hls.js chunk."""


def extract() -> Path:
    """The hls.js chunk, downloading and unpacking the wheel the first time."""
    if CHUNK.exists():
        return CHUNK
    DIRECTORY.mkdir(parents=True, exist_ok=True)
    wheels = sorted(DIRECTORY.glob("gradio-6.31.0-*.whl"))
    if not wheels:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "--retries", "1", "--timeout", "15", GRADIO, "-d", str(DIRECTORY)]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            why = (r.stderr or r.stdout).strip()[-300:]
        except subprocess.TimeoutExpired:
            r, why = None, "pip download timed out after 300 s"
        wheels = sorted(DIRECTORY.glob("gradio-6.31.0-*.whl"))
        if r is None or r.returncode != 0 or not wheels:
            raise Unavailable(f"hls.js comes from the PyPI wheel {GRADIO}, which could not be downloaded: {why}")
    found = []
    with zipfile.ZipFile(wheels[0]) as z:
        for name in z.namelist():
            if "/templates/" in name and name.endswith(".js"):
                data = z.read(name)
                if b"lowLatencyMode" in data and b"export{" in data:
                    found.append((name, data))
    if not found:
        raise Unavailable(f"no ES-module chunk containing lowLatencyMode under templates/ in {wheels[0].name}")
    # The browser build (frontend/assets) before the server-side one.
    found.sort(key=lambda x: ("/frontend/" not in x[0], x[0]))
    tmp = CHUNK.with_suffix(".tmp")
    tmp.write_bytes(found[0][1])
    tmp.rename(CHUNK)
    (DIRECTORY / "hls-chunk.source").write_text(found[0][0] + "\n")
    return CHUNK


if __name__ == "__main__":
    try:
        print(extract())
    except Unavailable as e:
        print(f"hlsjs: {e}", file=sys.stderr)
        sys.exit(1)
