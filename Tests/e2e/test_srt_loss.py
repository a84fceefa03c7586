"""srt-live-transmit (srt-tools) relays a TS file to the gateway through a loopback UDP relay that drops 5 % of the
data packets; with a 300 ms latency window SRT repairs every loss: the LL-HLS output holds exactly the source's
frames (video and audio, counted by ffprobe), the window both ends agreed on is 300 ms, and the retransmissions
show in /metrics."""
from __future__ import annotations

import re
import signal
import subprocess
import time
from urllib.parse import urljoin

import requests

from follower import wait_for_multivariant
from procs import FAST_SEGMENTS, Gateway, free_port
from srtpeers import LossyRelay
from waiting import eventually

KEY = "srt-loss"
SECONDS = 12


def _video_frames(path) -> int:
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-count_frames", "-show_entries",
                          "stream=nb_read_frames", "-of", "csv=p=0", str(path)], capture_output=True, text=True)
    return int(out.stdout.split()[0])


def _audio_packets(path) -> int:
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a", "-count_packets", "-show_entries",
                          "stream=nb_read_packets", "-of", "csv=p=0", str(path)], capture_output=True, text=True)
    return int(out.stdout.split()[0])


def _download(media_url: str, out) -> None:
    """A finished media playlist's init + every segment, into one file."""
    text = eventually(lambda: requests.get(media_url, timeout=15).text, 20, until=lambda t: "#EXT-X-ENDLIST" in t,
                      period=0.5)
    assert "#EXT-X-ENDLIST" in text, f"playlist did not end:\n{text[-1500:]}"
    assert "#EXT-X-MEDIA-SEQUENCE:1\n" in text, f"the window dropped early segments:\n{text[:800]}"
    init = re.search(r'#EXT-X-MAP:URI="([^"]+)"', text).group(1)
    body = requests.get(urljoin(media_url, init), timeout=5).content
    for uri in (l for l in text.splitlines() if l and not l.startswith("#")):
        body += requests.get(urljoin(media_url, uri), timeout=5).content
    out.write_bytes(body)


def _metric(text: str, name: str) -> float:
    m = re.search(rf'^{name}\{{stream="{KEY}"\}} (\S+)', text, re.M)
    return float(m.group(1)) if m else -1


def test_five_percent_loss_loses_no_frame_within_a_300ms_window(workdir, publishers):
    source = workdir / "source.ts"
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    "testsrc2=size=640x360:rate=30", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                    "-t", str(SECONDS), "-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "30",
                    "-c:a", "aac", "-f", "mpegts", str(source)], check=True)
    source_frames = _video_frames(source)
    env = {"SLUICE_SRT_LATENCY_MS": "300", "SLUICE_HLS_WINDOW_SEGMENTS": "60", "SLUICE_HLS_RECONNECT_GRACE_S": "0"}
    gw = Gateway(workdir, FAST_SEGMENTS + ["--transcode", "off"], env=env).start()
    relay = LossyRelay(gw.srt_port, loss=0.05).start()
    try:
        udp = free_port()
        relayer = publishers(["srt-live-transmit", "-q", f"udp://127.0.0.1:{udp}",
                    f"srt://127.0.0.1:{relay.port}?streamid=live/{KEY}&latency=300"], "srt-live-transmit")
        time.sleep(1)
        feeder = publishers(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "warning", "-re", "-i", str(source),
                             "-c", "copy", "-f", "mpegts", f"udp://127.0.0.1:{udp}?pkt_size=1316"], "ffmpeg-udp")
        mv = wait_for_multivariant(gw.hls_url(KEY), 20)
        assert mv is not None, gw.log()[-3000:]
        time.sleep(SECONDS / 2)
        metrics = requests.get(f"http://127.0.0.1:{gw.http_port}/metrics", timeout=5).text
        assert feeder.wait(SECONDS + 20) == 0, feeder.log()
        time.sleep(3)  # The relay's last retransmissions; then the SRT caller stops, its session ends.
        relayer.stop(signal.SIGINT)
    finally:
        relay.stop()
    try:
        media_uri = next(l for l in mv.text.splitlines() if l and not l.startswith("#"))
        out = workdir / "output-video.mp4"
        _download(urljoin(gw.hls_url(KEY), media_uri), out)
        output_frames = _video_frames(out)
        # Audio: its own rendition when the multivariant names one, else muxed with the video.
        audio_uri = re.search(r'#EXT-X-MEDIA:TYPE=AUDIO[^\n]*URI="([^"]+)"', mv.text)
        audio_out = out
        if audio_uri:
            audio_out = workdir / "output-audio.mp4"
            _download(urljoin(gw.hls_url(KEY), audio_uri.group(1)), audio_out)
        source_audio, output_audio = _audio_packets(source), _audio_packets(audio_out)
        print(f"\nrelay: {relay.data_packets} data packets, {relay.dropped} dropped; source {source_frames} frames, "
              f"LL-HLS {output_frames} frames; audio {source_audio} -> {output_audio} frames; "
              f"lost {_metric(metrics, 'sluice_srt_packets_lost_total')}, "
              f"retransmitted {_metric(metrics, 'sluice_srt_packets_retransmitted_total')}, "
              f"dropped {_metric(metrics, 'sluice_srt_packets_dropped_total')} (at {SECONDS / 2:.0f} s)")
        assert 0.03 < relay.dropped / relay.data_packets < 0.07, f"{relay.dropped}/{relay.data_packets} dropped"
        # The window under test is the one both ends agreed on: 300 ms, in the session log and in /metrics.
        started = [l for l in gw.log().splitlines() if "SRT publish started" in l and KEY in l]
        assert started and "latency_ms=300" in started[0], gw.log()[-2000:]
        assert abs(_metric(metrics, "sluice_srt_latency_seconds") - 0.300) < 0.001, metrics[:2000]
        assert output_frames == source_frames, f"source {source_frames} frames, LL-HLS {output_frames}"
        assert output_audio == source_audio, f"source {source_audio} audio frames, LL-HLS {output_audio}"
        assert _metric(metrics, "sluice_srt_packets_retransmitted_total") > 0, metrics[:2000]
        assert _metric(metrics, "sluice_srt_packets_lost_total") > 0
        ended = [l for l in gw.log().splitlines() if "SRT publish ended" in l and KEY in l]
        assert ended and "srt_dropped=0" in ended[0] and "continuity_errors=0" in ended[0], gw.log()[-2000:]
        print(ended[0])
    finally:
        gw.stop()
