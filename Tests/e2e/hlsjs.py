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
