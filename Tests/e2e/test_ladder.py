"""ABR ladder (issue 3): a 720p30 publish becomes passthrough + 480p + 360p, aligned for seamless switching.

FFmpeg publishes 12 s of testsrc2 1280x720@30 + sine with a 1 s GOP and an SEI user_data_unregistered
(fixed UUID; valid in the first access unit only, see laddercheck.publisher_cmd), and keeps a copy of
what it sent. The gateway runs its default
transcoding with 2 s segments, so each segment holds two GOPs: part 0 and a mid-segment part start on
an IDR, and both kinds of boundary must line up across rungs. The follower reads every rendition with
blocking reloads; the checks below then compare the rungs with each other and with the source.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Optional
from urllib.parse import urljoin

import pytest
import requests

import hlsvalidate as hv
import laddercheck as lc
import mediacheck as mc
from e2ecommon import assert_http_valid, assert_media_valid, assert_playlists_valid, assert_stream_followed
from procs import ARTIFACTS
from session import LiveRun, live_run

KEY = "e2e-ladder"
SECONDS = 12
WORKDIR = ARTIFACTS / "ladder"
# Two 1 s GOPs per segment: INDEPENDENT parts inside segments, not only at their starts.
SEGMENTS = ["--segment-target-seconds", "2", "--part-target-ms", "200"]
TOL = Fraction(1, 90000)  # one tick at 90 kHz


@dataclass
class LadderRun:
    run: LiveRun
    first_seen: dict  # laddercheck.watch_multivariant: the multivariant a player tuning in at once gets
    final_multivariant: Optional[hv.Multivariant]
    after_end: dict[str, hv.MediaPlaylist]  # variant URI -> its playlist once the publisher has left
    rungs: list[lc.Rung]
    msns: list[int]
    decoded: dict[str, lc.Decoded] = field(default_factory=dict)
    source: Optional[Path] = None

    def context(self) -> str:
        return self.run.context()


@pytest.fixture(scope="module")
def ladder() -> LadderRun:
    source = WORKDIR / "source.flv"
    seen: dict = {}
    want = len(lc.LADDERS[720])
    # The follower starts on the first multivariant listing the whole ladder; `seen` keeps the first one.
    run = live_run(WORKDIR, KEY, lambda gw: lc.publisher_cmd(gw.rtmp_url(KEY), SECONDS, sei_text="sluice-e2e-ladder",
                                                            source_copy=source),
                   follow_seconds=SECONDS - 1, gateway_args=SEGMENTS, stop_gateway=False, min_variants=want,
                   during=lambda gw, _: seen.update(lc.watch_multivariant(gw.hls_url(KEY), want, 15)),
                   # Slate off: the playlists are compared as the publisher left them; with the slate they go on, and
                   # a rung still encoding the source's last frames is read mid-segment (seen under load).
                   gateway_env={"SLUICE_INGEST_SLATE": "false"})
    final, after_end = None, {}
    try:
        # live_run returned after the publisher exited; the gateway holds the playlists for a reconnect.
        time.sleep(1)
        r = requests.get(run.gateway.hls_url(KEY), timeout=5)
        if r.status_code == 200:
            (WORKDIR / "final-index.m3u8").write_text(r.text)
            final = hv.parse_multivariant(r.text, run.gateway.hls_url(KEY))
            for _, uri in final.variants:
                u = urljoin(final.url, uri)
                pr = requests.get(u, timeout=10)
                (WORKDIR / f"after-end-{uri}").write_text(pr.text)
                if pr.status_code == 200:
                    after_end[uri] = hv.parse_media_playlist(pr.text, u)
    finally:
        run.gateway_exit = run.gateway.stop()
    rungs = lc.video_rungs(run.follow)
    msns = lc.common_msns(rungs)
    out = LadderRun(run, seen, final, after_end, rungs, msns, source=source)
    if msns:
        for rung in rungs:
            out.decoded[rung.label] = lc.decode(rung, msns, WORKDIR / f"rung-{rung.label}.mp4")
    if seen.get("first"):
        (WORKDIR / "first-index.m3u8").write_text(seen["first"])
    if run.follow.multivariant:
        (WORKDIR / "followed-index.m3u8").write_text(run.follow.multivariant.text)
    return out


def _need_rungs(lad: LadderRun, n: int = 3) -> None:
    mv = lad.run.follow.multivariant
    first = lad.first_seen.get("first")
    assert mv is not None, (f"the multivariant never listed {n} variants within 15 s; first answer "
                            f"({lad.first_seen.get('first_at')} s):\n{first}\n{lad.context()}")
    found = len(lad.rungs)
    assert found >= n, f"want {n} video renditions, followed {found}:\n{mv.text}"


def _need_decoded(lad: LadderRun) -> None:
    _need_rungs(lad)
    assert len(lad.msns) >= 3, (f"the rungs share only MSNs {lad.msns}: "
                                f"{ {r.label: sorted(r.rf.segments) for r in lad.rungs} }\n{lad.context()}")


def test_first_multivariant_already_lists_the_whole_ladder(ladder):
    """A player reads the multivariant once: the first 200 answer must already list every rung."""
    seen = ladder.first_seen
    print(f"multivariant first answered {seen.get('first_at')} s after publishing began; "
          f"whole ladder listed after {seen.get('complete_at')} s")
    assert seen.get("first"), f"the multivariant never answered 200 with a variant\n{ladder.context()}"
    first = hv.parse_multivariant(seen["first"], ladder.run.gateway.hls_url(KEY))
    problems = lc.check_multivariant_contract(first, 720) + [str(v) for v in hv.check_multivariant(first)]
    assert not problems, (f"GET {first.url} first answered 200 {seen.get('first_at'):.2f} s after publishing began "
                          f"(whole ladder after {seen.get('complete_at')} s):\n" + "\n".join(problems)
                          + f"\n---\n{first.text}")


def test_multivariant_matches_the_ladder_contract(ladder):
    """Order, URIs, RESOLUTION, attributes, audio group; CODECS' avc1 is each rung's real SPS."""
    _need_rungs(ladder)
    for which, m in (("followed", ladder.run.follow.multivariant), ("final", ladder.final_multivariant)):
        assert m is not None, f"{which} multivariant not fetched"
        problems = lc.check_multivariant_contract(m, 720) + [str(v) for v in hv.check_multivariant(m)]
        assert not problems, f"{which} multivariant ({m.url}):\n" + "\n".join(problems) + f"\n---\n{m.text}"
    _need_rungs(ladder)
    audio = next((rf for n, rf in ladder.run.follow.renditions.items() if n.startswith("audio")), None)
    assert audio is not None and audio.inits, "no audio init downloaded"
    audio_codec = next(iter(mc.parse_init(next(iter(audio.inits.values()))).tracks.values())).codecs_string
    for rung in ladder.rungs:
        init = rung.init_bytes()
        sps = lc.sps_codec(init)
        track = next(iter(mc.parse_init(init).tracks.values()))
        codecs = [c.strip() for c in rung.attrs["CODECS"].split(",")]
        avc = next(c for c in codecs if c.startswith("avc1."))
        assert sps is not None, f"{rung.uri}: no SPS in the init's avcC"
        assert avc.lower() == sps, f"{rung.uri}: CODECS says {avc}, the rung's SPS says {sps}"
        assert track.codecs_string.lower() == sps, f"{rung.uri}: avcC header {track.codecs_string} != SPS {sps}"
        assert audio_codec in codecs, f"{rung.uri}: CODECS {codecs} lacks the audio init's {audio_codec}"
        assert f"{track.width}x{track.height}" == rung.attrs["RESOLUTION"], \
            f"{rung.uri}: RESOLUTION {rung.attrs['RESOLUTION']}, init says {track.width}x{track.height}"
        print(f"{rung.uri}: {rung.attrs}")


def test_bandwidth_reflects_the_segments_produced(ladder):
    """BANDWIDTH/AVERAGE-BANDWIDTH are measured: same order of magnitude as the downloaded segments."""
    _need_rungs(ladder)
    mv = ladder.final_multivariant
    assert mv is not None
    audio = next(rf for n, rf in ladder.run.follow.renditions.items() if n.startswith("audio"))
    audio_avg = lc.measured_bitrates(audio)[1]
    lines, bad = [], []
    for attrs, uri in mv.variants:
        rung = next(r for r in ladder.rungs if r.uri == uri)
        peak, avg = lc.measured_bitrates(rung.rf)
        bw, abw = int(attrs["BANDWIDTH"]), int(attrs["AVERAGE-BANDWIDTH"])
        lines.append(f"{uri}: BANDWIDTH {bw} AVERAGE {abw}; downloaded video peak {peak:.0f} avg {avg:.0f} "
                     f"+ audio {audio_avg:.0f}")
        # Loose on purpose: the gateway measures over its own window; a factor of 2 catches made-up values.
        if not 0.5 <= abw / (avg + audio_avg) <= 2:
            bad.append(f"{uri}: AVERAGE-BANDWIDTH {abw} vs measured {avg + audio_avg:.0f}")
        if not 0.5 <= bw / (peak + audio_avg) <= 2:
            bad.append(f"{uri}: BANDWIDTH {bw} vs measured peak {peak + audio_avg:.0f}")
    print("\n".join(lines))
    assert not bad, "\n".join(bad + lines)


def test_every_rendition_is_followed_with_blocking_reloads(ladder):
    _need_rungs(ladder)
    assert_stream_followed(ladder.run, min_segments=4)
    names = set(ladder.run.follow.renditions)
    assert {"video", "video1", "video2"} <= names and sum(n.startswith("audio") for n in names) == 1, names
    for name, rf in ladder.run.follow.renditions.items():
        assert rf.report_checks, f"{name}: rendition reports never checked"
        last = rf.history.last
        reported = {r.get("URI") for r in last.rendition_reports} if last else set()
        others = {Path(u).name for n, u in rf.others.items()}
        assert others <= {Path(u or "").name for u in reported} or (last and last.endlist), \
            f"{name}: last playlist reports {sorted(reported)}, want all of {sorted(others)}"


def test_every_playlist_response_validates(ladder):
    """Every rule of hlsvalidate on every response, rendition reports across all four playlists included."""
    _need_rungs(ladder)
    assert_playlists_valid(ladder.run)


def test_http_headers(ladder):
    _need_rungs(ladder)
    assert_http_valid(ladder.run)


def test_each_rendition_media_matches_its_playlist(ladder):
    """Per rendition: part/segment durations, IDR placement (NAL types), parts concatenate, ffprobe decodes."""
    _need_rungs(ladder)
    assert_media_valid(ladder.run)


def test_rung_media_uris_are_relative_and_named_after_the_rung(ladder):
    _need_rungs(ladder)
    epochs = set()
    for rung in ladder.rungs:
        pl = rung.rf.history.last
        label = re.escape(rung.label)
        for m in pl.maps:
            mm = re.fullmatch(rf"([A-Za-z0-9_-]+)/{label}/init-\d+\.mp4", m.get("URI", ""))
            assert mm, f"{rung.uri}: EXT-X-MAP URI {m.get('URI')!r}, want {{epoch}}/{rung.label}/init-N.mp4"
            epochs.add(mm.group(1))
        for s in pl.segments:
            assert re.fullmatch(rf"[A-Za-z0-9_-]+/{label}/{s.msn}\.m4s", s.uri), \
                f"{rung.uri}: segment URI {s.uri!r} for MSN {s.msn}"
        for p in pl.ordered_parts():
            assert re.fullmatch(rf"[A-Za-z0-9_-]+/{label}/{p.msn}\.{p.index}\.m4s", p.uri or ""), \
                f"{rung.uri}: part URI {p.uri!r} for {p.msn}.{p.index}"
    assert len(epochs) == 1, f"rungs use different epochs {epochs}"


def test_rungs_decode_with_equal_frame_counts_and_their_resolution(ladder):
    _need_decoded(ladder)
    counts = {}
    for rung in ladder.rungs:
        d = ladder.decoded[rung.label]
        want = tuple(int(x) for x in rung.attrs["RESOLUTION"].split("x"))
        assert not d.error, f"{rung.uri}: ffprobe on MSNs {ladder.msns}: {d.error[:400]}"
        assert (d.width, d.height) == want, f"{rung.uri}: decodes as {d.width}x{d.height}, want {want}"
        sizes = {(int(f.get("width", 0)), int(f.get("height", 0))) for f in d.frames}
        assert sizes == {want}, f"{rung.uri}: frame sizes {sizes}"
        expected = sum(d.samples.values())
        assert len(d.frames) == expected, f"{rung.uri}: decoded {len(d.frames)} frames, samples say {expected}"
        assert not [f for f in d.frames if f.get("pict_type") == "B"], f"{rung.uri}: B-frames in a rung"
        counts[rung.label] = (len(d.frames), tuple(d.samples[m] for m in ladder.msns))
    print(f"MSNs {ladder.msns}: frames per rung {counts}")
    assert len({c for c in counts.values()}) == 1, f"frame counts per segment differ across rungs: {counts}"
    # 12 s at 30 fps: a few 2 s segments hold 60 frames each (fast start makes the first second two segments).
    assert counts["video"][0] >= 60 * (len(ladder.msns) - 2), counts


def test_key_frames_are_identical_across_rungs_and_the_source(ladder):
    _need_decoded(ladder)
    ref = ladder.decoded["video"].key_times()
    assert len(ref) >= 2 * (len(ladder.msns) - 1), f"passthrough has key frames at {[lc.fmt(t) for t in ref]}"
    for rung in ladder.rungs[1:]:
        ks = ladder.decoded[rung.label].key_times()
        diff = [(lc.fmt(a), lc.fmt(b)) for a, b in zip(ref, ks) if abs(a - b) > TOL]
        assert len(ks) == len(ref) and not diff, (
            f"{rung.uri} key frames differ from the passthrough over MSNs {ladder.msns}:\n"
            f"passthrough {[lc.fmt(t) for t in ref]}\n{rung.label} {[lc.fmt(t) for t in ks]}")
    # The source copy (what FFmpeg sent, FLV milliseconds): same key frame pattern, same spacing.
    src = _source_frames(ladder.source)
    assert src, f"no frames decoded from the source copy {ladder.source}"
    p = ladder.decoded["video"]
    pk = [int(f.get("key_frame", 0)) for f in p.frames]
    pt = [p.pts(i) for i in range(len(p.frames))]
    # Fast start: the top rendition is encoded up to the source's first keyframe after the 0.4 s cut (an IDR there
    # too), then carries the source's frames; compare from that keyframe on.
    keys = [i for i, k in enumerate(pk) if k]
    if len(keys) >= 3 and abs(pt[keys[1]] - pt[0] - Fraction(2, 5)) <= Fraction(1, 30):
        pk, pt = pk[keys[2]:], pt[keys[2]:]
    matches = []
    for j in (j for j, (k, _) in enumerate(src) if k == 1):
        if j + len(pk) > len(src):
            break
        if all(src[j + i][0] == pk[i] and abs((src[j + i][1] - src[j][1]) - (pt[i] - pt[0])) <= Fraction(3, 2000)
               for i in range(len(pk))):
            matches.append(j)
    assert matches, ("the passthrough's key frames (flags and times relative to its first frame) match no "
                     f"stretch of the source copy; passthrough key times {[lc.fmt(t) for t in ref]}")
    offset = pt[0] - src[matches[0]][1]
    print(f"key frames at {[lc.fmt(t) for t in ref]} in every rung; source alignment candidates {matches}, "
          f"passthrough time - source time = {lc.fmt(offset)} s")


def _source_frames(path: Optional[Path]) -> list[tuple[int, Fraction]]:
    import json
    import subprocess
    if path is None or not path.exists():
        return []
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                        "stream=time_base:frame=key_frame,pts", "-of", "json", str(path)],
                       capture_output=True, text=True, timeout=60)
    doc = json.loads(r.stdout or "{}")
    num, _, den = (doc.get("streams") or [{}])[0].get("time_base", "1/1000").partition("/")
    tb = Fraction(int(num), int(den))
    frames = [f for f in doc.get("frames", []) if f.get("pts") not in (None, "N/A")]
    return [(int(f["key_frame"]), int(f["pts"]) * tb) for f in frames]


def test_segments_and_independent_parts_start_with_key_frames(ladder):
    """Decoded frame flags (not only NAL types): every segment and INDEPENDENT part opens on a key frame."""
    _need_decoded(ladder)
    checked, problems = 0, []
    for rung in ladder.rungs:
        d = ladder.decoded[rung.label]
        track = rung.track(ladder.msns[0])
        for msn in ladder.msns:
            i0 = d.first_frame[msn]
            if int(d.frames[i0].get("key_frame", 0)) != 1:
                problems.append(f"{rung.uri}: segment {msn} starts with a non-key frame at {lc.fmt(d.pts(i0))}")
            counts = lc.part_sample_counts(rung.rf, msn, track)
            if counts is None:
                continue
            i = i0
            for idx, n in enumerate(counts):
                part = rung.rf.parts[(msn, idx)]
                if part.independent:
                    checked += 1
                    if int(d.frames[i].get("key_frame", 0)) != 1:
                        problems.append(f"{rung.uri}: INDEPENDENT part {msn}.{idx} starts at {lc.fmt(d.pts(i))} "
                                        f"with a non-key frame")
                elif int(d.frames[i].get("key_frame", 0)) == 1:
                    problems.append(f"{rung.uri}: part {msn}.{idx} starts on a key frame but is not INDEPENDENT")
                i += n
    assert not problems, "\n".join(problems)
    # Two GOPs per segment: part 0 and one mid-segment part per segment and rung, at least.
    assert checked >= 2 * len(ladder.rungs) * (len(ladder.msns) - 1), f"only {checked} INDEPENDENT parts checked"


def test_same_msn_starts_at_the_same_media_time_in_every_rung(ladder):
    """Segment boundaries and INDEPENDENT parts line up: first sample's tfdt+cto within one 90 kHz tick."""
    _need_rungs(ladder)
    ref = ladder.rungs[0]
    problems, seg_checked, part_checked, part_keys = [], 0, 0, []
    for rung in ladder.rungs[1:]:
        for msn in sorted(set(ref.rf.segments) & set(rung.rf.segments)):
            a = lc.first_sample_time(ref.rf.segments[msn].data, ref.track(msn))
            b = lc.first_sample_time(rung.rf.segments[msn].data, rung.track(msn))
            seg_checked += 1
            if a is None or b is None or abs(a - b) > TOL:
                problems.append(f"MSN {msn}: {ref.label} starts at {a and lc.fmt(a)}, "
                                f"{rung.label} at {b and lc.fmt(b)}")
        for key in sorted(set(ref.rf.parts) & set(rung.rf.parts)):
            pa, pb = ref.rf.parts[key], rung.rf.parts[key]
            if key[0] not in ref.rf.segments or key[0] not in rung.rf.segments:
                continue
            ta = lc.first_sample_time(pa.data, ref.track(key[0]))
            tb = lc.first_sample_time(pb.data, rung.track(key[0]))
            if pa.independent != pb.independent:
                problems.append(f"part {key[0]}.{key[1]}: INDEPENDENT {ref.label}={pa.independent} "
                                f"{rung.label}={pb.independent}")
            elif pa.independent:
                part_checked += 1
                part_keys.append(key)
                if ta is None or tb is None or abs(ta - tb) > TOL:
                    problems.append(f"INDEPENDENT part {key[0]}.{key[1]}: {ref.label} at {ta and lc.fmt(ta)}, "
                                    f"{rung.label} at {tb and lc.fmt(tb)}")
    print(f"{seg_checked} segment starts and {part_checked} INDEPENDENT part starts compared; parts "
          f"{sorted(set(part_keys))}")
    assert not problems, "\n".join(problems[:30])
    assert seg_checked >= 2 * 3 and part_checked >= 2 * 3, (seg_checked, part_checked)


