/// `bytes` cut into consecutive pieces of 1...2^`pieceBits` bytes, lengths drawn from an LCG seeded by `seed`:
/// a parser fed the pieces one by one must agree with the same parser fed the whole.
public func seededPieces(_ bytes: [UInt8], seed: UInt8, pieceBits: Int) -> [ArraySlice<UInt8>] {
    var pieces: [ArraySlice<UInt8>] = []
    var offset = 0
    var step = UInt64(seed) | 1
    while offset < bytes.count {
        step = step &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let n = min(bytes.count - offset, Int(step >> UInt64(64 - pieceBits)) + 1)
        pieces.append(bytes[offset..<offset + n])
        offset += n
    }
    return pieces
}
