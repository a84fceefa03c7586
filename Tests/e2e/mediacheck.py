"""fMP4 (CMAF) inspection for the e2e suite: box parsing, part/segment checks, ffprobe decoding.

Checks here back the playlist rules with the media itself: part DURATION against the samples it
holds (P3/P4), INDEPENDENT parts starting with an IDR (F6), parts concatenating to their segment
(F1), tfdt continuity (F4), explicit sync flags (F5), and CODECS against the init segment (V2).
"""
from __future__ import annotations

import json
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional

from hlsvalidate import Violation

# ----------------------------------------------------------------------------- boxes


def iter_boxes(data: bytes, start: int = 0, end: Optional[int] = None) -> Iterator[tuple[str, int, int, int]]:
    """Yield (type, box_start, payload_start, box_end)."""
    end = len(data) if end is None else end
    i = start
    while i + 8 <= end:
        size, = struct.unpack_from(">I", data, i)
        kind = data[i + 4:i + 8].decode("latin-1")
        hdr = 8
        if size == 1:
            if i + 16 > end:
                raise ValueError(f"truncated largesize box at {i}")
            size, = struct.unpack_from(">Q", data, i + 8)
            hdr = 16
        elif size == 0:
            size = end - i
        if size < hdr or i + size > end:
            raise ValueError(f"box {kind!r} at {i} has size {size} beyond {end}")
        yield kind, i, i + hdr, i + size
        i += size
    if i != end:
        raise ValueError(f"{end - i} trailing bytes after the last box")


def find(data: bytes, path: list[str], start: int = 0, end: Optional[int] = None) -> list[tuple[int, int]]:
    """All (payload_start, box_end) of boxes at `path` below [start, end)."""
    out = []
    for kind, _, p, e in iter_boxes(data, start, end):
        if kind == path[0]:
            if len(path) == 1:
                out.append((p, e))
            else:
                out.extend(find(data, path[1:], p, e))
    return out


@dataclass
class Track:
    track_id: int
    handler: str
    timescale: int
    codec: str = ""
    codecs_string: str = ""
    width: int = 0
    height: int = 0
    nal_length_size: int = 4
    channels: int = 0
    sample_rate: int = 0


@dataclass
class Init:
    major_brand: str
    brands: list[str]
    tracks: dict[int, Track]


def parse_init(data: bytes) -> Init:
    ftyp = find(data, ["ftyp"])
    major, brands = "", []
    if ftyp:
        p, e = ftyp[0]
        major = data[p:p + 4].decode("latin-1")
        brands = [data[i:i + 4].decode("latin-1") for i in range(p + 8, e, 4)]
    tracks: dict[int, Track] = {}
    for tp, te in find(data, ["moov", "trak"]):
        tk = find(data, ["tkhd"], tp, te)[0][0]
        ver = data[tk]
        tid, = struct.unpack_from(">I", data, tk + (20 if ver == 1 else 12))
        md = find(data, ["mdia", "mdhd"], tp, te)[0][0]
        mver = data[md]
        ts, = struct.unpack_from(">I", data, md + (20 if mver == 1 else 12))
        hd = find(data, ["mdia", "hdlr"], tp, te)[0][0]
        handler = data[hd + 8:hd + 12].decode("latin-1")
        t = Track(tid, handler, ts)
        stsd = find(data, ["mdia", "minf", "stbl", "stsd"], tp, te)[0]
        for kind, _, p, e in iter_boxes(data, stsd[0] + 8, stsd[1]):
            t.codec = kind
            if kind in ("avc1", "avc3"):
                t.width, t.height = struct.unpack_from(">HH", data, p + 24)
                for k2, _, p2, _ in iter_boxes(data, p + 78, e):
                    if k2 == "avcC":
                        prof, compat, level = data[p2 + 1], data[p2 + 2], data[p2 + 3]
                        t.nal_length_size = (data[p2 + 4] & 3) + 1
                        t.codecs_string = f"{kind}.{prof:02X}{compat:02X}{level:02X}"
            elif kind == "mp4a":
                t.channels, = struct.unpack_from(">H", data, p + 16)
                t.sample_rate = struct.unpack_from(">I", data, p + 24)[0] >> 16
                for k2, _, p2, e2 in iter_boxes(data, p + 28, e):
                    if k2 == "esds":
                        aot = _esds_object_type(data[p2 + 4:e2])
                        t.codecs_string = f"mp4a.40.{aot}" if aot else "mp4a.40"
        tracks[tid] = t
    return Init(major, brands, tracks)


