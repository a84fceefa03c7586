"""Cross-rendition checks for the ABR ladder: the multivariant contract, decoding each rung, IDR alignment.

The ladder contract (issue 3): the multivariant lists the passthrough source `video.m3u8` first, then
one rung per lower height (`720p.m3u8`, `480p.m3u8`, `360p.m3u8`), sorted by BANDWIDTH descending,
each with its own CODECS (avc1 from the rung's SPS + mp4a), RESOLUTION, FRAME-RATE and AUDIO="audio";
IDRs sit at the same media times in every rung, so the same MSN starts at the same tfdt everywhere.
"""
from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Optional
from urllib.parse import urlsplit

import hlsvalidate as hv
import mediacheck as mc
from follower import RenditionFollower

# (variant URI, RESOLUTION) per source height, in the order the multivariant must list them.
LADDERS = {
    1080: [("video.m3u8", "1920x1080"), ("720p.m3u8", "1280x720"), ("480p.m3u8", "854x480"),
           ("360p.m3u8", "640x360")],
    720: [("video.m3u8", "1280x720"), ("480p.m3u8", "854x480"), ("360p.m3u8", "640x360")],
    360: [("video.m3u8", "640x360")],
}
# A fixed UUID without 0x00 bytes, so no emulation-prevention byte can land inside it.
SEI_UUID = "5a1c3e7b-9d24-4f6a-8b1e-c2d4f6a8b0e2"
SEI_UUID_BYTES = bytes.fromhex(SEI_UUID.replace("-", ""))
TICK = 1 / 90000


def publisher_cmd(url: str, seconds: float, *, size: str = "1280x720", rate: int = 30, sei_text: str = "",
                  source_copy: Optional[Path] = None) -> list[str]:
    """FFmpeg publishing testsrc2 + sine, 1 s GOP, no B-frames; optionally an SEI user_data_unregistered,
    and a copy of exactly what was published (tee), so key frame times can be compared with the source.

    FFmpeg 5.1's h264_metadata puts a valid SEI (before the slices) only into the first access unit of
    an FLV stream; later keyframes get it appended after their slices (NAL order 5, 5, 6), which
    decoders ignore as a late SEI. So only the first keyframe's SEI can be expected in a re-encoded rung."""
    cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "warning", "-re",
           "-f", "lavfi", "-i", f"testsrc2=size={size}:rate={rate}",
           "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
           "-t", str(seconds), "-map", "0:v", "-map", "1:a",
           "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-g", str(rate), "-pix_fmt", "yuv420p",
           "-c:a", "aac", "-b:a", "128k"]
    if sei_text:
        cmd += ["-bsf:v", f"h264_metadata=sei_user_data={SEI_UUID}+{sei_text}"]
    if source_copy is None:
        return cmd + ["-f", "flv", url]
    # tee gives no encoder a global header unless asked; FLV needs the avcC/ASC sequence headers.
    return cmd + ["-flags:v", "+global_header", "-flags:a", "+global_header",
                  "-f", "tee", f"[f=flv:onfail=abort]{url}|[f=flv:onfail=ignore]{source_copy}"]


# ----------------------------------------------------------------------------- init segments


def avcc_sps(init: bytes) -> list[bytes]:
    """Every SPS NAL unit of the avcC box inside the init segment's avc1/avc3 sample entry."""
    for tp, te in mc.find(init, ["moov", "trak"]):
        stsd = mc.find(init, ["mdia", "minf", "stbl", "stsd"], tp, te)
        if not stsd:
            continue
        for kind, _, p, e in mc.iter_boxes(init, stsd[0][0] + 8, stsd[0][1]):
            if kind not in ("avc1", "avc3"):
                continue
            for k2, _, p2, _ in mc.iter_boxes(init, p + 78, e):
                if k2 != "avcC":
                    continue
                n, i, out = init[p2 + 5] & 0x1F, p2 + 6, []
                for _ in range(n):
                    size = int.from_bytes(init[i:i + 2], "big")
                    out.append(init[i + 2:i + 2 + size])
                    i += 2 + size
                return out
    return []


def sps_codec(init: bytes) -> Optional[str]:
    """`avc1.PPCCLL` read from the SPS itself (profile_idc, constraint flags, level_idc)."""
    sps = avcc_sps(init)
    if not sps or len(sps[0]) < 4:
        return None
    return f"avc1.{sps[0][1]:02x}{sps[0][2]:02x}{sps[0][3]:02x}"


