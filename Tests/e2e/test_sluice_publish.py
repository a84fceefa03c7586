"""`sluice publish testsrc` (librtmp) -> LL-HLS: the same checks as the FFmpeg publisher."""
from __future__ import annotations

import pytest

from e2ecommon import assert_http_valid, assert_media_valid, assert_playlists_valid, assert_stream_followed
from procs import ARTIFACTS, format_violations, sluice_publish_cmd
from session import live_run

KEY = "e2e-sluice-publish"


@pytest.fixture(scope="module")
def run():
    # Default configuration (Config/sluice.yaml), unlike the FFmpeg tests' 1 s segments.
    return live_run(ARTIFACTS / "sluice_publish", KEY, lambda gw: sluice_publish_cmd(gw.rtmp_url(KEY), 12),
                    follow_seconds=10)


def test_stream_is_followed_with_blocking_reloads(run):
    assert_stream_followed(run, min_segments=3)  # default config: 1 s segments


def test_every_playlist_response_validates(run):
    assert_playlists_valid(run)


def test_http_headers(run):
    assert_http_valid(run)


def test_media_decodes_and_matches_playlists(run):
    assert_media_valid(run)


def test_part_and_segment_cadence(run):
    vs = []
    for rf in run.follow.renditions.values():
        vs += rf.history.cadence_violations()
    assert not vs, format_violations(vs)


def test_publisher_exits_cleanly(run):
    p = run.publishers[0]
    assert p.proc.returncode == 0, f"sluice publish exited {p.proc.returncode}\n{p.log()[-2000:]}"
