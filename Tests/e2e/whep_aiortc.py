"""aiortc 1.16 as a WHEP viewer (draft-ietf-wish-whep-03): POST a recvonly offer, decode H.264 and Opus for
--seconds, then DELETE.

Prints one JSON line per event: {"status": 201, "location": ..., "source": ...}, {"state": ...}, and finally
{"done": true, "state": ..., "videoFrames": n, "audioFrames": n, "width": w, "height": h, ...}.
"""

import argparse
import asyncio
import json
import re
import sys
import time
import urllib.parse
import urllib.request

import aioice.ice
# PyAV imports numpy in the first to_ndarray: there it froze this loop at the third frame (0.2 s, 1.4 s in CI).
import numpy  # noqa: F401
from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpReceiver, RTCSessionDescription

# aioice never gathers 127.0.0.1; tests may only use loopback, so make it the one host address.
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"] if use_ipv4 else []


def emit(obj):
    print(json.dumps(obj), flush=True)


def http(method, url, body=None, headers=None):
    request = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/sdp")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url", help="http://127.0.0.1:PORT/whep/KEY")
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--connect-timeout", type=float, default=15.0)
    parser.add_argument("--token", default="")
    parser.add_argument("--candidate", help="HOST:PORT replacing every candidate of the answer (a relay in the test)")
    parser.add_argument("--timeline", action="store_true",
                        help="record [seconds, r, g, b] of the picture's centre every 3rd video frame, and the longest "
                             "gap between video frames")
    parser.add_argument("--timeline-every", type=int, default=3, help="with --timeline: every Nth video frame")
    parser.add_argument("--timeline-wall", action="store_true", help="with --timeline: wall-clock seconds")
    parser.add_argument("--viewers", type=int, default=1,
                        help="peer connections in this process; more than one prints {\"viewers\": [...]} at the end")
    args = parser.parse_args()
    if args.viewers == 1:
        result = await watch(args, quiet=False)
        emit(result)
        return 0 if result.get("connected") else (2 if result.get("state") == "refused" else 1)
    results = await asyncio.gather(*(watch(args, quiet=True) for _ in range(args.viewers)))
    emit({"done": True, "viewers": results})
    return 0 if all(r.get("connected") for r in results) else 1