# ----------------------------------------------------------------------------- multivariant


def check_multivariant_contract(mv: hv.Multivariant, source_height: int) -> list[str]:
    """Problems with the ladder shape; empty when the multivariant matches the contract."""
    want = LADDERS[source_height]
    out: list[str] = []
    got = [(uri, a.get("RESOLUTION")) for a, uri in mv.variants]
    if got != want:
        out.append(f"variants (URI, RESOLUTION) {got}, want {want}")
    if not mv.independent_segments:
        out.append("no EXT-X-INDEPENDENT-SEGMENTS")
    bws = [int(a.get("BANDWIDTH", "0") or 0) for a, _ in mv.variants]
    if bws != sorted(bws, reverse=True) or len(set(bws)) != len(bws):
        out.append(f"BANDWIDTH not strictly descending: {bws}")
    for a, uri in mv.variants:
        for key in ("BANDWIDTH", "AVERAGE-BANDWIDTH", "CODECS", "RESOLUTION", "FRAME-RATE", "AUDIO"):
            if key not in a:
                out.append(f"{uri}: no {key}")
        codecs = [c.strip() for c in a.get("CODECS", "").split(",")]
        kinds = [c.split(".")[0] for c in codecs]
        if sorted(kinds) != ["avc1", "mp4a"]:
            out.append(f"{uri}: CODECS {a.get('CODECS')!r}, want one avc1 and one mp4a")
        if a.get("AUDIO") != "audio":
            out.append(f"{uri}: AUDIO={a.get('AUDIO')!r}, want \"audio\"")
        try:
            if abs(float(a.get("FRAME-RATE", "0")) - 30) > 0.01:
                out.append(f"{uri}: FRAME-RATE={a.get('FRAME-RATE')}, want 30")
        except ValueError:
            out.append(f"{uri}: FRAME-RATE={a.get('FRAME-RATE')!r} is not a number")
        if urlsplit(uri).scheme or uri.startswith("/"):
            out.append(f"{uri}: variant URI is not relative")
    audio = [m for m in mv.media if m.get("TYPE") == "AUDIO"]
    if len(audio) != 1 or audio[0].get("GROUP-ID") != "audio" or audio[0].get("URI") != "audio.m3u8":
        out.append(f"want one EXT-X-MEDIA TYPE=AUDIO GROUP-ID=audio URI=audio.m3u8, got {mv.media}")
    return out


def watch_multivariant(url: str, want_variants: int, timeout: float) -> dict:
    """Poll the multivariant from before it exists: the first 200 answer (what a player tuning in at
    stream start gets), and how long until it lists `want_variants` variants."""
    import time

    import requests
    t0 = time.monotonic()
    out: dict = {"first": None, "first_at": None, "complete_at": None}
    while time.monotonic() - t0 < timeout:
        try:
            r = requests.get(url, timeout=2)
        except requests.RequestException:
            r = None
        if r is not None and r.status_code == 200 and "#EXT-X-STREAM-INF" in r.text:
            if out["first"] is None:
                out["first"], out["first_at"] = r.text, time.monotonic() - t0
            if r.text.count("#EXT-X-STREAM-INF") >= want_variants:
                out["complete_at"] = time.monotonic() - t0
                break
        time.sleep(0.05)
    return out


# ----------------------------------------------------------------------------- rungs


@dataclass
class Rung:
    """One video rendition as the follower saw it, with its variant attributes."""
    name: str  # follower name: video, video1, ...
    uri: str  # variant URI in the multivariant: video.m3u8, 480p.m3u8, ...
    attrs: dict
    rf: RenditionFollower

    @property
    def label(self) -> str:
        return self.uri.removesuffix(".m3u8")

    def track(self, msn: int) -> mc.Track:
        return next(iter(mc.parse_init(self.init_bytes(msn)).tracks.values()))

    def init_bytes(self, msn: Optional[int] = None) -> bytes:
        if msn is not None and self.rf.segments[msn].map_uri in self.rf.inits:
            return self.rf.inits[self.rf.segments[msn].map_uri]
        assert self.rf.inits, f"{self.uri}: no init segment downloaded; errors {self.rf.errors[:5]}"
        return next(iter(self.rf.inits.values()))


