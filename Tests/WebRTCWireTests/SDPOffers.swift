/// Offers captured on this machine on 2026-11-22 from the three real publishers (the answer each got back was accepted:
/// Chromium `setRemoteDescription` and aiortc negotiated H.264 42e01f + Opus; FFmpeg parsed it and started ICE).
enum SDPOffers {
    /// Chromium 156 headless, fake camera and microphone, two `sendonly` transceivers, ICE gathering complete.
    static let chromium = """
        v=0
        o=- 4530986805509014523 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS
        m=audio 55047 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 127.0.0.1
        a=rtcp:9 IN IP4 0.0.0.0
        a=candidate:958011562 1 udp 2122194687 127.0.0.1 55047 typ host generation 0 network-id 3 network-cost 50
        a=candidate:3720014398 1 udp 2122063615 192.0.2.2 54591 typ host generation 0 network-id 1
        a=candidate:674630178 1 udp 2122267903 ::1 38902 typ host generation 0 network-id 4 network-cost 50
        a=candidate:383527902 1 udp 2122134271 fd00::2 55490 typ host generation 0 network-id 2
        a=candidate:3350252606 1 tcp 1518214911 127.0.0.1 9 typ host tcptype active generation 0 network-id 3 network-cost 50
        a=candidate:588267178 1 tcp 1518083839 192.0.2.2 9 typ host tcptype active generation 0 network-id 1
        a=candidate:3600604854 1 tcp 1518288127 ::1 9 typ host tcptype active generation 0 network-id 4 network-cost 50
        a=candidate:3900112714 1 tcp 1518154495 fd00::2 9 typ host tcptype active generation 0 network-id 2
        a=ice-ufrag:a5YP
        a=ice-pwd:cFvpxkGW4EeqpzMt2+PFx4Em
        a=ice-options:trickle
        a=fingerprint:sha-256 3D:70:5C:01:2A:2E:CB:96:E0:A9:ED:14:11:06:B3:C7:99:AF:13:B3:E0:DB:B1:68:FE:46:A1:C1:91:6E:31:9C
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendonly
        a=msid:- bb8e8b48-6d01-4739-b4ae-fbca5f9fbd76
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
        a=ssrc:2681463985 cname:BYErbESilv1NfbDq
        a=ssrc:2681463985 msid:- bb8e8b48-6d01-4739-b4ae-fbca5f9fbd76
        m=video 39751 UDP/TLS/RTP/SAVPF 96 97 102 103 104 107 108 109 114 115 116 117 39 40 45 46 98 99 100 101 118 119 120
        c=IN IP4 127.0.0.1
        a=rtcp:9 IN IP4 0.0.0.0
        a=candidate:958011562 1 udp 2122194687 127.0.0.1 39751 typ host generation 0 network-id 3 network-cost 50
        a=candidate:3720014398 1 udp 2122063615 192.0.2.2 50615 typ host generation 0 network-id 1
        a=candidate:674630178 1 udp 2122267903 ::1 52677 typ host generation 0 network-id 4 network-cost 50
        a=candidate:383527902 1 udp 2122134271 fd00::2 32784 typ host generation 0 network-id 2
        a=candidate:3350252606 1 tcp 1518214911 127.0.0.1 9 typ host tcptype active generation 0 network-id 3 network-cost 50
        a=candidate:588267178 1 tcp 1518083839 192.0.2.2 9 typ host tcptype active generation 0 network-id 1
        a=candidate:3600604854 1 tcp 1518288127 ::1 9 typ host tcptype active generation 0 network-id 4 network-cost 50
        a=candidate:3900112714 1 tcp 1518154495 fd00::2 9 typ host tcptype active generation 0 network-id 2
        a=ice-ufrag:a5YP
        a=ice-pwd:cFvpxkGW4EeqpzMt2+PFx4Em
        a=ice-options:trickle
        a=fingerprint:sha-256 3D:70:5C:01:2A:2E:CB:96:E0:A9:ED:14:11:06:B3:C7:99:AF:13:B3:E0:DB:B1:68:FE:46:A1:C1:91:6E:31:9C
        a=setup:actpass
        a=mid:1
        a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:13 urn:3gpp:video-orientation
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
        a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
        a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
        a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
        a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
        a=sendonly
        a=msid:- 1417753b-5e8c-4afa-bc01-3d70b6922f96
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
        a=rtpmap:45 AV1/90000
        a=rtcp-fb:45 goog-remb
        a=rtcp-fb:45 transport-cc
        a=rtcp-fb:45 ccm fir
        a=rtcp-fb:45 nack
        a=rtcp-fb:45 nack pli
        a=fmtp:45 level-idx=5;profile=0;tier=0
        a=rtpmap:46 rtx/90000
        a=fmtp:46 apt=45
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
        a=rtpmap:118 red/90000
        a=rtpmap:119 rtx/90000
        a=fmtp:119 apt=118
        a=rtpmap:120 ulpfec/90000
        a=ssrc-group:FID 2411745923 3197793785
        a=ssrc:2411745923 cname:BYErbESilv1NfbDq
        a=ssrc:2411745923 msid:- 1417753b-5e8c-4afa-bc01-3d70b6922f96
        a=ssrc:3197793785 cname:BYErbESilv1NfbDq
        a=ssrc:3197793785 msid:- 1417753b-5e8c-4afa-bc01-3d70b6922f96

        """.replacingLineEnds()

