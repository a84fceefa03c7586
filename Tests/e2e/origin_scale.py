"""Origin capacity per core: `python3 Tests/e2e/origin_scale.py viewers N [N ...]` or `... rps`.

The origin (`sluice serve --transcode off`, SLUICE_BIN or the debug build) runs pinned to core 0 with its publisher
(FFmpeg copying a pre-encoded 720p30 loop, no encoding); the load runs pinned to core 1, so the origin's CPU is its
own and the generator's is measured apart (docs/BENCHMARKS.md, issue 22).
- `viewers N`: `sluice bench --viewers N` (blocking reload + part, video and audio, delivery from the origin's
  `X-Sluice-Published`, misses counted) for 15 s per N; prints the bench's report and the generator's own CPU.
- `wrk N [N ...]`: N viewers from wrk running Tests/e2e/wrk_llhls.lua (2N connections: a video and an audio chain
  each, blocking reload then part; several threads, all on core 1) for SCALE_SECONDS (default 20) per N; prints
  wrk's delivery percentiles (misses beside them and counted as late), the origin's CPU share and its CPU per request.
- `cross N`: `sluice bench --viewers N`, then wrk with N viewers, against the same origin, one after the other.
- `varnish N [N ...]`: the wrk viewers through the shipped Varnish edge (Config/varnish-edge.vcl, not pinned); the
  origin's CPU share beside its idle share.
- `rps [RUNS]`: wrk (one thread, 100 connections, 10 s) fetching one part from the origin, then the same bytes from
  nginx (one worker, also on core 0) serving them as a file; prints requests/s of each and their ratio, RUNS times.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

from procs import ARTIFACTS, SLUICE, Gateway, Publisher, _stop, free_port
from waiting import eventually

KEY = "scale"
ORIGIN_CORE, LOAD_CORE = {0}, "1"


def loop_file(workdir: Path) -> Path:
    """20 s of 720p30 H.264 2.5 Mb/s + AAC, encoded once and reused (the publisher only copies it)."""
    path = ARTIFACTS / "origin_scale_loop.flv"
    if not path.exists():
        subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                        "testsrc2=size=1280x720:rate=30", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                        "-t", "20", "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-g", "30",
                        "-b:v", "2500k", "-maxrate", "2800k", "-bufsize", "2500k", "-pix_fmt", "yuv420p",
                        "-c:a", "aac", "-b:a", "128k", "-f", "flv", str(path)], check=True)
    return path


def pinned(cmd: list[str], core: str) -> list[str]:
    return ["taskset", "-c", core] + cmd


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def viewers(gw: Gateway, counts: list[int]) -> None:
    playlist = f"http://127.0.0.1:{gw.http_port}/live/{KEY}/video.m3u8"
    for n in counts:
        bench = subprocess.Popen(pinned([str(SLUICE), "bench", "--viewers", str(n), "--gateway", playlist,
                                         "--duration", "15", "--origin-pid", str(gw.proc.pid)], LOAD_CORE),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        t0, used = time.monotonic(), 0.0
        # The generator's own CPU: its last reading before it exits (its whole run, ramp-up included).
        while bench.poll() is None:
            try:
                used = cpu_seconds(bench.pid)
            except (FileNotFoundError, ProcessLookupError):
                break
            time.sleep(0.25)
        out = bench.stdout.read()
        wall = time.monotonic() - t0
        print(f"== {n} viewers (load on core {LOAD_CORE}, origin on core 0)")
        print(out)
        print(f"load generator: {used:.1f} s CPU over {wall:.1f} s wall = {100 * used / wall:.0f} % of a core")
        time.sleep(3)


SECONDS = int(os.environ.get("SCALE_SECONDS", "20"))


def origin_share(gw: Gateway, seconds: float) -> float:
    """The origin's CPU over `seconds` of no added load, in % of a core."""
    c0 = cpu_seconds(gw.proc.pid)
    time.sleep(seconds)
    return 100 * (cpu_seconds(gw.proc.pid) - c0) / seconds


