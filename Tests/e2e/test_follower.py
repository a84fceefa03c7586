"""Unit tests for the follower: what it downloads from a listed playlist, without a gateway."""
from __future__ import annotations

import time
from types import SimpleNamespace

import hlsvalidate as hv
from follower import ExchangeLog, RenditionFollower

URL = "http://127.0.0.1:8080/live/k/audio.m3u8"

# A publisher left: audio ended before video's last segment, so MSN 11 is an EXT-X-GAP in audio (checklist M12).
WITH_GAP = """#EXTM3U
#EXT-X-VERSION:9
#EXT-X-TARGETDURATION:1
#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=0.600
#EXT-X-PART-INF:PART-TARGET=0.200
#EXT-X-MEDIA-SEQUENCE:10
#EXT-X-MAP:URI="init.mp4"
#EXT-X-PROGRAM-DATE-TIME:2026-11-22T00:00:10.000Z
#EXTINF:1.000,
s10.m4s
#EXT-X-GAP
#EXTINF:0.300,
s11.m4s
#EXT-X-DISCONTINUITY
#EXT-X-PROGRAM-DATE-TIME:2026-11-22T00:00:14.000Z
#EXTINF:1.000,
s12.m4s
"""


class Recorded(RenditionFollower):
    """Answers every request 200 with a few bytes and remembers what was asked."""

    def __init__(self):
        super().__init__("audio", URL, {}, ExchangeLog())
        self.asked: list[str] = []

    def _get(self, url, kind, timeout, blocking=False):
        self.asked.append(url)
        return SimpleNamespace(status_code=200, content=b"\0" * 8, headers={}, text=""), 0.0, 0.0


def test_gap_segments_are_listed_but_never_downloaded():
    f = Recorded()
    f._absorb(hv.parse_media_playlist(WITH_GAP, URL), time.monotonic())
    assert not any(u.endswith("s11.m4s") for u in f.asked), f.asked
    assert sorted(f.segments) == [10, 12]
    assert not f.errors
