/// Recvonly offers captured on this machine on 2026-11-26 from the two real WHEP clients the e2e suite drives
/// (`addTransceiver(kind, {direction: 'recvonly'})` for video then audio, ICE gathering complete).
public enum WHEPOffers {
    /// Chromium 156 headless (no camera permission, so its host candidates are mDNS names).
    public static let chromium = """
        v=0
        o=- 2560349925852392575 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99 100 101 35 36 37 38 102 103 104 107 108 109 114 115 116 117 39 40 41 42 43 44 45 46 47 48 118 119 120 49
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=candidate:3017120529 1 udp 2113937151 2e15e4db-f5b3-4e89-889d-7397236c8ab4.local 52952 typ host generation 0 network-cost 999
        a=candidate:2025020145 1 udp 2113942271 1921f885-4d66-4c6a-9eac-8ceb119ee476.local 46600 typ host generation 0 network-cost 999
        a=ice-ufrag:Yky4
        a=ice-pwd:GhfCTfSiYD3OoOBOEwBrlm5G
        a=ice-options:trickle
        a=fingerprint:sha-256 CA:20:AD:C0:B2:2F:8D:72:FE:07:AE:AE:55:C9:6D:F8:C9:C4:A2:BD:66:38:A8:B8:5A:49:51:50:DB:CF:D8:67
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:toffset
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 urn:3gpp:video-orientation
        a=extmap:4 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
        a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
        a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
        a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
        a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
        a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
        a=recvonly
        a=rtcp-mux
        a=rtcp-rsize
        a=rtcp-xr:rcvr-rtt=all
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 goog-remb
        a=rtcp-fb:96 transport-cc
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:98 VP9/90000
        a=rtcp-fb:98 goog-remb
        a=rtcp-fb:98 transport-cc
        a=rtcp-fb:98 ccm fir
        a=rtcp-fb:98 nack
        a=rtcp-fb:98 nack pli
        a=fmtp:98 profile-id=0
        a=rtpmap:99 rtx/90000
        a=fmtp:99 apt=98
        a=rtpmap:100 VP9/90000
        a=rtcp-fb:100 goog-remb
        a=rtcp-fb:100 transport-cc
        a=rtcp-fb:100 ccm fir
        a=rtcp-fb:100 nack
        a=rtcp-fb:100 nack pli
        a=fmtp:100 profile-id=2
        a=rtpmap:101 rtx/90000
        a=fmtp:101 apt=100
        a=rtpmap:35 VP9/90000
        a=rtcp-fb:35 goog-remb
        a=rtcp-fb:35 transport-cc
        a=rtcp-fb:35 ccm fir
        a=rtcp-fb:35 nack
        a=rtcp-fb:35 nack pli
        a=fmtp:35 profile-id=1
        a=rtpmap:36 rtx/90000
        a=fmtp:36 apt=35
        a=rtpmap:37 VP9/90000
        a=rtcp-fb:37 goog-remb
        a=rtcp-fb:37 transport-cc
        a=rtcp-fb:37 ccm fir
        a=rtcp-fb:37 nack
        a=rtcp-fb:37 nack pli
        a=fmtp:37 profile-id=3
        a=rtpmap:38 rtx/90000
        a=fmtp:38 apt=37
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
        a=rtpmap:107 rtx/90000
        a=fmtp:107 apt=104
        a=rtpmap:108 H264/90000
        a=rtcp-fb:108 goog-remb
        a=rtcp-fb:108 transport-cc
        a=rtcp-fb:108 ccm fir
        a=rtcp-fb:108 nack
        a=rtcp-fb:108 nack pli
        a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:109 rtx/90000
        a=fmtp:109 apt=108
        a=rtpmap:114 H264/90000
        a=rtcp-fb:114 goog-remb
        a=rtcp-fb:114 transport-cc
        a=rtcp-fb:114 ccm fir
        a=rtcp-fb:114 nack
        a=rtcp-fb:114 nack pli
        a=fmtp:114 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f
        a=rtpmap:115 rtx/90000
        a=fmtp:115 apt=114
        a=rtpmap:116 H264/90000
        a=rtcp-fb:116 goog-remb
        a=rtcp-fb:116 transport-cc
        a=rtcp-fb:116 ccm fir
        a=rtcp-fb:116 nack
        a=rtcp-fb:116 nack pli
        a=fmtp:116 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f
        a=rtpmap:117 rtx/90000
        a=fmtp:117 apt=116
        a=rtpmap:39 H264/90000
        a=rtcp-fb:39 goog-remb
        a=rtcp-fb:39 transport-cc
        a=rtcp-fb:39 ccm fir
        a=rtcp-fb:39 nack
        a=rtcp-fb:39 nack pli
        a=fmtp:39 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=4d001f
        a=rtpmap:40 rtx/90000
        a=fmtp:40 apt=39
        a=rtpmap:41 H264/90000
        a=rtcp-fb:41 goog-remb
        a=rtcp-fb:41 transport-cc
        a=rtcp-fb:41 ccm fir
        a=rtcp-fb:41 nack
        a=rtcp-fb:41 nack pli
        a=fmtp:41 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=f4001f
        a=rtpmap:42 rtx/90000
        a=fmtp:42 apt=41
        a=rtpmap:43 H264/90000
        a=rtcp-fb:43 goog-remb
        a=rtcp-fb:43 transport-cc
        a=rtcp-fb:43 ccm fir
        a=rtcp-fb:43 nack
        a=rtcp-fb:43 nack pli
        a=fmtp:43 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=f4001f
        a=rtpmap:44 rtx/90000
        a=fmtp:44 apt=43
        a=rtpmap:45 AV1/90000
        a=rtcp-fb:45 goog-remb
        a=rtcp-fb:45 transport-cc
        a=rtcp-fb:45 ccm fir
        a=rtcp-fb:45 nack
        a=rtcp-fb:45 nack pli
        a=fmtp:45 level-idx=5;profile=0;tier=0
        a=rtpmap:46 rtx/90000
        a=fmtp:46 apt=45
        a=rtpmap:47 AV1/90000
        a=rtcp-fb:47 goog-remb
        a=rtcp-fb:47 transport-cc
        a=rtcp-fb:47 ccm fir
        a=rtcp-fb:47 nack
        a=rtcp-fb:47 nack pli
        a=fmtp:47 level-idx=5;profile=1;tier=0
        a=rtpmap:48 rtx/90000
        a=fmtp:48 apt=47
        a=rtpmap:118 red/90000
        a=rtpmap:119 rtx/90000
        a=fmtp:119 apt=118
        a=rtpmap:120 ulpfec/90000
        a=rtpmap:49 flexfec-03/90000
        a=rtcp-fb:49 goog-remb
        a=rtcp-fb:49 transport-cc
        a=fmtp:49 repair-window=10000000
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=candidate:3017120529 1 udp 2113937151 2e15e4db-f5b3-4e89-889d-7397236c8ab4.local 52271 typ host generation 0 network-cost 999
        a=candidate:2025020145 1 udp 2113942271 1921f885-4d66-4c6a-9eac-8ceb119ee476.local 43314 typ host generation 0 network-cost 999
        a=ice-ufrag:Yky4
        a=ice-pwd:GhfCTfSiYD3OoOBOEwBrlm5G
        a=ice-options:trickle
        a=fingerprint:sha-256 CA:20:AD:C0:B2:2F:8D:72:FE:07:AE:AE:55:C9:6D:F8:C9:C4:A2:BD:66:38:A8:B8:5A:49:51:50:DB:CF:D8:67
        a=setup:actpass
        a=mid:1
        a=extmap:14 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:4 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid
        a=recvonly
        a=rtcp-mux
        a=rtcp-rsize
        a=rtcp-xr:rcvr-rtt=all
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
        """

