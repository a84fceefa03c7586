"""Enhanced RTMP multitrack (issue 20): FFmpeg 9 (imageio-ffmpeg) publishes two video tracks, and the gateway serves
the first one and names the other in its log.

FFmpeg 9's flv muxer writes the first video stream as track 0 (a classic AVC tag for H.264, a plain ExVideoTag for
HEVC) and each further one as an E-RTMP Multitrack (OneTrack) packet with its track id. Track 0 here is 480x270
testsrc2, track 1 is 160x90 testsrc (small: two x265 encodes must keep real time on a loaded 2-core machine),
10 s at 30 fps with a 1 s GOP plus a sine; the ladder is off so only the source variant is served. Checks: the
only video variant is track 0's size and codec, ffprobe decodes its segments at 480x270 with one frame every
1/30 s (RTMP's millisecond clock: 33 or 34 ms; a second track mixed in would add frames or break decoding), and
the gateway logs the other track when the publish ends, and `/api/streams`, `sluice stats` and the streams page
list it (track id and FourCC) while the publisher sends.
"""
from __future__ import annotations

import json
import subprocess
import time
from fractions import Fraction

import pytest
import requests

import laddercheck as lc
from procs import ARTIFACTS, SLUICE
from session import live_run

try:
    import imageio_ffmpeg
    FFMPEG9 = imageio_ffmpeg.get_ffmpeg_exe()
except Exception:  # noqa: BLE001 - any failure means the E-RTMP publisher is unavailable
    FFMPEG9 = None

SECONDS = 10
CODECS = {
    "h264": ("avc1.", ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "0"]),
    "hevc": ("hvc1.", ["-c:v", "libx265", "-preset", "ultrafast",
                       "-x265-params", "bframes=0:keyint=30:min-keyint=30:scenecut=0:open-gop=0:log-level=error"]),
}


def publisher_cmd(url: str, codec_args: list[str]) -> list[str]:
    return [FFMPEG9, "-hide_banner", "-nostdin", "-loglevel", "error", "-re",
            "-f", "lavfi", "-i", "testsrc2=size=480x270:rate=30",
            "-f", "lavfi", "-i", "testsrc=size=160x90:rate=30",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", str(SECONDS), "-map", "0:v", "-map", "1:v", "-map", "2:a", *codec_args, "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "128k", "-f", "flv", url]


@pytest.fixture(scope="module", params=list(CODECS))
def multitrack(request):
    if FFMPEG9 is None:
        pytest.skip("imageio-ffmpeg (FFmpeg 9, the E-RTMP publisher) is not installed")
    codec = request.param
    key = f"e2e-ertmp-multitrack-{codec}"
    workdir = ARTIFACTS / f"ertmp-multitrack-{codec}"
    scraped: dict[str, str] = {}

    def scrape(gw, _pubs):
        time.sleep(5)
        base = f"http://127.0.0.1:{gw.http_port}"
        scraped["api"] = requests.get(f"{base}/api/streams", timeout=5).text
        scraped["stats"] = subprocess.run([str(SLUICE), "stats", base, "--once"], capture_output=True, text=True,
                                          timeout=30).stdout

    run = live_run(workdir, key, lambda gw: publisher_cmd(gw.rtmp_url(key), CODECS[codec][1]),
                   follow_seconds=SECONDS - 1, during=scrape,
                   gateway_args=["--transcode", "off", "--segment-target-seconds", "2", "--part-target-ms", "200"])
    rungs = lc.video_rungs(run.follow)
    msns = lc.common_msns(rungs)
    decoded = lc.decode(rungs[0], msns, workdir / "source.mp4") if rungs and len(msns) >= 2 else None
    return codec, run, rungs, msns, decoded, scraped


def test_the_first_track_is_the_only_video_variant(multitrack):
    codec, run, rungs, _, _, _ = multitrack
    mv = run.follow.multivariant
    assert mv is not None, f"no multivariant\n{run.context()}"
    assert len(mv.variants) == 1, f"want one variant (ladder off), got {mv.variants}\n{mv.text}"
    attrs, _ = mv.variants[0]
    assert attrs.get("RESOLUTION") == "480x270", f"variant {attrs}: not track 0's size\n{mv.text}"
    assert attrs.get("CODECS", "").startswith(CODECS[codec][0]), f"variant {attrs}\n{mv.text}"


def test_ffprobe_decodes_track_0_alone_at_its_frame_rate(multitrack):
    _, run, rungs, msns, decoded, _ = multitrack
    assert decoded is not None, f"MSNs {msns} of {[r.uri for r in rungs]}\n{run.context()}"
    assert not decoded.error, f"ffprobe said {decoded.error}"
    assert (decoded.width, decoded.height) == (480, 270)
    assert len(decoded.frames) == sum(decoded.samples.values()) > 30, (
        f"{len(decoded.frames)} frames decoded, {decoded.samples} samples listed")
    times = sorted(decoded.pts(i) for i in range(len(decoded.frames)))
    steps = {b - a for a, b in zip(times, times[1:])}
    assert steps <= {Fraction(33, 1000), Fraction(34, 1000)}, f"frame spacing {sorted(steps)[:5]}: another track?"


def test_the_gateway_names_the_other_track(multitrack):
    codec, run, _, _, _, _ = multitrack
    log = run.gateway.log()
    ended = [line for line in log.splitlines() if "RTMP publish ended" in line]
    assert ended, f"no publish-ended line\n{log[-2000:]}"
    fourcc = CODECS[codec][0].rstrip(".")
    assert any("other_video_tracks" in line and f"1 {fourcc}" in line for line in ended), ended


def test_api_and_stats_list_the_other_track(multitrack):
    """`/api/streams` `otherVideoTracks` and `sluice stats` name track 1 with its FourCC while the publisher sends."""
    codec, _, _, _, _, scraped = multitrack
    fourcc = CODECS[codec][0].rstrip(".")
    streams = json.loads(scraped.get("api", "[]"))
    stream = next((s for s in streams if s["key"] == f"e2e-ertmp-multitrack-{codec}"), None)
    assert stream is not None, f"stream not in /api/streams: {scraped.get('api')}"
    assert stream.get("otherVideoTracks") == [{"trackID": 1, "codec": fourcc}], stream.get("otherVideoTracks")
    line = f"other video tracks (not served): track 1 {fourcc}"
    assert line in scraped.get("stats", ""), f"want {line!r} in:\n{scraped.get('stats')}"
