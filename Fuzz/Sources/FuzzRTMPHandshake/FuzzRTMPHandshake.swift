import FuzzSupport
import RTMPWire

/// Server handshake: any client bytes, in arbitrary splits, either fail or complete with the same leftover.
///
/// The first input byte seeds the split lengths; the rest is what the client sends.
@main enum FuzzRTMPHandshakeEntry {
    static func main() { FuzzDriver.run(fuzzRTMPHandshake) }
}

/// One libFuzzer input.
func fuzzRTMPHandshake(_ input: [UInt8]) {
    guard !input.isEmpty else { return }
    let seed = input[0]
    let client = Array(input.dropFirst())
    let whole = run([client[...]])
    let split = run(seededPieces(client, seed: seed, pieceBits: 11))  // 1...2048 bytes.
    precondition(whole == split, "split changed the handshake outcome")
}

/// Reply bytes, completion, leftover and error of one handshake fed `pieces`.
private func run(_ pieces: [ArraySlice<UInt8>]) -> Outcome {
    var handshake = RTMPHandshake(time: 7, randomBytes: [UInt8](repeating: 0x5A, count: 1528))
    var outcome = Outcome()
    for (i, piece) in pieces.enumerated() {
        do {
            let out = try handshake.receive(piece)
            outcome.reply += out.reply
            if out.isComplete {
                // What follows C2 is the chunk stream, whichever piece it arrived in.
                outcome.complete = true
                outcome.leftover = out.leftover + pieces[(i + 1)...].joined()
                return outcome
            }
        } catch {
            outcome.error = error
            return outcome
        }
    }
    return outcome
}

/// What a handshake produced.
private struct Outcome: Equatable {
    var reply: [UInt8] = []
    var complete = false
    var leftover: [UInt8] = []
    var error: RTMPWireError?
}
