import CFuzzDriver
import Glibc
import FMP4

/// ISO BMFF box parser: any bytes parse or throw, and every parsed box lies within its parent.
@main enum FuzzMP4BoxEntry {
    static func main() { exit(sluice_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv, fuzzMP4Box)) }
}

/// One libFuzzer input.
func fuzzMP4Box(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let bytes = input
    guard let boxes = try? MP4Box.parse(bytes) else { return 0 }
    check(boxes, within: bytes.startIndex..<bytes.endIndex)
    _ = MP4Box.find("moov/trak/mdia/minf/stbl/stsd", in: boxes)
    return 0
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
