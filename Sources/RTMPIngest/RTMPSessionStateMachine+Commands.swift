import MediaCore
import RTMPWire
import StreamHub

/// RTMP 1.0 §7.2.1–7.2.2: NetConnection and NetStream commands of a publisher (the OBS/FFmpeg sequence).
extension RTMPSessionStateMachine {
    mutating func command(_ c: RTMPCommand) -> [Action] {
        switch c.name {
        case "connect": return connect(c)
        case "releaseStream", "FCPublish", "createStream", "publish", "FCUnpublish", "deleteStream", "closeStream":
            guard state != .awaitingConnect else { return [.close(reason: "\(c.name) before connect")] }
        default:
            return [.ignored("command \(c.name)")]
        }
        switch c.name {
        case "releaseStream":
            return [reply(.result(transactionID: c.transactionID, .undefined))]
        case "FCPublish":
            return [
                reply(.result(transactionID: c.transactionID, .undefined)),
                reply(.onFCPublish(streamName: c.streamName ?? "")),
            ]
        case "createStream":
            return [reply(.createStreamResult(transactionID: c.transactionID, streamID: Self.publishStreamID))]
        case "publish":
            return publish(c)
        default:
            // FCUnpublish, deleteStream, closeStream.
            guard case .publishing = state else { return [] }
            state = .connected
            return [.endPublication]
        }
    }

    private mutating func connect(_ c: RTMPCommand) -> [Action] {
        guard state == .awaitingConnect else { return [.ignored("second connect")] }
        let raw = c.commandObject["app"]?.string ?? ""
        let app = String(raw.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingSlashes
        guard app == configuration.application else {
            state = .closed
            return [
                reply(.connectRejected(transactionID: c.transactionID, description: "unknown application '\(raw)'")),
                .close(reason: "connect to unknown application '\(raw)'"),
            ]
        }
        state = .connected
        return [
            .send(.windowAcknowledgementSize(configuration.windowAcknowledgementSize), messageStreamID: 0),
            .send(.setPeerBandwidth(size: configuration.peerBandwidth, limitType: .dynamic), messageStreamID: 0),
            .send(.setChunkSize(UInt32(configuration.chunkSize)), messageStreamID: 0),
            // A client that lists its codecs (E-RTMP v2) learns ours; a classic one gets the classic reply.
            reply(
                c.requestsEnhancedCapabilities
                    ? .connectSuccess(transactionID: c.transactionID, acceptedVideo: RTMPToStream.acceptedVideoFourCCs)
                    : .connectSuccess(transactionID: c.transactionID)
            ),
        ]
    }

    private mutating func publish(_ c: RTMPCommand) -> [Action] {
        guard state == .connected else { return [.ignored("publish while \(state)")] }
        let name = c.streamName ?? ""
        let keyText = String(name.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        guard let key = StreamKey(keyText) else {
            state = .closed
            return [
                reply(badName("invalid stream key '\(name)'"), on: Self.publishStreamID),
                .close(reason: "invalid stream key '\(name)'"),
            ]
        }
        state = .publishPending(key, transactionID: c.transactionID)
        publishName = name
        return [.publish(key)]
    }

    /// The hub accepted the publication.
    public mutating func publishSucceeded() -> [Action] {
        guard case .publishPending(let key, _) = state else { return [] }
        state = .publishing(key)
        return [
            .send(.userControl(.streamBegin(streamID: Self.publishStreamID)), messageStreamID: 0),
            reply(
                .onStatus(code: "NetStream.Publish.Start", description: "\(key) is now published."),
                on: Self.publishStreamID
            ),
        ]
    }

    /// The hub refused the publication (key live already, or too many streams).
    public mutating func publishFailed(_ error: StreamHubError) -> [Action] {
        guard case .publishPending(let key, _) = state else { return [] }
        state = .closed
        let why: String
        switch error {
        case .alreadyPublishing: why = "\(key) is already being published"
        case .backupTaken: why = "\(key) already has a backup publisher (role=backup)"
        case .tooManyStreams(let limit): why = "too many live streams (limit \(limit))"
        }
        return [reply(badName(why), on: Self.publishStreamID), .close(reason: why)]
    }

    /// Authorization refused the publication: an error status the publisher can show, then close.
    public mutating func publishRefused(_ reason: String) -> [Action] {
        guard case .publishPending = state else { return [] }
        state = .closed
        let status = RTMPCommand.onStatus(
            level: "error",
            code: "NetStream.Publish.Unauthorized",
            description: "publish refused: \(reason)"
        )
        return [reply(status, on: Self.publishStreamID), .close(reason: "publish refused: \(reason)")]
    }

    private func badName(_ description: String) -> RTMPCommand {
        .onStatus(level: "error", code: "NetStream.Publish.BadName", description: description)
    }

    private func reply(_ c: RTMPCommand, on streamID: UInt32 = 0) -> Action {
        .send(c.message, messageStreamID: streamID)
    }
}

extension String {
    /// The text without leading or trailing `/`.
    var trimmingSlashes: String {
        var s = Substring(self)
        while s.first == "/" { s = s.dropFirst() }
        while s.last == "/" { s = s.dropLast() }
        return String(s)
    }
}