def wrk_viewers(gw: Gateway, playlist: str, n: int, core: str | None = LOAD_CORE) -> None:
    """N wrk viewers against `playlist`; the origin's CPU per request from /proc around the run."""
    lua = Path(__file__).parent / "wrk_llhls.lua"
    threads = max(1, min(8, n // 250))
    cmd = ["wrk", f"-t{threads}", f"-c{2 * n}", f"-d{SECONDS}s", "--timeout", "10s", "-s", str(lua), playlist]
    c0, t0 = cpu_seconds(gw.proc.pid), time.monotonic()
    w = subprocess.Popen(pinned(cmd, core) if core else cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    used, origin, wall = 0.0, 0.0, 1e-9
    while w.poll() is None:
        try:
            used = cpu_seconds(w.pid)
        except (FileNotFoundError, ProcessLookupError):
            break
        if time.monotonic() - t0 <= SECONDS:
            origin = cpu_seconds(gw.proc.pid) - c0
            wall = time.monotonic() - t0
        time.sleep(0.25)
    out = w.stdout.read()
    line = next((ln for ln in out.splitlines() if ln.startswith("wrk parts")), out)
    m = re.search(r"requests (\d+)", line)
    requests_done = int(m.group(1)) if m else 0
    per = 1e6 * origin / requests_done if requests_done else float("nan")
    print(f"== {n} viewers from wrk ({2 * n} connections, {threads} threads, "
          f"{'core ' + core if core else 'unpinned'}, {SECONDS} s), load average {os.getloadavg()[0]:.1f}")
    print(line)
    print(f"origin: {100 * origin / wall:.1f} % of a core, {requests_done / SECONDS:.0f} req/s, "
          f"{per:.1f} us CPU per request; wrk: {100 * used / SECONDS:.0f} % of a core", flush=True)
    time.sleep(3)


def wrk(url: str) -> float:
    out = subprocess.run(pinned(["wrk", "-t1", "-c100", "-d10s", url], LOAD_CORE), capture_output=True, text=True,
                         timeout=60).stdout
    print(out)
    m = re.search(r"Requests/sec:\s+([\d.]+)", out)
    return float(m.group(1)) if m else 0.0


def rps(gw: Gateway, workdir: Path) -> None:
    base = f"http://127.0.0.1:{gw.http_port}/live/{KEY}/"
    text = requests.get(base + "video.m3u8", timeout=10).text
    part = [line.split('URI="')[1].split('"')[0] for line in text.splitlines() if line.startswith("#EXT-X-PART:")][-1]
    body = requests.get(base + part, timeout=10).content
    root = workdir / "nginx" / "root"
    shutil.rmtree(workdir / "nginx", ignore_errors=True)
    (root / "live" / KEY / Path(part).parent).mkdir(parents=True)
    (root / "live" / KEY / part).write_bytes(body)
    port = free_port()
    conf = workdir / "nginx" / "nginx.conf"
    conf.write_text(f"""worker_processes 1;
pid {workdir}/nginx/nginx.pid;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  server {{
    listen 127.0.0.1:{port};
    root {root};
    location / {{ add_header Cache-Control "public, max-age=12, immutable"; add_header Access-Control-Allow-Origin "*"; }}
  }}
}}
""")
    (workdir / "nginx" / "logs").mkdir()
    nginx = subprocess.Popen(pinned(["nginx", "-p", str(workdir / "nginx"), "-c", str(conf), "-e", "stderr", "-g",
                                     "daemon off;"], "0"), stdin=subprocess.DEVNULL)
    try:
        def up() -> bool:
            try:
                return requests.get(f"http://127.0.0.1:{port}/live/{KEY}/{part}", timeout=1).ok
            except requests.RequestException:
                return False

        assert eventually(up, 10), f"nginx did not serve the part (exit {nginx.poll()})"
        print(f"== part {part}, {len(body)} bytes; origin (core 0)")
        c0 = cpu_seconds(gw.proc.pid)
        origin = wrk(base + part)
        origin_cpu = cpu_seconds(gw.proc.pid) - c0
        print(f"origin CPU during wrk: {origin_cpu:.2f} s of 10 s")
        print("== nginx static (one worker, core 0)")
        workers = [int(p) for p in subprocess.run(["pgrep", "-P", str(nginx.pid)], capture_output=True,
                                                  text=True).stdout.split()]
        n0 = sum(cpu_seconds(p) for p in workers)
        static = wrk(f"http://127.0.0.1:{port}/live/{KEY}/{part}")
        static_cpu = sum(cpu_seconds(p) for p in workers) - n0
        print(f"nginx worker CPU during wrk: {static_cpu:.2f} s of 10 s")
        per_core = (origin / origin_cpu * 10, static / static_cpu * 10)
        print(f"origin {origin:.0f} req/s at {origin_cpu * 10:.0f} % of a core = {per_core[0]:.0f} req/s per core; "
              f"nginx {static:.0f} req/s at {static_cpu * 10:.0f} % = {per_core[1]:.0f} req/s per core; "
              f"origin/nginx per core = {per_core[0] / per_core[1]:.2f}")
    finally:
        _stop(nginx, signal.SIGQUIT, 10)


def main(mode: str, args: list[str]) -> None:
    workdir = ARTIFACTS / "origin_scale"
    workdir.mkdir(parents=True, exist_ok=True)
    loop = loop_file(workdir)
    # Every viewer holds two blocking reloads at once: the held-request limits (1,000 per stream by default) go up.
    config = workdir / "sluice.yaml"
    config.write_text((Path(__file__).parents[2] / "Config" / "sluice.yaml").read_text()
                      .replace("max_blocking_per_stream: 1000", "max_blocking_per_stream: 100000")
                      .replace("max_blocking_total: 10000", "max_blocking_total: 100000"))
    gw = Gateway(workdir, ["--transcode", "off"], config=config, cpus=ORIGIN_CORE).start()
    pub = Publisher(pinned(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "warning", "-re", "-stream_loop", "-1",
                            "-i", str(loop), "-c", "copy", "-f", "flv", gw.rtmp_url(KEY)], "0"),
                    workdir / "publisher.log")
    try:
        playlist = f"http://127.0.0.1:{gw.http_port}/live/{KEY}/video.m3u8"
        eventually(lambda: requests.get(playlist, timeout=12).status_code == 200, 30, period=0.3)
        time.sleep(4)
        if mode == "viewers":
            viewers(gw, [int(a) for a in args])
        elif mode == "wrk":
            print(f"origin idle: {origin_share(gw, 5):.1f} % of a core")
            for n in args:
                wrk_viewers(gw, playlist, int(n))
        elif mode == "cross":
            viewers(gw, [int(args[0])])
            wrk_viewers(gw, playlist, int(args[0]))
        elif mode == "varnish":
            from varnishedge import VarnishEdge
            edge = VarnishEdge(workdir, gw.http_port)
            try:
                print(f"origin idle: {origin_share(gw, 5):.1f} % of a core")
                for n in args:
                    wrk_viewers(gw, edge.url(f"/live/{KEY}/video.m3u8"), int(n), core=None)
                    print(f"origin fetches so far through Varnish: {len(edge.backend_fetches())}")
            finally:
                edge.stop()
        else:
            for _ in range(int(args[0]) if args else 1):
                rps(gw, workdir)
    finally:
        pub.stop()
        gw.stop()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main(sys.argv[1], sys.argv[2:])
