"""Unit tests for the validator: a good LL-HLS playlist passes; each broken rule is caught."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import hlsvalidate as hv
import mediacheck as mc

MEDIA = "http://127.0.0.1:8080/live/k/video.m3u8"
AUDIO = "http://127.0.0.1:8080/live/k/audio.m3u8"


def good(first_msn: int = 10, segments: int = 8, trailing: int = 2, version: int = 9, report: bool = True,
         parts_for: int = 3) -> str:
    """A correct live LL-HLS playlist: TD 1, PT 0.2, 5 parts per segment, parts on the last segments."""
    out = ["#EXTM3U", f"#EXT-X-VERSION:{version}", "#EXT-X-TARGETDURATION:1",
           "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=0.600,CAN-SKIP-UNTIL=6.0",
           "#EXT-X-PART-INF:PART-TARGET=0.200", f"#EXT-X-MEDIA-SEQUENCE:{first_msn}",
           "#EXT-X-DISCONTINUITY-SEQUENCE:0", '#EXT-X-MAP:URI="init.mp4"']
    for i in range(segments):
        msn = first_msn + i
        out.append(f"#EXT-X-PROGRAM-DATE-TIME:2026-11-22T00:00:{msn:02d}.000Z")
        if i >= segments - parts_for:
            for j in range(5):
                ind = ",INDEPENDENT=YES" if j == 0 else ""
                out.append(f'#EXT-X-PART:DURATION=0.200,URI="p{msn}.{j}.m4s"{ind}')
        out += ["#EXTINF:1.000,", f"s{msn}.m4s"]
    nxt = first_msn + segments
    out.append(f"#EXT-X-PROGRAM-DATE-TIME:2026-11-22T00:00:{nxt:02d}.000Z")
    for j in range(trailing):
        ind = ",INDEPENDENT=YES" if j == 0 else ""
        out.append(f'#EXT-X-PART:DURATION=0.200,URI="p{nxt}.{j}.m4s"{ind}')
    out.append(f'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="p{nxt}.{trailing}.m4s"')
    if report:
        out.append(f'#EXT-X-RENDITION-REPORT:URI="audio.m3u8",LAST-MSN={nxt},LAST-PART={trailing - 1}')
    return "\n".join(out) + "\n"


def rules(text: str, **kw) -> set[str]:
    return {v.rule for v in hv.check_media(hv.parse_media_playlist(text, MEDIA), **kw)}


def test_good_playlist_has_no_violations():
    vs = hv.check_media(hv.parse_media_playlist(good(), MEDIA))
    assert vs == [], vs


def test_parser_numbers_segments_parts_and_edge():
    pl = hv.parse_media_playlist(good(), MEDIA)
    assert [s.msn for s in pl.segments] == list(range(10, 18))
    assert pl.segments[-1].parts[4].key == (17, 4)
    assert [p.key for p in pl.trailing_parts] == [(18, 0), (18, 1)]
    assert pl.last_position() == (18, 1)
    assert pl.part_target == 0.2 and pl.target_duration == 1
    assert pl.server_control["PART-HOLD-BACK"] == "0.600"
    assert pl.segments[0].pdt_text == "2026-11-22T00:00:10.000Z"
    assert hv.parse_attributes('URI="a,b",X=1') == {"URI": "a,b", "X": "1", "__quoted__": "URI"}


def _sub(pattern: str, repl: str, count: int = 1):
    return lambda t: re.sub(pattern, repl, t, count=count, flags=re.M)


BROKEN = [
    ("no version", _sub(r"^#EXT-X-VERSION:9\n", ""), "M1"),
    ("two versions", _sub(r"^#EXT-X-VERSION:9$", "#EXT-X-VERSION:9\n#EXT-X-VERSION:9"), "M1"),
    ("map needs v6", _sub(r"^#EXT-X-VERSION:9$", "#EXT-X-VERSION:5"), "M1"),
    ("fractional TD", _sub(r"TARGETDURATION:1$", "TARGETDURATION:1.5"), "M2"),
    ("EXTINF above TD", _sub(r"^#EXTINF:1.000,", "#EXTINF:1.600,"), "M2"),
    ("parts without PART-INF", _sub(r"^#EXT-X-PART-INF.*\n", ""), "M3"),
    ("PT above TD", _sub(r"PART-TARGET=0.200", "PART-TARGET=2.0"), "M3"),
    ("cannot block", _sub(r"CAN-BLOCK-RELOAD=YES", "CAN-BLOCK-RELOAD=NO"), "M4"),
    ("PHB below 3 PT", _sub(r"PART-HOLD-BACK=0.600", "PART-HOLD-BACK=0.4"), "M4"),
    ("no PHB", _sub(r"PART-HOLD-BACK=0.600,", ""), "M4"),
    ("skip boundary below 6 TD", _sub(r"CAN-SKIP-UNTIL=6.0", "CAN-SKIP-UNTIL=3.0"), "M4"),
    ("HOLD-BACK below 3 TD", _sub(r"CAN-BLOCK-RELOAD=YES", "CAN-BLOCK-RELOAD=YES,HOLD-BACK=2"), "M4"),
    ("no SERVER-CONTROL", _sub(r"^#EXT-X-SERVER-CONTROL.*\n", ""), "M4"),
    ("MEDIA-SEQUENCE late", lambda t: t.replace("#EXT-X-MEDIA-SEQUENCE:10\n", "").replace(
        "s10.m4s\n", "s10.m4s\n#EXT-X-MEDIA-SEQUENCE:10\n"), "M5"),
    ("discontinuity without its sequence", lambda t: t.replace("#EXT-X-DISCONTINUITY-SEQUENCE:0\n", "").replace(
        "s12.m4s\n", "s12.m4s\n#EXT-X-DISCONTINUITY\n"), "M6"),
    ("PDT without ms", _sub(r"00:00:10.000Z", "00:00:10Z"), "M8"),
    ("PDT without zone", _sub(r"00:00:10.000Z", "00:00:10.000"), "M8"),
    ("no PDT", lambda t: re.sub(r"^#EXT-X-PROGRAM-DATE-TIME.*\n", "", t, flags=re.M), "M8"),
    ("PDT overlap", _sub(r"00:00:13.000Z", "00:00:11.500Z"), "M8"),
    ("no MAP", _sub(r"^#EXT-X-MAP.*\n", ""), "M9"),
    ("playlist type in a window", _sub(r"^#EXT-X-MAP", "#EXT-X-PLAYLIST-TYPE:EVENT\n#EXT-X-MAP"), "M9"),
    ("part without URI", _sub(r'DURATION=0.200,URI="p15.1.m4s"', "DURATION=0.200"), "P1"),
    ("INDEPENDENT=NO", _sub(r'(p15.1.m4s")', r"\1,INDEPENDENT=NO"), "P1"),
    ("PDT between parts", _sub(r'(#EXT-X-PART:DURATION=0.200,URI="p16.1.m4s")',
                               r"\1\n#EXT-X-PROGRAM-DATE-TIME:2026-11-22T00:00:16.200Z"), "P2"),
    ("part above PT", _sub(r'DURATION=0.200,URI="p16.1', 'DURATION=0.210,URI="p16.1'), "P3"),
    ("short middle part", _sub(r'DURATION=0.200,URI="p16.2', 'DURATION=0.100,URI="p16.2'), "P3"),
    ("parts do not sum to EXTINF", lambda t: t.replace("#EXTINF:1.000,\ns16.m4s", "#EXTINF:0.900,\ns16.m4s"), "P4"),
    ("no hint", _sub(r"^#EXT-X-PRELOAD-HINT.*\n", ""), "H1"),
    ("two hints", _sub(r"^(#EXT-X-PRELOAD-HINT.*)$", r"\1\n\1"), "H2"),
    ("hint names a listed part", _sub(r'HINT:TYPE=PART,URI="p18.2.m4s"', 'HINT:TYPE=PART,URI="p18.1.m4s"'), "H2"),
    ("hint after ENDLIST", lambda t: t + "#EXT-X-ENDLIST\n", "H3"),
    ("directive in a URI", _sub(r"^s11.m4s$", "s11.m4s?_HLS_msn=3"), "B7"),
    ("skip not requested", _sub(r"^#EXT-X-DISCONTINUITY-SEQUENCE:0$",
                                "#EXT-X-DISCONTINUITY-SEQUENCE:0\n#EXT-X-SKIP:SKIPPED-SEGMENTS=0"), "SKIP"),
]


@pytest.mark.parametrize("name,mutate,rule", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_playlist_is_caught(name, mutate, rule):
    text = mutate(good())
    assert text != good(), "mutation did not apply"
    assert rule in rules(text), f"{name}: expected {rule}, got {rules(text)}"


def test_allowed_short_parts_pass():
    # The last part of a parent may be short (the segment was cut at an IDR), and so may an INDEPENDENT one.
    text = good().replace('#EXT-X-PART:DURATION=0.200,URI="p16.4.m4s"', '#EXT-X-PART:DURATION=0.100,URI="p16.4.m4s"')
    text = text.replace("#EXTINF:1.000,\ns16.m4s", "#EXTINF:0.900,\ns16.m4s")
    text = text.replace("00:00:17.000Z", "00:00:16.900Z")
    assert rules(text) == set()


def test_window_shorter_than_three_target_durations_is_caught_only_after_removal():
    h = hv.RenditionHistory("video")
    h.update(hv.parse_media_playlist(good(first_msn=5, segments=2, parts_for=2), MEDIA), 0.0)  # young stream
    assert h.violations == []
    h.update(hv.parse_media_playlist(good(first_msn=6, segments=2, parts_for=2), MEDIA), 1.0)  # slid: 2 s left
    assert {v.rule for v in h.violations} == {"M10"}
    h = hv.RenditionHistory("video")
    h.update(hv.parse_media_playlist(good(first_msn=5, segments=3, parts_for=2), MEDIA), 0.0)
    h.update(hv.parse_media_playlist(good(first_msn=6, segments=3, parts_for=2), MEDIA), 1.0)
    assert h.violations == []


def test_too_few_parts_for_part_hold_back_is_caught():
    assert "P5" in rules(good(parts_for=0, trailing=1))


def _delta(skipped: int, first_msn: int = 10, segments: int = 8, version: int = 9) -> str:
    full = good(first_msn=first_msn, segments=segments, version=version)
    lines = full.splitlines()
    out, seg = [], 0
    skipping = True
    for line in lines:
        if line.startswith("#EXT-X-MAP"):
            out.append(line)
            out.append(f"#EXT-X-SKIP:SKIPPED-SEGMENTS={skipped}")
            continue
        if skipping and seg < skipped and (line.startswith(("#EXTINF", "#EXT-X-PROGRAM", "#EXT-X-PART:")) or
                                           re.fullmatch(r"s\d+\.m4s", line)):
            if re.fullmatch(r"s\d+\.m4s", line):
                seg += 1
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def test_delta_update_checks():
    delta = _delta(2)
    pl = hv.parse_media_playlist(delta, MEDIA)
    assert pl.is_delta and pl.skipped == 2 and pl.segments[0].msn == 12
    assert hv.check_media(pl, skip_requested=True) == []
    full = hv.parse_media_playlist(good(), MEDIA)
    assert hv.check_delta_against_full(pl, full) == []
    # Wrong count: the first visible URI no longer matches the full playlist's MSN.
    wrong = hv.parse_media_playlist(delta.replace("SKIPPED-SEGMENTS=2", "SKIPPED-SEGMENTS=3"), MEDIA)
    assert {v.rule for v in hv.check_delta_against_full(wrong, full)} == {"SKIP"}
    # Skipped into the Skip Boundary (6 s): only 5 s left.
    assert "SKIP" in rules(_delta(3), skip_requested=True)
    # Skipped too little: a segment ending 6+ s from the end stayed.
    assert "SKIP" in rules(_delta(1, segments=10), skip_requested=True)
    assert "SKIP" not in rules(_delta(4, segments=10), skip_requested=True)
    assert "M1" in rules(_delta(2, version=6), skip_requested=True)
    late = delta.replace("#EXT-X-MEDIA-SEQUENCE:10\n", "").replace(
        "SKIPPED-SEGMENTS=2\n", "SKIPPED-SEGMENTS=2\n#EXT-X-MEDIA-SEQUENCE:10\n")
    assert "SKIP" in rules(late, skip_requested=True)


def test_history_catches_changes_across_reloads():
    h = hv.RenditionHistory("video")
    h.update(hv.parse_media_playlist(good(), MEDIA), 0.0)
    h.update(hv.parse_media_playlist(good(first_msn=11, segments=7), MEDIA), 0.2)
    assert h.violations == []
    h.update(hv.parse_media_playlist(good(first_msn=11, segments=7).replace("s12.m4s", "other12.m4s"), MEDIA), 0.4)
    assert {v.rule for v in h.violations} == {"M5"}

    h = hv.RenditionHistory("video")
    h.update(hv.parse_media_playlist(good(), MEDIA), 0.0)
    h.update(hv.parse_media_playlist(good().replace("TARGETDURATION:1", "TARGETDURATION:2"), MEDIA), 0.2)
    assert "M2" in {v.rule for v in h.violations}

    h = hv.RenditionHistory("video")
    h.update(hv.parse_media_playlist(good(first_msn=11, segments=7), MEDIA), 0.0)
    h.update(hv.parse_media_playlist(good(first_msn=10, segments=8), MEDIA), 0.2)
    assert "M5" in {v.rule for v in h.violations}

    # Discontinuity slid out without DISCONTINUITY-SEQUENCE moving: numbers of later segments change.
    with_disc = good().replace("#EXT-X-PROGRAM-DATE-TIME:2026-11-22T00:00:11.000Z",
                               "#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-11-22T00:00:11.000Z")
    h = hv.RenditionHistory("video")
    h.update(hv.parse_media_playlist(with_disc, MEDIA), 0.0)
    h.update(hv.parse_media_playlist(good(first_msn=12, segments=6), MEDIA), 0.2)
    assert "M6" in {v.rule for v in h.violations}
    h = hv.RenditionHistory("video")
    h.update(hv.parse_media_playlist(with_disc, MEDIA), 0.0)
    moved = good(first_msn=12, segments=6).replace("DISCONTINUITY-SEQUENCE:0", "DISCONTINUITY-SEQUENCE:1")
    h.update(hv.parse_media_playlist(moved, MEDIA), 0.2)
    assert h.violations == []


def test_history_checks_the_hint_became_the_next_part():
    h = hv.RenditionHistory("video")
    h.update(hv.parse_media_playlist(good(trailing=2), MEDIA), 0.0)
    h.update(hv.parse_media_playlist(good(trailing=3), MEDIA), 0.2)
    assert h.violations == []
    h = hv.RenditionHistory("video")
    h.update(hv.parse_media_playlist(good(trailing=2), MEDIA), 0.0)
    h.update(hv.parse_media_playlist(good(trailing=3).replace("p18.2.m4s", "x18.2.m4s"), MEDIA), 0.2)
    assert {v.rule for v in h.violations} == {"H2"}


def test_cadence_gap_is_caught():
    h = hv.RenditionHistory("video")
    h.update(hv.parse_media_playlist(good(), MEDIA), 0.0)
    h.part_first_seen.clear()
    h.part_first_seen.update({(99, i): 10.0 + 0.2 * i for i in range(20)})
    assert h.cadence_violations() == []
    h.part_first_seen[(99, 20)] = 10.0 + 0.2 * 19 + 1.5  # one part 1.3 s late
    assert "M11" in {v.rule for v in h.cadence_violations()}
    h.part_first_seen.clear()
    h.part_first_seen.update({(99, i): 10.0 + 0.5 * i for i in range(20)})  # every part late
    assert "M11" in {v.rule for v in h.cadence_violations()}


def test_rendition_reports():
    video = hv.parse_media_playlist(good(), MEDIA)
    audio = hv.parse_media_playlist(good(report=False), AUDIO)
    assert hv.check_rendition_reports(video, {MEDIA: video, AUDIO: audio}, 0.01) == []
    missing = hv.parse_media_playlist(good(report=False), MEDIA)
    assert {v.rule for v in hv.check_rendition_reports(missing, {MEDIA: missing, AUDIO: audio}, 0.01)} == {"R1"}
    stale = hv.parse_media_playlist(good().replace("LAST-MSN=18,LAST-PART=1", "LAST-MSN=16,LAST-PART=0"), MEDIA)
    assert "R3" in {v.rule for v in hv.check_rendition_reports(stale, {MEDIA: stale, AUDIO: audio}, 0.01)}


def test_renditions_must_agree():
    a = hv.parse_media_playlist(good(), MEDIA)
    b = hv.parse_media_playlist(good().replace("CAN-SKIP-UNTIL=6.0", "CAN-SKIP-UNTIL=12.0"), AUDIO)
    assert {v.rule for v in hv.check_renditions_agree({"video": a, "audio": b})} == {"M4"}
    assert hv.check_renditions_agree({"video": a, "audio": hv.parse_media_playlist(good(), AUDIO)}) == []


MV = """#EXTM3U
#EXT-X-VERSION:6
#EXT-X-INDEPENDENT-SEGMENTS
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="main",LANGUAGE="und",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio.m3u8"
#EXT-X-STREAM-INF:BANDWIDTH=3000000,AVERAGE-BANDWIDTH=2500000,CODECS="avc1.64001F,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30.000,AUDIO="aac"
video.m3u8
"""


def test_multivariant_rules():
    mv = hv.parse_multivariant(MV, "http://h/live/k/index.m3u8")
    assert hv.check_multivariant(mv) == []
    assert mv.media_playlist_urls() == {"video": "http://h/live/k/video.m3u8", "audio:main": "http://h/live/k/audio.m3u8"}
    bad = MV.replace("#EXT-X-INDEPENDENT-SEGMENTS\n", "").replace(",AVERAGE-BANDWIDTH=2500000", "")
    assert {v.rule for v in hv.check_multivariant(hv.parse_multivariant(bad))} == {"M9", "V1"}
    assert "V2" in {v.rule for v in hv.check_multivariant(hv.parse_multivariant(MV.replace("avc1.64001F", "avc1")))}
    assert "V3" in {v.rule for v in hv.check_multivariant(hv.parse_multivariant(MV.replace('AUDIO="aac"', 'AUDIO="x"')))}


def test_http_header_rules():
    ok = {"Content-Type": "application/vnd.apple.mpegurl", "Cache-Control": "max-age=6",
          "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": "Age"}
    assert hv.check_http("playlist", 200, ok, 1, blocking=True) == []
    assert hv.check_http("playlist", 200, {**ok, "Cache-Control": "max-age=1"}, 1, blocking=True)
    assert hv.check_http("playlist", 200, {**ok, "Cache-Control": "max-age=6"}, 1, blocking=False)
    assert hv.check_http("playlist", 200, {**ok, "Content-Type": "text/plain"}, 1, blocking=True)
    no_cors = {k: v for k, v in ok.items() if not k.startswith("Access")}
    assert {v.rule for v in hv.check_http("playlist", 200, no_cors, 1, blocking=True)} == {"HTTP"}
    media = {**ok, "Content-Type": "video/iso.segment", "Cache-Control": "max-age=6"}
    assert hv.check_http("part", 200, media, 1) == []
    assert hv.check_http("init", 200, media, 1)  # init must be video/mp4 or audio/mp4


@pytest.fixture(scope="module")
def tiny_fmp4(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fmp4") / "v.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "2",
                    "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-bf", "0", "-an", "-f", "mp4",
                    "-movflags", "+frag_keyframe+empty_moov+default_base_moof", "-y", str(out)], check=True)
    return out


def test_mp4_parser_reads_ffmpeg_fragments(tiny_fmp4):
    data = tiny_fmp4.read_bytes()
    moof = next(s for k, s, _, _ in mc.iter_boxes(data) if k == "moof")
    init = mc.parse_init(data[:moof])
    track = next(iter(init.tracks.values()))
    assert track.handler == "vide" and (track.width, track.height) == (320, 240)
    assert re.fullmatch(r"avc1\.[0-9A-F]{6}", track.codecs_string)
    media, violations, frags = mc.inspect_media(data[moof:], track)
    assert sum(len(f.samples) for f in frags) == 60 == media.samples
    assert media.first_is_idr is True
    assert abs(media.duration - 2.0) < 1e-6
    frames, err = mc.ffprobe_frames(tiny_fmp4, "v:0")
    assert len(frames) == 60 and err == ""
    assert abs(mc.decoded_span(frames) - 2.0) < 0.04


def test_nal_types_and_broken_boxes():
    sample = b"\x00\x00\x00\x02\x09\xf0" + b"\x00\x00\x00\x03\x65\x88\x84"
    assert mc.nal_types(sample) == [9, 5]
    with pytest.raises(ValueError):
        list(mc.iter_boxes(b"\x00\x00\x00\x20moof\x00\x00"))
