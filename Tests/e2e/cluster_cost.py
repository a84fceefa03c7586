"""What relaying costs (docs/SCALING.md's capacity plan): redis-server, two `sluice serve` nodes sharing it, FFmpeg
publishing one 640x360 stream (no ladder) to node A; `sluice bench --viewers N` asks node B, which relays the stream
from A. Prints each node's CPU (% of a core) idle, then while B relays, and B's relay counters.

    SLUICE_BIN=.build/release/sluice python3 Tests/e2e/cluster_cost.py [VIEWERS] [SECONDS]
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from procs import ARTIFACTS, FAST_SEGMENTS, SLUICE, Gateway, Publisher, ffmpeg_cmd  # noqa: E402
from test_cluster import Redis  # noqa: E402
from waiting import eventually  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def cpu_percent(pids: list[int], seconds: float) -> list[float]:
    before = [cpu_seconds(p) for p in pids]
    time.sleep(seconds)
    return [100 * (cpu_seconds(p) - b) / seconds for p, b in zip(pids, before)]


def main() -> None:
    viewers = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 20
    workdir = ARTIFACTS / "cluster_cost"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    redis = Redis(workdir)
    nodes = []
    pub = None
    try:
        for name in ("a", "b"):
            d = workdir / name
            d.mkdir()
            g = Gateway(d, FAST_SEGMENTS + ["--transcode", "off", "--cluster-redis", redis.url])
            g.extra += ["--node-url", f"http://127.0.0.1:{g.http_port}"]
            nodes.append(g.start())
        a, b = nodes
        pub = Publisher(ffmpeg_cmd(a.rtmp_url("cost"), seconds * 2 + 60, size="640x360"), workdir / "pub.log")
        assert eventually(lambda: requests.get(f"http://127.0.0.1:{b.http_port}/live/cost/video.m3u8",
                                               timeout=12).status_code == 200, 40, period=0.3,
                          ignoring=(requests.RequestException,))
        time.sleep(3)
        load = open("/proc/loadavg").read().split()[:3]
        idle = cpu_percent([a.proc.pid, b.proc.pid], seconds)
        bench = subprocess.Popen(
            [str(SLUICE), "bench", "--viewers", str(viewers), "--gateway",
             f"http://127.0.0.1:{b.http_port}/live/cost/video.m3u8", "--duration", str(seconds + 6)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(3)
        busy = cpu_percent([a.proc.pid, b.proc.pid], seconds)
        out, _ = bench.communicate(timeout=seconds + 60)
        stats = requests.get(f"http://127.0.0.1:{b.http_port}/api/cluster", timeout=5).json()["relay"]
        print(out[-1500:])
        print(json.dumps({"viewers": viewers, "seconds": seconds, "load": load,
                          "idle_cpu_percent": {"owner": round(idle[0], 1), "relay": round(idle[1], 1)},
                          "relaying_cpu_percent": {"owner": round(busy[0], 1), "relay": round(busy[1], 1)},
                          "relay": stats, "load_after": open("/proc/loadavg").read().split()[:3]}))
    finally:
        if pub is not None:
            pub.stop()
        for g in nodes:
            g.stop()
        redis.stop()


if __name__ == "__main__":
    main()
