import MediaCore
import RTMPIngest
import RTMPWire
import StreamHub
import Testing

/// The session state machine driven without a channel, as OBS and FFmpeg drive it.
struct RTMPSessionStateMachineTests {
    typealias Action = RTMPSessionStateMachine.Action

    /// Carries out `.publish` against a real hub, the way the channel handler does.
    struct Driver {
        var machine = RTMPSessionStateMachine()
        let hub: StreamHub
        var publication: Publication?

        mutating func command(
            _ name: String,
            _ tx: Double,
            _ object: AMF0Value = .null,
            _ args: AMF0Value...
        )
            -> [Action]
        {
            let actions = machine.received(.command([.string(name), .number(tx), object] + args))
            var out: [Action] = []
            for a in actions {
                out.append(a)
                if case .publish(let key) = a {
                    do {
                        publication = try hub.publish(key: key, origin: "test")
                        out += machine.publishSucceeded()
                    } catch {
                        out += machine.publishFailed(error)
                    }
                }
            }
            return out
        }

        mutating func obsSequence(key: String) -> [[Action]] {
            [
                command(
                    "connect",
                    1,
                    .object([AMF0Property("app", .string("live")), AMF0Property("type", .string("nonprivate"))])
                ),
                command("releaseStream", 2, .null, .string(key)),
                command("FCPublish", 3, .null, .string(key)),
                command("createStream", 4),
                command("publish", 5, .null, .string(key), .string("live")),
            ]
        }
    }

    static func commands(_ actions: [Action]) -> [RTMPCommand] {
        actions.compactMap {
            if case .send(.command(let values), _) = $0 { try? RTMPCommand(values: values) } else { nil }
        }
    }

    @Test func obsCommandSequenceGetsTheRepliesOBSExpects() throws {
        var driver = Driver(hub: StreamHub())
        let replies = driver.obsSequence(key: "demo?token=abc")

        let connect = replies[0]
        #expect(connect.count == 4)
        #expect(connect[0] == .send(.windowAcknowledgementSize(2_500_000), messageStreamID: 0))
        #expect(connect[1] == .send(.setPeerBandwidth(size: 2_500_000, limitType: .dynamic), messageStreamID: 0))
        #expect(connect[2] == .send(.setChunkSize(4096), messageStreamID: 0))
        let result = try #require(Self.commands(connect).first)
        #expect(result.name == "_result" && result.transactionID == 1)
        #expect(result.commandObject["fmsVer"]?.string != nil)
        #expect(result.commandObject["capabilities"]?.number == 31)
        #expect(result.statusCode == "NetConnection.Connect.Success")
        #expect(result.arguments.first?["objectEncoding"]?.number == 0)

        #expect(Self.commands(replies[1]).map(\.name) == ["_result"])
        #expect(Self.commands(replies[2]).map(\.name) == ["_result", "onFCPublish"])
        let created = try #require(Self.commands(replies[3]).first)
        #expect(created.name == "_result" && created.transactionID == 4 && created.arguments == [.number(1)])

        let publish = replies[4]
        #expect(publish.first == .publish(StreamKey("demo")!))
        #expect(publish.contains(.send(.userControl(.streamBegin(streamID: 1)), messageStreamID: 0)))
        let status = try #require(Self.commands(publish).last)
        #expect(status.name == "onStatus" && status.statusCode == "NetStream.Publish.Start")
        #expect(publish.last.map { if case .send(_, 1) = $0 { true } else { false } } == true)
        #expect(driver.machine.state == .publishing(StreamKey("demo")!))
        #expect(driver.publication?.key.rawValue == "demo")
    }

    @Test func secondPublisherOnLiveKeyGetsBadNameAndIsClosed() {
        let hub = StreamHub()
        var first = Driver(hub: hub)
        _ = first.obsSequence(key: "live1")
        var second = Driver(hub: hub)
        let replies = second.obsSequence(key: "live1")
        let last = replies[4]
        #expect(Self.commands(last).map(\.statusCode) == ["NetStream.Publish.BadName"])
        #expect(last.contains { if case .close = $0 { true } else { false } })
        #expect(second.machine.state == .closed)
        #expect(first.publication?.isEnded == false)
    }

