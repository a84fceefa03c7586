"""An LL-HLS follower that behaves like hls.js in low-latency mode, validating as it goes.

One thread per media playlist: blocking reloads for the next part (`_HLS_msn`/`_HLS_part`, every
few with `_HLS_skip=YES`), downloads every init section, part and segment as soon as it is listed,
and runs every playlist and HTTP rule of hlsvalidate on each response. Results stay in memory for
the media checks that run after the stream ends.
"""
from __future__ import annotations

import json
import statistics
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional
from urllib.parse import urljoin

import requests

import hlsvalidate as hv
from waiting import eventually


@dataclass
class PartRecord:
    uri: str
    msn: int
    index: int
    duration: float
    duration_text: str
    independent: bool
    data: bytes
    fetch_seconds: float


@dataclass
class SegmentRecord:
    uri: str
    msn: int
    duration: float
    duration_text: str
    map_uri: Optional[str]
    disc_number: Optional[int]
    discontinuity: bool
    part_count: Optional[int]
    data: bytes
    pdt_text: Optional[str] = None


@dataclass
class BlockingSample:
    msn: int
    part: int
    elapsed: float
    contained: bool
    status: int
    skip: bool


class RenditionFollower:
    def __init__(self, name: str, url: str, others: dict[str, str], log: "ExchangeLog", skip_every: int = 4):
        self.name, self.url, self.others, self.log = name, url, others, log
        self.skip_every = skip_every
        self.session = requests.Session()
        self.history = hv.RenditionHistory(name)
        self.violations: list[hv.Violation] = []
        self.inits: dict[str, bytes] = {}
        self.parts: dict[tuple[int, int], PartRecord] = {}
        self.segments: dict[int, SegmentRecord] = {}
        self.blocking: list[BlockingSample] = []
        self.latency: list[float] = []
        self.playlists: list[hv.MediaPlaylist] = []
        self.delta_count = 0
        self.report_checks = 0
        self.td: Optional[int] = None
        self.pt: Optional[float] = None
        self.ended = False
        self.errors: list[str] = []
        self._removed: dict[str, float] = {}
        self._removed_checked = 0
        self.withdrawn_checked = 0
        self._prev_full: Optional[hv.MediaPlaylist] = None

    # --- helpers
    def _v(self, items: list[hv.Violation], context: str) -> None:
        for x in items:
            self.violations.append(hv.Violation(x.rule, f"{self.name}: {x.message} ({context})", time.monotonic()))

    def _get(self, url: str, kind: str, timeout: float, blocking: bool = False) -> tuple[requests.Response, float, float]:
        t0 = time.monotonic()
        r = self.session.get(url, timeout=timeout)
        t1 = time.monotonic()
        self.log.add(self.name, url, r, t1 - t0, kind)
        if kind != "error":
            self._v(hv.check_http(kind, r.status_code, r.headers, self.td, blocking=blocking, url=url), url)
        return r, t0, t1

    def _fetch_playlist(self, url: str, skip_requested: bool, blocking: bool) -> Optional[tuple[hv.MediaPlaylist, float]]:
        timeout = 3 * (self.td or 2) + 3
        r, _, t1 = self._get(url, "playlist", timeout, blocking)
        if r.status_code != 200:
            self.errors.append(f"{url} -> {r.status_code}")
            return None
        pl = hv.parse_media_playlist(r.text, self.url)
        self._v(hv.check_media(pl, skip_requested=skip_requested), url)
        if self.td is None:
            self.td, self.pt = pl.target_duration, pl.part_target
        self.playlists.append(pl)
        return pl, t1

    # --- main loop
    def run(self, deadline: float) -> None:
        try:
            self._run(deadline)
        except Exception as e:  # noqa: BLE001 - reported as a test failure, not swallowed
            self.errors.append(f"follower {self.name} crashed: {e!r}")

    def _run(self, deadline: float) -> None:
        got = None
        while got is None and time.monotonic() < deadline:
            got = self._fetch_playlist(self.url, False, False)
            if got is None:
                time.sleep(0.2)
        if got is None:
            return
        pl, t = got
        self._absorb(pl, t)
        n = 0
        while time.monotonic() < deadline and not pl.endlist:
            n += 1
            msn, part = pl.next_msn, len(pl.trailing_parts)
            sc = pl.server_control
            skip = bool(self.skip_every) and n % self.skip_every == 0 and "CAN-SKIP-UNTIL" in sc
            q = f"{self.url}?_HLS_msn={msn}&_HLS_part={part}" + ("&_HLS_skip=YES" if skip else "")
            t0 = time.monotonic()
            got = self._fetch_playlist(q, skip, True)
            if got is None:
                self.blocking.append(BlockingSample(msn, part, time.monotonic() - t0, False, 0, skip))
                time.sleep(0.2)
                got = self._fetch_playlist(self.url, False, False)
                if got is None:
                    continue
                pl, t = got
                self._absorb(pl, t)
                continue
            new, t = got
            # B2: part N of M "or later"; N past the end of a finished M means (M+1, 0).
            contained = new.endlist or new.last_position() >= (msn, part)
            self.blocking.append(BlockingSample(msn, part, t - t0, contained, 200, skip))
            if not contained:
                self.violations.append(hv.Violation(
                    "B2", f"{self.name}: {q} answered before part {msn}.{part} existed "
                          f"(edge {new.last_position()})"))
            if new.is_delta:
                self.delta_count += 1
                self.history.update(new, t)
                full_got = self._fetch_playlist(self.url, False, False)
                if full_got is not None:
                    self._v(hv.check_delta_against_full(new, full_got[0]), q)
                    new, t = full_got
            self._absorb(new, t)
            if n % 3 == 0:
                self._check_reports(new, t)
            pl = new
        self.ended = pl.endlist

    def _check_reports(self, pl: hv.MediaPlaylist, t: float) -> None:
        others = {}
        for name, url in self.others.items():
            try:
                r = self.session.get(url, timeout=5)
            except requests.RequestException as e:
                self.errors.append(f"report check {url}: {e!r}")
                return
            if r.status_code == 200:
                others[url] = hv.parse_media_playlist(r.text, url)
        elapsed = time.monotonic() - t
        others[self.url] = pl
        self.report_checks += 1
        self._v(hv.check_rendition_reports(pl, others, elapsed), "rendition reports")

    def _absorb(self, pl: hv.MediaPlaylist, t: float) -> None:
        """Update history and download everything newly listed (full playlists only)."""
        self.history.update(pl, t)
        now_wall = time.time() - (time.monotonic() - t)
        for p, _, end in pl.part_timeline():
            if p.key not in self.parts:
                self.latency.append(now_wall - end)
        for m in pl.maps:
            u = urljoin(self.url, m.get("URI", ""))
            if u not in self.inits:
                r, _, _ = self._get(u, "init", 10)
                if r.status_code == 200:
                    self.inits[u] = r.content
                else:
                    self.errors.append(f"init {u} -> {r.status_code}")
        for p in pl.ordered_parts():
            # A GAP part or segment has no media and clients SHOULD NOT load it (RFC 8216bis §4.4.4.7, §4.4.4.9).
            if p.key in self.parts or not p.uri or p.gap:
                continue
            u = urljoin(self.url, p.uri)
            r, t0, t1 = self._get(u, "part", 10)
            if r.status_code != 200:
                self.violations.append(hv.Violation("P6", f"{self.name}: listed part {u} -> {r.status_code}"))
                continue
            # Completeness is proven by the media checks (parts parse, concatenate to the segment);
            # this only catches gross stalls (a listed part must not wait for media), not CPU jitter.
            if t1 - t0 > 1.0:
                self.violations.append(hv.Violation("P6", f"{self.name}: listed part {u} took {t1 - t0:.3f} s"))
            self.parts[p.key] = PartRecord(u, p.msn, p.index, p.duration or 0, p.duration_text, p.independent,
                                           r.content, t1 - t0)
        for s in pl.segments:
            if s.msn in self.segments or s.gap:
                continue
            u = urljoin(self.url, s.uri)
            r, _, _ = self._get(u, "segment", 10)
            if r.status_code != 200:
                self.errors.append(f"segment {u} -> {r.status_code}")
                continue
            parts_complete = [p.index for p in s.parts] == list(range(len(s.parts))) and bool(s.parts)
            self.segments[s.msn] = SegmentRecord(u, s.msn, s.duration, s.duration_text,
                                                 urljoin(self.url, s.map_uri) if s.map_uri else None,
                                                 s.disc_number, s.discontinuity,
                                                 len(s.parts) if parts_complete else None, r.content,
                                                 s.pdt_text)
        self._check_retention(pl)
        self._check_withdrawn_hints()
        self._prev_full = pl

    def _check_withdrawn_hints(self) -> None:
        """PH2: a hinted part that segmentation replaced answers 404 (sampled, not every one)."""
        while self.history.withdrawn_hints:
            u = urljoin(self.url, self.history.withdrawn_hints.pop())
            self.withdrawn_checked += 1
            if self.withdrawn_checked > 4:
                continue
            r, t0, t1 = self._get(u, "error", 3 * (self.td or 2) + 3)
            if r.status_code != 404:
                self.violations.append(hv.Violation(
                    "PH2", f"{self.name}: withdrawn hint {u} -> {r.status_code} after {t1 - t0:.2f} s (want 404)"))

    def _check_retention(self, pl: hv.MediaPlaylist) -> None:
        """P5: a part's file stays downloadable for >= 3 x TD after its tag is removed (sampled)."""
        now = time.monotonic()
        if self._prev_full is not None:
            listed = {p.uri for p in pl.ordered_parts()}
            for p in self._prev_full.ordered_parts():
                if p.uri and p.uri not in listed:
                    self._removed.setdefault(urljoin(self.url, p.uri), now)
        for u, at in list(self._removed.items()):
            if self._removed_checked >= 6:
                break
            if now - at >= 1.0:
                del self._removed[u]
                self._removed_checked += 1
                r, _, _ = self._get(u, "part", 10)
                if r.status_code != 200:
                    self.violations.append(hv.Violation(
                        "P5", f"{self.name}: part {u} gone ({r.status_code}) {now - at:.1f} s after its tag left"))