    /// aiortc 1.16: credentials and three fingerprints per section, VP8 first, gathered candidates.
    static let aiortc = """
        v=0
        o=- 4004307946 4004307946 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=msid-semantic:WMS *
        m=audio 55760 UDP/TLS/RTP/SAVPF 96 9 0 8
        c=IN IP4 192.0.2.2
        a=sendonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=mid:0
        a=msid:c537643b-4fb5-46d7-87d0-ef4e8c155c5e d81d845a-b2f6-4605-84af-49184ee70c38
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc:957373762 cname:ca0c7c4c-a72d-41f4-bdc2-d839890d3e3b
        a=rtpmap:96 opus/48000/2
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=candidate:f957a2332b1715da3b0ef8ba684454eb 1 udp 2130706431 192.0.2.2 55760 typ host
        a=candidate:d0bcf3d9c29a2bc887618212a1623bfa 1 udp 2130706431 fd00::2 58589 typ host
        a=end-of-candidates
        a=ice-ufrag:5Hs0
        a=ice-pwd:PnjGkxw7kRdEEz7QRPQ7VB
        a=fingerprint:sha-256 84:29:EC:88:48:5C:EB:AB:8C:13:0D:87:33:FF:A5:7D:48:E4:41:CF:CF:9A:CD:1C:62:C5:35:8C:A5:1B:8D:FD
        a=fingerprint:sha-384 3E:AA:D8:58:2D:7F:40:57:09:CB:9C:0B:C4:17:F3:D3:A3:77:EA:0D:D6:E6:7C:DF:E1:3D:E0:1D:CE:EB:85:E9:CD:71:0D:46:A1:E0:0E:AA:B7:B2:BB:4C:8A:6F:50:DC
        a=fingerprint:sha-512 3B:B0:94:4C:CA:4A:E9:7D:DC:43:17:75:50:4E:89:1A:B7:5B:61:2A:AB:1D:B9:70:A9:43:10:41:DC:73:CF:CA:4A:F4:7D:2C:DF:E1:76:E9:46:06:87:39:63:37:32:D7:36:88:FC:DB:B2:FE:AE:E9:1A:78:75:33:63:CB:80:E5
        a=setup:actpass
        m=video 35573 UDP/TLS/RTP/SAVPF 97 98 99 100 101 102
        c=IN IP4 192.0.2.2
        a=sendonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=mid:1
        a=msid:c537643b-4fb5-46d7-87d0-ef4e8c155c5e b2b029f6-f43d-41fd-944d-d1f1f777a5b0
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc-group:FID 2586188078 3014585657
        a=ssrc:2586188078 cname:ca0c7c4c-a72d-41f4-bdc2-d839890d3e3b
        a=ssrc:3014585657 cname:ca0c7c4c-a72d-41f4-bdc2-d839890d3e3b
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
        a=candidate:f957a2332b1715da3b0ef8ba684454eb 1 udp 2130706431 192.0.2.2 35573 typ host
        a=candidate:d0bcf3d9c29a2bc887618212a1623bfa 1 udp 2130706431 fd00::2 48306 typ host
        a=end-of-candidates
        a=ice-ufrag:5Hs0
        a=ice-pwd:PnjGkxw7kRdEEz7QRPQ7VB
        a=fingerprint:sha-256 84:29:EC:88:48:5C:EB:AB:8C:13:0D:87:33:FF:A5:7D:48:E4:41:CF:CF:9A:CD:1C:62:C5:35:8C:A5:1B:8D:FD
        a=fingerprint:sha-384 3E:AA:D8:58:2D:7F:40:57:09:CB:9C:0B:C4:17:F3:D3:A3:77:EA:0D:D6:E6:7C:DF:E1:3D:E0:1D:CE:EB:85:E9:CD:71:0D:46:A1:E0:0E:AA:B7:B2:BB:4C:8A:6F:50:DC
        a=fingerprint:sha-512 3B:B0:94:4C:CA:4A:E9:7D:DC:43:17:75:50:4E:89:1A:B7:5B:61:2A:AB:1D:B9:70:A9:43:10:41:DC:73:CF:CA:4A:F4:7D:2C:DF:E1:76:E9:46:06:87:39:63:37:32:D7:36:88:FC:DB:B2:FE:AE:E9:1A:78:75:33:63:CB:80:E5
        a=setup:actpass

        """.replacingLineEnds()

