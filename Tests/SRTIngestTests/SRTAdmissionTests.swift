import MediaCore
import PublishAuth
import SRTWire
import Testing

@testable import SRTIngest

/// The listen callback's decision, without sockets: stream id, limits, whose seat is taken, and the publish rules.
@Suite struct SRTAdmissionTests {
    static func admission(keys: [String] = [], anonymous: Bool = true, max: Int = 4) -> SRTAdmission {
        var auth = PublishAuthConfiguration()
        auth.keys = keys
        if !anonymous { auth.anonymous = PublishAuthConfiguration.Anonymous.none }
        return SRTAdmission(authorizer: PublishAuthorizer(configuration: auth), maxSessions: max)
    }

    static func decide(
        _ a: SRTAdmission,
        _ id: String,
        peer: String = "127.0.0.1",
        sessions: Int = 0,
        taken: Set<String> = [],
        version: Int32 = 5
    ) -> SRTAdmission.Decision {
        a.decide(
            streamID: id,
            handshakeVersion: version,
            peerIP: peer,
            sessions: sessions,
            seats: { !taken.contains($0.key.rawValue + ($0.backup ? "?backup" : "")) },
            now: 1_700_000_000
        )
    }

    @Test func aLoopbackPublisherIsAcceptedByTheDefaultRules() {
        let d = Self.decide(Self.admission(), "#!::r=live/cam1,m=publish")
        #expect(d == .accept(SRTStreamID(key: StreamKey("cam1")!), auth: "anonymous (loopback peer)"))
    }

    @Test func playIsRefusedWithBadModeBeforeAnyMedia() {
        guard case .reject(let code, let reason) = Self.decide(Self.admission(), "#!::r=live/cam1,m=request") else {
            Issue.record("play was accepted")
            return
        }
        #expect(code == 1405)
        #expect(reason.contains("not supported"))
    }

    @Test func aMalformedStreamIDIsABadRequest() {
        #expect(
            Self.decide(Self.admission(), "#!::r=live/cam1,,m=publish")
                == .reject(code: 1400, reason: "stream id item '' is not key=value")
        )
    }

    /// `taken` lists the seats the hub would not give: `cam1` its primary's, `cam1?backup` its backup's.
    @Test func aTakenSeatIsAConflictAndABackupMayJoinAPrimary() {
        let a = Self.admission()
        #expect(
            Self.decide(a, "publish:live/cam1", taken: ["cam1"])
                == .reject(code: 1409, reason: "stream key cam1 is already publishing")
        )
        let backup = "#!::r=live/cam1,m=publish,role=backup"
        var id = SRTStreamID(key: StreamKey("cam1")!)
        id.backup = true
        #expect(Self.decide(a, backup, taken: ["cam1"]) == .accept(id, auth: "anonymous (loopback peer)"))
        #expect(
            Self.decide(a, backup, taken: ["cam1", "cam1?backup"])
                == .reject(code: 1409, reason: "stream key cam1 already has a backup publisher")
        )
    }

    @Test func theSessionLimitIsAnOverload() {
        guard case .reject(let code, _) = Self.decide(Self.admission(max: 2), "live/cam1", sessions: 2) else {
            Issue.record("accepted past the limit")
            return
        }
        #expect(code == 1402)
    }

    @Test func theKeyListSeesTheCredentialFromEachForm() {
        let a = Self.admission(keys: ["cam1?s3cret"], anonymous: false)
        for id in ["#!::r=live/cam1,m=publish,s=s3cret", "publish:live/cam1:alice:s3cret", "live/cam1?s3cret"] {
            guard case .accept(_, let auth) = Self.decide(a, id, peer: "192.0.2.7") else {
                Issue.record("\(id) refused")
                continue
            }
            #expect(auth == "key list")
        }
        guard case .reject(let code, _) = Self.decide(a, "#!::r=live/cam1,m=publish,s=wrong", peer: "192.0.2.7") else {
            Issue.record("a wrong credential was accepted")
            return
        }
        #expect(code == 1401)
    }

    @Test func aWebhookDecisionIsLeftToTheSessionThread() {
        var auth = PublishAuthConfiguration()
        auth.anonymous = PublishAuthConfiguration.Anonymous.none
        auth.webhookURL = "http://127.0.0.1:9/auth"
        let a = SRTAdmission(authorizer: PublishAuthorizer(configuration: auth), maxSessions: 4)
        #expect(Self.decide(a, "live/cam1") == .accept(SRTStreamID(key: StreamKey("cam1")!), auth: nil))
    }

    @Test func anOldHandshakeWithoutStreamIDIsRefused() {
        guard case .reject(let code, _) = Self.decide(Self.admission(), "live/cam1", version: 4) else {
            Issue.record("HSv4 accepted")
            return
        }
        #expect(code == 1505)
    }
}