def test_rungs_still_agree_after_the_publisher_leaves(ladder):
    """When the source stops, every rung ends where the passthrough ends: same MSNs, same durations."""
    _need_rungs(ladder)
    pls = ladder.after_end
    assert "video.m3u8" in pls and len(pls) == len(ladder.rungs), f"playlists fetched after the end: {list(pls)}"
    ref = pls["video.m3u8"]

    def listing(pl: hv.MediaPlaylist) -> list[tuple[int, str]]:
        return [(s.msn, s.duration_text) for s in pl.segments]

    problems = []
    for uri, pl in pls.items():
        a, b = listing(ref), listing(pl)
        if [m for m, _ in a] != [m for m, _ in b]:
            problems.append(f"{uri} lists MSNs {[m for m, _ in b]}, video.m3u8 {[m for m, _ in a]}")
        # One frame (1/30 s) of slack: the last sample's duration is a guess once the source is gone.
        for (m, da), (_, db) in zip(a, b):
            if abs(float(da) - float(db)) > 1 / 30 + 1e-3:
                problems.append(f"{uri} MSN {m}: EXTINF {db}, video.m3u8 {da}")
        if ref.independent_segments and not pl.independent_segments:
            problems.append(f"{uri} dropped EXT-X-INDEPENDENT-SEGMENTS")
    tails = "\n".join(f"{u}: {listing(p)[-3:]}" for u, p in pls.items())
    assert not problems, "after the publisher left:\n" + "\n".join(problems) + f"\nlast segments:\n{tails}"


