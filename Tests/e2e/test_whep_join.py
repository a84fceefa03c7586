"""WHEP join → first frame on a running stream (issue 18, fast join), in headless Chromium.

Four cases: an RTMP source with B-frames, each join the stream's only viewer (the WebRTC rung starts on the replayed
GOP); one without (the passthrough, joined on the join rung and switched at the source's next keyframe); a second
viewer inside a WHIP publisher's keyframe window; and a second viewer inside the WebRTC rung's window (the last two
start on the join rung and move onto their own rendition).

In the first, the publisher (ffmpeg, `-bf 2`, 2 s GOP, AAC) has B-frames, so Chromium's viewer gets the WebRTC rung. Each join
is the stream's only viewer, so each starts the rung afresh: its decoder must catch up on the hub's last GOP
(instead of waiting up to 2 s for the source's next keyframe) and its encoder makes an IDR at once. The test joins
several times at different GOP phases, checks the rung caught up on the replayed GOP each time, and measures POST →
first frame presented (requestVideoFrameCallback). Without the replay half the joins would wait over 1 s.
Artifacts: .build/e2e-artifacts/whep-join/.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from procs import ARTIFACTS, SLUICE, Gateway, Publisher, ffmpeg_cmd, free_port
from test_whep import events, run_client, wait_live

HERE = Path(__file__).resolve().parent
WORKDIR = ARTIFACTS / "whep-join"
KEY = "e2e-whep-join"
JOINS = 5


def _join_repeatedly(workdir: Path, key: str, *, bframes: int, joins: int, seconds: int,
                     source: str) -> tuple[list[dict], str]:
    """A gateway and a 2 s GOP ffmpeg publisher; Chromium joins `joins` times, each the stream's only viewer and at
    another phase of the GOP, and must get `source`. Returns the viewers' results and the gateway's log."""
    workdir.mkdir(parents=True, exist_ok=True)
    gw = Gateway(workdir, ["--segment-target-seconds", "2", "--part-target-ms", "200", "--transcode", "off",
                           "--webrtc-port", str(free_port())]).start()
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url(key), 90, bframes=bframes, size="640x360", gop=60),
                    workdir / "publisher.log")
    try:
        wait_live(gw, key)
        time.sleep(3)
        results = []
        for i in range(joins):
            done, es = run_client([sys.executable, str(HERE / "whep_chromium.py"), f"http://127.0.0.1:{gw.http_port}",
                                   key, "--seconds", str(seconds), "--delete", "--shots", str(workdir / f"viewer-{i}")],
                                  workdir / f"viewer-{i}.log", 90)
            assert done.get("connected") and done.get("source") == source, es
            assert done.get("deleteStatus") == 200, es
            results.append(done)
            time.sleep(0.37 * (i + 1))  # Each join at another phase of the 2 s GOP.
        return results, gw.log()
    finally:
        pub.stop()
        gw.stop()


def test_chromium_joins_the_rung_of_a_2s_gop_rtmp_stream_without_waiting_for_its_keyframe():
    results, log = _join_repeatedly(WORKDIR, KEY, bframes=2, joins=JOINS, seconds=2, source="webrtc-rung")
    assert all(r.get("frames", 0) > 20 for r in results), [r.get("frames") for r in results]
    joins = [r["firstFrameAfterPostMs"] for r in results]
    caught_up = log.count("WHEP rung caught up on the last GOP")
    (WORKDIR / "joins.json").write_text(json.dumps({"firstFrameAfterPostMs": joins, "caughtUp": caught_up}))
    print(f"POST -> first frame presented (ms): {joins}, median {statistics.median(joins)}")
    # Every join started the rung on the replayed GOP, not at the source's next keyframe.
    assert caught_up == JOINS, f"{caught_up} of {JOINS}\n{log[-3000:]}"
    # Waiting for the source's keyframe would put the joins uniformly over 0-2 s (median ~1 s); single joins on
    # this shared machine vary (the budget itself is measured by `sluice bench`, see docs/BENCHMARKS.md).
    assert statistics.median(joins) < 600, joins


PASS_KEY = "e2e-whep-join-passthrough"
PASS_JOINS = 3


def test_chromium_joins_an_rtmp_passthrough_on_the_rung_and_moves_onto_the_passthrough_without_a_freeze():
    """The source has no B-frames (2 s GOP, AAC), so Chromium gets the passthrough; RTMP cannot be asked for a
    keyframe, so each viewer starts on the WebRTC rung's IDR and switches at the source's next keyframe (one SSRC,
    continuous sequence numbers and timestamps). Each watches 6 s (past at least two source keyframes)."""
    workdir = ARTIFACTS / "whep-join-passthrough"
    results, log = _join_repeatedly(workdir, PASS_KEY, bframes=0, joins=PASS_JOINS, seconds=6, source="passthrough")
    left = [line for line in log.splitlines() if "WHEP viewer left the rung" in line]
    summary = [{k: r.get(k) for k in ("firstFrameAfterPostMs", "frames", "maxFrameGapMs", "maxFrameGapAtMs")}
               | {"pli": r["stats"]["video"].get("pliCount"), "freezes": r["stats"]["video"].get("freezeCount"),
                  "lost": r["stats"]["video"].get("packetsLost")} for r in results]
    (workdir / "joins.json").write_text(json.dumps({"joins": summary, "leftRung": left}, indent=1))
    print(json.dumps(summary))
    # Every viewer joined on the rung and moved onto the passthrough (not left there by the session's end).
    assert len(left) == PASS_JOINS and all("on_own_feed=true" in line for line in left), "\n".join(left)
    # Joins run one after another, so the log's order is the joins' order. A join can land just before a source
    # keyframe, which then reaches the viewer before the rung's first IDR: it starts on the passthrough with no rung
    # frame, and must then be as fast as a rung join. The rung must have carried at least one join.
    rung_frames = [int(line.split("rung_frames=")[1].split()[0]) for line in left]
    assert any(n > 0 for n in rung_frames), "\n".join(left)
    for n, r in zip(rung_frames, summary):
        assert n > 0 or r["firstFrameAfterPostMs"] < 300, (rung_frames, summary)
    for r in summary:
        # Frames kept being presented across the switch: ~30 fps for 6 s, no wait between two over 200 ms
        # (a wait for the source's keyframe would be up to 2 s), and no PLI storm.
        assert r["frames"] > 6 * 30 * 0.75, summary
        assert r["maxFrameGapMs"] < 200, summary
        assert (r["pli"] or 0) <= 2, summary
    # The join itself no longer waits for the source's keyframe (a uniform wait over the 2 s GOP has median ~1 s).
    assert statistics.median(r["firstFrameAfterPostMs"] for r in summary) < 600, summary


WINDOW_KEY = "e2e-whep-join-window"
WINDOW_MS = 6_000


def _second_viewer_inside_the_window(workdir: Path, key: str, segment_seconds: int,
                                     publisher: Callable[[Gateway, str], list[str]]) -> tuple[dict, str, dict, str]:
    """A gateway whose keyframe window is WINDOW_MS (so that the second viewer lands inside it on any machine) and a
    publisher; a first Chromium viewer watches 14 s, a second connects once the first has played for a second and
    watches 9 s. Returns the second's result and stderr, the first's result, and the gateway's log."""
    workdir.mkdir(parents=True, exist_ok=True)
    gw = Gateway(workdir, ["--segment-target-seconds", str(segment_seconds), "--part-target-ms", "200",
                           "--transcode", "off", "--webrtc-port", str(free_port())],
                 env={"SLUICE_WHEP_KEYFRAME_REQUEST_INTERVAL_MS": str(WINDOW_MS)}).start()
    base = f"http://127.0.0.1:{gw.http_port}"
    pub = Publisher(publisher(gw, base), workdir / "publisher.log")
    first = None
    try:
        wait_live(gw, key)
        time.sleep(3)
        first = subprocess.Popen([sys.executable, str(HERE / "whep_chromium.py"), base, key, "--seconds", "14",
                                  "--delete", "--shots", str(workdir / "viewer-first")],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # Start the second viewer once the first has been connected for a second.
        lines = []
        for line in first.stdout:
            lines.append(line)
            if line.startswith('{"tick"'):
                break
        assert any(line.startswith('{"tick"') for line in lines), "".join(lines)
        second, es = run_client([sys.executable, str(HERE / "whep_chromium.py"), base, key, "--seconds", "9",
                                 "--delete", "--shots", str(workdir / "viewer-second")],
                                workdir / "viewer-second.log", 90)
        out, err = first.communicate(timeout=90)
        (workdir / "viewer-first.log").write_text("".join(lines) + out + "\n--- stderr\n" + err)
        first_done = next((e for e in events("".join(lines) + out) if e.get("done")), {})
        return second, es, first_done, gw.log()
    finally:
        if first and first.poll() is None:
            first.kill()
        pub.stop()
        gw.stop()


def _assert_second_moved_onto(workdir: Path, source: str, second: dict, es: str, first_done: dict, log: str) -> None:
    """Both viewers got `source`; only the second joined on the join rung, and it moved onto `source` before its
    session ended, without a freeze; the first played on undisturbed."""
    assert second.get("connected") and second.get("source") == source, es
    assert first_done.get("connected") and first_done.get("source") == source, first_done
    left = [line for line in log.splitlines() if "WHEP viewer left the rung" in line]
    summary = {k: second.get(k) for k in ("firstFrameAfterPostMs", "frames", "maxFrameGapMs", "maxFrameGapAtMs")}
    summary |= {"pli": second["stats"]["video"].get("pliCount"), "freezes": second["stats"]["video"].get("freezeCount"),
                "firstViewerFrames": first_done.get("frames"), "firstViewerMaxGapMs": first_done.get("maxFrameGapMs")}
    (workdir / "joins.json").write_text(json.dumps({"second": summary, "leftRung": left}, indent=1))
    print(json.dumps(summary))
    assert len(left) == 1 and f"own_feed={source}" in left[0] and "on_own_feed=true" in left[0], "\n".join(left)
    assert "rung_frames=0" not in left[0], left[0]
    # The join rung's IDR is made at once (waiting would take up to the window's end or the next segment's IDR).
    assert summary["firstFrameAfterPostMs"] < 1_500, summary
    # Frames kept coming across the switch (no wait for a keyframe), and the first viewer played on undisturbed.
    assert summary["frames"] > 9 * 30 * 0.75 and summary["maxFrameGapMs"] < 200, summary
    assert first_done["frames"] > 14 * 30 * 0.75 and first_done["maxFrameGapMs"] < 200, summary


def test_a_second_chromium_viewer_inside_the_publishers_keyframe_window_starts_on_the_join_rung():
    """A WHIP passthrough (our publisher, 10 s GOP, 4 s segments) can be asked for a keyframe, at most once per
    window (`whep.keyframe_request_interval_ms`, 6 s here). The first Chromium viewer's connect asks the publisher;
    the second, connecting ~2-3 s later, would wait for the publisher's next IDR (the ingest asks one per segment; the
    deferred request comes at the window's end). It starts on the join rung's IDR instead and moves onto the
    passthrough at that IDR, on one SSRC, without a freeze; the first viewer is not disturbed. Without the join rung
    there is no "left the rung" line at all."""
    workdir = ARTIFACTS / "whep-join-window"
    result = _second_viewer_inside_the_window(
        workdir, WINDOW_KEY, 4,
        lambda gw, base: [str(SLUICE), "publish", "testsrc", f"{base}/whip/{WINDOW_KEY}", "--duration", "90",
                          "--size", "640x360", "--gop-seconds", "10"])
    _assert_second_moved_onto(workdir, "passthrough", *result)


RUNG_KEY = "e2e-whep-join-webrtc-rung"


def test_a_second_chromium_viewer_of_the_webrtc_rung_inside_its_window_starts_on_the_join_rung():
    """An RTMP source with B-frames: Chromium's viewers get the WebRTC rung. The first viewer's connect makes the rung
    encode an IDR; a second viewer connecting inside the rung's keyframe window (6 s here) would wait for the window's
    end. It starts on the join rung's IDR instead, and moves onto the WebRTC rung at the rung's next IDR: the join
    rung's frames are held two frames back so that IDR, an encode of a picture the join rung already encoded, still
    takes its place (without the hold the viewer never left the join rung)."""
    workdir = ARTIFACTS / "whep-join-webrtc-rung"
    result = _second_viewer_inside_the_window(
        workdir, RUNG_KEY, 2,
        lambda gw, base: ffmpeg_cmd(gw.rtmp_url(RUNG_KEY), 90, bframes=2, size="640x360", gop=60))
    _assert_second_moved_onto(workdir, "webrtc-rung", *result)
