"""`GET /api/recordings` over 10,000 recordings (1,000 keys x 10), timed against a gateway binary (docs/BENCHMARKS.md).

Usage: python3 Tests/e2e/reclist_bench.py BINARY [BINARY...] (e.g. .build/release/sluice). Writes the recordings once
under /tmp/reclist (one-segment VOD playlists), starts each binary with `--record /tmp/reclist --transcode off` on
loopback ports, waits until all 10,000 are listed, then times 30 GETs per query with `requests` (a fresh connection
each) and prints median and max; binaries alternate per round so load from other work on the machine hits them alike.
"""
from __future__ import annotations

import pathlib
import socket
import statistics
import subprocess
import sys
import time

import requests

ROOT = pathlib.Path("/tmp/reclist")
QUERIES = ["", "?limit=100", "?key=k500", "?key=k500&from=1795680000&to=1795690000"]


def write_recordings():
    if (ROOT / "k999").exists():
        return
    pl = ("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
          "#EXT-X-MAP:URI=\"video/init-0.mp4\"\n#EXT-X-PROGRAM-DATE-TIME:2026-11-26T08:{m:02d}:00.000Z\n"
          "#EXTINF:1.00000,\nvideo/1.m4s\n#EXT-X-ENDLIST\n")
    for k in range(1000):
        for r in range(10):
            d = ROOT / f"k{k}" / f"20261126T08{r:02d}00Z-e{k}x{r}"
            (d / "video").mkdir(parents=True, exist_ok=True)
            (d / "video.m3u8").write_text(pl.format(m=r))
            (d / "video" / "1.m4s").write_bytes(b"\0" * 1000)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(binary: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    gw = subprocess.Popen([binary, "serve", "--bind", "127.0.0.1", "--rtmp-port", str(free_port()), "--http-port",
                           str(port), "--webrtc-port", str(free_port()), "--srt-port", str(free_port()),
                           "--record", str(ROOT), "--transcode", "off"],
                          stdout=open(f"/tmp/reclist-{port}.log", "w"), stderr=subprocess.STDOUT)
    t0 = time.monotonic()
    while True:
        try:
            r = requests.get(f"http://127.0.0.1:{port}/api/recordings", timeout=60)
            if r.status_code == 200 and len(r.json()) == 10000:
                break
        except requests.RequestException:
            pass
        if gw.poll() is not None or time.monotonic() - t0 > 120:
            raise SystemExit(f"{binary} did not list 10,000 recordings")
        time.sleep(0.05)
    print(f"{binary}: start to the whole index listed {time.monotonic() - t0:.2f} s")
    return gw, port


def main():
    write_recordings()
    gws = [(b, *start(b)) for b in sys.argv[1:]]
    times = {(b, q): [] for b, _, _ in gws for q in QUERIES}
    rows, failures = {}, {}
    try:
        for _ in range(30):
            for b, _, port in gws:
                for q in QUERIES:
                    s = time.perf_counter()
                    r = requests.get(f"http://127.0.0.1:{port}/api/recordings{q}", timeout=60)
                    times[(b, q)].append((time.perf_counter() - s) * 1000)
                    if r.status_code != 200:
                        failures[(b, q)] = failures.get((b, q), 0) + 1
                    else:
                        rows[(b, q)] = len(r.json())
        for (b, q), t in times.items():
            t.sort()
            print(f"{b} GET /api/recordings{q}: {rows.get((b, q))} rows, median {statistics.median(t):.1f} ms, "
                  f"max {t[-1]:.1f} ms, failures {failures.get((b, q), 0)}")
    finally:
        for _, gw, _ in gws:
            gw.terminate()
            gw.wait(10)


if __name__ == "__main__":
    main()