    /// FFmpeg 9.0 WHIP muxer (imageio-ffmpeg 0.8.1 static binary, libx264 baseline + libopus): `a=setup:passive`,
    /// RTX 105 in a FID group without its own `a=ssrc`, `nack` as the only feedback.
    static let ffmpeg = """
        v=0
        o=FFmpeg 4489045141692799359 2 IN IP4 127.0.0.1
        s=FFmpegPublishSession
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS
        m=audio 9 UDP/TLS/RTP/SAVPF 111
        c=IN IP4 0.0.0.0
        a=ice-ufrag:93e2780f
        a=ice-pwd:b77d134dbf6ece39d408efd6a6fd2eb8
        a=fingerprint:sha-256 13:F5:C4:D3:51:3E:5F:A8:BA:9F:2B:4A:38:BE:18:49:F6:83:C1:4F:8C:01:40:12:D9:EC:AF:39:E1:E0:EF:CF
        a=setup:passive
        a=mid:0
        a=sendonly
        a=msid:FFmpeg audio
        a=rtcp-mux
        a=rtpmap:111 opus/48000/2
        a=ssrc:3613500350 cname:FFmpeg
        a=ssrc:3613500350 msid:FFmpeg audio
        m=video 9 UDP/TLS/RTP/SAVPF 106 105
        c=IN IP4 0.0.0.0
        a=ice-ufrag:93e2780f
        a=ice-pwd:b77d134dbf6ece39d408efd6a6fd2eb8
        a=fingerprint:sha-256 13:F5:C4:D3:51:3E:5F:A8:BA:9F:2B:4A:38:BE:18:49:F6:83:C1:4F:8C:01:40:12:D9:EC:AF:39:E1:E0:EF:CF
        a=setup:passive
        a=mid:1
        a=sendonly
        a=msid:FFmpeg video
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:106 H264/90000
        a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42000d
        a=rtcp-fb:106 nack
        a=rtpmap:105 rtx/90000
        a=fmtp:105 apt=106
        a=ssrc-group:FID 3613500351 3613500352
        a=ssrc:3613500351 cname:FFmpeg
        a=ssrc:3613500351 msid:FFmpeg video

        """.replacingLineEnds()

    /// The sha-256 fingerprint the minimal test offers carry.
    static let fp =
        "sha-256 3B:8A:6F:10:55:C2:9D:04:E1:7A:B3:42:0C:99:58:D6:21:FE:4B:70:8E:13:A5:CC:6D:02:B9:37:F4:18:E0:5A"
}

extension String {
    /// LF to CRLF (all three publishers send CRLF); the literals above are written with LF.
    func replacingLineEnds() -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
    }
}
