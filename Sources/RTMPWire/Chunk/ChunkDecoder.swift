/// RTMP 1.0 §5.3: reassembles messages from chunks (all four header formats), fed in any split.
///
/// Set Chunk Size (§5.4.1) and Abort (§5.4.2) messages are applied here, between messages,
/// and still returned so the session can see them.
public struct ChunkDecoder: Sendable {
    /// Bounds that keep a hostile peer from exhausting memory.
    public struct Limits: Sendable, Equatable {
        /// Largest message length a header may declare.
        public var maxMessageSize: Int
        /// Largest chunk size a peer may set.
        public var maxChunkSize: Int
        /// Most chunk streams tracked at once.
        public var maxChunkStreams: Int

        /// Creates limits; the defaults suit a live ingest (8 MiB messages).
        public init(maxMessageSize: Int = 8 << 20, maxChunkSize: Int = 16 << 20, maxChunkStreams: Int = 64) {
            self.maxMessageSize = maxMessageSize
            self.maxChunkSize = maxChunkSize
            self.maxChunkStreams = maxChunkStreams
        }
    }

    /// Per chunk stream memory of the last header (§5.3.1.2) and the message being assembled.
    struct StreamState: Sendable {
        /// Payload bytes of the message in progress received so far.
        var received = 0
        var timestamp: UInt32 = 0
        /// The last timestamp field: absolute after fmt 0, a delta after fmt 1/2 (reused by fmt 3).
        var timestampField: UInt32 = 0
        var hasExtendedTimestamp = false
        var length = 0
        var typeID: UInt8 = 0
        var messageStreamID: UInt32 = 0
        var inProgress = false
        var startOffset: Int64 = 0
    }

    /// The limits in force.
    public let limits: Limits
    /// The peer's current chunk size (128 until it sends Set Chunk Size).
    public private(set) var chunkSize = 128
    /// Stream offset of the first byte of the last returned message's first chunk.
    public private(set) var lastMessageStartOffset: Int64 = 0
    private var buffer: [UInt8] = []
    private var head = 0
    private var baseOffset: Int64 = 0
    private var streams: [UInt32: StreamState] = [:]
    /// Payloads kept apart from headers so appending never copies a shared buffer.
    private var payloads: [UInt32: [UInt8]] = [:]

    /// Creates a decoder.
    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Bytes fed but not yet consumed by a complete chunk.
    public var bufferedByteCount: Int { buffer.count - head }

    /// Appends received bytes.
    public mutating func feed(_ bytes: some Collection<UInt8>) { buffer.append(contentsOf: bytes) }

    /// Changes the incoming chunk size (§5.4.1); valid sizes are 1…limits.maxChunkSize.
    public mutating func setChunkSize(_ size: Int) throws(RTMPWireError) {
        guard size >= 1, size <= limits.maxChunkSize else {
            throw .chunkSizeOutOfRange(size: size, limit: limits.maxChunkSize)
        }
        chunkSize = size
    }

    /// Returns the next complete message, or nil when more bytes are needed.
    public mutating func nextMessage() throws(RTMPWireError) -> RTMPRawMessage? {
        while let (csid, state, range) = try readChunk() {
            head = range.upperBound
            if state.received < state.length {
                streams[csid] = state
                payloads[csid, default: []].append(contentsOf: buffer[range])
                continue
            }
            var payload = payloads.removeValue(forKey: csid) ?? []
            payload.append(contentsOf: buffer[range])
            var done = state
            let message = RTMPRawMessage(
                chunkStreamID: csid,
                timestamp: done.timestamp,
                typeID: done.typeID,
                messageStreamID: done.messageStreamID,
                payload: payload
            )
            lastMessageStartOffset = done.startOffset
            done.received = 0
            done.inProgress = false
            streams[csid] = done
            compact()
            try apply(message)
            return message
        }
        compact()
        return nil
    }

    /// Parses one chunk at `head` without committing; nil when it is not all here yet.
    private func readChunk() throws(RTMPWireError) -> (UInt32, StreamState, Range<Int>)? {
        guard let basic = ChunkBasicHeader.read(buffer, at: head) else { return nil }
        let csid = basic.chunkStreamID
        let format = basic.format
        var s: StreamState
        if let known = streams[csid] {
            s = known
        } else {
            guard format == 0 else { throw .missingPreviousHeader(chunkStreamID: csid, format: format) }
            guard streams.count < limits.maxChunkStreams else {
                throw .tooManyChunkStreams(limit: limits.maxChunkStreams)
            }
            s = StreamState()
        }
        var i = head + basic.length
        let headerSize = [11, 7, 3, 0][Int(format)]
        guard buffer.count >= i + headerSize else { return nil }
        let newMessage = !s.inProgress
        if format < 3 && !newMessage { throw .headerChangedMidMessage(chunkStreamID: csid) }
        var field = s.timestampField
        if format < 3 {
            field = u24(at: i)
            s.hasExtendedTimestamp = field == 0xFF_FFFF
        }
        if format < 2 {
            s.length = Int(u24(at: i + 3))
            s.typeID = buffer[i + 6]
        }
        if format == 0 {
            // §5.3.1.2.1: the message stream ID is little-endian.
            s.messageStreamID =
                UInt32(buffer[i + 7]) | UInt32(buffer[i + 8]) << 8 | UInt32(buffer[i + 9]) << 16
                | UInt32(buffer[i + 10]) << 24
        }
        i += headerSize
        if s.hasExtendedTimestamp {
            // §5.3.1.3: type 3 chunks repeat the extended timestamp of the header they continue.
            guard buffer.count >= i + 4 else { return nil }
            let ext = UInt32(u24(at: i)) << 8 | UInt32(buffer[i + 3])
            if format < 3 || newMessage { field = ext }
            i += 4
        }
        if newMessage {
            guard s.length <= limits.maxMessageSize else {
                throw .messageTooLarge(size: s.length, limit: limits.maxMessageSize)
            }
            s.timestamp = format == 0 ? field : s.timestamp &+ field
            s.timestampField = field
            s.inProgress = true
            s.startOffset = baseOffset + Int64(head)
        }
        let n = min(s.length - s.received, chunkSize)
        guard buffer.count >= i + n else { return nil }
        s.received += n
        return (csid, s, i..<i + n)
    }

    /// Applies protocol control that changes how following chunks are read.
    private mutating func apply(_ message: RTMPRawMessage) throws(RTMPWireError) {
        switch message.typeID {
        case 1:
            guard message.payload.count >= 4 else {
                throw .truncated(what: "SetChunkSize", size: message.payload.count)
            }
            try setChunkSize(Int(be32(message.payload) & 0x7FFF_FFFF))
        case 2:
            guard message.payload.count >= 4 else { throw .truncated(what: "Abort", size: message.payload.count) }
            let target = be32(message.payload)
            payloads[target] = nil
            streams[target]?.received = 0
            streams[target]?.inProgress = false
        default: break
        }
    }

    private mutating func compact() {
        if head == buffer.count {
            baseOffset += Int64(head)
            buffer.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 65_536 {
            baseOffset += Int64(head)
            buffer.removeFirst(head)
            head = 0
        }
    }

    private func u24(at i: Int) -> UInt32 {
        UInt32(buffer[i]) << 16 | UInt32(buffer[i + 1]) << 8 | UInt32(buffer[i + 2])
    }
}

/// Big-endian UInt32 from the first four bytes.
func be32(_ b: [UInt8]) -> UInt32 { UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3]) }
