import MediaCore
import RTMPWire
import StreamHub

/// One publisher's RTMP conversation after the handshake (RTMP 1.0 §7.2), as a value returning actions.
public struct RTMPSessionStateMachine: Sendable {
    /// The message stream ID handed out by `createStream`.
    public static let publishStreamID: UInt32 = 1

    /// Where the conversation stands.
    public enum State: Equatable, Sendable {
        /// Waiting for `connect`.
        case awaitingConnect
        /// Connected; may create a stream and publish.
        case connected
        /// `publish` asked the hub for `key`; waiting for `publishSucceeded`/`publishFailed`.
        case publishPending(StreamKey, transactionID: Double)
        /// Publishing on `key`.
        case publishing(StreamKey)
        /// Finished; nothing more is accepted.
        case closed
    }

    /// What the channel handler must do.
    public enum Action: Equatable, Sendable {
        /// Write a message on `messageStreamID`.
        case send(RTMPMessage, messageStreamID: UInt32)
        /// Claim `key` on the hub, then call `publishSucceeded()` or `publishFailed(_:)`.
        case publish(StreamKey)
        /// End the hub publication (unpublish, deleteStream, disconnect).
        case endPublication
        /// The publisher declared stream metadata.
        case metadata(StreamMetadata)
        /// An audio or video message of the published stream.
        case media(MediaKind, timestamp: UInt32, payload: [UInt8])
        /// Something harmless was skipped; log it at debug level.
        case ignored(String)
        /// Close the connection, logging `reason`.
        case close(reason: String)
    }

    /// Current state.
    public internal(set) var state: State = .awaitingConnect
    let configuration: RTMPIngestConfiguration
    private var bytesReceived: UInt64 = 0
    private var lastAcknowledged: UInt64 = 0
    private var peerWindow: UInt64
    /// Timestamp of the message being handled.
    private var mediaTimestamp: UInt32 = 0
    /// The full name of the last `publish` command, query included (credentials ride there).
    public internal(set) var publishName: String?

    /// Creates a machine for a connection whose handshake is complete.
    public init(configuration: RTMPIngestConfiguration = RTMPIngestConfiguration()) {
        self.configuration = configuration
        peerWindow = UInt64(configuration.windowAcknowledgementSize)
    }

    /// The stream key being published, if any.
    public var streamKey: StreamKey? {
        switch state {
        case .publishPending(let k, _), .publishing(let k): k
        default: nil
        }
    }

    /// Counts received bytes; returns an Acknowledgement (§5.4.3) each time a window fills.
    public mutating func receivedBytes(_ count: Int) -> [Action] {
        bytesReceived += UInt64(count)
        guard peerWindow > 0, bytesReceived - lastAcknowledged >= peerWindow else { return [] }
        lastAcknowledged = bytesReceived
        return [.send(.acknowledgement(sequenceNumber: UInt32(truncatingIfNeeded: bytesReceived)), messageStreamID: 0)]
    }

    /// Handles one message from the publisher; `timestamp` is its RTMP timestamp (media only).
    public mutating func received(_ message: RTMPMessage, timestamp: UInt32 = 0) -> [Action] {
        if state == .closed { return [] }
        mediaTimestamp = timestamp
        switch message {
        case .windowAcknowledgementSize(let size):
            peerWindow = UInt64(size)
            return []
        case .userControl(.pingRequest(let t)):
            return [.send(.userControl(.pingResponse(timestamp: t)), messageStreamID: 0)]
        case .setChunkSize, .abort, .acknowledgement, .userControl, .setPeerBandwidth:
            return []
        case .audio(let body):
            return media(.audio, body)
        case .video(let body):
            return media(.video, body)
        case .data(let values):
            return data(values)
        case .command(let values):
            do {
                return command(try RTMPCommand(values: values))
            } catch {
                return [.ignored("malformed command: \(error)")]
            }
        case .unknown(let type, _):
            return [.ignored("message type \(type)")]
        }
    }

    private func media(_ kind: MediaKind, _ body: [UInt8]) -> [Action] {
        guard case .publishing = state else { return [.ignored("\(kind) before publish")] }
        return [.media(kind, timestamp: mediaTimestamp, payload: body)]
    }

    private func data(_ values: [AMF0Value]) -> [Action] {
        var rest = values[...]
        if rest.first?.string == "@setDataFrame" { rest = rest.dropFirst() }
        guard rest.first?.string == "onMetaData" else {
            return [.ignored("data message \(values.first?.string ?? "?")")]
        }
        guard let object = rest.dropFirst().first, object.properties != nil else {
            return [.ignored("onMetaData without object")]
        }
        return [.metadata(StreamMetadata(object))]
    }

    /// The peer went away or the handler is closing.
    public mutating func connectionClosed() -> [Action] {
        defer { state = .closed }
        switch state {
        case .publishing: return [.endPublication]
        default: return []
        }
    }
}
