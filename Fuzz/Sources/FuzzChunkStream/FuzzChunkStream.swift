import FuzzSupport
import RTMPWire

/// Chunk decoder: the same bytes fed whole and in arbitrary splits give the same messages and the same error.
///
/// The first input byte seeds the split lengths; the rest is the chunk stream.
@main enum FuzzChunkStreamEntry {
    static func main() { FuzzDriver.run(fuzzChunkStream) }
}

/// One libFuzzer input.
func fuzzChunkStream(_ input: [UInt8]) {
    guard !input.isEmpty else { return }
    let seed = input[0]
    let stream = Array(input.dropFirst())
    let whole = decode([stream[...]])
    let split = decode(seededPieces(stream, seed: seed, pieceBits: 5))  // 1...32 bytes.
    precondition(whole.messages == split.messages, "split changed the decoded messages")
    precondition(whole.error == split.error, "split changed the error: \(String(describing: whole.error)) vs \(String(describing: split.error))")
}

/// Small limits keep the fuzzer's memory flat; they are the same for both runs.
private func decode(_ pieces: [ArraySlice<UInt8>]) -> (messages: [RTMPRawMessage], error: RTMPWireError?) {
    var decoder = ChunkDecoder(limits: .init(maxMessageSize: 1 << 16, maxChunkSize: 1 << 16, maxChunkStreams: 8))
    var messages: [RTMPRawMessage] = []
    for piece in pieces {
        decoder.feed(piece)
        do {
            while let m = try decoder.nextMessage() { messages.append(m) }
        } catch {
            return (messages, error)
        }
    }
    return (messages, nil)
}
