import MediaCore

/// Where a WHEP feed's H.264 comes from.
enum WHEPVideoSource: Sendable, Hashable, CustomStringConvertible {
    /// A hub rendition sent as it is: the passthrough source or a ladder rung (both without B-frames).
    case rendition(StreamKey)
    /// The dedicated WebRTC rung encoded from the source (constrained baseline, IDRs on request).
    case webRTCRung
    /// The same encode watched only by joining viewers until their own rendition's next keyframe (`WHEPJoinSwitch`):
    /// its IDRs cost no settled viewer a picture, so it may make them often (`joinKeyframeRequestInterval`).
    case joinRung
    /// The stream has no video (or the viewer receives none).
    case none

    /// Encoded here from the source, with IDRs on request.
    var isRung: Bool { self == .webRTCRung || self == .joinRung }

    var description: String {
        switch self {
        case .rendition(let key): key.renditionName.map { "rung \($0)" } ?? "passthrough"
        case .webRTCRung: "webrtc-rung"
        case .joinRung: "join-rung"
        case .none: "none"
        }
    }
}