class ExchangeLog:
    """Every HTTP exchange, written as JSON lines for the artifacts folder."""

    def __init__(self):
        self.lock = threading.Lock()
        self.rows: list[dict] = []

    def add(self, who: str, url: str, r: requests.Response, elapsed: float, kind: str) -> None:
        row = {"t": time.time(), "who": who, "url": url, "status": r.status_code, "elapsed": round(elapsed, 4),
               "kind": kind, "headers": dict(r.headers)}
        if kind in ("playlist", "multivariant", "error"):
            row["body"] = r.text
        with self.lock:
            self.rows.append(row)

    def write(self, path: Path) -> None:
        with self.lock, open(path, "w") as f:
            for row in self.rows:
                f.write(json.dumps(row) + "\n")


@dataclass
class FollowResult:
    multivariant: Optional[hv.Multivariant]
    renditions: dict[str, RenditionFollower] = field(default_factory=dict)
    violations: list[hv.Violation] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    log: ExchangeLog = field(default_factory=ExchangeLog)

    def all_violations(self) -> list[hv.Violation]:
        out = list(self.violations)
        for rf in self.renditions.values():
            out += rf.violations + rf.history.violations
        return out

    def latency_summary(self) -> str:
        lines = []
        for name, rf in self.renditions.items():
            xs = sorted(rf.latency)
            if xs:
                lines.append(f"{name}: part listed {statistics.median(xs) * 1000:.0f} ms after its PDT end "
                             f"(p50), p90 {xs[int(0.9 * (len(xs) - 1))] * 1000:.0f} ms, n={len(xs)}")
            bl = [b.elapsed for b in rf.blocking if b.status == 200]
            if bl:
                lines.append(f"{name}: blocking reload p50 {statistics.median(bl) * 1000:.0f} ms, n={len(bl)}")
        return "\n".join(lines)