async def watch(args, quiet: bool) -> dict:
    """One viewer: POST, play for --seconds, DELETE; returns its "done" record."""
    say = (lambda obj: None) if quiet else emit

    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    video = pc.addTransceiver("video", direction="recvonly")
    video.setCodecPreferences([c for c in RTCRtpReceiver.getCapabilities("video").codecs
                               if c.mimeType in ("video/H264", "video/rtx")])
    pc.addTransceiver("audio", direction="recvonly")
    counts = {"video": 0, "audio": 0, "width": 0, "height": 0, "firstVideo": None, "firstAudio": None,
              "firstVideoAfterPost": None, "lastVideo": None, "maxGap": 0.0, "maxGapEnd": None}
    timeline = []
    connected, failed = asyncio.Event(), asyncio.Event()
    t0 = time.monotonic()
    t0_wall = time.time()
    readers = []
    t_post = t0

    async def read(track):
        while True:
            try:
                frame = await track.recv()
            except Exception:  # noqa: BLE001 - the track ended
                return
            counts[track.kind] += 1
            first = "firstVideo" if track.kind == "video" else "firstAudio"
            if counts[first] is None:
                counts[first] = round(time.monotonic() - t0, 3)
                if track.kind == "video":
                    counts["firstVideoAfterPost"] = round(time.monotonic() - t_post, 3)
            if track.kind == "video":
                counts["width"], counts["height"] = frame.width, frame.height
                now = time.monotonic()
                if counts["lastVideo"] is not None:
                    if now - counts["lastVideo"] > counts["maxGap"]:
                        counts["maxGap"], counts["maxGapEnd"] = round(now - counts["lastVideo"], 3), round(now - t0, 3)
                counts["lastVideo"] = now
                if args.timeline and counts["video"] % args.timeline_every == 0:
                    rgb = frame.to_ndarray(format="rgb24")[frame.height // 2, frame.width // 2]
                    stamp = time.time() if args.timeline_wall else now - t0
                    timeline.append([round(stamp, 3)] + [int(x) for x in rgb])

    @pc.on("track")
    def on_track(track):
        readers.append(asyncio.ensure_future(read(track)))

    @pc.on("connectionstatechange")
    async def on_state():
        say({"state": pc.connectionState})
        if pc.connectionState == "connected":
            connected.set()
        elif pc.connectionState in ("failed", "closed"):
            failed.set()

    await pc.setLocalDescription(await pc.createOffer())
    loop = asyncio.get_running_loop()
    headers = {"Authorization": f"Bearer {args.token}"} if args.token else {}
    t_post = time.monotonic()
    url = args.url
    status, reply_headers, answer = await loop.run_in_executor(
        None, http, "POST", url, pc.localDescription.sdp.encode(), headers)
    redirected = None
    if status in (307, 308) and reply_headers.get("Location"):
        # RFC 9725 §4.6: a WHEP endpoint may redirect; the same offer goes to the new URL (a cluster's owner node).
        redirected = url = urllib.parse.urljoin(url, reply_headers["Location"])
        status, reply_headers, answer = await loop.run_in_executor(
            None, http, "POST", url, pc.localDescription.sdp.encode(), headers)
    headers = reply_headers
    location = headers.get("Location")
    say({"status": status, "location": location, "etag": headers.get("ETag"),
          "source": headers.get("X-Sluice-Video-Source"), "retryAfter": headers.get("Retry-After"),
          "redirected": redirected})
    if status != 201:
        await pc.close()
        return {"done": True, "state": "refused", "status": status, "body": answer}
    if args.candidate:
        host, port = args.candidate.rsplit(":", 1)
        answer = re.sub(r"^(a=candidate:\S+ \d+ udp \d+) \S+ \d+ ", rf"\1 {host} {port} ", answer, flags=re.M)
    await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
    waiters = [asyncio.ensure_future(connected.wait()), asyncio.ensure_future(failed.wait())]
    await asyncio.wait(waiters, timeout=args.connect_timeout, return_when=asyncio.FIRST_COMPLETED)
    for w in waiters:
        w.cancel()
    ok = connected.is_set() and not failed.is_set()
    t_connected = time.monotonic()
    while ok and time.monotonic() - t_connected < args.seconds and not failed.is_set():
        await asyncio.sleep(0.2)
    watched = round(time.monotonic() - t_connected, 1)
    stats = {"video": {}, "audio": {}}
    for stat in (await pc.getStats()).values():
        if stat.type == "inbound-rtp":
            stats[stat.kind] = {"packetsReceived": stat.packetsReceived, "packetsLost": stat.packetsLost}
    state = pc.connectionState
    deleted = None
    if location:
        base = url.split("/whep/")[0]
        deleted, _, _ = await loop.run_in_executor(None, http, "DELETE", base + location)
    await pc.close()
    for r in readers:
        r.cancel()
    return {"done": True, "state": state, "connected": ok, "watchedSeconds": watched, "deleted": deleted,
          "videoFrames": counts["video"], "audioFrames": counts["audio"], "width": counts["width"],
          "height": counts["height"], "firstVideoSeconds": counts["firstVideo"],
          "firstAudioSeconds": counts["firstAudio"],
          "firstVideoAfterPostSeconds": counts["firstVideoAfterPost"], "stats": stats,
          "source": headers.get("X-Sluice-Video-Source"), "maxGapSeconds": counts["maxGap"],
          "maxGapEndSeconds": counts["maxGapEnd"], "t0Wall": t0_wall,
          **({"timeline": timeline} if args.timeline else {})}


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
