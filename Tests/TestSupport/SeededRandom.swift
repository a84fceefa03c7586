/// SplitMix64: a deterministic generator so property tests replay the same inputs on every run.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }

    /// `bytes` with a few random bytes flipped, dropped or appended.
    public mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        for _ in 0..<Int.random(in: 1...4, using: &self) {
            switch Int.random(in: 0..<3, using: &self) {
            case 0 where !out.isEmpty:
                out[Int.random(in: 0..<out.count, using: &self)] ^= UInt8.random(in: 1...255, using: &self)
            case 1 where !out.isEmpty: out.removeLast(Int.random(in: 1...out.count, using: &self))
            default: out += self.bytes(Int.random(in: 1...8, using: &self))
            }
        }
        return out
    }
}