    @Test func invalidStreamKeyIsRefusedWithBadName() {
        var driver = Driver(hub: StreamHub())
        let replies = driver.obsSequence(key: "../etc")
        #expect(Self.commands(replies[4]).map(\.statusCode) == ["NetStream.Publish.BadName"])
        #expect(driver.publication == nil)
    }

    @Test func connectToOtherApplicationIsRejected() {
        var driver = Driver(hub: StreamHub())
        let actions = driver.command("connect", 1, .object([AMF0Property("app", .string("vod"))]))
        #expect(Self.commands(actions).map(\.name) == ["_error"])
        #expect(actions.contains { if case .close = $0 { true } else { false } })
    }

    @Test func appWithTrailingSlashAndQueryIsAccepted() {
        var driver = Driver(hub: StreamHub())
        let actions = driver.command("connect", 1, .object([AMF0Property("app", .string("live/?x=1"))]))
        #expect(Self.commands(actions).first?.statusCode == "NetConnection.Connect.Success")
    }

    @Test(arguments: ["FCUnpublish", "deleteStream", "closeStream"])
    func unpublishCommandsEndThePublication(_ name: String) {
        var driver = Driver(hub: StreamHub())
        _ = driver.obsSequence(key: "k")
        #expect(driver.command(name, 6, .null, .string("k")).contains(.endPublication))
        #expect(driver.machine.state == .connected)
    }

    @Test func disconnectWhilePublishingEndsThePublication() {
        var driver = Driver(hub: StreamHub())
        _ = driver.obsSequence(key: "k")
        #expect(driver.machine.connectionClosed() == [.endPublication])
    }

    @Test func mediaIsForwardedOnlyWhilePublishing() {
        var driver = Driver(hub: StreamHub())
        if case .media = driver.machine.received(.video([0x17, 1, 0, 0, 0]), timestamp: 40).first {
            Issue.record("media before publish")
        }
        _ = driver.obsSequence(key: "k")
        #expect(
            driver.machine.received(.video([0x17]), timestamp: 40) == [.media(.video, timestamp: 40, payload: [0x17])]
        )
        #expect(
            driver.machine.received(.audio([0xAF]), timestamp: 41) == [.media(.audio, timestamp: 41, payload: [0xAF])]
        )
    }

    @Test func setDataFrameMetadataIsReported() {
        var machine = RTMPSessionStateMachine()
        let meta: AMF0Value = .ecmaArray([
            AMF0Property("width", .number(1280)), AMF0Property("height", .number(720)),
            AMF0Property("framerate", .number(30)), AMF0Property("videocodecid", .number(7)),
        ])
        let actions = machine.received(.data([.string("@setDataFrame"), .string("onMetaData"), meta]))
        #expect(
            actions == [
                .metadata(StreamMetadata(width: 1280, height: 720, frameRate: 30, hasVideo: true, hasAudio: false))
            ]
        )
    }

    @Test func acknowledgementIsSentAfterEachWindow() {
        var machine = RTMPSessionStateMachine()
        _ = machine.received(.windowAcknowledgementSize(1000))
        #expect(machine.receivedBytes(999).isEmpty)
        #expect(machine.receivedBytes(1) == [.send(.acknowledgement(sequenceNumber: 1000), messageStreamID: 0)])
        #expect(machine.receivedBytes(500).isEmpty)
        #expect(machine.receivedBytes(700) == [.send(.acknowledgement(sequenceNumber: 2200), messageStreamID: 0)])
    }

    @Test func pingRequestIsAnswered() {
        var machine = RTMPSessionStateMachine()
        #expect(
            machine.received(.userControl(.pingRequest(timestamp: 77))) == [
                .send(.userControl(.pingResponse(timestamp: 77)), messageStreamID: 0)
            ]
        )
    }

    @Test func unknownCommandsAreIgnored() {
        var driver = Driver(hub: StreamHub())
        _ = driver.obsSequence(key: "k")
        let actions = driver.command("getStreamLength", 9, .null, .string("k"))
        #expect(actions.allSatisfy { if case .ignored = $0 { true } else { false } })
        #expect(driver.machine.state == .publishing(StreamKey("k")!))
    }
}