def _esds_object_type(b: bytes) -> Optional[int]:
    """AudioObjectType from the DecoderSpecificInfo (tag 5) inside an esds descriptor chain."""
    i = 0
    while i < len(b):
        tag = b[i]
        i += 1
        size = 0
        for _ in range(4):
            c = b[i]
            i += 1
            size = (size << 7) | (c & 0x7F)
            if not c & 0x80:
                break
        if tag == 3:
            flags = b[i + 2]
            i += 3 + (2 if flags & 0x80 else 0)
            if flags & 0x40:
                i += 1 + b[i]
            if flags & 0x20:
                i += 2
            continue
        if tag == 4:
            i += 13
            continue
        if tag == 5:
            aot = b[i] >> 3
            if aot == 31:
                aot = 32 + (((b[i] & 7) << 3) | (b[i + 1] >> 5))
            return aot
        i += size
    return None


@dataclass
class Sample:
    duration: int
    size: int
    flags: Optional[int]
    cto: int
    offset: int  # absolute offset in the fragment bytes

    @property
    def is_sync(self) -> Optional[bool]:
        return None if self.flags is None else not (self.flags >> 16) & 1


@dataclass
class Fragment:
    sequence: int
    track_id: int
    tfdt: Optional[int]
    tfdt_version: int
    tfhd_flags: int
    traf_count: int
    trun_count: int
    trun_version: int
    samples: list[Sample] = field(default_factory=list)


def parse_fragments(data: bytes) -> list[Fragment]:
    frags = []
    boxes = list(iter_boxes(data))
    for kind, start, p, e in boxes:
        if kind != "moof":
            continue
        seq = struct.unpack_from(">I", data, find(data, ["mfhd"], p, e)[0][0] + 4)[0]
        trafs = find(data, ["traf"], p, e)
        tp, te = trafs[0]
        hp, _ = find(data, ["tfhd"], tp, te)[0]
        tflags = struct.unpack_from(">I", data, hp)[0] & 0xFFFFFF
        tid, = struct.unpack_from(">I", data, hp + 4)
        q = hp + 8
        base = start
        if tflags & 0x1:
            base = struct.unpack_from(">Q", data, q)[0]
            q += 8
        if tflags & 0x2:
            q += 4
        ddur = dsize = 0
        dflags = None
        if tflags & 0x8:
            ddur, = struct.unpack_from(">I", data, q)
            q += 4
        if tflags & 0x10:
            dsize, = struct.unpack_from(">I", data, q)
            q += 4
        if tflags & 0x20:
            dflags, = struct.unpack_from(">I", data, q)
        tfdts = find(data, ["tfdt"], tp, te)
        tfdt, tver = None, 0
        if tfdts:
            dp = tfdts[0][0]
            tver = data[dp]
            tfdt = struct.unpack_from(">Q" if tver == 1 else ">I", data, dp + 4)[0]
        truns = find(data, ["trun"], tp, te)
        rp, _ = truns[0]
        rver = data[rp]
        rflags = struct.unpack_from(">I", data, rp)[0] & 0xFFFFFF
        count, = struct.unpack_from(">I", data, rp + 4)
        q = rp + 8
        off = 0
        if rflags & 0x1:
            off, = struct.unpack_from(">i", data, q)
            q += 4
        first_flags = None
        if rflags & 0x4:
            first_flags, = struct.unpack_from(">I", data, q)
            q += 4
        f = Fragment(seq, tid, tfdt, tver, tflags, len(trafs), len(truns), rver)
        pos = base + off
        for n in range(count):
            dur, size, flags, cto = ddur, dsize, dflags, 0
            if rflags & 0x100:
                dur, = struct.unpack_from(">I", data, q)
                q += 4
            if rflags & 0x200:
                size, = struct.unpack_from(">I", data, q)
                q += 4
            if rflags & 0x400:
                flags, = struct.unpack_from(">I", data, q)
                q += 4
            if rflags & 0x800:
                cto, = struct.unpack_from(">i" if rver == 1 else ">I", data, q)
                q += 4
            if n == 0 and first_flags is not None:
                flags = first_flags
            f.samples.append(Sample(dur, size, flags, cto, pos))
            pos += size
        frags.append(f)
    return frags


def nal_types(sample: bytes, length_size: int = 4) -> list[int]:
    out, i = [], 0
    while i + length_size <= len(sample):
        n = int.from_bytes(sample[i:i + length_size], "big")
        i += length_size
        if n == 0 or i + n > len(sample):
            out.append(-1)
            break
        out.append(sample[i] & 0x1F)
        i += n
    return out


