import MediaCore
import Synchronization
import WebRTCTransport
import WebRTCWire

/// One WHEP viewer: its transport session, its payload types, where it is in joining, and a bounded queue of packets
/// waiting to be encrypted for it. A slow viewer loses its own packets, never the stream's or another viewer's.
final class WHEPViewer: Sendable {
    /// Where a viewer is in its life.
    enum Phase: Sendable, Equatable {
        /// ICE and DTLS have not finished: nothing can be sent.
        case connecting
        /// Connected; video waits for a keyframe (first join, or after its queue overflowed).
        case waitingForKeyframe
        /// Receiving every packet.
        case playing
        /// Gone.
        case closed
    }

    /// What one viewer sent and received, for metrics and the log line at its end.
    struct Counters: Sendable, Equatable {
        var videoPacketsSent = 0
        var audioPacketsSent = 0
        var videoPacketsDropped = 0
        var audioPacketsDropped = 0
        var nackedPackets = 0
        var retransmittedPackets = 0
        /// Of those, sent on the RTX stream (RFC 4588) rather than as the original packet.
        var retransmittedOnRTX = 0
        var keyframeRequests = 0
        /// Last receiver report's loss fraction for video, out of 256 (RFC 3550 §6.4.1).
        var fractionLost: UInt8 = 0
        /// Round trip from the last receiver report that echoed one of our sender reports.
        var roundTrip: Duration?
    }

    let id: String
    let key: StreamKey
    let session: WebRTCSession
    /// Payload type the viewer's offer gave H.264 (nil: it receives no video).
    let videoPayloadType: UInt8?
    /// Payload type the viewer's offer gave Opus (nil: it receives no audio).
    let audioPayloadType: UInt8?
    /// Where video retransmissions go when the viewer negotiated RTX (nil: the original packet again).
    let videoRetransmission: RetransmissionStream?
    /// The viewer's RTX sequence numbers (RFC 4588 §4: the RTX stream has its own, random start).
    private let rtxSequence: Mutex<UInt16>
    let queueLimit: Int
    /// Which feed it watches, for reports.
    let videoSource: String
    private let inFlight = Atomic<Int>(0)
    private let state = Mutex<(phase: Phase, counters: Counters)>((.connecting, Counters()))

    init(
        id: String,
        key: StreamKey,
        session: WebRTCSession,
        videoPayloadType: UInt8?,
        audioPayloadType: UInt8?,
        videoRetransmission: RetransmissionStream? = nil,
        queueLimit: Int,
        videoSource: String = ""
    ) {
        self.id = id
        self.key = key
        self.session = session
        self.videoPayloadType = videoPayloadType
        self.audioPayloadType = audioPayloadType
        self.videoRetransmission = videoRetransmission
        rtxSequence = Mutex(UInt16.random(in: 0...UInt16.max))
        self.queueLimit = max(1, queueLimit)
        self.videoSource = videoSource
    }

    var phase: Phase { state.withLock { $0.phase } }
    var counters: Counters { state.withLock { $0.counters } }

    /// DTLS finished: audio may flow, video from the next keyframe.
    func connected() {
        state.withLock { if $0.phase == .connecting { $0.phase = .waitingForKeyframe } }
    }

    /// The session ended.
    func closed() { state.withLock { $0.phase = .closed } }

    /// Updates counters under the lock.
    func count(_ change: (inout Counters) -> Void) { state.withLock { change(&$0.counters) } }

    /// Sends one video access unit's packets when the viewer is in sync (or it is a keyframe to join on); true when
    /// the viewer needs a keyframe (it waits for one, or just dropped one for a full queue).
    func deliver(video packets: [[UInt8]], keyframe: Bool) -> Bool {
        guard let payloadType = videoPayloadType else { return false }
        let admitted = state.withLock { s -> Bool in
            if s.phase == .waitingForKeyframe, keyframe { s.phase = .playing }
            return s.phase == .playing
        }
        guard admitted else { return phase == .waitingForKeyframe }
        if enqueue(packets, payloadType: payloadType) {
            count { $0.videoPacketsSent += packets.count }
            return false
        }
        // A lost piece of a frame breaks every frame after it until the next keyframe: wait for one.
        state.withLock { s in
            s.counters.videoPacketsDropped += packets.count
            if s.phase == .playing { s.phase = .waitingForKeyframe }
        }
        return true
    }

    /// Sends one Opus packet once connected (audio needs no keyframe).
    func deliver(audio packets: [[UInt8]]) {
        guard let payloadType = audioPayloadType else { return }
        let phase = phase
        guard phase == .waitingForKeyframe || phase == .playing else { return }
        let sent = enqueue(packets, payloadType: payloadType)
        count { c in
            if sent { c.audioPacketsSent += packets.count } else { c.audioPacketsDropped += packets.count }
        }
    }

    /// Resends NACKed packets within the queue bound: on the RTX stream when negotiated (RFC 4588 §4: the OSN in
    /// front, RTX payload type, SSRC and sequence), else the same packets again (RFC 4585 §6.2.1).
    func retransmit(_ packets: [[UInt8]], kind: MediaKind) {
        guard let payloadType = kind == .video ? videoPayloadType : audioPayloadType, !packets.isEmpty else { return }
        guard kind == .video, let rtx = videoRetransmission else {
            if enqueue(packets, payloadType: payloadType) { count { $0.retransmittedPackets += packets.count } }
            return
        }
        let wrapped = rtxSequence.withLock { next in Self.retransmissions(packets, on: rtx, sequence: &next) }
        guard enqueue(wrapped, payloadType: rtx.payloadType) else { return }
        count { c in
            c.retransmittedPackets += wrapped.count
            c.retransmittedOnRTX += wrapped.count
        }
    }

    /// RFC 4588 §4: each packet on the RTX stream (OSN in front, RTX payload type and SSRC), numbered from
    /// `sequence` on; history bytes that do not parse are skipped.
    static func retransmissions(
        _ packets: [[UInt8]],
        on rtx: RetransmissionStream,
        sequence: inout UInt16
    ) -> [[UInt8]] {
        packets.compactMap { bytes -> [UInt8]? in
            guard let packet = try? RTPPacket(parsing: bytes) else { return nil }
            defer { sequence &+= 1 }
            let wrapped = packet.wrappedForRetransmission(
                payloadType: rtx.payloadType,
                ssrc: rtx.ssrc,
                sequenceNumber: sequence
            )
            return wrapped.serialized()
        }
    }

    /// Sends an RTCP compound packet (sender reports) once connected.
    func sendRTCP(_ bytes: [UInt8]) {
        let phase = phase
        guard phase == .waitingForKeyframe || phase == .playing else { return }
        session.sendRTCP(bytes)
    }

    /// Stamps our payload type and hands the packets to the transport unless the viewer's queue is full.
    private func enqueue(_ packets: [[UInt8]], payloadType: UInt8) -> Bool {
        let n = packets.count
        let before = inFlight.add(n, ordering: .relaxed).oldValue
        guard before + n <= queueLimit else {
            inFlight.subtract(n, ordering: .relaxed)
            return false
        }
        let stamped = packets.map { packet -> [UInt8] in
            var bytes = packet
            // RFC 3550 §5.1: the second byte is M (top bit) and PT.
            if bytes.count > 1 { bytes[1] = bytes[1] & 0x80 | payloadType & 0x7F }
            return bytes
        }
        session.sendRTP(stamped) { [self] in self.inFlight.subtract(n, ordering: .relaxed) }
        return true
    }
}
