"""aiortc 1.16 as a WHIP-style offerer for the WebRTC transport interop test (Tests/WebRTCTransportTests).

Protocol on stdio, one JSON object per line: we print {"offer": sdp}, read {"answer": sdp}, then print
{"state": ...} on each connection-state change and finally {"done": true, "state": ..., "packetsSent": n}.
It publishes a synthetic H.264 video track (sendonly) for --seconds once connected.
"""

import argparse
import asyncio
import json
import sys

import aioice.ice
from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpSender, RTCSessionDescription, VideoStreamTrack

# aioice never gathers 127.0.0.1; tests may only use loopback, so make it the one host address.
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"] if use_ipv4 else []


def emit(obj):
    print(json.dumps(obj), flush=True)


async def read_line():
    return await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--connect-timeout", type=float, default=15.0)
    args = parser.parse_args()

    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    transceiver = pc.addTransceiver(VideoStreamTrack(), direction="sendonly")
    h264 = [c for c in RTCRtpSender.getCapabilities("video").codecs if c.mimeType == "video/H264"]
    transceiver.setCodecPreferences(h264)

    connected = asyncio.Event()
    failed = asyncio.Event()

    @pc.on("connectionstatechange")
    async def on_state():
        emit({"state": pc.connectionState})
        if pc.connectionState == "connected":
            connected.set()
        elif pc.connectionState in ("failed", "closed"):
            failed.set()

    await pc.setLocalDescription(await pc.createOffer())
    emit({"offer": pc.localDescription.sdp})
    line = await read_line()
    if not line:
        emit({"done": True, "state": "no answer", "packetsSent": 0})
        return 2
    await pc.setRemoteDescription(RTCSessionDescription(sdp=json.loads(line)["answer"], type="answer"))

    waiters = [asyncio.ensure_future(connected.wait()), asyncio.ensure_future(failed.wait())]
    await asyncio.wait(waiters, timeout=args.connect_timeout, return_when=asyncio.FIRST_COMPLETED)
    for w in waiters:
        w.cancel()
    ok = connected.is_set() and not failed.is_set()
    if ok:
        await asyncio.sleep(args.seconds)
    state = pc.connectionState
    # Senders stop first: a packet sent between reading the count and closing would go uncounted.
    senders = [t.sender for t in pc.getTransceivers() if t.sender]
    for sender in senders:
        await sender.stop()
    sent = 0
    for sender in senders:
        for stat in (await sender.getStats()).values():
            if stat.type == "outbound-rtp":
                sent += stat.packetsSent
    await pc.close()
    emit({"done": True, "state": state, "packetsSent": sent})
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
