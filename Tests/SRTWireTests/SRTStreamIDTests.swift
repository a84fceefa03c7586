import MediaCore
import SRTWire
import Testing

/// One stream id and what it must give: a key and credential, or the refusal.
struct StreamIDCase: Sendable, CustomTestStringConvertible {
    let text: String
    let expected: Result<SRTStreamID, SRTWireError>
    var testDescription: String { text.isEmpty ? "(empty)" : text }

    static func ok(
        _ text: String,
        _ key: String,
        credential: String? = nil,
        user: String? = nil,
        backup: Bool = false
    ) -> StreamIDCase {
        var id = SRTStreamID(key: StreamKey(key)!, credential: credential, user: user)
        id.backup = backup
        return StreamIDCase(text: text, expected: .success(id))
    }

    static func bad(_ text: String, _ error: SRTWireError) -> StreamIDCase {
        StreamIDCase(text: text, expected: .failure(error))
    }

    static let all: [StreamIDCase] = [
        // SRT Access Control syntax (OBS, vMix, Haivision, srt-live-transmit).
        .ok("#!::r=live/cam1,m=publish", "cam1"),
        .ok("#!::m=publish,r=live/cam1", "cam1"),
        .ok("#!::r=live/cam1,m=publish,u=alice", "cam1", user: "alice"),
        // The hot standby's seat (role=primary is the default).
        .ok("#!::r=live/cam1,m=publish,role=backup", "cam1", backup: true),
        .ok("#!::r=live/cam1,m=publish,role=primary", "cam1"),
        .ok("#!::r=live/cam1,m=publish,s=s3cret,role=backup", "cam1", credential: "s3cret", backup: true),
        .bad("#!::r=live/cam1,m=publish,role=spare", .unsupportedRole("spare")),
        .ok("#!::r=live/cam1,m=publish,u=alice,s=s3cret", "cam1", credential: "s3cret", user: "alice"),
        .ok("#!::r=live/cam1,m=publish,t=stream,h=example.com", "cam1"),
        .ok("#!::r=live/cam1?exp=1700000000&sig=abcd,m=publish", "cam1", credential: "exp=1700000000&sig=abcd"),
        .ok("#!::r=cam1,m=publish,x=ignored", "cam1"),
        .bad("#!::r=live/cam1", .unsupportedMode("request (the default)")),
        .bad("#!::r=live/cam1,m=request", .unsupportedMode("request")),
        .bad("#!::r=live/cam1,m=bidirectional", .unsupportedMode("bidirectional")),
        .bad("#!::r=live/cam1,m=publish,t=file", .unsupportedType("file")),
        .bad("#!::m=publish", .missingResource),
        .bad("#!::r=,m=publish", .missingResource),
        .bad("#!::r=live/,m=publish", .missingResource),
        .bad("#!::r=live/cam1,m=publish,r=live/cam2", .duplicateKey("r")),
        .bad("#!::r=live/cam1,,m=publish", .malformedItem("")),
        .bad("#!::r=live/cam1,publish", .malformedItem("publish")),
        .bad("#!::=x,m=publish", .malformedItem("=x")),
        .bad("#!::r=other/cam1,m=publish", .invalidResource("other/cam1")),
        .bad("#!::r=live/cam 1,m=publish", .invalidResource("live/cam 1")),
        .bad("#!::r=live/.hidden,m=publish", .invalidResource("live/.hidden")),
        // MediaMTX syntax.
        .ok("publish:live/cam1", "cam1"),
        .ok("publish:live/cam1:alice:s3cret", "cam1", credential: "s3cret", user: "alice"),
        .ok("publish:cam1", "cam1"),
        .bad("read:live/cam1", .unsupportedMode("read")),
        .bad("publish:live/cam1:alice", .malformedItem("publish:live/cam1:alice")),
        .bad("publish:", .missingResource),
        // Bare resource.
        .ok("live/cam1", "cam1"),
        .ok("cam1", "cam1"),
        .ok("live/cam1?s3cret", "cam1", credential: "s3cret"),
        .bad("", .emptyStreamID),
        .bad("live/", .missingResource),
        .bad("live/a/b", .invalidResource("live/a/b")),
        .bad(String(repeating: "a", count: 513), .streamIDTooLong(length: 513)),
    ]
}

/// The stream id parser against every form encoders send, and the malformed ones with their reason.
@Suite struct SRTStreamIDTests {
    @Test(arguments: StreamIDCase.all) func parsesOrRefusesWithTheReason(_ c: StreamIDCase) throws {
        switch c.expected {
        case .success(let id): #expect(try SRTStreamID(parsing: c.text) == id)
        case .failure(let error): #expect(throws: error) { try SRTStreamID(parsing: c.text) }
        }
    }

    @Test func playIsRefusedWithAReasonThatSaysPlaybackIsNotSupported() {
        let reason = SRTWireError.unsupportedMode("request").description
        #expect(reason.contains("m=publish"))
        #expect(reason.contains("not supported"))
    }
}
