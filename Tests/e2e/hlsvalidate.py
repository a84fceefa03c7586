"""LL-HLS validator: the client-checkable rules of llhls-checklist.md sections 1-2.

Rule ids (M1..M11, P1..P6, H1..H3, R1..R3, SKIP, B1..B8, HTTP) match the checklist so a failure
names the rule it breaks. Parsing is done here (the m3u8 library is only a cross-check in tests):
it keeps tag order and line numbers, which placement rules (P2, M5, M6, SKIP) need.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Optional
from urllib.parse import urljoin, urlsplit, urlunsplit

PLAYLIST_TYPES = ("application/vnd.apple.mpegurl",)
INIT_TYPES = ("video/mp4", "audio/mp4")
MEDIA_TYPES = ("video/iso.segment", "video/mp4", "audio/mp4")
PDT_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3,}(Z|[+-]\d{2}:?\d{2})$")
EPS = 1e-6


@dataclass(frozen=True)
class Violation:
    rule: str
    message: str
    at: float = field(default=0.0, compare=False)  # time.monotonic() when a live check found it

    def __str__(self) -> str:
        return f"[{self.rule}] {self.message}"


# ----------------------------------------------------------------------------- parsing


def parse_attributes(text: str) -> dict[str, str]:
    """Attribute list (RFC 8216 4.2); quoted values keep no quotes, QUOTED marks which were quoted."""
    attrs: dict[str, str] = {}
    quoted: list[str] = []
    i, n = 0, len(text)
    while i < n:
        eq = text.find("=", i)
        if eq < 0:
            break
        key = text[i:eq].strip()
        j = eq + 1
        if j < n and text[j] == '"':
            end = text.find('"', j + 1)
            if end < 0:
                end = n
            value = text[j + 1:end]
            quoted.append(key)
            j = end + 1
            comma = text.find(",", j)
            i = n if comma < 0 else comma + 1
        else:
            comma = text.find(",", j)
            end = n if comma < 0 else comma
            value = text[j:end].strip()
            i = end + 1
        attrs[key] = value
    if quoted:
        attrs["__quoted__"] = ",".join(quoted)
    return attrs


def parse_pdt(text: str) -> Optional[datetime]:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def decimals(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def rounding_budget(texts: list[str]) -> float:
    """Largest error that printing these decimal numbers can introduce."""
    return sum(0.5 * 10 ** -decimals(t) for t in texts)


@dataclass
class Part:
    uri: Optional[str]
    duration: Optional[float]
    duration_text: str
    independent: bool
    gap: bool
    byterange: Optional[str]
    attrs: dict
    line: int
    msn: int = -1
    index: int = -1

    @property
    def key(self) -> tuple[int, int]:
        return (self.msn, self.index)


@dataclass
class Segment:
    uri: str
    duration: float
    duration_text: str
    parts: list[Part]
    discontinuity: bool
    pdt_text: Optional[str]
    map_uri: Optional[str]
    gap: bool
    line: int
    msn: int = -1
    disc_number: Optional[int] = None


@dataclass
class MediaPlaylist:
    text: str
    url: str = ""
    has_header: bool = False
    versions: list[str] = field(default_factory=list)
    target_durations: list[str] = field(default_factory=list)
    part_infs: list[dict] = field(default_factory=list)
    server_controls: list[dict] = field(default_factory=list)
    media_sequences: list[tuple[int, int]] = field(default_factory=list)  # (value, line)
    disc_sequences: list[tuple[int, int]] = field(default_factory=list)
    discontinuity_lines: list[int] = field(default_factory=list)
    pdt_texts: list[str] = field(default_factory=list)
    independent_segments: bool = False
    playlist_type: Optional[str] = None
    endlist: bool = False
    skips: list[tuple[dict, int]] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    trailing_parts: list[Part] = field(default_factory=list)
    trailing_discontinuity: bool = False
    trailing_pdt_text: Optional[str] = None
    trailing_map_uri: Optional[str] = None
    preload_hints: list[dict] = field(default_factory=list)
    rendition_reports: list[dict] = field(default_factory=list)
    maps: list[dict] = field(default_factory=list)
    first_media_line: Optional[int] = None
    placement_errors: list[str] = field(default_factory=list)
    syntax_errors: list[str] = field(default_factory=list)

    # --- derived values
    @property
    def version(self) -> Optional[int]:
        try:
            return int(self.versions[0]) if self.versions else None
        except ValueError:
            return None

    @property
    def target_duration(self) -> Optional[int]:
        try:
            return int(self.target_durations[0]) if self.target_durations else None
        except ValueError:
            return None

    @property
    def part_target(self) -> Optional[float]:
        if not self.part_infs:
            return None
        try:
            return float(self.part_infs[0].get("PART-TARGET", "nan"))
        except ValueError:
            return None

    @property
    def server_control(self) -> dict:
        return self.server_controls[0] if self.server_controls else {}

    @property
    def media_sequence(self) -> int:
        return self.media_sequences[0][0] if self.media_sequences else 0

    @property
    def disc_sequence(self) -> int:
        return self.disc_sequences[0][0] if self.disc_sequences else 0

    @property
    def skip(self) -> Optional[dict]:
        return self.skips[0][0] if self.skips else None

    @property
    def skipped(self) -> int:
        try:
            return int(self.skip["SKIPPED-SEGMENTS"]) if self.skip else 0
        except (KeyError, ValueError):
            return 0

    @property
    def is_delta(self) -> bool:
        return bool(self.skips)

    @property
    def next_msn(self) -> int:
        """MSN of the segment after the last complete one (the one trailing parts belong to)."""
        return self.media_sequence + self.skipped + len(self.segments)

    @property
    def last_msn(self) -> int:
        return self.next_msn - 1

    @property
    def has_parts(self) -> bool:
        return bool(self.part_infs) or any(s.parts for s in self.segments) or bool(self.trailing_parts)

    def ordered_parts(self) -> list[Part]:
        out = [p for s in self.segments for p in s.parts]
        return out + self.trailing_parts

    def last_part(self) -> Optional[Part]:
        parts = self.ordered_parts()
        return parts[-1] if parts else None

    def last_position(self) -> tuple[int, int]:
        """(LAST-MSN, LAST-PART) as a rendition report would state them (R2)."""
        if self.trailing_parts:
            return (self.next_msn, len(self.trailing_parts) - 1)
        if self.segments and self.segments[-1].parts:
            return (self.last_msn, len(self.segments[-1].parts) - 1)
        return (self.last_msn, -1)

    def segment(self, msn: int) -> Optional[Segment]:
        i = msn - (self.media_sequence + self.skipped)
        return self.segments[i] if 0 <= i < len(self.segments) else None

    def part_timeline(self) -> list[tuple[Part, float, float]]:
        """(part, start, end) in epoch seconds from PDT; parts without a PDT anchor are left out."""
        out = []
        clock: Optional[float] = None
        for seg in self.segments:
            if seg.pdt_text:
                d = parse_pdt(seg.pdt_text)
                clock = d.timestamp() if d else None
            if clock is not None:
                t = clock
                for p in seg.parts:
                    out.append((p, t, t + (p.duration or 0)))
                    t += p.duration or 0
                clock += seg.duration
        if self.trailing_pdt_text:
            d = parse_pdt(self.trailing_pdt_text)
            clock = d.timestamp() if d else None
        if clock is not None:
            t = clock
            for p in self.trailing_parts:
                out.append((p, t, t + (p.duration or 0)))
                t += p.duration or 0
        return out


def _tag(line: str) -> tuple[str, str]:
    if ":" in line:
        name, value = line.split(":", 1)
        return name, value
    return line, ""


def parse_media_playlist(text: str, url: str = "") -> MediaPlaylist:
    pl = MediaPlaylist(text=text, url=url)
    lines = text.splitlines()
    pl.has_header = bool(lines) and lines[0].strip() == "#EXTM3U"
    pend_parts: list[Part] = []
    pend_disc = False
    pend_pdt: Optional[str] = None
    pend_gap = False
    pend_extinf: Optional[tuple[float, str]] = None
    current_map: Optional[str] = None

    for no, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if not line.startswith("#"):
            if pend_extinf is None:
                pl.syntax_errors.append(f"line {no}: URI without EXTINF: {line}")
                continue
            dur, dtext = pend_extinf
            pl.segments.append(Segment(line, dur, dtext, pend_parts, pend_disc, pend_pdt, current_map,
                                       pend_gap, no))
            pend_parts, pend_disc, pend_pdt, pend_gap, pend_extinf = [], False, None, False, None
            continue
        if not line.startswith("#EXT"):
            continue
        name, value = _tag(line)
        if name in ("#EXTINF", "#EXT-X-PART") and pl.first_media_line is None:
            pl.first_media_line = no
        if name in ("#EXT-X-DISCONTINUITY", "#EXT-X-PROGRAM-DATE-TIME", "#EXT-X-MAP", "#EXT-X-KEY") and pend_parts:
            pl.placement_errors.append(f"line {no}: {name} after the parent's first EXT-X-PART")
        if name == "#EXT-X-VERSION":
            pl.versions.append(value)
        elif name == "#EXT-X-TARGETDURATION":
            pl.target_durations.append(value)
        elif name == "#EXT-X-PART-INF":
            pl.part_infs.append(parse_attributes(value))
        elif name == "#EXT-X-SERVER-CONTROL":
            pl.server_controls.append(parse_attributes(value))
        elif name == "#EXT-X-MEDIA-SEQUENCE":
            try:
                pl.media_sequences.append((int(value), no))
            except ValueError:
                pl.syntax_errors.append(f"line {no}: bad MEDIA-SEQUENCE {value}")
        elif name == "#EXT-X-DISCONTINUITY-SEQUENCE":
            try:
                pl.disc_sequences.append((int(value), no))
            except ValueError:
                pl.syntax_errors.append(f"line {no}: bad DISCONTINUITY-SEQUENCE {value}")
        elif name == "#EXT-X-DISCONTINUITY":
            pend_disc = True
            pl.discontinuity_lines.append(no)
        elif name == "#EXT-X-PROGRAM-DATE-TIME":
            pend_pdt = value
            pl.pdt_texts.append(value)
        elif name == "#EXT-X-GAP":
            pend_gap = True
        elif name == "#EXT-X-MAP":
            attrs = parse_attributes(value)
            pl.maps.append(attrs)
            current_map = attrs.get("URI")
        elif name == "#EXT-X-INDEPENDENT-SEGMENTS":
            pl.independent_segments = True
        elif name == "#EXT-X-PLAYLIST-TYPE":
            pl.playlist_type = value
        elif name == "#EXT-X-ENDLIST":
            pl.endlist = True
        elif name == "#EXT-X-SKIP":
            pl.skips.append((parse_attributes(value), no))
        elif name == "#EXT-X-PRELOAD-HINT":
            pl.preload_hints.append(parse_attributes(value))
        elif name == "#EXT-X-RENDITION-REPORT":
            pl.rendition_reports.append(parse_attributes(value))
        elif name == "#EXTINF":
            dtext = value.split(",", 1)[0].strip()
            try:
                pend_extinf = (float(dtext), dtext)
            except ValueError:
                pl.syntax_errors.append(f"line {no}: bad EXTINF {value}")
                pend_extinf = (0.0, dtext)
        elif name == "#EXT-X-PART":
            if pend_extinf is not None:
                pl.placement_errors.append(f"line {no}: EXT-X-PART between EXTINF and its URI")
            a = parse_attributes(value)
            dtext = a.get("DURATION", "")
            try:
                dur: Optional[float] = float(dtext)
            except ValueError:
                dur = None
            pend_parts.append(Part(a.get("URI"), dur, dtext, a.get("INDEPENDENT") == "YES",
                                   a.get("GAP") == "YES", a.get("BYTERANGE"), a, no))
    if pend_extinf is not None:
        pl.syntax_errors.append("EXTINF without a URI at the end")
    pl.trailing_parts = pend_parts
    pl.trailing_discontinuity = pend_disc
    pl.trailing_pdt_text = pend_pdt
    pl.trailing_map_uri = current_map

    # Numbering: MSNs from MEDIA-SEQUENCE (+ skipped), absolute discontinuity numbers when known.
    first = pl.media_sequence + pl.skipped
    disc = pl.disc_sequence
    for i, seg in enumerate(pl.segments):
        seg.msn = first + i
        if seg.discontinuity:
            disc += 1
        seg.disc_number = None if pl.is_delta else disc
        for j, p in enumerate(seg.parts):
            p.msn, p.index = seg.msn, j
    for j, p in enumerate(pl.trailing_parts):
        p.msn, p.index = pl.next_msn, j
    return pl


@dataclass
class Multivariant:
    text: str
    url: str
    has_header: bool
    independent_segments: bool
    versions: list[str]
    media: list[dict]
    variants: list[tuple[dict, Optional[str]]]
    errors: list[str]

    def media_playlist_urls(self) -> dict[str, str]:
        """name -> absolute URL of every media playlist (video variants, then renditions)."""
        out: dict[str, str] = {}
        for i, (_, uri) in enumerate(self.variants):
            if uri:
                out[f"video{i}" if i else "video"] = urljoin(self.url, uri)
        for m in self.media:
            if m.get("URI"):
                out[f"{m.get('TYPE', '').lower()}:{m.get('NAME', '')}"] = urljoin(self.url, m["URI"])
        return out


def parse_multivariant(text: str, url: str = "") -> Multivariant:
    lines = text.splitlines()
    mv = Multivariant(text, url, bool(lines) and lines[0].strip() == "#EXTM3U", False, [], [], [], [])
    pending: Optional[dict] = None
    for no, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if not line.startswith("#"):
            if pending is None:
                mv.errors.append(f"line {no}: URI without EXT-X-STREAM-INF")
            else:
                mv.variants.append((pending, line))
                pending = None
            continue
        name, value = _tag(line)
        if name == "#EXT-X-INDEPENDENT-SEGMENTS":
            mv.independent_segments = True
        elif name == "#EXT-X-VERSION":
            mv.versions.append(value)
        elif name == "#EXT-X-MEDIA":
            mv.media.append(parse_attributes(value))
        elif name == "#EXT-X-STREAM-INF":
            pending = parse_attributes(value)
        elif name in ("#EXTINF", "#EXT-X-TARGETDURATION", "#EXT-X-PART"):
            mv.errors.append(f"line {no}: media playlist tag {name} in a multivariant playlist")
    if pending is not None:
        mv.errors.append("EXT-X-STREAM-INF without a URI")
    return mv


# ----------------------------------------------------------------------------- static rules


def _num(d: dict, key: str) -> Optional[float]:
    try:
        return float(d[key])
    except (KeyError, ValueError):
        return None


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def check_media(pl: MediaPlaylist, *, skip_requested: bool = False) -> list[Violation]:
    """Every rule one playlist response can prove on its own."""
    v: list[Violation] = []
    add = lambda rule, msg: v.append(Violation(rule, msg))  # noqa: E731
    if not pl.has_header:
        add("SYNTAX", "first line is not #EXTM3U")
    for e in pl.syntax_errors:
        add("SYNTAX", e)

    # M1
    if len(pl.versions) != 1:
        add("M1", f"{len(pl.versions)} EXT-X-VERSION tags (need exactly one)")
    ver = pl.version
    if pl.versions and ver is None:
        add("M1", f"EXT-X-VERSION is not an integer: {pl.versions[0]}")
    if ver is not None:
        if pl.maps and ver < 6:
            add("M1", f"EXT-X-MAP needs version >= 6, got {ver}")
        if pl.skips and ver < 9:
            add("M1", f"EXT-X-SKIP needs version >= 9, got {ver}")
        if pl.skip and "RECENTLY-REMOVED-DATERANGES" in pl.skip and ver < 10:
            add("M1", f"_HLS_skip=v2 response needs version >= 10, got {ver}")

    # M2
    td = pl.target_duration
    if len(pl.target_durations) != 1:
        add("M2", f"{len(pl.target_durations)} EXT-X-TARGETDURATION tags (need exactly one)")
    if pl.target_durations and (not re.fullmatch(r"\d+", pl.target_durations[0]) or (td or 0) < 1):
        add("M2", f"TARGETDURATION must be an integer >= 1: {pl.target_durations[0]!r}")
        td = None
    if td:
        for s in pl.segments:
            if _round_half_up(s.duration) > td:
                add("M2", f"MSN {s.msn} EXTINF {s.duration_text} rounds above TARGETDURATION {td}")
            elif s.duration > td + 0.5:
                add("M2", f"MSN {s.msn} EXTINF {s.duration_text} exceeds TD by more than 0.5 s")

    # M3
    pt = pl.part_target
    any_parts = bool(pl.ordered_parts())
    if any_parts and not pl.part_infs:
        add("M3", "EXT-X-PART present without EXT-X-PART-INF")
    if len(pl.part_infs) > 1:
        add("M3", "more than one EXT-X-PART-INF")
    if pl.part_infs and (pt is None or not pt > 0):
        add("M3", f"bad PART-TARGET {pl.part_infs[0]}")
        pt = None
    if pt and td and pt > td + EPS:
        add("M3", f"PART-TARGET {pt} > TARGETDURATION {td}")

    # M4
    sc = pl.server_control
    if len(pl.server_controls) > 1:
        add("M4", "more than one EXT-X-SERVER-CONTROL")
    if pl.part_infs and not pl.server_controls:
        add("M4", "PART-INF present but no EXT-X-SERVER-CONTROL")
    if pl.server_controls:
        if sc.get("CAN-BLOCK-RELOAD") != "YES":
            add("M4", f"CAN-BLOCK-RELOAD must be YES, got {sc.get('CAN-BLOCK-RELOAD')}")
        phb = _num(sc, "PART-HOLD-BACK")
        if pl.part_infs:
            if phb is None:
                add("M4", "PART-HOLD-BACK required with PART-INF")
            elif pt and phb < 3 * pt - EPS:
                add("M4", f"PART-HOLD-BACK {phb} < 3 x PART-TARGET {pt} (Apple MUST, draft SHOULD)")
        hb = _num(sc, "HOLD-BACK")
        if hb is not None and td and hb < 3 * td - EPS:
            add("M4", f"HOLD-BACK {hb} < 3 x TD {td}")
        csu = _num(sc, "CAN-SKIP-UNTIL")
        if "CAN-SKIP-UNTIL" in sc and (csu is None or (td and csu < 6 * td - EPS)):
            add("M4", f"CAN-SKIP-UNTIL {sc.get('CAN-SKIP-UNTIL')} < 6 x TD {td}")
        if sc.get("CAN-SKIP-DATERANGES") == "YES" and "CAN-SKIP-UNTIL" not in sc:
            add("M4", "CAN-SKIP-DATERANGES=YES without CAN-SKIP-UNTIL")

    # M5 / M6
    first_media = pl.first_media_line or 10 ** 9
    if len(pl.media_sequences) > 1:
        add("M5", "more than one EXT-X-MEDIA-SEQUENCE")
    for _, line in pl.media_sequences:
        if line > first_media:
            add("M5", f"EXT-X-MEDIA-SEQUENCE (line {line}) after the first segment")
    if len(pl.disc_sequences) > 1:
        add("M6", "more than one EXT-X-DISCONTINUITY-SEQUENCE")
    for _, line in pl.disc_sequences:
        if line > first_media:
            add("M6", f"EXT-X-DISCONTINUITY-SEQUENCE (line {line}) after the first segment")
        if pl.discontinuity_lines and line > pl.discontinuity_lines[0]:
            add("M6", "EXT-X-DISCONTINUITY-SEQUENCE after an EXT-X-DISCONTINUITY")
    if pl.discontinuity_lines and not pl.disc_sequences:
        add("M6", "EXT-X-DISCONTINUITY without EXT-X-DISCONTINUITY-SEQUENCE (Apple MUST)")

    # M8
    has_media = bool(pl.segments or pl.trailing_parts)
    if has_media and not pl.pdt_texts:
        add("M8", "no EXT-X-PROGRAM-DATE-TIME in the media playlist")
    for t in pl.pdt_texts:
        if not PDT_RE.match(t) or parse_pdt(t) is None:
            add("M8", f"PROGRAM-DATE-TIME {t!r} lacks milliseconds or a time zone")
    if pl.segments and not pl.is_delta and pl.segments[0].pdt_text is None:
        add("M8", f"first segment (MSN {pl.segments[0].msn}) has no PROGRAM-DATE-TIME")
    for s in pl.segments:
        if s.discontinuity and s.pdt_text is None:
            add("M8", f"MSN {s.msn}: DISCONTINUITY without a PROGRAM-DATE-TIME")
    prev_end: Optional[float] = None
    for s in pl.segments:
        d = parse_pdt(s.pdt_text) if s.pdt_text else None
        if d is not None and prev_end is not None and not s.discontinuity and d.timestamp() < prev_end - 1.0:
            add("M8", f"MSN {s.msn}: PDT overlaps the previous segment by "
                      f"{prev_end - d.timestamp():.3f} s (ambiguous date mapping)")
        if d is not None:
            prev_end = d.timestamp() + s.duration
        elif prev_end is not None:
            prev_end += s.duration

    # M9
    if has_media and not pl.maps:
        add("M9", "fMP4 media without EXT-X-MAP")
    for s in pl.segments:
        if pl.maps and s.map_uri is None:
            add("M9", f"MSN {s.msn} comes before any EXT-X-MAP")
            break
    if pl.playlist_type and not pl.endlist and pl.media_sequence > 0:
        add("M9", f"EXT-X-PLAYLIST-TYPE:{pl.playlist_type} in a sliding window")

    # M10 is checked across reloads (RenditionHistory): only a removal proves the window slides,
    # and a stream may start at any MEDIA-SEQUENCE.

    # P1, P3
    for seg_parts, complete in [(s.parts, True) for s in pl.segments] + [(pl.trailing_parts, False)]:
        for i, p in enumerate(seg_parts):
            where = f"part {p.msn}.{p.index}"
            if not p.uri:
                add("P1", f"{where} lacks URI")
            if p.duration is None:
                add("P1", f"{where} lacks a numeric DURATION")
                continue
            if "INDEPENDENT" in p.attrs and p.attrs["INDEPENDENT"] != "YES":
                add("P1", f"{where} INDEPENDENT={p.attrs['INDEPENDENT']} (only YES is defined)")
            if "GAP" in p.attrs and p.attrs["GAP"] != "YES":
                add("P1", f"{where} GAP={p.attrs['GAP']} (only YES is defined)")
            if p.byterange is not None and not re.fullmatch(r"\d+(@\d+)?", p.byterange):
                add("P1", f"{where} bad BYTERANGE {p.byterange!r}")
            if pt:
                if p.duration > pt + EPS:
                    add("P3", f"{where} DURATION {p.duration_text} > PART-TARGET {pt}")
                last_of_parent = i == len(seg_parts) - 1
                before_gap = i + 1 < len(seg_parts) and seg_parts[i + 1].gap
                if (p.duration < 0.85 * pt - EPS and not (p.independent or p.gap or before_gap or last_of_parent)):
                    add("P3", f"{where} DURATION {p.duration_text} < 0.85 x PART-TARGET {pt}")
    # P2
    for e in pl.placement_errors:
        add("P2", e)
    # P4: the oldest segment with parts may have lost leading parts to retention, so skip it
    with_parts = [s for s in pl.segments if s.parts]
    for s in with_parts[1:]:
        if any(p.duration is None for p in s.parts):
            continue
        total = sum(p.duration for p in s.parts)
        budget = 0.001 + rounding_budget([p.duration_text for p in s.parts] + [s.duration_text])
        if abs(total - s.duration) > budget:
            add("P4", f"MSN {s.msn}: parts sum to {total:.6f} s but EXTINF is {s.duration_text}")
    # P5: parts only near the live edge, and at least PART-HOLD-BACK worth of them
    if td and pl.segments and any_parts:
        end = sum(s.duration for s in pl.segments)
        t = 0.0
        for s in pl.segments:
            if s.parts and end - (t + s.duration) > 4 * td:
                add("P5", f"MSN {s.msn} still lists parts {end - t - s.duration:.1f} s from the end (> 3 x TD)")
                break
            t += s.duration
    phb = _num(sc, "PART-HOLD-BACK")
    if phb and any_parts and not pl.endlist and not pl.is_delta:
        listed = sum(p.duration or 0 for p in pl.ordered_parts())
        total = sum(s.duration for s in pl.segments) + sum(p.duration or 0 for p in pl.trailing_parts)
        if total >= phb + (td or 0) and listed < phb - 1e-3:
            add("P5", f"only {listed:.3f} s of parts listed, less than PART-HOLD-BACK {phb}")

    # H1-H3
    part_hints = [h for h in pl.preload_hints if h.get("TYPE") == "PART"]
    if pl.endlist and pl.preload_hints:
        add("H3", "EXT-X-PRELOAD-HINT in a playlist with EXT-X-ENDLIST")
    if not pl.endlist and pl.part_infs and not part_hints:
        add("H1", "live playlist with parts has no EXT-X-PRELOAD-HINT TYPE=PART")
    for kind in {h.get("TYPE") for h in pl.preload_hints}:
        if sum(1 for h in pl.preload_hints if h.get("TYPE") == kind) > 1:
            add("H2", f"more than one EXT-X-PRELOAD-HINT TYPE={kind}")
    for h in pl.preload_hints:
        if h.get("TYPE") not in ("PART", "MAP") or not h.get("URI"):
            add("H2", f"bad EXT-X-PRELOAD-HINT {h}")
        if h.get("URI") in {p.uri for p in pl.ordered_parts()}:
            add("H2", f"hint URI {h.get('URI')} names a part that is already listed")

    # ENDLIST, B7
    if pl.endlist and pl.trailing_parts:
        add("M9", "EXT-X-ENDLIST with parts of an unfinished segment after the last segment")
    uris = [s.uri for s in pl.segments] + [p.uri or "" for p in pl.ordered_parts()]
    uris += [m.get("URI", "") for m in pl.maps] + [h.get("URI", "") for h in pl.preload_hints]
    uris += [r.get("URI", "") for r in pl.rendition_reports]
    for u in uris:
        if "_HLS_" in u:
            add("B7", f"_HLS_ directive copied into a URI: {u}")
            break

    # SKIP (static part)
    if len(pl.skips) > 1:
        add("SKIP", "more than one EXT-X-SKIP")
    if pl.skips:
        attrs, line = pl.skips[0]
        if not skip_requested:
            add("SKIP", "EXT-X-SKIP in a response to a request without _HLS_skip")
        if "CAN-SKIP-UNTIL" not in sc:
            add("SKIP", "EXT-X-SKIP but SERVER-CONTROL has no CAN-SKIP-UNTIL")
        if not re.fullmatch(r"\d+", attrs.get("SKIPPED-SEGMENTS", "")):
            add("SKIP", f"bad SKIPPED-SEGMENTS {attrs}")
        if not pl.media_sequences or pl.media_sequences[0][1] > line:
            add("SKIP", "EXT-X-MEDIA-SEQUENCE must come before EXT-X-SKIP")
        if line > first_media:
            add("SKIP", "EXT-X-SKIP after the first segment")
        v.extend(check_skip_boundary(pl))
    return v


def check_skip_boundary(delta: MediaPlaylist) -> list[Violation]:
    """Segments within CAN-SKIP-UNTIL of the end stay; older ones are all skipped."""
    csu = _num(delta.server_control, "CAN-SKIP-UNTIL")
    if csu is None or not delta.skips:
        return []
    v = []
    # Distances count from the end of the last Parent Segment, the one the trailing parts build.
    tail = sum(p.duration or 0 for p in delta.trailing_parts)
    remaining = sum(s.duration for s in delta.segments) + tail
    # 25 ms slack: audio segments follow video cuts to within one AAC frame (21.3 ms at 48 kHz).
    if delta.skipped > 0 and remaining < csu - 0.025:
        v.append(Violation("SKIP", f"skipped segments within the Skip Boundary: {remaining:.3f} s left "
                                   f"after skipping, CAN-SKIP-UNTIL={csu}"))
    if delta.segments and remaining - delta.segments[0].duration > csu + 1e-3:
        v.append(Violation("SKIP", f"MSN {delta.segments[0].msn} ends {remaining - delta.segments[0].duration:.3f} s "
                                   f"from the end (> CAN-SKIP-UNTIL {csu}) but was not skipped"))
    return v


def check_delta_against_full(delta: MediaPlaylist, full: MediaPlaylist) -> list[Violation]:
    """A delta (EXT-X-SKIP) response against a full playlist fetched right after it."""
    v = []
    if not delta.skips:
        return v
    if full.media_sequence < delta.media_sequence:
        v.append(Violation("SKIP", f"delta MEDIA-SEQUENCE {delta.media_sequence} ahead of the full playlist's "
                                   f"{full.media_sequence}"))
    if full.media_sequence == delta.media_sequence and full.disc_sequence != delta.disc_sequence:
        v.append(Violation("SKIP", "delta changed EXT-X-DISCONTINUITY-SEQUENCE"))
    for s in delta.segments:
        f = full.segment(s.msn)
        if f is not None and f.uri != s.uri:
            v.append(Violation("SKIP", f"MSN {s.msn}: delta URI {s.uri} but full playlist has {f.uri} "
                                       f"(SKIPPED-SEGMENTS={delta.skipped} inconsistent)"))
            break
    if full.media_sequence == delta.media_sequence and delta.skipped > len(full.segments):
        v.append(Violation("SKIP", f"SKIPPED-SEGMENTS={delta.skipped} but the full playlist has only "
                                   f"{len(full.segments)} segments"))
    return v


def check_multivariant(mv: Multivariant) -> list[Violation]:
    v: list[Violation] = []
    add = lambda rule, msg: v.append(Violation(rule, msg))  # noqa: E731
    if not mv.has_header:
        add("SYNTAX", "multivariant: first line is not #EXTM3U")
    for e in mv.errors:
        add("SYNTAX", e)
    if not mv.independent_segments:
        add("M9", "multivariant playlist lacks EXT-X-INDEPENDENT-SEGMENTS")
    if not mv.variants:
        add("V1", "no EXT-X-STREAM-INF")
    groups: dict[str, list[dict]] = {}
    for m in mv.media:
        for key in ("TYPE", "GROUP-ID", "NAME"):
            if key not in m:
                add("V3", f"EXT-X-MEDIA lacks {key}: {m}")
        groups.setdefault(m.get("GROUP-ID", ""), []).append(m)
        if m.get("DEFAULT") == "YES" and m.get("AUTOSELECT") != "YES":
            add("V3", f"EXT-X-MEDIA {m.get('NAME')}: DEFAULT=YES requires AUTOSELECT=YES")
    for gid, ms in groups.items():
        names = [m.get("NAME") for m in ms]
        if len(names) != len(set(names)):
            add("V3", f"group {gid}: duplicate NAMEs {names}")
        if sum(1 for m in ms if m.get("DEFAULT") == "YES") > 1:
            add("V3", f"group {gid}: more than one DEFAULT=YES")
    audio_groups = {m.get("GROUP-ID") for m in mv.media if m.get("TYPE") == "AUDIO"}
    if not audio_groups:
        add("V3", "no EXT-X-MEDIA TYPE=AUDIO group")
    for attrs, _ in mv.variants:
        for key in ("BANDWIDTH", "AVERAGE-BANDWIDTH", "CODECS", "RESOLUTION", "FRAME-RATE", "AUDIO"):
            if key not in attrs:
                add("V1", f"EXT-X-STREAM-INF lacks {key}")
        bw, abw = _num(attrs, "BANDWIDTH"), _num(attrs, "AVERAGE-BANDWIDTH")
        if bw is not None and abw is not None and abw > bw:
            add("V1", f"AVERAGE-BANDWIDTH {abw} > BANDWIDTH {bw}")
        if bw is not None and bw <= 0:
            add("V1", f"BANDWIDTH {bw} must be positive")
        codecs = attrs.get("CODECS", "")
        # A video codec string: H.264 avc1.PPCCLL, or (E-RTMP sources) HEVC hvc1.P.C.Lxx[.Bx] / AV1 av01.P.LLT.DD.
        video = (r"\bavc1\.[0-9A-Fa-f]{6}\b", r"\bhvc1\.[ABC]?\d+\.[0-9A-Fa-f]+\.[LH]\d+(\.[0-9A-Fa-f]{1,2})*\b",
                 r"\bav01\.\d\.\d{2}[MH]\.\d{2}\b")
        if codecs and not any(re.search(p, codecs) for p in video):
            add("V2", f"CODECS {codecs!r} has no avc1.PPCCLL, hvc1.P.C.Lxx or av01.P.LLT.DD")
        if codecs and not re.search(r"\bmp4a\.40\.\d+\b", codecs):
            add("V2", f"CODECS {codecs!r} has no mp4a.40.N")
        if "RESOLUTION" in attrs and not re.fullmatch(r"\d+x\d+", attrs["RESOLUTION"]):
            add("V1", f"bad RESOLUTION {attrs['RESOLUTION']}")
        if "AUDIO" in attrs and attrs["AUDIO"] not in audio_groups:
            add("V3", f"STREAM-INF AUDIO={attrs['AUDIO']} names no EXT-X-MEDIA group")
    return v


# ----------------------------------------------------------------------------- across reloads


class RenditionHistory:
    """Cross-reload rules for one media playlist URL (M2-M6, M11, H2, P6 bookkeeping)."""

    def __init__(self, name: str):
        self.name = name
        self.first: Optional[MediaPlaylist] = None
        self.last: Optional[MediaPlaylist] = None
        self.uri_by_msn: dict[int, str] = {}
        self.extinf_by_msn: dict[int, str] = {}
        self.disc_by_msn: dict[int, int] = {}
        self.discflag_by_msn: dict[int, bool] = {}
        self.part_by_key: dict[tuple[int, int], tuple[str, str]] = {}
        self.part_first_seen: dict[tuple[int, int], float] = {}
        self.segment_first_seen: dict[int, float] = {}
        self.pending_hint: Optional[tuple[tuple[int, int], str]] = None
        self.withdrawn_hints: list[str] = []
        self.violations: list[Violation] = []

    def _add(self, rule: str, msg: str) -> None:
        self.violations.append(Violation(rule, f"{self.name}: {msg}"))

    def update(self, pl: MediaPlaylist, received_at: float) -> None:
        ref = self.first
        if ref is None:
            self.first = pl
        else:
            if pl.target_duration != ref.target_duration:
                self._add("M2", f"TARGETDURATION changed {ref.target_duration} -> {pl.target_duration}")
            if pl.part_target != ref.part_target:
                self._add("M3", f"PART-TARGET changed {ref.part_target} -> {pl.part_target}")
            a = {k: x for k, x in ref.server_control.items() if k != "__quoted__"}
            b = {k: x for k, x in pl.server_control.items() if k != "__quoted__"}
            if a != b:
                self._add("M4", f"SERVER-CONTROL changed {a} -> {b}")
        prev = self.last
        if prev is not None:
            td = pl.target_duration
            if td and not pl.is_delta and not prev.is_delta and pl.media_sequence > prev.media_sequence:
                window = sum(s.duration for s in pl.segments)
                # 25 ms slack: audio segments follow video cuts to within one AAC frame.
                if window < 3 * td - 0.025:
                    self._add("M10", f"removed MSN {prev.media_sequence}.. but the window is only {window:.3f} s "
                                     f"(< 3 x TD = {3 * td} s)")
            if pl.media_sequence < prev.media_sequence:
                self._add("M5", f"MEDIA-SEQUENCE went back {prev.media_sequence} -> {pl.media_sequence}")
            if pl.disc_sequence < prev.disc_sequence:
                self._add("M6", f"DISCONTINUITY-SEQUENCE went back {prev.disc_sequence} -> {pl.disc_sequence}")
            if not pl.endlist and pl.last_position() < prev.last_position():
                self._add("M5", f"live edge went back {prev.last_position()} -> {pl.last_position()}")
        for s in pl.segments:
            old = self.uri_by_msn.setdefault(s.msn, s.uri)
            if old != s.uri:
                self._add("M5", f"MSN {s.msn} URI changed {old} -> {s.uri}")
            oldd = self.extinf_by_msn.setdefault(s.msn, s.duration_text)
            if oldd != s.duration_text:
                self._add("M5", f"MSN {s.msn} EXTINF changed {oldd} -> {s.duration_text}")
            if not pl.is_delta:
                oldn = self.disc_by_msn.setdefault(s.msn, s.disc_number)
                if oldn != s.disc_number:
                    self._add("M6", f"MSN {s.msn} discontinuity number changed {oldn} -> {s.disc_number} "
                                    f"(DISCONTINUITY-SEQUENCE not kept in step with removed discontinuities)")
            oldf = self.discflag_by_msn.setdefault(s.msn, s.discontinuity)
            if oldf != s.discontinuity:
                self._add("M7", f"MSN {s.msn} DISCONTINUITY flag changed across reloads")
            self.segment_first_seen.setdefault(s.msn, received_at)
        for p in pl.ordered_parts():
            rec = (p.uri or "", p.duration_text)
            old = self.part_by_key.setdefault(p.key, rec)
            if old != rec:
                self._add("M5", f"part {p.msn}.{p.index} changed {old} -> {rec}")
            self.part_first_seen.setdefault(p.key, received_at)
        # H2: the previous hint must name the part that follows the previous live edge.
        if self.pending_hint is not None:
            after, hint_uri = self.pending_hint
            parts = pl.ordered_parts()
            keys = [p.key for p in parts]
            if after in keys:
                i = keys.index(after)
                if i + 1 < len(parts):
                    nxt = parts[i + 1]
                    if nxt.uri != hint_uri:
                        gap_between = all(s.gap for s in pl.segments if after[0] < s.msn < nxt.msn)
                        if nxt.index == 0 and (nxt.msn == after[0] + 1 or (nxt.msn > after[0] + 1 and gap_between)):
                            # The segment closed instead (new segmentation), or the hinted segment became an
                            # EXT-X-GAP segment at a discontinuity: a withdrawn hint, which the server must
                            # answer with 404 (checked by the follower).
                            self.withdrawn_hints.append(hint_uri)
                        else:
                            self._add("H2", f"hint {hint_uri} but the next part {nxt.msn}.{nxt.index} is {nxt.uri}")
                    self.pending_hint = None
        hints = [h for h in pl.preload_hints if h.get("TYPE") == "PART"]
        last = pl.last_part()
        if hints and last is not None and not pl.endlist:
            if self.pending_hint is None or self.pending_hint[0] != last.key:
                self.pending_hint = (last.key, hints[0].get("URI", ""))
        self.last = pl

    def cadence_violations(self, exclude_after: Optional[set[float]] = None) -> list[Violation]:
        """M11: part and segment cadence measured from first-seen times (blocking reloads).

        A client sees publication plus its own scheduling jitter, so one late observation is not
        proof: any gap beyond the limit + 1 s fails, and so do more than 10% beyond limit + 0.25 s.
        """
        if self.first is None:
            return []
        pt, td = self.first.part_target, self.first.target_duration
        v = []
        resets = sorted(exclude_after or ())
        for name, seen, limit in (("part", self.part_first_seen, pt or 0),
                                  ("segment", self.segment_first_seen, 1.5 * (td or 0))):
            times = sorted(seen.values())
            gaps = [b - a for a, b in zip(times[1:], times[2:])  # skip the first gap (initial catch-up)
                    if not any(a <= r <= b for r in resets)]
            if not limit or not gaps:
                continue
            worst = max(gaps)
            if worst > limit + 1.0:
                v.append(Violation("M11", f"{self.name}: {name} gap {worst:.3f} s > {limit:.3f} s + 1 s"))
            late = [g for g in gaps if g > limit + 0.25]
            if len(late) > 0.1 * len(gaps):
                v.append(Violation("M11", f"{self.name}: {len(late)}/{len(gaps)} {name} gaps exceed "
                                          f"{limit:.3f} s + 0.25 s (worst {worst:.3f} s)"))
        return v


def check_renditions_agree(pls: dict[str, MediaPlaylist]) -> list[Violation]:
    """M2/M4/M7: TD, SERVER-CONTROL and discontinuity points equal in every media playlist."""
    v = []
    items = list(pls.items())
    if len(items) < 2:
        return v
    (n0, p0), rest = items[0], items[1:]
    sc0 = {k: x for k, x in p0.server_control.items() if k != "__quoted__"}
    for n, p in rest:
        if p.target_duration != p0.target_duration:
            v.append(Violation("M2", f"TARGETDURATION {n0}={p0.target_duration} {n}={p.target_duration}"))
        sc = {k: x for k, x in p.server_control.items() if k != "__quoted__"}
        if sc != sc0:
            v.append(Violation("M4", f"SERVER-CONTROL differs: {n0}={sc0} {n}={sc}"))
        for s in p.segments:
            o = p0.segment(s.msn)
            if o is not None and not p.is_delta and not p0.is_delta and o.disc_number != s.disc_number:
                v.append(Violation("M7", f"MSN {s.msn}: discontinuity number {n0}={o.disc_number} {n}={s.disc_number}"))
                break
    return v


def check_rendition_reports(pl: MediaPlaylist, others: dict[str, MediaPlaylist], elapsed: float) -> list[Violation]:
    """R1-R3 for playlist `pl`; `others` maps absolute URL -> that playlist fetched `elapsed` s later."""
    v = []
    own = _strip_query(pl.url)
    expected = {_strip_query(u) for u in others if _strip_query(u) != own}
    reports = {}
    for r in pl.rendition_reports:
        u = _strip_query(urljoin(pl.url, r.get("URI", "")))
        if u in reports:
            v.append(Violation("R1", f"two reports for {u}"))
        reports[u] = r
    if pl.endlist:
        return v
    missing, extra = expected - set(reports), set(reports) - expected
    if missing:
        v.append(Violation("R1", f"{pl.url}: no EXT-X-RENDITION-REPORT for {sorted(missing)}"))
    if extra:
        v.append(Violation("R1", f"{pl.url}: reports for unknown playlists {sorted(extra)}"))
    own_msn, own_part = pl.last_position()
    pt = pl.part_target or 0
    for u, r in reports.items():
        other = next((o for ou, o in others.items() if _strip_query(ou) == u), None)
        try:
            msn = int(r["LAST-MSN"]) if "LAST-MSN" in r else own_msn
            part = int(r["LAST-PART"]) if "LAST-PART" in r else own_part
        except ValueError:
            v.append(Violation("R2", f"bad report {r}"))
            continue
        if other is None:
            continue
        if other.has_parts and "LAST-PART" not in r and part < 0:
            v.append(Violation("R2", f"report for {u} lacks LAST-PART though that rendition has parts"))
        if other.endlist:
            continue
        keys = [p.key for p in other.ordered_parts()]
        if not keys:
            continue
        if (msn, part) in keys:
            behind = len(keys) - 1 - keys.index((msn, part))
            # One part of slack for publication and one for a response written late on a loaded 2-core box
            # (elapsed runs from receipt, not render); the timeline check below still bounds the edge gap.
            allowed = 2 + (math.ceil(elapsed / pt) if pt else 0)
            if behind > allowed:
                v.append(Violation("R3", f"report for {u} says {msn}.{part} but that playlist, fetched "
                                         f"{elapsed:.3f} s later, is {behind} parts further"))
        elif (msn, part) > keys[-1]:
            nxt = (keys[-1][0], keys[-1][1] + 1)
            if (msn, part) not in (nxt, (keys[-1][0] + 1, 0)):
                v.append(Violation("R3", f"report for {u} says {msn}.{part}, ahead of that playlist's {keys[-1]}"))
        else:
            v.append(Violation("R2", f"report for {u} names {msn}.{part}, which that playlist does not list"))
        # R3 in time: the reported part's end and this playlist's edge within one part target.
        tl_other = {p.key: end for p, _, end in other.part_timeline()}
        tl_own = pl.part_timeline()
        if (msn, part) in tl_other and tl_own and pt:
            diff = abs(tl_own[-1][2] - tl_other[(msn, part)])
            if diff > pt + 0.2:
                v.append(Violation("R3", f"{pl.url} edge and reported {u} {msn}.{part} differ by {diff:.3f} s "
                                         f"(> PART-TARGET {pt} + 0.2 s)"))
    return v


def _strip_query(u: str) -> str:
    s = urlsplit(u)
    return urlunsplit((s.scheme, s.netloc, s.path, "", ""))


# ----------------------------------------------------------------------------- HTTP


def _max_age(cc: str) -> Optional[int]:
    m = re.search(r"max-age\s*=\s*(\d+)", cc or "")
    return int(m.group(1)) if m else None


def check_http(kind: str, status: int, headers, td: Optional[int], *, blocking: bool = False,
               url: str = "") -> list[Violation]:
    """HTTP delivery rules for one response. kind: multivariant|playlist|init|part|segment."""
    v: list[Violation] = []
    h = {k.lower(): val for k, val in headers.items()}
    tag = f"{kind} {url}"
    if "access-control-allow-origin" not in h:
        v.append(Violation("HTTP", f"{tag}: no Access-Control-Allow-Origin"))
    expose = [x.strip().lower() for x in h.get("access-control-expose-headers", "").split(",")]
    if "age" not in expose and "*" not in expose:
        v.append(Violation("HTTP", f"{tag}: Access-Control-Expose-Headers lacks Age"))
    if status != 200:
        return v
    ctype = h.get("content-type", "").split(";")[0].strip().lower()
    allowed = {"multivariant": PLAYLIST_TYPES, "playlist": PLAYLIST_TYPES, "init": INIT_TYPES,
               "part": MEDIA_TYPES, "segment": MEDIA_TYPES}[kind]
    if ctype not in allowed:
        v.append(Violation("HTTP", f"{tag}: Content-Type {ctype!r} not in {allowed}"))
    cc = h.get("cache-control", "")
    age = _max_age(cc)
    if kind == "playlist" and td:
        if blocking:
            if age is None or not (0.8 * 6 * td <= age <= 6 * td + 1):
                v.append(Violation("HTTP", f"{tag}: blocking playlist Cache-Control {cc!r}, want max-age ~{6 * td}"))
        elif "no-cache" not in cc and "no-store" not in cc and (age is None or age > td):
            v.append(Violation("HTTP", f"{tag}: non-blocking playlist Cache-Control {cc!r}, want max-age <= {td}"))
    if kind in ("part", "segment", "init") and (age is None or age <= 0):
        v.append(Violation("HTTP", f"{tag}: media Cache-Control {cc!r} is not cacheable"))
    if td and "last-modified" in h and "date" in h:
        from email.utils import parsedate_to_datetime
        try:
            lm, dt = parsedate_to_datetime(h["last-modified"]), parsedate_to_datetime(h["date"])
            if abs((dt - lm).total_seconds()) > 3 * td:
                v.append(Violation("HTTP", f"{tag}: Last-Modified more than 3 x TD from Date"))
        except (TypeError, ValueError):
            v.append(Violation("HTTP", f"{tag}: unparsable Date/Last-Modified"))
    return v
