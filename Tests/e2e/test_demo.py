"""`make run`'s stream: `sluice serve --demo` on the default config publishes the test pattern through the ladder.

What a newcomer sees first must be a valid LL-HLS ladder a player orders correctly: the 720p source, then
480p and 360p, BANDWIDTH strictly descending (a source measured below its own rungs made hls.js list it
as the lowest level), every playlist and part valid, each rendition decoding at its resolution.
"""
from __future__ import annotations

import laddercheck as lc
import streamchecks as sc
from follower import follow
from procs import Gateway

KEY = "demo"
FOLLOW_SECONDS = 10


def test_demo_stream_is_a_valid_ladder_in_bandwidth_order(workdir):
    gw = Gateway(workdir, ["--demo"]).start()
    try:
        # The multivariant is served once every rendition has its first complete segment (fast start).
        res = follow(gw.hls_url(KEY), FOLLOW_SECONDS, start_timeout=20, min_variants=3)
    finally:
        exit_code = gw.stop()
    assert res.multivariant is not None, f"no multivariant: {res.errors}\n{gw.log()[-3000:]}"
    mv = res.multivariant
    (workdir / "index.m3u8").write_text(mv.text)
    problems = lc.check_multivariant_contract(mv, 720)
    assert not problems, "\n".join(problems) + f"\n---\n{mv.text}"
    analysis = sc.analyze(res, workdir)
    violations = res.all_violations() + analysis.violations
    assert not violations, "\n".join(str(v) for v in violations[:20]) + f"\n{analysis.text()}"
    assert not res.errors, res.errors[:10]
    for name, s in analysis.summaries.items():
        print(f"{name}: {s.width}x{s.height} {s.codecs}, {s.parts} parts, {s.decoded_frames} frames decoded")
        assert s.parts > 0 and s.decoded_frames > 0, f"{name}: nothing played\n{analysis.text()}"
    print("BANDWIDTH per variant:", [(uri, a.get("BANDWIDTH")) for a, uri in mv.variants])
    assert exit_code == 0, f"sluice serve --demo exited {exit_code} on SIGTERM\n{gw.log()[-3000:]}"
