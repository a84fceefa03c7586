"""Measures WHEP fan-out on this machine: one gateway, one `ffmpeg -bf 2` + AAC RTMP publisher, N aiortc viewers
(one process) for --seconds; prints the gateway's CPU time per second of wall clock (from /proc), what each viewer
decoded, POST → first decoded frame, and the WHEP counters. Not a test: a number to quote, with its command.

    python3 Tests/e2e/whep_load.py --viewers 50 --size 320x240 --seconds 15
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from procs import ARTIFACTS, FAST_SEGMENTS, Gateway, Publisher, ffmpeg_cmd, free_port  # noqa: E402

HERE = Path(__file__).resolve().parent


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--viewers", type=int, default=10)
    parser.add_argument("--size", default="320x240")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--transcode", default="off")
    args = parser.parse_args()
    workdir = ARTIFACTS / "whep-load"
    workdir.mkdir(parents=True, exist_ok=True)
    gw = Gateway(workdir, FAST_SEGMENTS + ["--webrtc-port", str(free_port()), "--transcode", args.transcode]).start()
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url("load"), args.seconds + 60, bframes=2, size=args.size),
                    workdir / "publisher.log")
    try:
        time.sleep(4)
        idle0, t_idle0 = cpu_seconds(gw.proc.pid), time.monotonic()
        time.sleep(3)
        idle = (cpu_seconds(gw.proc.pid) - idle0) / (time.monotonic() - t_idle0)
        c0, t0 = cpu_seconds(gw.proc.pid), time.monotonic()
        out = subprocess.run([sys.executable, str(HERE / "whep_aiortc.py"), f"http://127.0.0.1:{gw.http_port}/whep/load",
                              "--seconds", str(args.seconds), "--viewers", str(args.viewers)],
                             capture_output=True, text=True, timeout=args.seconds + 240).stdout
        busy = (cpu_seconds(gw.proc.pid) - c0) / (time.monotonic() - t0)
        lines = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
        viewers = lines[-1]["viewers"] if args.viewers > 1 else [lines[-1]]
        with urllib.request.urlopen(f"http://127.0.0.1:{gw.http_port}/metrics", timeout=5) as r:
            metrics = {m.group(1) + "/" + m.group(2): float(m.group(3)) for m in re.finditer(
                r'^(sluice_whep_\w+)\{stream="load",kind="(\w+)"\} (\S+)$', r.read().decode(), re.M)}
        joins = sorted(v["firstVideoAfterPostSeconds"] for v in viewers if v.get("firstVideoAfterPostSeconds"))
        print(json.dumps({
            "viewers": args.viewers, "size": args.size, "seconds": args.seconds,
            "connected": sum(1 for v in viewers if v.get("connected")),
            "videoFramesMinMedian": [min(v["videoFrames"] for v in viewers),
                                     statistics.median(v["videoFrames"] for v in viewers)],
            "audioFramesMin": min(v["audioFrames"] for v in viewers),
            "postToFirstFrameP50P95": [joins[len(joins) // 2], joins[int(len(joins) * 0.95) - 1 if len(joins) > 1 else 0]]
            if joins else None,
            "gatewayCoresBefore": round(idle, 3), "gatewayCoresWatching": round(busy, 3),
            "coresPerViewer": round((busy - idle) / args.viewers, 4),
            "metrics": metrics,
        }))
        return 0
    finally:
        pub.stop()
        gw.stop()


if __name__ == "__main__":
    sys.exit(main())
