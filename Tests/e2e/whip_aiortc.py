"""aiortc 1.16 as a WHIP publisher (RFC 9725): POST the offer, stream H.264 + Opus for --seconds, then DELETE.

Prints one JSON line per event: {"status": 201, "location": ...}, {"state": ...}, and finally
{"done": true, "state": ..., "videoPackets": n, "audioPackets": n}.
"""

import argparse
import asyncio
import fractions
import json
import re
import sys
import time
import urllib.request

import aioice.ice
import numpy
from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpSender, RTCSessionDescription
from aiortc.mediastreams import AudioStreamTrack, VideoStreamTrack
from av import VideoFrame

# aioice never gathers 127.0.0.1; tests may only use loopback, so make it the one host address.
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"] if use_ipv4 else []


def emit(obj):
    print(json.dumps(obj), flush=True)


class MovingBars(VideoStreamTrack):
    """A moving pattern (a black picture compresses to nothing and hides decoder bugs)."""

    def __init__(self, width=640, height=360):
        super().__init__()
        self.width, self.height, self.count = width, height, 0

    async def recv(self):
        pts, time_base = await self.next_timestamp()
        x = numpy.arange(self.width, dtype=numpy.uint16)
        row = ((x + self.count * 8) % 256).astype(numpy.uint8)
        image = numpy.repeat(numpy.stack([row, 255 - row, row // 2], axis=-1)[None, :, :], self.height, axis=0)
        self.count += 1
        frame = VideoFrame.from_ndarray(image, format="rgb24")
        frame.pts, frame.time_base = pts, time_base
        return frame


def http(method, url, body=None, content_type="application/sdp"):
    request = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--connect-timeout", type=float, default=15.0)
    parser.add_argument("--no-audio", action="store_true")
    parser.add_argument("--candidate", help="HOST:PORT replacing every candidate of the answer (a relay in the test)")
    args = parser.parse_args()

    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    video = pc.addTransceiver(MovingBars(), direction="sendonly")
    video.setCodecPreferences([c for c in RTCRtpSender.getCapabilities("video").codecs if c.mimeType == "video/H264"])
    if not args.no_audio:
        audio = pc.addTransceiver(AudioStreamTrack(), direction="sendonly")
        audio.setCodecPreferences([c for c in RTCRtpSender.getCapabilities("audio").codecs if c.mimeType == "audio/opus"])

    connected, failed = asyncio.Event(), asyncio.Event()

    @pc.on("connectionstatechange")
    async def on_state():
        emit({"state": pc.connectionState})
        (connected if pc.connectionState == "connected" else failed if pc.connectionState in ("failed", "closed") else asyncio.Event()).set()

    await pc.setLocalDescription(await pc.createOffer())
    loop = asyncio.get_running_loop()
    status, headers, answer = await loop.run_in_executor(None, http, "POST", args.url, pc.localDescription.sdp.encode())
    location = headers.get("Location")
    emit({"status": status, "location": location, "etag": headers.get("ETag")})
    if status != 201:
        emit({"done": True, "state": "refused", "body": answer})
        return 2
    if args.candidate:
        host, port = args.candidate.rsplit(":", 1)
        answer = re.sub(r"^(a=candidate:\S+ \d+ udp \d+) \S+ \d+ ", rf"\1 {host} {port} ", answer, flags=re.M)
    await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
    waiters = [asyncio.ensure_future(connected.wait()), asyncio.ensure_future(failed.wait())]
    await asyncio.wait(waiters, timeout=args.connect_timeout, return_when=asyncio.FIRST_COMPLETED)
    for w in waiters:
        w.cancel()
    ok = connected.is_set() and not failed.is_set()
    deadline = time.monotonic() + args.seconds
    while ok and time.monotonic() < deadline and not failed.is_set():
        await asyncio.sleep(0.2)
    counts = {"video": 0, "audio": 0}
    for stat in (await pc.getStats()).values():
        if stat.type == "outbound-rtp":
            counts[stat.kind] = counts.get(stat.kind, 0) + stat.packetsSent
    state = pc.connectionState
    if location:
        base = args.url.split("/whip/")[0]
        deleted, _, _ = await loop.run_in_executor(None, http, "DELETE", base + location)
        emit({"deleted": deleted})
    await pc.close()
    emit({"done": True, "state": state, "videoPackets": counts["video"], "audioPackets": counts["audio"]})
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
