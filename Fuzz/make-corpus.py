#!/usr/bin/env python3
"""Writes the seed corpora in Fuzz/Corpus/<Target>/ from the unit tests' golden tables (bytes copied
from Tests/RTMPWireTests, Tests/CodecFormatsTests) plus a tiny ffmpeg-made MP4 and ADTS stream.
Run once from the repo root; the output is committed, so CI does not need to run it."""
import os, shutil, struct, subprocess, tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Corpus")


def put(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(bytes(data))


def amf_str(s):
    b = s.encode()
    return [0x02] + list(struct.pack(">H", len(b))) + list(b)


def amf_num(x):
    return [0x00] + list(struct.pack(">d", x))


def amf_obj(props):
    out = [0x03]
    for k, v in props:
        kb = k.encode()
        out += list(struct.pack(">H", len(kb))) + list(kb) + v
    return out + [0, 0, 9]


connect = amf_str("connect") + amf_num(1) + amf_obj([("app", amf_str("live")), ("tcUrl", amf_str("rtmp://127.0.0.1/live"))])
publish = amf_str("publish") + amf_num(5) + [0x05] + amf_str("mystream") + amf_str("live")
metadata = amf_str("@setDataFrame") + amf_str("onMetaData") + [0x08, 0, 0, 0, 2] + [0, 5] + list(b"width") + amf_num(1280) + [0, 6] + list(b"height") + amf_num(720) + [0, 0, 9]

# AMF0 golden values (AMF0Tests).
amf = {
    "number": amf_num(1.0), "boolean": [0x01, 0x01], "string": amf_str("live"), "null": [0x05], "undefined": [0x06],
    "object": amf_obj([("app", amf_str("live")), ("a", [0x05])]), "ecma": [0x08, 0, 0, 0, 1, 0, 1, 0x77] + amf_num(640) + [0, 0, 9],
    "strict": [0x0A, 0, 0, 0, 2, 0x05, 0x01, 0x01], "date": [0x0B, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFE],
    "longstring": [0x0C, 0, 0, 0, 2, 0x68, 0x69], "connect": connect, "publish": publish, "metadata": metadata,
}
for k, v in amf.items():
    put("FuzzAMF0", k, v)

# Messages: type ID then payload (RTMPMessageTests).
msgs = {
    "setchunksize": [1, 0, 0, 0x10, 0], "ack": [3, 0, 0x26, 0x25, 0xA0], "setbufferlength": [4, 0, 3, 0, 0, 0, 1, 0, 0, 0x0B, 0xB8],
    "ping": [4, 0, 6, 0, 0, 0, 7], "windowack": [5, 0, 0x26, 0x25, 0xA0], "peerbw": [6, 0, 0x26, 0x25, 0xA0, 2],
    "connect": [20] + connect, "publish": [20] + publish, "metadata": [18] + metadata, "video": [9, 0x17, 0, 0, 0, 0, 1, 0x64],
}
for k, v in msgs.items():
    put("FuzzRTMPMessage", k, v)


def chunk0(csid, ts, typ, msid, payload, chunk=128):
    out = [csid & 0x3F] + list(struct.pack(">I", ts)[1:]) + list(struct.pack(">I", len(payload))[1:]) + [typ] + list(struct.pack("<I", msid))
    for i in range(0, max(len(payload), 1), chunk):
        if i:
            out.append(0xC0 | csid)
        out += payload[i:i + chunk]
    return out


p200 = [i & 0xFF for i in range(200)]
session = chunk0(3, 0, 20, 0, connect) + chunk0(2, 0, 1, 0, [0, 0, 0x10, 0]) + chunk0(3, 0, 20, 1, publish, 4096) + chunk0(4, 0, 9, 1, p200, 4096)
chunks = {
    "fmt0": [0x03, 0, 0, 0, 0, 0, 3, 20, 0, 0, 0, 0, 1, 2, 3],
    "continuation": chunk0(4, 1000, 9, 1, p200),
    "fmt1": [0x03, 0, 0, 0, 0, 0, 3, 20, 0, 0, 0, 0, 1, 2, 3, 0x43, 0, 0, 10, 0, 0, 2, 20, 4, 5],
    "fmt2fmt3": [0x06, 0, 0, 0, 0, 0, 2, 8, 1, 0, 0, 0, 0xA1, 0xA2, 0x86, 0, 0, 40, 0xB1, 0xB2, 0xC6, 0xC1, 0xC2],
    "csid2byte": [0x00, 0x00, 0, 0, 5, 0, 0, 1, 20, 0, 0, 0, 0, 7],
    "csid3byte": [0x01, 0x00, 0x01, 0, 0, 5, 0, 0, 1, 20, 0, 0, 0, 0, 7],
    "extts": [0x04, 0xFF, 0xFF, 0xFF, 0, 0, 0xC8, 9, 1, 0, 0, 0, 0x01, 0, 0, 0] + p200[:128] + [0xC4, 0x01, 0, 0, 0] + p200[128:],
    "abort": chunk0(2, 0, 2, 0, [0, 0, 0, 4]),
    "session": session,
}
for k, v in chunks.items():
    put("FuzzChunkStream", k, [0x2A] + v)  # First byte seeds the split.

c1 = [0, 0, 0, 0, 0, 0, 0, 0] + [0x11] * 1528
put("FuzzRTMPHandshake", "c0c1c2", [0x07, 3] + c1 + [0xC2] * 1536 + [0x03, 0, 0])
put("FuzzRTMPHandshake", "c0c1", [0x07, 3] + c1)
put("FuzzRTMPHandshake", "rtmpe", [0x07, 6] + c1)

put("FuzzFLVTag", "video-seqheader", [0x17, 0, 0, 0, 0, 1, 0x64])
put("FuzzFLVTag", "keyframe", [0x17, 1, 0, 0, 0x50, 0, 0, 0, 1, 0x65])
put("FuzzFLVTag", "audio", [0xAF, 0, 0x11, 0x90])
body = [0xAF, 1, 0x21, 0x10]
put("FuzzFLVTag", "tag", [8, 0, 0, len(body), 0, 0, 40, 0, 0, 0, 0] + body + list(struct.pack(">I", 11 + len(body))))

for k, v in {"msn-part": "_HLS_msn=12&_HLS_part=3", "skip": "_HLS_msn=4&_HLS_skip=YES", "v2": "_HLS_skip=v2",
             "other": "foo=bar&_HLS_msn=0", "bad": "_HLS_part=1"}.items():
    put("FuzzPlaylistQuery", k, v.encode())

put("FuzzAAC", "asc-lc-44100", [0x12, 0x10])
put("FuzzAAC", "asc-lc-48000", [0x11, 0x90])
put("FuzzAAC", "asc-he", [0x2B, 0x90])
put("FuzzAAC", "asc-escape", [0xF8, 0x46, 0x20])

# Media from ffmpeg: a 2-frame 64x64 H.264 MP4 (boxes, avcC, SPS) and 3 ADTS frames.
with tempfile.TemporaryDirectory() as tmp:
    mp4 = os.path.join(tmp, "a.mp4")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=10", "-frames:v", "2",
                    "-c:v", "libx264", "-preset", "ultrafast", "-movflags", "frag_keyframe+empty_moov", mp4], check=True)
    data = open(mp4, "rb").read()
    put("FuzzMP4Box", "fmp4", data)
    i = data.find(b"avcC")
    size = struct.unpack(">I", data[i - 4:i])[0]
    avcc = data[i + 4:i - 4 + size]
    put("FuzzH264", "avcC", avcc)
    sps_len = struct.unpack(">H", avcc[6:8])[0]
    put("FuzzH264", "sps", avcc[8:8 + sps_len])
    adts = os.path.join(tmp, "a.aac")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "0.06",
                    "-c:a", "aac", "-f", "adts", adts], check=True)
    put("FuzzAAC", "adts", open(adts, "rb").read())
