/// RESP2 replies read incrementally (https://redis.io/docs/latest/develop/reference/protocol-spec/): bytes arrive
/// in any pieces, `next()` answers each complete reply once, in order, and nil while one is still partial.
///
/// Arrays are assembled on an explicit stack, never by recursion, so hostile nesting cannot exhaust the call
/// stack, and each element is read once however the bytes were split. After an error the stream is unusable
/// (replies can no longer be matched to commands): every later call throws the same error.
public struct RESPParser: Sendable {
    /// Bounds on what one reply may claim, so garbage fails fast instead of waiting for or allocating gigabytes.
    public struct Limits: Sendable {
        /// Longest bulk string (Redis's own `proto-max-bulk-len` default is 512 MB).
        public var maxBulkLength = 512 * 1024 * 1024
        /// Most elements in one array.
        public var maxArrayCount = 1 << 20
        /// Deepest array nesting.
        public var maxDepth = 32
        /// Longest header line (type byte, text or number, CRLF).
        public var maxLineLength = 64 * 1024

        public init() {}
    }

    /// An array still waiting for elements.
    private struct PendingArray: Sendable {
        var count: Int
        var elements: [RESPValue]
    }

    /// What one header line (and, for a bulk string, its data) gave.
    private enum Element {
        case value(RESPValue)
        case openArray(count: Int)
    }

    /// The limits in force.
    public let limits: Limits
    private var buffer: [UInt8] = []
    /// The first byte of `buffer` not yet part of a read element.
    private var index = 0
    /// Bytes dropped from the front of `buffer` so far (offsets in errors count from the stream's first byte).
    private var dropped = 0
    private var stack: [PendingArray] = []
    private var failure: RedisWireError?

    /// An empty parser.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes received but not yet part of a complete reply.
    public var bufferedByteCount: Int { buffer.count - index }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete reply, or nil until more bytes arrive.
    public mutating func next() throws(RedisWireError) -> RESPValue? {
        if let failure { throw failure }
        do {
            let value = try readReply()
            compact()
            return value
        } catch {
            failure = error
            throw error
        }
    }

    /// Reads elements until a top-level value completes or the bytes run out.
    private mutating func readReply() throws(RedisWireError) -> RESPValue? {
        while let element = try readElement() {
            var completed: RESPValue
            switch element {
            case .openArray(let count):
                guard stack.count < limits.maxDepth else {
                    throw .nestingTooDeep(limit: limits.maxDepth, offset: dropped + index)
                }
                stack.append(PendingArray(count: count, elements: []))
                continue
            case .value(let value):
                completed = value
            }
            // A completed element may complete its array, and that one its parent.
            while !stack.isEmpty {
                stack[stack.count - 1].elements.append(completed)
                guard stack[stack.count - 1].elements.count == stack[stack.count - 1].count else { break }
                completed = .array(stack.removeLast().elements)
            }
            if stack.isEmpty { return completed }
        }
        return nil
    }

    /// One header (and bulk data) from `index`, advancing past it; nil (and nothing consumed) if it is partial.
    private mutating func readElement() throws(RedisWireError) -> Element? {
        let start = index
        guard let lineEnd = try findCRLF(from: start + 1) else { return nil }
        let line = buffer[(start + 1)..<lineEnd]
        let offset = dropped + start
        switch buffer[start] {
        case UInt8(ascii: "+"):
            index = lineEnd + 2
            return .value(.simpleString(String(decoding: line, as: UTF8.self)))
        case UInt8(ascii: "-"):
            index = lineEnd + 2
            return .value(.error(String(decoding: line, as: UTF8.self)))
        case UInt8(ascii: ":"):
            let n = try Self.integer(line, offset: offset)
            index = lineEnd + 2
            return .value(.integer(n))
        case UInt8(ascii: "$"):
            let length = try Self.integer(line, offset: offset)
            if length == -1 {
                index = lineEnd + 2
                return .value(.bulkString(nil))
            }
            guard length >= 0 else { throw .invalidLength(length, offset: offset) }
            guard length <= limits.maxBulkLength else {
                throw .bulkTooLong(length: length, limit: limits.maxBulkLength, offset: offset)
            }
            let dataStart = lineEnd + 2
            let dataEnd = dataStart + Int(length)
            guard buffer.count >= dataEnd + 2 else { return nil }
            guard buffer[dataEnd] == 13, buffer[dataEnd + 1] == 10 else {
                throw .missingCRLF(offset: dropped + dataEnd)
            }
            index = dataEnd + 2
            return .value(.bulkString(Array(buffer[dataStart..<dataEnd])))
        case UInt8(ascii: "*"):
            let count = try Self.integer(line, offset: offset)
            guard count >= -1 else { throw .invalidLength(count, offset: offset) }
            guard count <= limits.maxArrayCount else {
                throw .arrayTooLong(count: count, limit: limits.maxArrayCount, offset: offset)
            }
            index = lineEnd + 2
            switch count {
            case -1: return .value(.array(nil))
            case 0: return .value(.array([]))
            default: return .openArray(count: Int(count))
            }
        case let byte:
            throw .unknownType(byte: byte, offset: offset)
        }
    }

    /// The position of the CR of the first CRLF at or after `from`; nil while the line is still arriving.
    private func findCRLF(from: Int) throws(RedisWireError) -> Int? {
        guard index < buffer.count else { return nil }
        var position = from
        while position < buffer.count {
            if buffer[position] == 13 {
                guard position + 1 < buffer.count else { return nil }
                guard buffer[position + 1] == 10 else { throw .missingCRLF(offset: dropped + position) }
                return position
            }
            // A line holds no bare LF either (RESP2: simple strings cannot contain CR or LF).
            if buffer[position] == 10 { throw .missingCRLF(offset: dropped + position) }
            position += 1
            guard position - index < limits.maxLineLength else {
                throw .lineTooLong(limit: limits.maxLineLength, offset: dropped + index)
            }
        }
        return nil
    }

    /// A strict decimal Int64: an optional `-`, then 1…19 digits, nothing else.
    private static func integer(_ line: ArraySlice<UInt8>, offset: Int) throws(RedisWireError) -> Int64 {
        let digits = line.first == UInt8(ascii: "-") ? line.dropFirst() : line
        guard !digits.isEmpty, digits.count <= 19, digits.allSatisfy({ (48...57).contains($0) }),
            let n = Int64(String(decoding: line, as: UTF8.self))
        else { throw .invalidInteger(line: String(decoding: line.prefix(32), as: UTF8.self), offset: offset) }
        return n
    }

    /// Drops consumed bytes once they are the larger part of the buffer (amortized O(1) per byte).
    private mutating func compact() {
        guard index > 0, index >= buffer.count / 2 else { return }
        buffer.removeFirst(index)
        dropped += index
        index = 0
    }
}