def video_rungs(follow) -> list[Rung]:
    mv = follow.multivariant
    out = []
    for i, (attrs, uri) in enumerate(mv.variants if mv else []):
        name = f"video{i}" if i else "video"
        if name in follow.renditions:
            out.append(Rung(name, uri, attrs, follow.renditions[name]))
    return out


def common_msns(rungs: list[Rung]) -> list[int]:
    """The longest run of consecutive MSNs every rung downloaded, one init, no discontinuity inside."""
    if not rungs:
        return []
    shared = sorted(set.intersection(*(set(r.rf.segments) for r in rungs)))
    best: list[int] = []
    cur: list[int] = []
    for msn in shared:
        ok = bool(cur) and msn == cur[-1] + 1 and all(
            not r.rf.segments[msn].discontinuity and r.rf.segments[msn].map_uri == r.rf.segments[cur[-1]].map_uri
            for r in rungs)
        cur = cur + [msn] if ok else [msn]
        if len(cur) > len(best):
            best = cur
    return best


@dataclass
class Decoded:
    """ffprobe's view of init + consecutive segments of one rung."""
    frames: list[dict]
    width: int
    height: int
    time_base: Fraction
    error: str
    samples: dict[int, int] = field(default_factory=dict)  # msn -> sample count (box parser)
    first_frame: dict[int, int] = field(default_factory=dict)  # msn -> index of its first frame

    def pts(self, i: int) -> Fraction:
        return int(self.frames[i]["pts"]) * self.time_base

    def key_times(self) -> list[Fraction]:
        return [self.pts(i) for i, f in enumerate(self.frames) if int(f.get("key_frame", 0)) == 1]


def decode(rung: Rung, msns: list[int], path: Path) -> Decoded:
    path.write_bytes(rung.init_bytes(msns[0]) + b"".join(rung.rf.segments[m].data for m in msns))
    cmd = ["ffprobe", "-v", "error", "-select_streams", "v:0",
           "-show_entries", "stream=width,height,time_base:frame=key_frame,pts,pict_type,width,height",
           "-of", "json", str(path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    try:
        doc = json.loads(r.stdout or "{}")
    except json.JSONDecodeError:
        doc = {}
    st = (doc.get("streams") or [{}])[0]
    num, _, den = st.get("time_base", "1/90000").partition("/")
    frames = [f for f in doc.get("frames", []) if f.get("pts") not in (None, "N/A")]
    d = Decoded(frames, int(st.get("width", 0)), int(st.get("height", 0)), Fraction(int(num), int(den or 1)),
                (r.stderr or "").strip() + ("" if r.returncode == 0 else f" (exit {r.returncode})"))
    track = rung.track(msns[0])
    i = 0
    for m in msns:
        pm, _, _ = mc.inspect_media(rung.rf.segments[m].data, track)
        d.first_frame[m] = i
        d.samples[m] = pm.samples
        i += pm.samples
    return d


def first_sample_time(data: bytes, track: mc.Track) -> Optional[Fraction]:
    """Presentation time of the first sample (tfdt + its composition offset) in seconds."""
    frags = mc.parse_fragments(data)
    if not frags or frags[0].tfdt is None or not frags[0].samples:
        return None
    return Fraction(frags[0].tfdt + frags[0].samples[0].cto, track.timescale)


def part_sample_counts(rf: RenditionFollower, msn: int, track: mc.Track) -> Optional[list[int]]:
    """Samples per part of segment `msn`, when every part of it was downloaded."""
    seg = rf.segments[msn]
    if not seg.part_count or not all((msn, i) in rf.parts for i in range(seg.part_count)):
        return None
    return [mc.inspect_media(rf.parts[(msn, i)].data, track)[0].samples for i in range(seg.part_count)]


def measured_bitrates(rf: RenditionFollower) -> tuple[float, float]:
    """(peak, average) bits per second over the complete segments this follower downloaded."""
    segs = [s for s in rf.segments.values() if s.duration > 0]
    if not segs:
        return 0.0, 0.0
    peak = max(len(s.data) * 8 / s.duration for s in segs)
    avg = sum(len(s.data) for s in segs) * 8 / sum(s.duration for s in segs)
    return peak, avg


def fmt(t: Fraction) -> str:
    return f"{float(t):.6f}"
