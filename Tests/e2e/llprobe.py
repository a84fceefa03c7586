"""Server-behaviour probes (checklist section 2: B1-B8, PH1-PH2, 404s), run against a live stream."""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Optional
from urllib.parse import urljoin, urlsplit

import requests

import hlsvalidate as hv


@dataclass
class ProbeResult:
    violations: list[hv.Violation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, rule: str, msg: str) -> None:
        self.violations.append(hv.Violation(rule, msg))


def _get(s: requests.Session, url: str, timeout: float = 10) -> tuple[requests.Response, float]:
    t0 = time.monotonic()
    r = s.get(url, timeout=timeout)
    return r, time.monotonic() - t0


def probe(mv_url: str, media_url: str) -> ProbeResult:
    """Every probe needs a live stream that keeps producing parts for ~6 s more."""
    res = ProbeResult()
    s = requests.Session()
    r, _ = _get(s, media_url)
    if r.status_code != 200:
        res.add("B0", f"{media_url} -> {r.status_code}")
        return res
    pl = hv.parse_media_playlist(r.text, media_url)
    td, pt = pl.target_duration or 1, pl.part_target or 0.2
    fast = 0.5  # an answer that should not block at all

    def check_status(url: str, want: int, rule: str, max_elapsed: Optional[float] = None, why: str = "") -> requests.Response:
        resp, el = _get(s, url, 3 * td + 5)
        res.notes.append(f"{url.replace(media_url, '<media>')} -> {resp.status_code} in {el * 1000:.0f} ms "
                         f"(Cache-Control: {resp.headers.get('Cache-Control')})")
        if resp.status_code != want:
            res.add(rule, f"{why}: GET {url} -> {resp.status_code} (want {want}) body={resp.text[:120]!r}")
        elif max_elapsed is not None and el > max_elapsed:
            res.add(rule, f"{why}: GET {url} took {el:.3f} s (want < {max_elapsed} s)")
        for x in hv.check_http("playlist", resp.status_code, resp.headers, td, blocking="_HLS_msn" in url, url=url):
            res.violations.append(x)
        return resp

    # B3 / B4 / B5: answered at once.
    check_status(f"{media_url}?_HLS_part=0", 400, "B3", fast, "_HLS_part without _HLS_msn")
    check_status(f"{media_url}?_HLS_msn={pl.last_msn + 10}", 400, "B4", fast, "_HLS_msn far ahead")
    apl = math.ceil(3 / pt) if pt < 1 else 3
    far_part = len(pl.trailing_parts) + apl + 3
    check_status(f"{media_url}?_HLS_msn={pl.next_msn}&_HLS_part={far_part}", 400, "B4", fast,
                 f"_HLS_part beyond the Advance Part Limit ({apl})")
    first = pl.media_sequence
    old = check_status(f"{media_url}?_HLS_msn={first}", 200, "B5", fast, "old MSN still in the window")
    if old.status_code == 200 and hv.parse_media_playlist(old.text).is_delta:
        res.add("B5", "old-MSN request without _HLS_skip returned a delta")
    check_status(f"{media_url}?_HLS_msn=0&_HLS_part=0", 200, "B5", fast, "MSN 0 part 0 (possibly out of window)")
    check_status(f"{media_url}?unrelated=1", 200, "B7", fast, "unknown query parameter")

    # B2: next part, measured; and the same part again once it exists (must not block).
    r, _ = _get(s, media_url)
    pl = hv.parse_media_playlist(r.text, media_url)
    m, p = pl.next_msn, len(pl.trailing_parts)
    url = f"{media_url}?_HLS_msn={m}&_HLS_part={p}"
    resp, el = _get(s, url, 3 * td + 5)
    res.notes.append(f"B2 next part {m}.{p}: {resp.status_code} after {el * 1000:.0f} ms (PART-TARGET {pt})")
    if resp.status_code == 200:
        got = hv.parse_media_playlist(resp.text, media_url)
        if not (got.last_position() >= (m, p) or got.segment(m) is not None):
            res.add("B2", f"{url} returned before part {m}.{p} existed (edge {got.last_position()})")
        if el > pt + 0.75:
            res.add("B2", f"{url} took {el:.3f} s, more than PART-TARGET + 0.75 s after the request")
        _, el2 = _get(s, url)
        if el2 > fast:
            res.add("B2", f"repeat of {url} for an existing part blocked {el2:.3f} s")
        # Parameters in the other order behave the same.
        m2, p2 = got.next_msn, len(got.trailing_parts)
        rev = f"{media_url}?_HLS_part={p2}&_HLS_msn={m2}"
        r3, el3 = _get(s, rev, 3 * td + 5)
        if r3.status_code != 200:
            res.add("B7", f"{rev} (parameters reversed) -> {r3.status_code}")
        else:
            g3 = hv.parse_media_playlist(r3.text, media_url)
            if not (g3.last_position() >= (m2, p2) or g3.segment(m2) is not None):
                res.add("B7", f"{rev} (parameters reversed) returned before part {m2}.{p2} existed")
    else:
        res.add("B2", f"{url} -> {resp.status_code}")

    # B1: _HLS_msn alone waits for the whole segment, not just its parts.
    r, _ = _get(s, media_url)
    pl = hv.parse_media_playlist(r.text, media_url)
    m = pl.next_msn
    url = f"{media_url}?_HLS_msn={m}"
    resp, el = _get(s, url, 3 * td + 5)
    res.notes.append(f"B1 segment {m}: {resp.status_code} after {el * 1000:.0f} ms")
    if resp.status_code == 200:
        got = hv.parse_media_playlist(resp.text, media_url)
        if got.last_msn < m and not got.endlist:
            res.add("B1", f"{url} returned with last complete MSN {got.last_msn} < {m} (parts are not enough)")
    else:
        res.add("B1", f"{url} -> {resp.status_code}")

    # PH1: a request for the hinted part blocks, then returns the whole part.
    r, _ = _get(s, media_url)
    pl = hv.parse_media_playlist(r.text, media_url)
    hints = [h for h in pl.preload_hints if h.get("TYPE") == "PART"]
    if hints:
        hint_url = urljoin(media_url, hints[0]["URI"])
        hr, hel = _get(s, hint_url, 3 * td + 5)
        res.notes.append(f"PH1 hinted part: {hr.status_code} {len(hr.content)} bytes after {hel * 1000:.0f} ms")
        res.violations += hv.check_http("part", hr.status_code, hr.headers, td, url=hint_url)
        if hr.status_code != 200:
            res.add("PH1", f"hinted part {hint_url} -> {hr.status_code}")
        else:
            later, _ = _get(s, media_url)
            lp = hv.parse_media_playlist(later.text, media_url)
            listed = [x for x in lp.ordered_parts() if x.uri and urljoin(media_url, x.uri) == hint_url]
            if not listed:
                res.add("H2", f"hinted URI {hint_url} never appeared as an EXT-X-PART")
            else:
                again, _ = _get(s, hint_url)
                if again.content != hr.content:
                    res.add("PH1", f"blocking answer for {hint_url} ({len(hr.content)} bytes) differs from the "
                                   f"finished part ({len(again.content)} bytes)")
    else:
        res.add("H1", "no PART preload hint to probe")

    # PH2 / unknown streams: 404.
    parts = urlsplit(mv_url)
    base = f"{parts.scheme}://{parts.netloc}"
    for url in (f"{base}/live/no-such-stream-e2e/index.m3u8",
                media_url.replace(parts.path.rsplit("/", 2)[-2], "no-such-stream-e2e", 1),
                urljoin(media_url, "no-such-part-e2e.m4s")):
        resp, _ = _get(s, url)
        res.notes.append(f"{url} -> {resp.status_code}")
        if resp.status_code != 404:
            res.add("PH2", f"GET {url} -> {resp.status_code} (want 404)")
        if "access-control-allow-origin" not in {k.lower() for k in resp.headers}:
            res.add("HTTP", f"404 for {url} lacks Access-Control-Allow-Origin")
    return res


def probe_in_background(mv_url: str, media_url: str) -> tuple[threading.Thread, list[ProbeResult]]:
    box: list[ProbeResult] = []

    def run():
        try:
            box.append(probe(mv_url, media_url))
        except Exception as e:  # noqa: BLE001 - surfaces as a failed probe
            pr = ProbeResult()
            pr.add("PROBE", f"probe crashed: {e!r}")
            box.append(pr)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, box
