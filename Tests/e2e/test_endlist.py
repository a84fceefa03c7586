"""After the reconnect grace the stream ends: ENDLIST, no hints, and directives are ignored (B7)."""
from __future__ import annotations

import time
from urllib.parse import urljoin

import pytest
import requests

import hlsvalidate as hv
from follower import wait_for_multivariant
from procs import FAST_SEGMENTS, Gateway, ffmpeg_cmd
from waiting import eventually

KEY = "e2e-endlist"


@pytest.fixture
def short_grace_gateway(workdir):
    cfg = workdir / "sluice.yaml"
    cfg.write_text("hls:\n  reconnect_grace_s: 1\n")
    gw = Gateway(workdir, FAST_SEGMENTS, config=cfg)
    yield gw.start()
    gw.stop()


def test_ended_stream_ignores_directives(short_grace_gateway, publishers):
    gw = short_grace_gateway
    pub = publishers(ffmpeg_cmd(gw.rtmp_url(KEY), 4))
    r = wait_for_multivariant(gw.hls_url(KEY), 15)
    assert r is not None, gw.log()[-2000:]
    mv = hv.parse_multivariant(r.text, gw.hls_url(KEY))
    media = {n: u for n, u in mv.media_playlist_urls().items()}
    live = {n: hv.parse_media_playlist(requests.get(u, timeout=5).text, u) for n, u in media.items()}
    assert pub.wait(20) is not None, "publisher did not finish"
    hints = {}
    for n, u in media.items():
        pl = hv.parse_media_playlist(requests.get(u, timeout=5).text, u)
        hints[n] = [urljoin(u, h["URI"]) for h in pl.preload_hints if h.get("TYPE") == "PART"]

    ended = {}

    def all_ended() -> bool:
        for n, u in media.items():
            pl = hv.parse_media_playlist(requests.get(u, timeout=5).text, u)
            if pl.endlist:
                ended[n] = pl
        return len(ended) == len(media)

    eventually(all_ended, 10, period=0.2)
    assert len(ended) == len(media), f"no EXT-X-ENDLIST within 10 s of the grace (1 s) running out\n{gw.log()[-1500:]}"

    for n, u in media.items():
        pl = ended[n]
        assert not hv.check_media(pl), hv.check_media(pl)  # includes H3: no hint with ENDLIST
        assert pl.segments and pl.segments[-1].msn >= live[n].last_msn
        # B7: with ENDLIST every directive is ignored: no 400 for "far ahead", no blocking, no delta.
        for q in (f"_HLS_msn={pl.last_msn + 50}&_HLS_part=3", f"_HLS_msn={pl.last_msn + 1}",
                  "_HLS_skip=YES", f"_HLS_msn={pl.last_msn + 1}&_HLS_part=0&_HLS_skip=YES"):
            t0 = time.monotonic()
            resp = requests.get(f"{u}?{q}", timeout=10)
            elapsed = time.monotonic() - t0
            assert resp.status_code == 200, f"{n} ?{q} after ENDLIST -> {resp.status_code} (directives must be ignored)"
            assert elapsed < 0.5, f"{n} ?{q} after ENDLIST blocked {elapsed:.2f} s"
            got = hv.parse_media_playlist(resp.text, u)
            assert got.endlist and not got.is_delta, f"{n} ?{q}: {resp.text[:300]}"
        # PH2: the hint that was live before the end is withdrawn: 404, promptly.
        for h in hints[n]:
            if h not in {urljoin(u, p.uri or "") for p in pl.ordered_parts()}:
                t0 = time.monotonic()
                resp = requests.get(h, timeout=10)
                assert resp.status_code == 404 and time.monotonic() - t0 < 1.0, \
                    f"withdrawn hint {h} -> {resp.status_code} after {time.monotonic() - t0:.2f} s"
        # Media stays downloadable after the end.
        last = pl.segments[-1]
        assert requests.get(urljoin(u, last.uri), timeout=5).status_code == 200
