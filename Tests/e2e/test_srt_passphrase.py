"""SRT with `srt.passphrase`: a publisher with the right passphrase streams; one with a wrong passphrase is refused
at the handshake (logged) and the first stream carries on undisturbed."""
from __future__ import annotations

import time
from urllib.parse import urljoin

import requests

from follower import wait_for_multivariant
from procs import FAST_SEGMENTS, Gateway
from srtpeers import srt_ffmpeg_cmd

PASSPHRASE = "correct-horse-battery"


def _segments_made(url: str) -> int:
    """Media sequence plus the segments listed: how many segments the stream has completed so far."""
    lines = requests.get(url, timeout=5).text.splitlines()
    sequence = next((int(l.split(":")[1]) for l in lines if l.startswith("#EXT-X-MEDIA-SEQUENCE:")), 0)
    return sequence + sum(1 for l in lines if l.startswith("#EXTINF:"))


def test_wrong_passphrase_is_refused_while_another_stream_carries_on(workdir, publishers):
    gw = Gateway(workdir, FAST_SEGMENTS + ["--transcode", "off"], env={"SLUICE_SRT_PASSPHRASE": PASSPHRASE}).start()
    try:
        good = publishers(srt_ffmpeg_cmd(gw.srt_url("#!::r=live/srt-good,m=publish", passphrase=PASSPHRASE),
                                         16, size="640x360"), "good")
        mv = wait_for_multivariant(gw.hls_url("srt-good"), 20)
        assert mv is not None, gw.log()[-2000:]
        uri = next(l for l in mv.text.splitlines() if l and not l.startswith("#"))
        media = urljoin(gw.hls_url("srt-good"), uri)
        before = _segments_made(media)

        bad = publishers(srt_ffmpeg_cmd(gw.srt_url("#!::r=live/srt-bad,m=publish", passphrase="wrong-passphrase-1"),
                                        8, size="640x360"), "bad")
        code = bad.wait(20)
        assert code not in (None, 0), f"the wrong-passphrase publisher was not refused (exit {code}):\n{bad.log()}"
        none = publishers(srt_ffmpeg_cmd(gw.srt_url("#!::r=live/srt-none,m=publish"), 8, size="640x360"), "none")
        code = none.wait(20)
        assert code not in (None, 0), f"the publisher without passphrase was not refused (exit {code}):\n{none.log()}"
        time.sleep(4)  # The listener logs an admitted caller that never completes the handshake after 3 s.

        log = gw.log()
        refused = [l for l in log.splitlines() if "SRT caller refused" in l and "srt-bad" in l]
        assert refused and "passphrase" in refused[0], f"no refusal naming the passphrase:\n{log[-3000:]}"
        # The origin waits hls.start_wait_s (8 s) for a stream that may still start before it answers 404.
        assert requests.get(gw.hls_url("srt-bad"), timeout=15).status_code == 404
        assert "srt-bad" not in requests.get(f"http://127.0.0.1:{gw.http_port}/api/streams", timeout=5).text

        # The good stream kept going through all of it.
        assert good.proc.poll() is None, f"the good publisher stopped:\n{good.log()}"
        # 1 s segments: the window moved on by several while the refused callers tried.
        after = _segments_made(media)
        assert after >= before + 3, f"segments {before} -> {after}: the good stream stalled"
        assert good.wait(30) == 0, good.log()
        started = [l for l in log.splitlines() if "SRT publish started" in l]
        assert len(started) == 1 and "srt-good" in started[0], log[-3000:]
        ended = [l for l in gw.log().splitlines() if "SRT publish ended" in l and "srt-good" in l]
        assert ended, gw.log()[-2000:]
    finally:
        gw.stop()
