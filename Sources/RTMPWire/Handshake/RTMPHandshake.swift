import MediaCore

/// RTMP 1.0 §5.2: the server side of the simple handshake (C0+C1 -> S0+S1+S2, then C2).
public struct RTMPHandshake: Sendable {
    /// Length of C1/C2/S1/S2 (§5.2.3).
    public static let packetSize = 1536
    /// The only plain RTMP version (§5.2.2).
    public static let version: UInt8 = 3

    /// Where the handshake stands.
    public enum State: Equatable, Sendable {
        /// Waiting for C0 and C1.
        case awaitingC0C1
        /// S0+S1+S2 sent; waiting for C2.
        case awaitingC2
        /// Done; chunk stream follows.
        case complete
    }

    /// What one `receive` produced.
    public struct Output: Equatable, Sendable {
        /// Bytes to send to the client (S0+S1+S2), empty when nothing is due.
        public var reply: [UInt8]
        /// True once C2 has been read.
        public var isComplete: Bool
        /// Bytes after C2 (the start of the chunk stream), only when `isComplete`.
        public var leftover: [UInt8]
    }

    /// Current state.
    public private(set) var state: State = .awaitingC0C1
    private var buffer: [UInt8] = []
    private let s1: [UInt8]

    /// Creates a handshake whose S1 carries `time` and `randomBytes` (1528 bytes; padded or cut to fit).
    public init(time: UInt32, randomBytes: [UInt8]) {
        var w = ByteWriter(capacity: Self.packetSize)
        w.writeUInt32(time)
        // Zeros here make FFmpeg/librtmp/OBS clients skip digest validation.
        w.writeUInt32(0)
        var random = Array(randomBytes.prefix(Self.packetSize - 8))
        random += [UInt8](repeating: 0, count: Self.packetSize - 8 - random.count)
        w.write(random)
        s1 = w.bytes
    }

    /// Creates a handshake with S1 random bytes from `generator`.
    public init<G: RandomNumberGenerator>(time: UInt32 = 0, using generator: inout G) {
        let random = (0..<(Self.packetSize - 8)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        self.init(time: time, randomBytes: random)
    }

    /// Creates a handshake with system-random S1 bytes.
    public init() {
        var g = SystemRandomNumberGenerator()
        self.init(using: &g)
    }

    /// Feeds client bytes in any split.
    public mutating func receive(_ bytes: some Collection<UInt8>) throws(RTMPWireError) -> Output {
        if state == .complete { throw .handshakeAlreadyComplete }
        buffer.append(contentsOf: bytes)
        var reply: [UInt8] = []
        if state == .awaitingC0C1 {
            guard let c0 = buffer.first else { return Output(reply: [], isComplete: false, leftover: []) }
            if c0 == 6 { throw .encryptedHandshakeUnsupported }
            guard c0 == Self.version else { throw .unsupportedHandshakeVersion(c0) }
            guard buffer.count >= 1 + Self.packetSize else { return Output(reply: [], isComplete: false, leftover: []) }
            let c1 = buffer[1...Self.packetSize]
            reply = [Self.version] + s1 + c1
            buffer.removeFirst(1 + Self.packetSize)
            state = .awaitingC2
        }
        guard buffer.count >= Self.packetSize else { return Output(reply: reply, isComplete: false, leftover: []) }
        // C2 echoes S1; clients are not strict about it, so neither are we.
        let leftover = Array(buffer[Self.packetSize...])
        buffer = []
        state = .complete
        return Output(reply: reply, isComplete: true, leftover: leftover)
    }
}