    /// aiortc 1.16 (`RTCConfiguration(iceServers=[])`, host address patched to 127.0.0.1).
    public static let aiortc = """
        v=0
        o=- 4004667085 4004667085 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=msid-semantic:WMS *
        m=video 55842 UDP/TLS/RTP/SAVPF 97 98 99 100 101 102
        c=IN IP4 127.0.0.1
        a=recvonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=mid:0
        a=msid:b9ff847f-4765-49e6-bddf-9de45d376433 926a84cd-f90a-44f6-8dc4-6bf4ef704093
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc-group:FID 376682206 2381111392
        a=ssrc:376682206 cname:4ed99b52-a1d8-4247-b0a3-35f43e726a79
        a=ssrc:2381111392 cname:4ed99b52-a1d8-4247-b0a3-35f43e726a79
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
        a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 55842 typ host
        a=end-of-candidates
        a=ice-ufrag:pXOl
        a=ice-pwd:zMrW08W4a2H7L875NySTWI
        a=fingerprint:sha-256 9D:A5:A2:6A:45:82:0E:A4:9C:8C:1A:F6:0E:E0:BD:10:3C:56:FE:98:DB:84:1C:6D:A7:32:EF:4D:32:75:D4:69
        a=fingerprint:sha-384 E4:57:49:EE:B2:0C:70:7E:74:09:5C:66:95:7C:4F:07:4B:A2:56:D5:44:7F:18:06:50:D1:FE:1A:06:02:F4:AD:BB:88:86:0F:F7:BB:5E:26:32:9F:60:A0:AC:02:FE:F5
        a=fingerprint:sha-512 47:CF:37:0E:06:2C:17:99:65:92:33:96:F9:23:90:FF:3E:EE:1E:64:3E:FF:84:FB:93:9F:B5:BF:1F:16:2F:A4:51:23:5E:3A:F1:E4:E8:12:9A:33:94:D4:04:10:E7:01:40:B4:BC:69:50:B9:A3:8B:41:70:59:EB:B9:CF:23:CE
        a=setup:actpass
        m=audio 45270 UDP/TLS/RTP/SAVPF 96 9 0 8
        c=IN IP4 127.0.0.1
        a=recvonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=mid:1
        a=msid:b9ff847f-4765-49e6-bddf-9de45d376433 4a092e5f-b561-4dfc-a4a1-eb75601c0846
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc:3368157336 cname:4ed99b52-a1d8-4247-b0a3-35f43e726a79
        a=rtpmap:96 opus/48000/2
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 45270 typ host
        a=end-of-candidates
        a=ice-ufrag:pXOl
        a=ice-pwd:zMrW08W4a2H7L875NySTWI
        a=fingerprint:sha-256 9D:A5:A2:6A:45:82:0E:A4:9C:8C:1A:F6:0E:E0:BD:10:3C:56:FE:98:DB:84:1C:6D:A7:32:EF:4D:32:75:D4:69
        a=fingerprint:sha-384 E4:57:49:EE:B2:0C:70:7E:74:09:5C:66:95:7C:4F:07:4B:A2:56:D5:44:7F:18:06:50:D1:FE:1A:06:02:F4:AD:BB:88:86:0F:F7:BB:5E:26:32:9F:60:A0:AC:02:FE:F5
        a=fingerprint:sha-512 47:CF:37:0E:06:2C:17:99:65:92:33:96:F9:23:90:FF:3E:EE:1E:64:3E:FF:84:FB:93:9F:B5:BF:1F:16:2F:A4:51:23:5E:3A:F1:E4:E8:12:9A:33:94:D4:04:10:E7:01:40:B4:BC:69:50:B9:A3:8B:41:70:59:EB:B9:CF:23:CE
        a=setup:actpass
        """

