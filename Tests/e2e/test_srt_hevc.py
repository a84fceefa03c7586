"""HEVC over SRT (issue 19): the Debian ffmpeg CLI publishes libx265 (B-frames) + AAC in MPEG-TS (stream_type
0x24) over libsrt; the gateway serves the source as an hvc1 passthrough variant above H.264 rungs.

640x360@30 with two small H.264 rungs (270p, 180p) below it, so the publisher's x265 (one thread), the gateway's
HEVC decoder and two x264 rungs keep real time on shared cores; 1 s GOP, closed (IDR keyframes: an open-GOP CRA
start would drop RASL frames in ffprobe's count). Checks: the
multivariant lists hvc1.* first and two avc1.* rungs, every playlist response validates, and ffprobe decodes the
same run of segments of every variant at its RESOLUTION with equal frame counts.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

import laddercheck as lc
from e2ecommon import assert_playlists_valid
from procs import ARTIFACTS
from session import LiveRun, live_run

KEY = "e2e-srt-hevc"
SECONDS = 12
SEGMENTS = ["--segment-target-seconds", "2", "--part-target-ms", "200"]
RUNGS = ("transcode:\n  rungs:\n    - { name: 270p, height: 270, video_kbps: 500 }\n"
         "    - { name: 180p, height: 180, video_kbps: 300 }\n")


def publisher_cmd(url: str) -> list[str]:
    return ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-re",
            "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", str(SECONDS), "-map", "0:v", "-map", "1:a",
            "-c:v", "libx265", "-preset", "ultrafast",
            "-x265-params", "bframes=2:keyint=30:min-keyint=30:scenecut=0:open-gop=0:pools=none:frame-threads=1:log-level=error",
            "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-f", "mpegts", url]


@dataclass
class HEVCRun:
    run: LiveRun
    rungs: list[lc.Rung]
    msns: list[int]
    decoded: dict[str, lc.Decoded] = field(default_factory=dict)


@pytest.fixture(scope="module")
def hevc() -> HEVCRun:
    workdir = ARTIFACTS / "srt-hevc"
    # Beside the run's folder: live_run empties the folder itself.
    config = ARTIFACTS / "srt-hevc.yaml"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    config.write_text(RUNGS)
    # ffmpeg's latency is in µs: 120 ms, the gateway's default window.
    run = live_run(workdir, KEY,
                   lambda gw: publisher_cmd(gw.srt_url(f"#!::r=live/{KEY},m=publish", latency="120000")),
                   # Clear of the publisher's end: the rungs' flushed last part (short, final in its segment, but
                   # listed while the segment waits for a reconnect) is not what this test is about.
                   follow_seconds=SECONDS - 3, gateway_args=SEGMENTS, min_variants=3, gateway_config=config)
    rungs = lc.video_rungs(run.follow)
    msns = lc.common_msns(rungs)
    out = HEVCRun(run, rungs, msns)
    if len(msns) >= 2:
        for rung in rungs:
            out.decoded[rung.label] = lc.decode(rung, msns, workdir / f"rung-{rung.label}.mp4")
    return out


def test_multivariant_lists_hvc1_above_two_h264_rungs(hevc):
    mv = hevc.run.follow.multivariant
    assert mv is not None, f"no multivariant\n{hevc.run.context()}"
    codecs = [attrs.get("CODECS", "") for attrs, _ in mv.variants]
    assert codecs and codecs[0].startswith("hvc1."), f"top variant CODECS {codecs}\n{mv.text}"
    assert sum(c.startswith("avc1.") for c in codecs[1:]) >= 2, f"want two H.264 rungs, got {codecs}\n{mv.text}"
    started = [l for l in hevc.run.gateway.log().splitlines() if "SRT publish started" in l and KEY in l]
    assert started, hevc.run.gateway.log()[-2000:]


def test_every_playlist_response_validates(hevc):
    assert len(hevc.rungs) >= 3, f"followed {[r.uri for r in hevc.rungs]}\n{hevc.run.context()}"
    assert_playlists_valid(hevc.run)


def test_ffprobe_decodes_hvc1_and_the_h264_rungs_with_equal_frame_counts(hevc):
    assert len(hevc.msns) >= 2, (f"variants share only MSNs {hevc.msns}: "
                                 f"{ {r.label: sorted(r.rf.segments) for r in hevc.rungs} }\n{hevc.run.context()}")
    counts = {}
    codecs = {}
    for rung in hevc.rungs:
        d = hevc.decoded[rung.label]
        assert not d.error, f"{rung.uri}: ffprobe said {d.error}"
        assert f"{d.width}x{d.height}" == rung.attrs["RESOLUTION"], f"{rung.uri}: decoded {d.width}x{d.height}"
        counts[rung.uri] = len(d.frames)
        codecs[rung.uri] = rung.attrs.get("CODECS", "")
    print(f"srt hevc: MSNs {hevc.msns[0]}..{hevc.msns[-1]} decoded frames {counts} codecs {codecs}")
    assert [r.attrs["RESOLUTION"] for r in hevc.rungs] == ["640x360", "480x270", "320x180"]
    assert len(set(counts.values())) == 1 and min(counts.values()) > 0, f"frame counts differ: {counts}"
