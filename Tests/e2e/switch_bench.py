"""Switch time with real players (docs/BENCHMARKS.md): last primary frame shown → first backup frame shown, in stock
hls.js (Chromium, a third-party page) and over WHEP (aiortc, decoded frames), over N switches; and the slate's CPU.

Usage: python3 Tests/e2e/switch_bench.py BINARY [SWITCHES] [--transcode on|off]. One gateway (loopback ports, the
default ladder unless --transcode off); a primary (red, 440 Hz) and a backup (green, 880 Hz) publish with the `ffmpeg`
CLI at 640x360@30, keyframes every 1 s. Each round kills the primary (kill -9: the backup takes over) and, 6 s later,
starts it again (failback); each kill and each return is one switch. Every frame hls.js presents is coloured-sampled
in the page (requestVideoFrameCallback + a 16x9 canvas); aiortc samples every decoded frame. Prints each switch's time
per player, the medians, and the gateway's CPU (% of one core, /proc/PID/stat) over 15 s with the primary on air and
15 s with only the slate on air, per rung.
"""
from __future__ import annotations

import json
import os
import signal
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("SLUICE_BIN", sys.argv[1] if len(sys.argv) > 1 else "")

from procs import ARTIFACTS, Gateway, Publisher  # noqa: E402
from test_continuity import Watch, colour_cmd, on_air, wait_on_air, who  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def transitions(samples: list[tuple[float, str]], start: float, frm: str, to: str) -> float | None:
    """Seconds from the last `frm` frame shown to the first `to` frame shown after `start` (wall seconds). `samples`
    may hold only changes of colour: the last `frm` frame ends where the next sample begins (one frame earlier)."""
    first_to = next((i for i, (t, c) in enumerate(samples) if c == to and t >= start), None)
    if first_to is None:
        return None
    last_from = max((i for i, (t, c) in enumerate(samples[:first_to]) if c == frm), default=None)
    if last_from is None:
        return None
    leave = samples[last_from + 1][0] if last_from + 1 < len(samples) else samples[first_to][0]
    return samples[first_to][0] - leave + 1 / 30


def main() -> None:
    switches = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 10
    transcode = "off" not in sys.argv[3:]
    workdir = ARTIFACTS / "switch-bench"
    workdir.mkdir(parents=True, exist_ok=True)
    env = {"SLUICE_HLS_RECONNECT_GRACE_S": "60"}
    if not transcode:
        env["SLUICE_TRANSCODE_ENABLED"] = "false"
    gw = Gateway(workdir, env=env).start()
    base = f"http://127.0.0.1:{gw.http_port}"
    key = "bench"
    pubs: list[Publisher] = []
    rounds = switches // 2
    w = None
    events: list[tuple[float, str, str]] = []
    try:
        primary = Publisher(colour_cmd(gw.rtmp_url(key), "red", 440, 600), workdir / "primary.log")
        pubs.append(primary)
        wait_on_air(base, key, "primary", 20)
        pubs.append(Publisher(colour_cmd(gw.rtmp_url(f"{key}?role=backup"), "lime", 880, 600), workdir / "backup.log"))
        time.sleep(3)
        w = Watch(workdir, gw, key, whep_seconds=rounds * 13 + 60,
                  whep_args=("--timeline-every", "1", "--timeline-wall"))
        w.driver.execute_script("window.trackColours = true")
        w.until("hlsjs", "red", 20)
        time.sleep(4)
        for _ in range(rounds):
            t = time.time()
            primary.stop(signal.SIGKILL)
            events.append((t, "red", "green"))
            wait_on_air(base, key, "backup", 10)
            time.sleep(6)
            primary = Publisher(colour_cmd(gw.rtmp_url(key), "red", 440, 600), workdir / "primary.log")
            pubs.append(primary)
            wait_on_air(base, key, "primary", 15)
            events.append((time.time(), "green", "red"))
            time.sleep(6)
        # The slate's cost: 15 s with the primary on air, then 15 s with nobody (the slate).
        before = cpu_seconds(gw.proc.pid)
        time.sleep(15)
        live = (cpu_seconds(gw.proc.pid) - before) / 15 * 100
        for p in pubs:
            p.stop(signal.SIGKILL)
        wait_on_air(base, key, "slate", 10)
        time.sleep(2)
        before = cpu_seconds(gw.proc.pid)
        time.sleep(15)
        slate = (cpu_seconds(gw.proc.pid) - before) / 15 * 100
        rungs = [r["name"] for r in on_air(base, key).get("renditions", []) if r.get("kind") == "video"]
        report = w.report()
    finally:
        if w is not None:
            w.close(workdir)
        for p in pubs:
            p.stop(signal.SIGKILL)
        gw.stop()
    hls = [(c[0] / 1000, who(c[1:])) for c in report["hlsjs"].get("colours", [])]
    v = w.whep
    whep = [(x[0], who(x[1:])) for x in v.get("timeline", [])]
    rows = []
    for t, frm, to in events:
        rows.append({"at": t, "from": frm, "to": to, "hlsjs": transitions(hls, t, frm, to),
                     "whep": transitions(whep, t, frm, to)})
    for r in rows:
        print(json.dumps(r))
    def med(k):
        xs = [r[k] for r in rows if r[k] is not None]
        return (round(statistics.median(xs), 3) if xs else None, len(xs), len(rows) - len(xs))
    print(json.dumps({"switches": len(rows), "hlsjs_median_s": med("hlsjs"), "whep_median_s": med("whep"),
                      "hlsjs_stalls_ms": report["hlsjs"]["stalls"], "hlsjs_fatal": report["hlsjs"]["fatal"],
                      "whep_max_gap_s": v.get("maxGapSeconds"), "cpu_live_pct": round(live, 1),
                      "cpu_slate_pct": round(slate, 1), "rungs": rungs, "transcode": transcode,
                      "load": os.getloadavg()}))


if __name__ == "__main__":
    main()
