/// Offers in the shapes the three real publishers send (Chromium unified plan, aiortc 1.x, FFmpeg's WHIP muxer).
enum SDPOffers {
    static let fp = "sha-256 3B:8A:6F:10:55:C2:9D:04:E1:7A:B3:42:0C:99:58:D6:21:FE:4B:70:8E:13:A5:CC:6D:02:B9:37:F4:18:E0:5A"

    /// Chromium 12x `RTCPeerConnection.createOffer()` with sendonly audio + video transceivers (trimmed codec list).
    static let chromium = """
        v=0
        o=- 4215775240449105457 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS 3b7c4bd5-2d2f-4b1f-9a5e-0f4e8a1c2d3e
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Xr9T
        a=ice-pwd:8hRqwK3mXkJQo5Z8n1Hh3Yzd
        a=ice-options:trickle
        a=fingerprint:\(fp)
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendonly
        a=msid:3b7c4bd5-2d2f-4b1f-9a5e-0f4e8a1c2d3e 9f1e2d3c-aaaa-bbbb-cccc-0123456789ab
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:13 CN/8000
        a=rtpmap:110 telephone-event/48000
        a=rtpmap:126 telephone-event/8000
        a=ssrc:1001 cname:kq1Hq0bS2Q1xAqZv
        a=ssrc:1001 msid:3b7c4bd5-2d2f-4b1f-9a5e-0f4e8a1c2d3e 9f1e2d3c-aaaa-bbbb-cccc-0123456789ab
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 104 105 106 107 108 109 127 125 112 113 45 98 116 118
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Xr9T
        a=ice-pwd:8hRqwK3mXkJQo5Z8n1Hh3Yzd
        a=ice-options:trickle
        a=fingerprint:\(fp)
        a=setup:actpass
        a=mid:1
        a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:13 urn:3gpp:video-orientation
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
        a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
        a=sendonly
        a=msid:3b7c4bd5-2d2f-4b1f-9a5e-0f4e8a1c2d3e 1c2b3a49-dddd-eeee-ffff-0123456789ab
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 goog-remb
        a=rtcp-fb:96 transport-cc
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:102 H264/90000
        a=rtcp-fb:102 goog-remb
        a=rtcp-fb:102 transport-cc
        a=rtcp-fb:102 ccm fir
        a=rtcp-fb:102 nack
        a=rtcp-fb:102 nack pli
        a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:103 rtx/90000
        a=fmtp:103 apt=102
        a=rtpmap:104 H264/90000
        a=rtcp-fb:104 goog-remb
        a=rtcp-fb:104 transport-cc
        a=rtcp-fb:104 ccm fir
        a=rtcp-fb:104 nack
        a=rtcp-fb:104 nack pli
        a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f
        a=rtpmap:105 rtx/90000
        a=fmtp:105 apt=104
        a=rtpmap:106 H264/90000
        a=rtcp-fb:106 goog-remb
        a=rtcp-fb:106 transport-cc
        a=rtcp-fb:106 ccm fir
        a=rtcp-fb:106 nack
        a=rtcp-fb:106 nack pli
        a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:107 rtx/90000
        a=fmtp:107 apt=106
        a=rtpmap:108 H264/90000
        a=rtcp-fb:108 goog-remb
        a=rtcp-fb:108 transport-cc
        a=rtcp-fb:108 ccm fir
        a=rtcp-fb:108 nack
        a=rtcp-fb:108 nack pli
        a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f
        a=rtpmap:109 rtx/90000
        a=fmtp:109 apt=108
        a=rtpmap:127 H264/90000
        a=rtcp-fb:127 goog-remb
        a=rtcp-fb:127 transport-cc
        a=rtcp-fb:127 ccm fir
        a=rtcp-fb:127 nack
        a=rtcp-fb:127 nack pli
        a=fmtp:127 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f
        a=rtpmap:125 rtx/90000
        a=fmtp:125 apt=127
        a=rtpmap:112 H264/90000
        a=rtcp-fb:112 goog-remb
        a=rtcp-fb:112 transport-cc
        a=rtcp-fb:112 ccm fir
        a=rtcp-fb:112 nack
        a=rtcp-fb:112 nack pli
        a=fmtp:112 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=64001f
        a=rtpmap:113 rtx/90000
        a=fmtp:113 apt=112
        a=rtpmap:45 AV1/90000
        a=rtcp-fb:45 nack
        a=fmtp:45 level-idx=5;profile=0;tier=0
        a=rtpmap:98 VP9/90000
        a=fmtp:98 profile-id=0
        a=rtpmap:116 red/90000
        a=rtpmap:118 ulpfec/90000
        a=ssrc-group:FID 2001 2002
        a=ssrc:2001 cname:kq1Hq0bS2Q1xAqZv
        a=ssrc:2001 msid:3b7c4bd5-2d2f-4b1f-9a5e-0f4e8a1c2d3e 1c2b3a49-dddd-eeee-ffff-0123456789ab
        a=ssrc:2002 cname:kq1Hq0bS2Q1xAqZv
        a=ssrc:2002 msid:3b7c4bd5-2d2f-4b1f-9a5e-0f4e8a1c2d3e 1c2b3a49-dddd-eeee-ffff-0123456789ab

        """.replacingLineEnds()