# ----------------------------------------------------------------------------- checks


@dataclass
class PartMedia:
    duration: float  # seconds, from sample durations
    samples: int
    first_sync_flag: Optional[bool]
    first_is_idr: Optional[bool]
    first_tfdt: Optional[int]
    end_tfdt: Optional[int]


def inspect_media(data: bytes, track: Track) -> tuple[PartMedia, list[Violation], list[Fragment]]:
    """Parse one part or segment of `track`; report structural (F2/F3/F5) problems."""
    v: list[Violation] = []
    frags = parse_fragments(data)
    if not frags:
        v.append(Violation("F1", "no moof in media"))
        return PartMedia(0, 0, None, None, None, None), v, frags
    for f in frags:
        if f.traf_count != 1 or f.trun_count != 1:
            v.append(Violation("F3", f"moof {f.sequence}: {f.traf_count} traf, {f.trun_count} trun"))
        if f.tfdt is None:
            v.append(Violation("F2", f"moof {f.sequence}: no tfdt"))
        if f.tfhd_flags & 0x1:
            v.append(Violation("F2", f"moof {f.sequence}: tfhd base_data_offset present"))
        if not f.tfhd_flags & 0x20000:
            v.append(Violation("F2", f"moof {f.sequence}: tfhd lacks default-base-is-moof"))
        if track.handler == "vide" and any(s.flags is None for s in f.samples):
            v.append(Violation("F5", f"moof {f.sequence}: video sample flags not explicit in trun"))
        for s in f.samples:
            if s.offset + s.size > len(data):
                v.append(Violation("F1", f"moof {f.sequence}: sample data beyond the end of the bytes"))
                break
    for a, b in zip(frags, frags[1:]):
        if b.sequence <= a.sequence:
            v.append(Violation("F3", f"mfhd sequence not increasing: {a.sequence} -> {b.sequence}"))
        if a.tfdt is not None and b.tfdt is not None and a.tfdt + sum(s.duration for s in a.samples) != b.tfdt:
            v.append(Violation("F4", f"tfdt gap inside media: {a.tfdt}+dur != {b.tfdt}"))
    samples = [s for f in frags for s in f.samples]
    first = samples[0] if samples else None
    is_idr = None
    if first is not None and track.handler == "vide":
        is_idr = 5 in nal_types(data[first.offset:first.offset + first.size], track.nal_length_size)
        if first.is_sync is not None and first.is_sync != is_idr:
            v.append(Violation("F5", f"first sample sync flag {first.is_sync} but IDR NAL present={is_idr}"))
    for s in samples[1:]:
        if track.handler == "vide" and s.is_sync:
            nt = nal_types(data[s.offset:s.offset + s.size], track.nal_length_size)
            if 5 not in nt:
                v.append(Violation("F5", "sample flagged sync without an IDR NAL unit"))
                break
    dur = sum(s.duration for s in samples)
    t0 = frags[0].tfdt
    return (PartMedia(dur / track.timescale, len(samples), first.is_sync if first else None, is_idr, t0,
                      None if t0 is None else t0 + dur), v, frags)


def ffprobe_frames(path: Path, stream: str) -> tuple[list[dict], str]:
    """Decode every frame of `stream` (v:0 or a:0); return frames and ffprobe's error output."""
    cmd = ["ffprobe", "-v", "error", "-select_streams", stream, "-show_frames",
           "-show_entries", "frame=key_frame,pts_time,pkt_dts_time,best_effort_timestamp_time,pkt_duration_time,pict_type",
           "-of", "json", str(path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    try:
        frames = json.loads(r.stdout or "{}").get("frames", [])
    except json.JSONDecodeError:
        frames = []
    return frames, (r.stderr or "").strip() + ("" if r.returncode == 0 else f" (exit {r.returncode})")


def frame_times(frames: list[dict]) -> list[float]:
    out = []
    for f in frames:
        t = f.get("pts_time", f.get("best_effort_timestamp_time"))
        if t not in (None, "N/A"):
            out.append(float(t))
    return out


def decoded_span(frames: list[dict]) -> float:
    """Presentation span of decoded frames: last pts + its duration - first pts."""
    ts = frame_times(frames)
    if not ts:
        return 0.0
    last = max(range(len(frames)), key=lambda i: float(frames[i].get("pts_time") or 0))
    d = frames[last].get("pkt_duration_time")
    return max(ts) - min(ts) + (float(d) if d not in (None, "N/A") else 0.0)
