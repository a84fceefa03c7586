#!/usr/bin/env python3
"""Writes the WebRTC seed corpora in Fuzz/Corpus/<Target>/ from the golden tables in Tests/WebRTCWireTests: the real
Chromium/aiortc/FFmpeg offers (SDPOffers.swift), RFC 5769 and captured Binding requests, the RTP/RTCP cases, the
depacketizer cases and the FFmpeg RTP capture. Reads the Swift sources, so the seeds follow the tables; run from any
directory; the output is committed."""
import os, re, struct

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "Tests", "WebRTCWireTests")
ROOT = os.path.join(HERE, "Corpus")


def put(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")), "wb") as f:
        f.write(bytes(data))


def source(name):
    return open(os.path.join(TESTS, name)).read()


def unhex(text):
    return bytes.fromhex(re.sub(r"\s+", "", text))


def block(text, start):
    """The Swift multi-line string literal whose opening quotes are at `start`, dedented like Swift does."""
    end = text.index('"""', start + 3)
    body = text[start + 3:end].split("\n")[1:]
    indent = len(body[-1])
    return "\n".join(line[indent:] for line in body[:-1])


def hex_literals(text):
    """Every hex("...") or hex(\"\"\"...\"\"\") argument, in order."""
    out = []
    for m in re.finditer(r'hex\(\s*(""")?', text):
        if m.group(1):
            out.append(unhex(block(text, m.start(1))))
        else:
            out.append(unhex(text[m.end() + 1:text.index('"', m.end() + 1)]))
    return out


# SDP: the three real offers (CRLF like the publishers send them) and the minimal offers of WHIPNegotiationTests.
offers = source("SDPOffers.swift")
for name in ["chromium", "aiortc", "ffmpeg"]:
    start = offers.index('"""', offers.index(f"static let {name} ="))
    put("FuzzSDP", f"offer-{name}", block(offers, start).replace("\n", "\r\n").encode())
fp = re.search(r'static let fp = "([^"]+)"', offers).group(1)
minimal = (f"v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\na=ice-ufrag:abcd\na=ice-pwd:0123456789abcdef0123456789\n"
           f"a=fingerprint:{fp}\nm=video 9 UDP/TLS/RTP/SAVPF 96\na=mid:v\na=sendonly\na=rtpmap:96 H264/90000\n"
           f"a=fmtp:96 packetization-mode=1;profile-level-id=42e01f\nm=audio 9 UDP/TLS/RTP/SAVPF 111\na=mid:a\n"
           f"a=sendonly\na=rtpmap:111 opus/48000/2\n")
put("FuzzSDP", "minimal", minimal.encode())
put("FuzzSDP", "minimal-datachannel", (minimal.replace("t=0 0\n", "t=0 0\na=group:BUNDLE v a d\n")
                                       + "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\na=mid:d\n").encode())
# What crashed WHIPOffer before the fix (FuzzRegressionTests.anExtmapWithoutAnIDIsSkipped).
put("FuzzSDP", "regression-extmap-slash", minimal.replace("a=mid:v\n", "a=mid:v\na=extmap:/ urn:x\n").encode())
put("FuzzSDP", "answer-candidates", (minimal.replace("a=sendonly", "a=recvonly").replace("a=ice-lite\n", "")
                                     + "a=candidate:1 1 udp 2130706431 127.0.0.1 8189 typ host\n"
                                     "a=candidate:2 1 udp 2130706175 ::1 8189 typ host\na=end-of-candidates\n").encode())

# STUN: RFC 5769 vectors and the captured Binding requests, as is (mode 0) and with every repair on (mode 7).
stun = hex_literals(source("STUNMessageTests.swift"))[1:4] + hex_literals(source("RealBindingRequestTests.swift"))
for i, message in enumerate(stun):
    put("FuzzSTUN", f"message-{i}", b"\x00" + message)
    put("FuzzSTUN", f"message-{i}-repaired", b"\x07" + message)

# RTP: the golden cases, the RTX packets and the FFmpeg capture.
rtp = hex_literals(source("RTPPacketTests.swift"))
capture_src = source("FFmpegRTPCaptureTests.swift")
array = capture_src[capture_src.index("static let packets"):capture_src.index("static let annexB")]
# Packets are one-line strings or multi-line literals; keep their order (the depacketizer seed needs it).
capture = []
for m in re.finditer(r'^\s*(?:"([0-9a-f]+)"|"""$)', array, re.M):
    capture.append(unhex(m.group(1)) if m.group(1) else unhex(block(array, m.start() + m.group(0).index('"'))))
for i, packet in enumerate(rtp):
    put("FuzzRTP", f"case-{i}", packet)
for i, packet in enumerate(capture):
    put("FuzzRTP", f"ffmpeg-{i}", packet)

# RTCP: every golden case, one compound and the padding cases.
rtcp = hex_literals(source("RTCPPacketTests.swift"))
for i, packet in enumerate(rtcp):
    put("FuzzRTCP", f"case-{i}", packet)
put("FuzzRTCP", "compound-sr-sdes-bye", rtcp[0] + rtcp[2] + rtcp[3])
put("FuzzRTCP", "compound-rr-nack-pli", rtcp[1] + rtcp[5] + rtcp[7])

# H.264 over RTP: records "control, [fields], length, payload" (see FuzzH264RTP.swift).
def records(settings, packets):
    out = [settings]
    seq, ts = None, None
    for s, t, marker, payload in packets:
        control = 0x10 if marker else 0
        fields = b""
        if seq is None or s != (seq + 1) & 0xFFFF:
            control |= 1 if s == seq else 3
            fields += b"" if s == seq else struct.pack(">H", s)
        if t != ts:
            control |= 8
            fields += struct.pack(">I", t)
        seq, ts = s, t
        out += [control] + list(fields) + [len(payload)] + list(payload)
    return out

dep = source("H264DepacketizerTests.swift")
sps_pps = re.search(r'static let spsPPS = "([^"]+)"', dep).group(1)
cases = dep[dep.index("static let all"):dep.index("@Suite")]
for i, case in enumerate(cases.split("DepacketizerCase(")[1:]):
    packets = []
    for m in re.finditer(r'\((\d+), (\d+), (true|false), ("[^"]*"|spsPPS)\)', case):
        payload = sps_pps if m.group(4) == "spsPPS" else m.group(4).strip('"')
        packets.append((int(m.group(1)), int(m.group(2)), m.group(3) == "true", unhex(payload)))
    put("FuzzH264RTP", f"case-{i}", records(0x01, packets))
    put("FuzzH264RTP", f"case-{i}-reordered", records(0x03 | 0x10, packets))
ffmpeg = []
for packet in capture:
    cc = packet[0] & 0x0F
    ffmpeg.append((struct.unpack(">H", packet[2:4])[0], struct.unpack(">I", packet[4:8])[0], bool(packet[1] & 0x80),
                   packet[12 + 4 * cc:]))
put("FuzzH264RTP", "ffmpeg", records(0x01, ffmpeg))
put("FuzzH264RTP", "ffmpeg-reordered-small", records(0x03 | 0x04 | 0x20, ffmpeg))
