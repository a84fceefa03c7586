"""Times what an edge adds, per part: `python3 Tests/e2e/edge_compare.py varnish|nginx|origin N [wrk]`.

Starts `sluice serve` (debug build unless SLUICE points elsewhere), an FFmpeg publisher at 640x360, the edge (the
shipped Config/varnish-edge.vcl or Config/nginx-edge.conf; `origin` = no edge), N blocking viewers of
`sluice bench --viewers` through it, and the probe of varnishedge.py; prints the probe's edge − origin percentiles
and the viewers' report; with `wrk`, then N connections of wrk running Tests/e2e/wrk_llhls.lua against the same
target, an independent load generator's view of the same delivery. The figures in docs/SCALING.md come from it and
from test_varnish_edge.py.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import requests

from procs import ARTIFACTS, FAST_SEGMENTS, SLUICE, Gateway, Publisher, ffmpeg_cmd
from waiting import eventually
from test_nginx_edge import Edge
from varnishedge import VarnishEdge, percentile, probe

KEY = "compare"
SECONDS = 15


class Direct:
    """No edge: the viewers and the probe's "edge" requests go to the origin itself."""

    def __init__(self, port: int):
        self.port = port

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        pass


def main(kind: str, viewers: int, cross_check: bool) -> None:
    workdir = ARTIFACTS / f"edge_compare_{kind}"
    workdir.mkdir(parents=True, exist_ok=True)
    gw = Gateway(workdir, FAST_SEGMENTS + ["--transcode", "off"]).start()
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url(KEY), SECONDS + 30, size="640x360"), workdir / "publisher.log")
    edge = {"nginx": lambda: Edge(workdir, gw.http_port), "varnish": lambda: VarnishEdge(workdir, gw.http_port),
            "origin": lambda: Direct(gw.http_port)}[kind]()
    try:
        playlist = edge.url(f"/live/{KEY}/video.m3u8")
        eventually(lambda: requests.get(playlist, timeout=12).status_code == 200, 30, period=0.3)
        bench = subprocess.Popen(
            [str(SLUICE), "bench", "--viewers", str(viewers), "--gateway", playlist, "--duration", str(SECONDS),
             "--origin-pid", str(gw.proc.pid)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(3)
        r = probe(gw.http_port, edge.port, f"/live/{KEY}/video.m3u8", SECONDS - 4)
        out, _ = bench.communicate(timeout=120)
        pl = [s.playlist_delay for s in r.samples]
        pt = [s.part_delay for s in r.samples]
        if r.samples:
            print(f"{kind}, {viewers} viewers: {len(r.samples)} parts, {len(r.failures)} failures; edge − origin "
                  f"blocking reload p50 {percentile(pl, .5):.1f} p99 {percentile(pl, .99):.1f} max {max(pl):.1f} ms; "
                  f"part p50 {percentile(pt, .5):.1f} p99 {percentile(pt, .99):.1f} max {max(pt):.1f} ms")
        else:
            print(f"{kind}: no part probed; failures {r.failures[:5]}")
        print(out)
        if cross_check and shutil.which("wrk"):
            # The independent cross-check, right after, with as many connections as viewers.
            lua = Path(__file__).parent / "wrk_llhls.lua"
            w = subprocess.run(["wrk", "-t1", f"-c{viewers}", f"-d{SECONDS}s", "--timeout", "10s", "-s", str(lua),
                                playlist], capture_output=True, text=True, timeout=SECONDS + 60)
            print("\n".join(line for line in w.stdout.splitlines() if line.startswith("wrk parts")) or w.stdout)
    finally:
        edge.stop()
        pub.stop()
        gw.stop()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 200, "wrk" in sys.argv[3:])
