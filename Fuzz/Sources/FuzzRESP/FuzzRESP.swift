import FuzzSupport
import RedisWire

/// RESP2 replies (the Redis client's parser): any bytes, in any pieces, give replies or an error with its offset,
/// and every reply re-encodes to bytes that parse back to it.
@main enum FuzzRESPEntry {
    static func main() { FuzzDriver.run(fuzzRESP) }
}

/// One libFuzzer input: its first byte chooses the piece size, the rest is the stream.
func fuzzRESP(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let stream = Array(bytes.dropFirst())
    let piece = Int(first % 16) + 1
    var parser = RESPParser()
    var start = 0
    do {
        while start < stream.count {
            parser.append(stream[start..<min(stream.count, start + piece)])
            start += piece
            while let value = try parser.next() {
                // A parsed simple string holds neither CR nor LF, so every parsed value encodes.
                guard let encoded = try? value.encoded() else { preconditionFailure("parsed reply does not encode") }
                var again = RESPParser()
                again.append(encoded)
                let reparsed = try again.next()
                precondition(reparsed == value, "re-encoded reply parses differently")
            }
        }
    } catch {
        precondition(!error.description.isEmpty, "refusal without a reason")
    }
}