    /// aiortc 1.x: credentials and fingerprints per section (several hash algorithms), VP8 first, gathered candidates.
    static let aiortc = """
        v=0
        o=- 3951235872 3951235872 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=msid-semantic:WMS *
        m=audio 9 UDP/TLS/RTP/SAVPF 96 0 8
        c=IN IP4 0.0.0.0
        a=sendonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=mid:0
        a=msid:5f0e4c1a-0b1f-4c7e-9a2d-7d8c1e2f3a4b 0a1b2c3d-1111-2222-3333-444455556666
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc:3735928559 cname:7f3c0a9e-6d1b-4f2a-8e5c-9b0d1c2e3f40
        a=rtpmap:96 opus/48000/2
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=candidate:8d9d3f0b8b7c2a1e 1 udp 2130706431 127.0.0.1 51634 typ host
        a=end-of-candidates
        a=ice-ufrag:kQ2T
        a=ice-pwd:m0Vd8k3l7Z1qYp4sXw9r2T
        a=fingerprint:sha-384 9A:52:6B:0D:8E:11:F2:34:56:78:9A:BC:DE:F0:12:34:56:78:9A:BC:DE:F0:12:34:56:78:9A:BC:DE:F0:12:34:56:78:9A:BC:DE:F0:12:34:56:78:9A:BC:DE:F0
        a=fingerprint:\(fp)
        a=setup:actpass
        m=video 9 UDP/TLS/RTP/SAVPF 97 98 99 100 101 102
        c=IN IP4 0.0.0.0
        a=sendonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=mid:1
        a=msid:5f0e4c1a-0b1f-4c7e-9a2d-7d8c1e2f3a4b 7a8b9c0d-1111-2222-3333-444455556666
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc-group:FID 287454020 2863311530
        a=ssrc:287454020 cname:7f3c0a9e-6d1b-4f2a-8e5c-9b0d1c2e3f40
        a=ssrc:2863311530 cname:7f3c0a9e-6d1b-4f2a-8e5c-9b0d1c2e3f40
        a=rtpmap:97 VP8/90000
        a=rtcp-fb:97 nack
        a=rtcp-fb:97 nack pli
        a=rtcp-fb:97 goog-remb
        a=rtpmap:98 rtx/90000
        a=fmtp:98 apt=97
        a=rtpmap:99 H264/90000
        a=rtcp-fb:99 nack
        a=rtcp-fb:99 nack pli
        a=rtcp-fb:99 goog-remb
        a=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:100 rtx/90000
        a=fmtp:100 apt=99
        a=rtpmap:101 H264/90000
        a=rtcp-fb:101 nack
        a=rtcp-fb:101 nack pli
        a=rtcp-fb:101 goog-remb
        a=fmtp:101 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:102 rtx/90000
        a=fmtp:102 apt=101
        a=candidate:8d9d3f0b8b7c2a1e 1 udp 2130706431 127.0.0.1 51634 typ host
        a=end-of-candidates
        a=ice-ufrag:kQ2T
        a=ice-pwd:m0Vd8k3l7Z1qYp4sXw9r2T
        a=fingerprint:sha-384 9A:52:6B:0D:8E:11:F2:34:56:78:9A:BC:DE:F0:12:34:56:78:9A:BC:DE:F0:12:34:56:78:9A:BC:DE:F0:12:34:56:78:9A:BC:DE:F0:12:34:56:78:9A:BC:DE:F0
        a=fingerprint:\(fp)
        a=setup:actpass

        """

    /// FFmpeg's WHIP muxer (libavformat/whip.c): session-level BUNDLE, `a=setup:passive`, no rtcp-fb, one codec each.
    static let ffmpeg = """
        v=0
        o=FFmpeg 4489045141692799580 2 IN IP4 127.0.0.1
        s=FFmpegPublishSession
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS
        m=audio 9 UDP/TLS/RTP/SAVPF 111
        c=IN IP4 0.0.0.0
        a=ice-ufrag:1b4c7d2e
        a=ice-pwd:0f1e2d3c4b5a69788796a5b4c3d2e1f0
        a=fingerprint:\(fp)
        a=setup:passive
        a=mid:0
        a=sendonly
        a=msid:FFmpeg audio
        a=rtcp-mux
        a=rtpmap:111 opus/48000/2
        a=ssrc:2712369044 cname:FFmpeg
        a=ssrc:2712369044 msid:FFmpeg audio
        m=video 9 UDP/TLS/RTP/SAVPF 106
        c=IN IP4 0.0.0.0
        a=ice-ufrag:1b4c7d2e
        a=ice-pwd:0f1e2d3c4b5a69788796a5b4c3d2e1f0
        a=fingerprint:\(fp)
        a=setup:passive
        a=mid:1
        a=sendonly
        a=msid:FFmpeg video
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:106 H264/90000
        a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=ssrc:1853082418 cname:FFmpeg
        a=ssrc:1853082418 msid:FFmpeg video

        """.replacingLineEnds()
}

extension String {
    /// LF to CRLF, as browsers and FFmpeg send SDP (aiortc's sample above keeps bare LF on purpose).
    func replacingLineEnds() -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
    }
}
