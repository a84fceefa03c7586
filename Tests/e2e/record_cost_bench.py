"""Recording's cost per stream (docs/BENCHMARKS.md): CPU and bytes written by the gateway over a 60 s publish, with
and without `--record`.

Usage: python3 Tests/e2e/record_cost_bench.py BINARY [ROUNDS] [SECONDS]. Each round starts BINARY twice (without, then
with `--record /tmp/reccost`, `--transcode off`, loopback ports), publishes SECONDS of 1280x720@30 x264 + AAC with the
`ffmpeg` CLI, and reads the gateway's /proc/PID/stat (utime + stime) and /proc/PID/io (write_bytes) just before the
publish and just after it ends; prints CPU % of one core and MB/s written per run, then the medians.
"""
from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import time

import requests

DIR = "/tmp/reccost"
TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def usage(pid: int) -> tuple[float, int]:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14, 15)
    io = dict(line.split(": ") for line in open(f"/proc/{pid}/io").read().splitlines())
    return cpu, int(io["write_bytes"])


def run(binary: str, record: bool, seconds: int) -> tuple[float, float]:
    shutil.rmtree(DIR, ignore_errors=True)
    http, rtmp = free_port(), free_port()
    cmd = [binary, "serve", "--bind", "127.0.0.1", "--rtmp-port", str(rtmp), "--http-port", str(http),
           "--webrtc-port", str(free_port()), "--srt-port", str(free_port()), "--transcode", "off"]
    gw = subprocess.Popen(cmd + (["--record", DIR] if record else []), stdout=open(f"/tmp/reccost-{http}.log", "w"),
                          stderr=subprocess.STDOUT)
    try:
        for _ in range(200):
            try:
                if requests.get(f"http://127.0.0.1:{http}/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                time.sleep(0.1)
        cpu0, w0 = usage(gw.pid)
        t0 = time.monotonic()
        subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i",
                        "testsrc2=size=1280x720:rate=30", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                        "-t", str(seconds), "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency",
                        "-g", "30", "-b:v", "3M", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-f", "flv",
                        f"rtmp://127.0.0.1:{rtmp}/live/cost"], check=True)
        time.sleep(2)  # The last segment closes and is written.
        cpu1, w1 = usage(gw.pid)
        wall = time.monotonic() - t0
        return 100 * (cpu1 - cpu0) / wall, (w1 - w0) / wall / 1e6
    finally:
        gw.terminate()
        gw.wait(20)


def main():
    binary = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    seconds = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    results: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    for i in range(rounds):
        for record in (False, True):
            cpu, mbs = run(binary, record, seconds)
            results[record].append((cpu, mbs))
            print(f"round {i + 1} {'with' if record else 'without'} recording: CPU {cpu:.1f} % of a core, "
                  f"written {mbs:.3f} MB/s", flush=True)
    for record in (False, True):
        cpus, mbs = zip(*results[record])
        print(f"median {'with' if record else 'without'}: CPU {statistics.median(cpus):.1f} %, "
              f"written {statistics.median(mbs):.3f} MB/s over {len(cpus)} runs")


if __name__ == "__main__":
    main()