    /// Firefox's recvonly offer as its SDP is documented and commonly logged (Firefox 13x, `THIS_IS_SDPARTA`):
    /// HAND-WRITTEN, not captured here (no Firefox on this machine). Fingerprint at session level, ICE credentials
    /// per section, VP8/VP9 first, H.264 42e01f in packetization-mode 1 (126) and mode 0 (97), RTX and RED/ULPFEC,
    /// Opus 109 with G.722/PCMU/PCMA.
    public static let firefox = """
        v=0
        o=mozilla...THIS_IS_SDPARTA-132.0 6398214457925471231 0 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=sendrecv
        a=fingerprint:sha-256 3F:A2:91:0C:5B:E8:77:D4:19:C6:2E:80:4B:F1:6A:93:D2:05:BE:48:7C:E3:10:9A:66:F4:2B:C8:71:0D:E9:55
        a=group:BUNDLE 0 1
        a=ice-options:trickle
        a=msid-semantic:WMS *
        m=video 9 UDP/TLS/RTP/SAVPF 120 124 121 125 126 127 97 98 123 122 119
        c=IN IP4 0.0.0.0
        a=recvonly
        a=extmap:3 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:4 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:5 urn:ietf:params:rtp-hdrext:toffset
        a=extmap:6/recvonly http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
        a=extmap:7 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=fmtp:126 profile-level-id=42e01f;level-asymmetry-allowed=1;packetization-mode=1
        a=fmtp:97 profile-level-id=42e01f;level-asymmetry-allowed=1
        a=fmtp:120 max-fs=12288;max-fr=60
        a=fmtp:124 apt=120
        a=fmtp:121 max-fs=12288;max-fr=60
        a=fmtp:125 apt=121
        a=fmtp:127 apt=126
        a=fmtp:98 apt=97
        a=fmtp:119 apt=122
        a=ice-pwd:0c5d6fa3e2b87a4c1d9e0f3b6a7c8d21
        a=ice-ufrag:4e1b9a7c
        a=mid:0
        a=rtcp-fb:120 nack
        a=rtcp-fb:120 nack pli
        a=rtcp-fb:120 ccm fir
        a=rtcp-fb:120 goog-remb
        a=rtcp-fb:120 transport-cc
        a=rtcp-fb:121 nack
        a=rtcp-fb:121 nack pli
        a=rtcp-fb:121 ccm fir
        a=rtcp-fb:121 goog-remb
        a=rtcp-fb:121 transport-cc
        a=rtcp-fb:126 nack
        a=rtcp-fb:126 nack pli
        a=rtcp-fb:126 ccm fir
        a=rtcp-fb:126 goog-remb
        a=rtcp-fb:126 transport-cc
        a=rtcp-fb:97 nack
        a=rtcp-fb:97 nack pli
        a=rtcp-fb:97 ccm fir
        a=rtcp-fb:97 goog-remb
        a=rtcp-fb:97 transport-cc
        a=rtcp-fb:123 nack
        a=rtcp-fb:123 nack pli
        a=rtcp-fb:123 ccm fir
        a=rtcp-fb:123 goog-remb
        a=rtcp-fb:123 transport-cc
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:120 VP8/90000
        a=rtpmap:124 rtx/90000
        a=rtpmap:121 VP9/90000
        a=rtpmap:125 rtx/90000
        a=rtpmap:126 H264/90000
        a=rtpmap:127 rtx/90000
        a=rtpmap:97 H264/90000
        a=rtpmap:98 rtx/90000
        a=rtpmap:123 ulpfec/90000
        a=rtpmap:122 red/90000
        a=rtpmap:119 rtx/90000
        a=setup:actpass
        a=ssrc:3198034541 cname:{6f2b1c3e-8a4d-4e7b-9c21-5d0a7e3f8b64}
        m=audio 9 UDP/TLS/RTP/SAVPF 109 9 0 8 101
        c=IN IP4 0.0.0.0
        a=recvonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2/recvonly urn:ietf:params:rtp-hdrext:csrc-audio-level
        a=extmap:3 urn:ietf:params:rtp-hdrext:sdes:mid
        a=fmtp:109 maxplaybackrate=48000;stereo=1;useinbandfec=1
        a=fmtp:101 0-15
        a=ice-pwd:0c5d6fa3e2b87a4c1d9e0f3b6a7c8d21
        a=ice-ufrag:4e1b9a7c
        a=mid:1
        a=rtcp-mux
        a=rtpmap:109 opus/48000/2
        a=rtpmap:9 G722/8000/1
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:101 telephone-event/8000
        a=setup:actpass
        a=ssrc:2409815577 cname:{6f2b1c3e-8a4d-4e7b-9c21-5d0a7e3f8b64}
        """