def test_sei_from_the_publisher_reaches_every_rung(ladder):
    _need_rungs(ladder)
    counts = {}
    for rung in ladder.rungs:
        segs = [rung.rf.segments[m] for m in sorted(rung.rf.segments)]
        assert segs, f"{rung.uri}: no segments"
        counts[rung.label] = f"{sum(lc.SEI_UUID_BYTES in s.data for s in segs)}/{len(segs)} segments"
        assert lc.SEI_UUID_BYTES in segs[0].data, (
            f"{rung.uri}: SEI UUID {lc.SEI_UUID} not in its first segment {segs[0].uri} (MSN {segs[0].msn})")
    print(f"SEI UUID {lc.SEI_UUID} found in: {counts}")
    src = ladder.source.read_bytes() if ladder.source and ladder.source.exists() else b""
    assert lc.SEI_UUID_BYTES in src, "the publisher itself did not send the SEI (h264_metadata did not insert it)"


def test_summary(ladder):
    """Prints what the run exercised (passes once the stream was followed)."""
    for name, rf in ladder.run.follow.renditions.items():
        print(f"{name}: {len(rf.playlists)} playlists, {len(rf.blocking)} blocking, {rf.delta_count} deltas, "
              f"{rf.report_checks} report checks, {len(rf.parts)} parts, segments {sorted(rf.segments)}")
    print(ladder.run.follow.latency_summary())
    assert ladder.run.follow.renditions
