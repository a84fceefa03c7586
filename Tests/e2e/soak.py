#!/usr/bin/env python3
"""Soak: one publisher and N blocking LL-HLS viewers against `sluice serve`; RSS and open fds sampled every
10 s must stay flat. `make soak` runs 1 h with 200 viewers; test_soak.py runs the 2-minute version in CI.

Viewers come from `sluice bench --viewers N --gateway URL` (a NIO client: blocking playlist reload + the new
part, per viewer), so the Python side only samples. Samples go to .build/e2e-artifacts/soak*/samples.csv.

Flat means, comparing the median of the first third of the samples after warm-up with the median of the
last third: RSS grows by at most max(16 MiB, 10 %) and the fd count by at most 8. A leak of one fd or
a few KiB per request would break both within minutes at 200 viewers x 5 requests/s.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import ARTIFACTS, FAST_SEGMENTS, SLUICE, Gateway, Publisher, ffmpeg_cmd  # noqa: E402

KEY = "soak"
RSS_SLACK_KIB, RSS_SLACK_FRACTION, FD_SLACK = 16 * 1024, 0.10, 8


@dataclass
class Sample:
    t: float
    rss_kib: int
    fds: int
    waiting: int
    msn: int


@dataclass
class SoakResult:
    samples: list[Sample] = field(default_factory=list)
    warmup: float = 0
    bench_output: str = ""
    failures: list[str] = field(default_factory=list)

    def steady(self) -> list[Sample]:
        return [s for s in self.samples if s.t >= self.warmup]

    def thirds(self) -> tuple[list[Sample], list[Sample]]:
        st = self.steady()
        n = max(1, len(st) // 3)
        return st[:n], st[-n:]

    def summary(self) -> dict:
        first, last = self.thirds()
        med = lambda xs: statistics.median(xs) if xs else 0  # noqa: E731
        return {
            "samples": len(self.samples), "warmup_s": self.warmup,
            "rss_start_kib": med([s.rss_kib for s in first]), "rss_end_kib": med([s.rss_kib for s in last]),
            "rss_max_kib": max((s.rss_kib for s in self.samples), default=0),
            "fds_start": med([s.fds for s in first]), "fds_end": med([s.fds for s in last]),
            "msn_advance": (self.samples[-1].msn - self.samples[0].msn) if self.samples else 0,
            "seconds": self.samples[-1].t if self.samples else 0,
        }

    def judge(self) -> list[str]:
        s = self.summary()
        out = list(self.failures)
        allowed = max(RSS_SLACK_KIB, s["rss_start_kib"] * RSS_SLACK_FRACTION)
        if s["rss_end_kib"] - s["rss_start_kib"] > allowed:
            out.append(f"RSS grew {s['rss_end_kib'] - s['rss_start_kib']:.0f} KiB (> {allowed:.0f} KiB)")
        if s["fds_end"] - s["fds_start"] > FD_SLACK:
            out.append(f"open fds grew {s['fds_start']} -> {s['fds_end']} (> {FD_SLACK})")
        if s["seconds"] and s["msn_advance"] < 0.7 * s["seconds"]:
            out.append(f"playlist advanced {s['msn_advance']} segments in {s['seconds']:.0f} s (1 s segments)")
        return out


def proc_sample(pid: int) -> tuple[int, int]:
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


def stream_state(gw: Gateway) -> tuple[int, int]:
    import requests
    try:
        streams = requests.get(f"http://127.0.0.1:{gw.http_port}/api/streams", timeout=5).json()
        s = next((x for x in streams if x.get("key") == KEY), {})
        return int(s.get("blockingRequestsWaiting", -1)), int(s.get("lastMSN") or -1)
    except Exception:  # noqa: BLE001 (a failed sample is recorded as -1, the judge sees the gap)
        return -1, -1


def run(seconds: float, viewers: int, workdir: Path, interval: float = 10, warmup: float = 30,
        log=print) -> SoakResult:
    workdir.mkdir(parents=True, exist_ok=True)
    cfg = workdir / "soak.yaml"
    cfg.write_text("transcode:\n  enabled: false\nlimits:\n  max_blocking_per_stream: 100000\n")
    gw = Gateway(workdir, FAST_SEGMENTS, config=cfg).start()
    result = SoakResult(warmup=warmup)
    pub = bench = None
    try:
        pub = Publisher(ffmpeg_cmd(gw.rtmp_url(KEY), seconds + 60, size="640x360"), workdir / "publisher.log")
        import requests
        deadline = time.monotonic() + 20
        while requests.get(gw.hls_url(KEY), timeout=5).status_code != 200:
            if time.monotonic() > deadline:
                result.failures.append("stream never appeared")
                return result
            time.sleep(0.3)
        media = gw.hls_url(KEY).replace("index.m3u8", "video.m3u8")
        bench_log = open(workdir / "bench.log", "wb")
        bench = subprocess.Popen(
            [str(SLUICE), "bench", "--viewers", str(viewers), "--gateway", media, "--origin-pid", str(gw.proc.pid),
             "--duration", str(max(5, seconds - 3)), "--ramp-per-second", "100"],
            stdout=bench_log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        t0 = time.monotonic()
        with open(workdir / "samples.csv", "w") as csv:
            csv.write("t_s,rss_kib,fds,blocking_waiting,last_msn\n")
            while (t := time.monotonic() - t0) < seconds:
                if gw.proc.poll() is not None:
                    result.failures.append(f"gateway exited with {gw.proc.returncode}")
                    break
                rss, fds = proc_sample(gw.proc.pid)
                waiting, msn = stream_state(gw)
                s = Sample(round(t, 1), rss, fds, waiting, msn)
                result.samples.append(s)
                csv.write(f"{s.t},{s.rss_kib},{s.fds},{s.waiting},{s.msn}\n")
                csv.flush()
                log(f"soak t={s.t:6.1f}s rss={rss / 1024:7.1f} MiB fds={fds:4d} waiting={waiting:4d} msn={msn}")
                time.sleep(interval - (time.monotonic() - t0 - t) % interval)
        # The load ends just after sampling and prints its report (delivery delays: proof the viewers got parts).
        try:
            code = bench.wait(60)
            if code != 0:
                result.failures.append(f"viewer load exited with {code}")
        except subprocess.TimeoutExpired:
            result.failures.append("viewer load did not finish")
    finally:
        for p in (bench,):
            if p is not None and p.poll() is None:
                p.terminate()
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    p.kill()
        if pub is not None:
            pub.stop()
        code = gw.stop()
        if code not in (0, None):
            result.failures.append(f"gateway exit code {code} on SIGTERM")
        result.bench_output = (workdir / "bench.log").read_text(errors="replace") if (workdir / "bench.log").exists() else ""
        (workdir / "summary.json").write_text(json.dumps(result.summary(), indent=2))
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3600)
    ap.add_argument("--viewers", type=int, default=200)
    ap.add_argument("--interval", type=float, default=10)
    args = ap.parse_args()
    r = run(args.seconds, args.viewers, ARTIFACTS / "soak", args.interval, warmup=60)
    print(r.bench_output[-3000:])
    print(json.dumps(r.summary(), indent=2))
    problems = r.judge()
    for p in problems:
        print("SOAK FAIL:", p)
    print("soak:", "FAILED" if problems else "flat", f"(samples in {ARTIFACTS / 'soak' / 'samples.csv'})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
