"""The ladder follows the source: 1080p gets passthrough + 720p/480p/360p, 360p gets no rung at all.

Short publishes (7 s, 1 s segments); every rung must decode at its advertised resolution with the same
frames per segment as the passthrough.
"""
from __future__ import annotations

import pytest
import requests

import laddercheck as lc
from procs import ARTIFACTS, FAST_SEGMENTS
from session import live_run

SECONDS = 7


@pytest.mark.parametrize("height,size", [(1080, "1920x1080"), (360, "640x360")], ids=["1080p", "360p"])
def test_source_resolution_decides_the_rungs(height, size):
    key = f"e2e-ladder-{height}p"
    wd = ARTIFACTS / f"ladder_source_{height}p"
    run = live_run(wd, key, lambda gw: lc.publisher_cmd(gw.rtmp_url(key), SECONDS, size=size),
                   follow_seconds=SECONDS + 1, gateway_args=FAST_SEGMENTS, stop_gateway=False,
                   # Slate off: the rungs' last frames are compared as the publisher left them. With the slate, the
                   # splice after the publisher's end can cut a rung's last frame (a known gap; see docs/PUBLISH.md).
                   gateway_env={"SLUICE_INGEST_SLATE": "false"})
    try:
        absent = {}
        for uri in ("1080p.m3u8", "720p.m3u8", "480p.m3u8", "360p.m3u8"):
            if uri not in [u for u, _ in lc.LADDERS[height]]:
                absent[uri] = requests.get(run.gateway.hls_url(key).replace("index.m3u8", uri), timeout=5).status_code
    finally:
        run.gateway_exit = run.gateway.stop()
    mv = run.follow.multivariant
    assert mv is not None, f"no multivariant playlist\n{run.context()}"
    (wd / "index.m3u8").write_text(mv.text)
    problems = lc.check_multivariant_contract(mv, height)
    assert not problems, "\n".join(problems) + f"\n---\n{mv.text}"
    assert all(code == 404 for code in absent.values()), f"rungs that must not exist answered: {absent}"

    rungs = lc.video_rungs(run.follow)
    assert [r.uri for r in rungs] == [u for u, _ in lc.LADDERS[height]], [r.uri for r in rungs]
    msns = lc.common_msns(rungs)
    listed = {r.label: sorted(r.rf.segments) for r in rungs}
    assert len(msns) >= 3, f"rungs share MSNs {msns}: {listed}\n{run.context()}"
    counts = {}
    for rung in rungs:
        d = lc.decode(rung, msns, wd / f"rung-{rung.label}.mp4")
        want = tuple(int(x) for x in rung.attrs["RESOLUTION"].split("x"))
        assert not d.error, f"{rung.uri}: ffprobe on MSNs {msns}: {d.error[:400]}"
        assert (d.width, d.height) == want, f"{rung.uri}: decodes as {d.width}x{d.height}, want {want}"
        assert len(d.frames) == sum(d.samples.values()) > 0, \
            f"{rung.uri}: decoded {len(d.frames)} frames, samples say {sum(d.samples.values())}"
        assert int(d.frames[0].get("key_frame", 0)) == 1, f"{rung.uri}: first frame of MSN {msns[0]} is not a key frame"
        sps = lc.sps_codec(rung.init_bytes(msns[0]))
        assert sps in rung.attrs["CODECS"].lower(), f"{rung.uri}: CODECS {rung.attrs['CODECS']} but SPS says {sps}"
        counts[rung.label] = (tuple(d.samples[m] for m in msns), [lc.fmt(t) for t in d.key_times()])
    print(f"{size} source, MSNs {msns}: (frames per segment, key frame times) per rung {counts}")
    assert len(set(str(c) for c in counts.values())) == 1, f"rungs disagree on frames or key frames: {counts}"
