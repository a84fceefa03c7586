import FuzzSupport
import MPEGTS
import MediaCore

/// MPEG-TS demux and TS → frames: any bytes demux or throw; any split of the input gives the same units.
@main enum FuzzMPEGTSEntry {
    static func main() { FuzzDriver.run(fuzzMPEGTS) }
}

/// One libFuzzer input: the first byte picks the split size, the rest is the stream.
func fuzzMPEGTS(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let ts = Array(bytes.dropFirst())
    var whole = MPEGTSDemuxer()
    let all = try? whole.feed(ts)
    var split = MPEGTSDemuxer()
    var pieces: [TSAccessUnit] = []
    var failed = false
    let step = Int(first) + 1
    var offset = 0
    while offset < ts.count, !failed {
        let end = min(ts.count, offset + step)
        do { pieces += try split.feed(ts[offset..<end]) } catch { failed = true }
        offset = end
    }
    if let all, !failed {
        precondition(all == pieces, "a different split gave different access units")
        precondition(whole.flush() == split.flush(), "a different split left a different PES in progress")
    }
    var adapter = TSToStream()
    if let outputs = try? adapter.feed(ts, stamps: HopStamps()) {
        for case .frame(let f) in outputs {
            precondition(f.dts.value >= 0, "negative decode time")
            precondition(f.compositionOffset.value >= 0, "negative composition offset")
        }
    }
}
