import FMP4
import FuzzSupport

/// ISO BMFF box parser: any bytes parse or throw, and every parsed box lies within its parent.
@main enum FuzzMP4BoxEntry {
    static func main() { FuzzDriver.run(fuzzMP4Box) }
}

/// One libFuzzer input.
func fuzzMP4Box(_ bytes: [UInt8]) {
    guard let boxes = try? MP4Box.parse(bytes) else { return }
    check(boxes, within: bytes.startIndex..<bytes.endIndex)
    _ = MP4Box.find("moov/trak/mdia/minf/stbl/stsd", in: boxes)
}

/// Payload ranges nest: a child's payload is inside its parent's.
private func check(_ boxes: [MP4Box], within range: Range<Int>) {
    for box in boxes {
        precondition(
            box.payload.startIndex >= range.lowerBound && box.payload.endIndex <= range.upperBound,
            "box \(box.type) outside its parent")
        check(box.children, within: box.payload.startIndex..<box.payload.endIndex)
    }
}