def wait_for_multivariant(url: str, timeout: float, min_variants: int = 1) -> Optional[requests.Response]:
    """The first 200 answer listing at least `min_variants` EXT-X-STREAM-INF (a ladder may grow), or None."""
    def listed() -> Optional[requests.Response]:
        r = requests.get(url, timeout=2)
        return r if r.status_code == 200 and r.text.count("#EXT-X-STREAM-INF") >= max(1, min_variants) else None
    return eventually(listed, timeout, until=lambda r: r is not None, period=0.2, ignoring=requests.RequestException)


def follow(mv_url: str, seconds: float, skip_every: int = 4, start_timeout: float = 15,
           min_variants: int = 1) -> FollowResult:
    """Follow every media playlist of `mv_url` for `seconds` (or until ENDLIST)."""
    r = wait_for_multivariant(mv_url, start_timeout, min_variants)
    res = FollowResult(None)
    if r is None:
        res.errors.append(f"multivariant {mv_url} never became available")
        return res
    mv = hv.parse_multivariant(r.text, mv_url)
    res.multivariant = mv
    res.violations += hv.check_multivariant(mv)
    res.violations += hv.check_http("multivariant", r.status_code, r.headers, None, url=mv_url)
    urls = mv.media_playlist_urls()
    deadline = time.monotonic() + seconds
    for name, url in urls.items():
        others = {n: u for n, u in urls.items() if n != name}
        res.renditions[name] = RenditionFollower(name, url, others, res.log, skip_every)
    threads = [threading.Thread(target=rf.run, args=(deadline,), daemon=True) for rf in res.renditions.values()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 60)
    for rf in res.renditions.values():
        res.errors += rf.errors
    last = {n: rf.history.last for n, rf in res.renditions.items() if rf.history.last is not None}
    res.violations += hv.check_renditions_agree(last)
    if not any(hv.parse_media_playlist(x.text).independent_segments for x in last.values()) and not mv.independent_segments:
        res.violations.append(hv.Violation("M9", "EXT-X-INDEPENDENT-SEGMENTS in neither multivariant nor media playlists"))
    return res
