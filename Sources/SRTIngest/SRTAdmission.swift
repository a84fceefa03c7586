import MediaCore
import PublishAuth
import SRTWire

/// The listen callback's decision on one caller, before any media (SRT Access Control guidelines: reject codes).
///
/// Pure: the stream id, the peer, whose seat is taken and the local publish rules in; accept or reject with a reason out.
/// Only a webhook cannot answer here (the callback must not wait): such a caller is accepted and asked right after.
struct SRTAdmission: Sendable {
    /// Accept, with what the session needs; or reject with an SRT_REJX code and the reason to log.
    enum Decision: Sendable, Equatable {
        /// Let the handshake finish; `auth` is the allowing method, nil when the webhook must still decide.
        case accept(SRTStreamID, auth: String?)
        /// Refuse at the handshake.
        case reject(code: Int32, reason: String)
    }

    /// SRT_REJX codes (srt/access_control.h), HTTP-like.
    enum RejectCode {
        static let badRequest: Int32 = 1400
        static let unauthorized: Int32 = 1401
        static let overload: Int32 = 1402
        static let badMode: Int32 = 1405
        static let conflict: Int32 = 1409
        static let version: Int32 = 1505
    }

    let authorizer: PublishAuthorizer
    let maxSessions: Int

    /// Decides on a caller; `seats` says whether the hub would seat the caller (its key and role) now.
    func decide(
        streamID text: String,
        handshakeVersion: Int32,
        peerIP: String?,
        sessions: Int,
        seats: (SRTStreamID) -> Bool,
        now: Int64
    ) -> Decision {
        // HSv4 (SRT < 1.3) carries no stream id: nothing to publish to.
        guard handshakeVersion >= 5 else {
            return .reject(code: RejectCode.version, reason: "SRT handshake v\(handshakeVersion) has no stream id")
        }
        let id: SRTStreamID
        do { id = try SRTStreamID(parsing: text) } catch {
            if case .unsupportedMode = error { return .reject(code: RejectCode.badMode, reason: "\(error)") }
            return .reject(code: RejectCode.badRequest, reason: "\(error)")
        }
        guard sessions < maxSessions else {
            return .reject(code: RejectCode.overload, reason: "\(sessions) SRT sessions already (srt.max_sessions)")
        }
        guard seats(id) else {
            let taken = id.backup ? "already has a backup publisher" : "is already publishing"
            return .reject(code: RejectCode.conflict, reason: "stream key \(id.key) \(taken)")
        }
        let request = PublishAuthRequest(key: id.key, credential: id.credential, peerIP: peerIP, transport: .srt)
        switch authorizer.localDecision(request, now: now) {
        case .allowed(let method): return .accept(id, auth: method)
        case .denied(let reason): return .reject(code: RejectCode.unauthorized, reason: reason)
        case nil: return .accept(id, auth: nil)
        }
    }
}