    /// Safari's recvonly offer as libwebrtc in WebKit writes it (Safari 17/18): HAND-WRITTEN from its documented
    /// shape, not captured here (no Safari on this machine). H.264 constrained high 640c1f first, then
    /// 42e01f, H.265, VP8, VP9, each with RTX; Opus 111 with RED.
    public static let safari = """
        v=0
        o=- 8125402399178534126 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99 100 101 102 125 104 124 106 107 108 109 127
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:T9rq
        a=ice-pwd:Xc3kq0Lz8vB1nW7yP2aFh6dM
        a=ice-options:trickle
        a=fingerprint:sha-256 8E:14:C7:3A:92:5D:E0:6B:F8:21:4C:B3:07:9E:D5:62:1A:F6:83:2D:C9:40:7B:E5:18:A4:5F:36:CD:92:0B:E7
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:toffset
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 urn:3gpp:video-orientation
        a=extmap:4 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid
        a=recvonly
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:96 H264/90000
        a=rtcp-fb:96 goog-remb
        a=rtcp-fb:96 transport-cc
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=640c1f
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:98 H264/90000
        a=rtcp-fb:98 goog-remb
        a=rtcp-fb:98 transport-cc
        a=rtcp-fb:98 ccm fir
        a=rtcp-fb:98 nack
        a=rtcp-fb:98 nack pli
        a=fmtp:98 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:99 rtx/90000
        a=fmtp:99 apt=98
        a=rtpmap:100 H265/90000
        a=rtcp-fb:100 goog-remb
        a=rtcp-fb:100 transport-cc
        a=rtcp-fb:100 ccm fir
        a=rtcp-fb:100 nack
        a=rtcp-fb:100 nack pli
        a=rtpmap:101 rtx/90000
        a=fmtp:101 apt=100
        a=rtpmap:102 VP8/90000
        a=rtcp-fb:102 goog-remb
        a=rtcp-fb:102 transport-cc
        a=rtcp-fb:102 ccm fir
        a=rtcp-fb:102 nack
        a=rtcp-fb:102 nack pli
        a=rtpmap:125 rtx/90000
        a=fmtp:125 apt=102
        a=rtpmap:104 VP9/90000
        a=rtcp-fb:104 goog-remb
        a=rtcp-fb:104 transport-cc
        a=rtcp-fb:104 ccm fir
        a=rtcp-fb:104 nack
        a=rtcp-fb:104 nack pli
        a=fmtp:104 profile-id=0
        a=rtpmap:124 rtx/90000
        a=fmtp:124 apt=104
        a=rtpmap:106 red/90000
        a=rtpmap:107 rtx/90000
        a=fmtp:107 apt=106
        a=rtpmap:108 ulpfec/90000
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:T9rq
        a=ice-pwd:Xc3kq0Lz8vB1nW7yP2aFh6dM
        a=ice-options:trickle
        a=fingerprint:sha-256 8E:14:C7:3A:92:5D:E0:6B:F8:21:4C:B3:07:9E:D5:62:1A:F6:83:2D:C9:40:7B:E5:18:A4:5F:36:CD:92:0B:E7
        a=setup:actpass
        a=mid:1
        a=extmap:14 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid
        a=recvonly
        a=rtcp-mux
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
        """
}
