"""Checks on everything a follower downloaded: the media behind the playlists, decoded by ffprobe."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import hlsvalidate as hv
import mediacheck as mc
from follower import FollowResult, RenditionFollower


@dataclass
class RenditionSummary:
    handler: str = ""
    codecs: str = ""
    width: int = 0
    height: int = 0
    parts: int = 0
    segments: int = 0
    independent_parts: int = 0
    concatenations_checked: int = 0
    decoded_frames: int = 0
    expected_frames: int = 0
    decoded_seconds: float = 0.0
    extinf_seconds: float = 0.0
    groups: int = 0
    discontinuities: int = 0
    # msn -> PDT minus the segment's tfdt in seconds: the date-to-media-time mapping (M8)
    pdt_offsets: dict = field(default_factory=dict, repr=False)


@dataclass
class Analysis:
    violations: list[hv.Violation] = field(default_factory=list)
    summaries: dict[str, RenditionSummary] = field(default_factory=dict)
    date_mapping_skew: float = 0.0  # largest PDT-vs-media-time difference between renditions (s)

    def text(self) -> str:
        lines = [f"{n}: {s}" for n, s in self.summaries.items()]
        return "\n".join(lines + [f"date-to-media-time skew between renditions: {self.date_mapping_skew:.4f} s"])


def analyze(res: FollowResult, workdir: Path) -> Analysis:
    out = Analysis()
    for name, rf in res.renditions.items():
        s = RenditionSummary()
        out.summaries[name] = s
        out.violations += _analyze_rendition(name, rf, s, workdir)
        # A video rendition is checked against its own variant (ladder); audio against the first.
        variant = _variant_attrs(res, name if s.handler == "vide" else "video")
        stream_codecs = variant.get("CODECS", "")
        if s.codecs and s.codecs.lower() not in [c.strip().lower() for c in stream_codecs.split(",")]:
            out.violations.append(hv.Violation("V2", f"{name}: init says {s.codecs} but CODECS is {stream_codecs!r}"))
        if s.handler == "vide" and res.multivariant and res.multivariant.variants:
            want = variant.get("RESOLUTION")
            if want != f"{s.width}x{s.height}":
                out.violations.append(hv.Violation("V1", f"RESOLUTION {want} but the init says {s.width}x{s.height}"))
    out.violations += _check_date_mapping(out.summaries, out)
    return out


def _variant_attrs(res: FollowResult, name: str) -> dict:
    """EXT-X-STREAM-INF attributes of the variant whose media playlist the follower calls `name`."""
    if not res.multivariant or not res.multivariant.variants:
        return {}
    m = re.fullmatch(r"video(\d*)", name)
    i = int(m.group(1) or 0) if m else 0
    return res.multivariant.variants[i][0] if i < len(res.multivariant.variants) else {}


def _check_date_mapping(summaries: dict[str, RenditionSummary], out: Analysis,
                        tolerance: float = 0.1) -> list[hv.Violation]:
    """M8: PDT maps to media time the same way in every segment and every rendition."""
    v = []
    ref_name, ref = next(iter(summaries.items()), (None, None))
    for name, s in summaries.items():
        by_disc: dict = {}
        for msn, (disc, off) in sorted(s.pdt_offsets.items()):
            by_disc.setdefault(disc, []).append((msn, off))
        for disc, items in by_disc.items():
            base = items[0][1]
            for msn, off in items:
                if abs(off - base) > tolerance:
                    v.append(hv.Violation("M8", f"{name}: MSN {msn} PDT drifts {off - base:+.3f} s from the "
                                                f"date-to-media-time mapping of MSN {items[0][0]}"))
                    break
        if ref is not None and s is not ref:
            for msn, (disc, off) in s.pdt_offsets.items():
                if msn in ref.pdt_offsets and ref.pdt_offsets[msn][0] == disc:
                    diff = off - ref.pdt_offsets[msn][1]
                    out.date_mapping_skew = max(out.date_mapping_skew, abs(diff))
                    if abs(diff) > tolerance:
                        v.append(hv.Violation("M8", f"MSN {msn}: {name} maps dates to media time {diff:+.3f} s "
                                                    f"off {ref_name}"))
                        break
    return v


def _analyze_rendition(name: str, rf: RenditionFollower, s: RenditionSummary, workdir: Path) -> list[hv.Violation]:
    v: list[hv.Violation] = []
    add = lambda rule, msg: v.append(hv.Violation(rule, f"{name}: {msg}"))  # noqa: E731
    if not rf.inits:
        add("M9", "no init segment downloaded")
        return v
    inits = {}
    for u, data in rf.inits.items():
        try:
            inits[u] = mc.parse_init(data)
        except (ValueError, IndexError) as e:
            add("F0", f"init {u} does not parse: {e}")
    if not inits:
        return v
    first_init = next(iter(inits.values()))
    if len(first_init.tracks) != 1:
        add("F0", f"init has {len(first_init.tracks)} tracks; audio and video belong in separate playlists")
    track = next(iter(first_init.tracks.values()))
    s.handler, s.codecs, s.width, s.height = track.handler, track.codecs_string, track.width, track.height
    pt = rf.pt or 0
    frame = None

    def track_for(map_uri):
        ini = inits.get(map_uri) if map_uri else None
        return next(iter(ini.tracks.values())) if ini else track

    # Parts: duration, placement of IDRs, structure.
    seg_map = {m: r.map_uri for m, r in rf.segments.items()}
    for key, p in sorted(rf.parts.items()):
        s.parts += 1
        tr = track_for(seg_map.get(p.msn))
        try:
            pm, pv, frags = mc.inspect_media(p.data, tr)
        except (ValueError, IndexError, Exception) as e:  # noqa: BLE001
            add("F1", f"part {p.msn}.{p.index} does not parse: {e}")
            continue
        v += [hv.Violation(x.rule, f"{name}: part {p.msn}.{p.index}: {x.message}") for x in pv]
        if frame is None and frags and frags[0].samples:
            frame = frags[0].samples[0].duration / tr.timescale
        budget = 0.001 + hv.rounding_budget([p.duration_text])
        if abs(pm.duration - p.duration) > budget:
            add("P4", f"part {p.msn}.{p.index}: DURATION {p.duration_text} but its samples last {pm.duration:.6f} s")
        if pt and pm.duration > pt + 1e-6:
            add("P3", f"part {p.msn}.{p.index}: samples last {pm.duration:.6f} s > PART-TARGET {pt}")
        if tr.handler == "vide":
            if p.independent:
                s.independent_parts += 1
                if not pm.first_is_idr or pm.first_sync_flag is False:
                    add("F6", f"INDEPENDENT part {p.msn}.{p.index} starts with NAL types "
                              f"{'IDR' if pm.first_is_idr else 'non-IDR'}, sync flag {pm.first_sync_flag}")
            elif pm.first_is_idr:
                add("F6", f"part {p.msn}.{p.index} starts with an IDR but is not marked INDEPENDENT")

    # Segments: structure, EXTINF against samples, IDR first, parts concatenate to the segment.
    seg_media: dict[int, mc.PartMedia] = {}
    for msn, r in sorted(rf.segments.items()):
        s.segments += 1
        s.discontinuities += int(r.discontinuity)
        tr = track_for(r.map_uri)
        try:
            sm, sv, _ = mc.inspect_media(r.data, tr)
        except (ValueError, IndexError, Exception) as e:  # noqa: BLE001
            add("F1", f"segment {msn} does not parse: {e}")
            continue
        seg_media[msn] = sm
        d = hv.parse_pdt(r.pdt_text) if r.pdt_text else None
        if d is not None and sm.first_tfdt is not None:
            s.pdt_offsets[msn] = (r.disc_number, d.timestamp() - sm.first_tfdt / tr.timescale)
        v += [hv.Violation(x.rule, f"{name}: segment {msn}: {x.message}") for x in sv]
        if abs(sm.duration - r.duration) > 0.001 + hv.rounding_budget([r.duration_text]):
            add("P4", f"segment {msn}: EXTINF {r.duration_text} but its samples last {sm.duration:.6f} s")
        if tr.handler == "vide" and not sm.first_is_idr:
            add("V4", f"segment {msn} does not start with an IDR")
        if r.part_count:
            keys = [(msn, i) for i in range(r.part_count)]
            if all(k in rf.parts for k in keys):
                s.concatenations_checked += 1
                joined = b"".join(rf.parts[k].data for k in keys)
                if joined != r.data:
                    add("F1", f"segment {msn} ({len(r.data)} bytes) differs from its {r.part_count} parts "
                              f"concatenated ({len(joined)} bytes)")
    for msn, sm in seg_media.items():
        nxt = seg_media.get(msn + 1)
        if nxt and not rf.segments[msn + 1].discontinuity and sm.end_tfdt is not None and nxt.first_tfdt != sm.end_tfdt:
            add("F4", f"tfdt of segment {msn + 1} is {nxt.first_tfdt}, segment {msn} ends at {sm.end_tfdt}")

    # Decode: init + each run of consecutive segments with the same init and discontinuity number.
    runs: list[list[int]] = []
    for msn in sorted(rf.segments):
        r = rf.segments[msn]
        if (runs and runs[-1][-1] == msn - 1 and not r.discontinuity
                and rf.segments[runs[-1][-1]].map_uri == r.map_uri):
            runs[-1].append(msn)
        else:
            runs.append([msn])
    stream = "v:0" if track.handler == "vide" else "a:0"
    frame = frame or (1 / 30 if track.handler == "vide" else 1024 / 48000)
    for i, run in enumerate(runs):
        run = [m for m in run if m in seg_media]
        if not run:
            continue
        s.groups += 1
        r0 = rf.segments[run[0]]
        init_bytes = rf.inits.get(r0.map_uri) if r0.map_uri else next(iter(rf.inits.values()))
        if init_bytes is None:
            add("M9", f"no init for segments {run}")
            continue
        path = workdir / f"{re.sub(r'[^A-Za-z0-9]+', '_', name)}-run{i}.mp4"
        path.write_bytes(init_bytes + b"".join(rf.segments[m].data for m in run))
        frames, err = mc.ffprobe_frames(path, stream)
        expected = sum(seg_media[m].samples for m in run)
        extinf = sum(rf.segments[m].duration for m in run)
        span = mc.decoded_span(frames)
        s.decoded_frames += len(frames)
        s.expected_frames += expected
        s.decoded_seconds += span
        s.extinf_seconds += extinf
        if err:
            add("DECODE", f"ffprobe on segments {run[0]}..{run[-1]}: {err[:300]}")
        slack = 0 if track.handler == "vide" else 1
        if abs(len(frames) - expected) > slack:
            add("DECODE", f"segments {run[0]}..{run[-1]}: decoded {len(frames)} frames, samples say {expected}")
        if abs(span - extinf) > frame + 1e-3:
            add("DECODE", f"segments {run[0]}..{run[-1]}: decoded span {span:.4f} s vs EXTINF sum {extinf:.4f} s")
        if track.handler == "vide" and frames and int(frames[0].get("key_frame", 0)) != 1:
            add("DECODE", f"first decoded frame of segments {run[0]}.. is not a key frame")
    return v
