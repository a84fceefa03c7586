import CodecFormats
import FuzzSupport
import MediaCore

/// The SEI readers of untrusted access units (capture clock, x264 settings), the keyframe cadence they feed and
/// the pixel clock's cells: any bytes read or yield nil, never trap; a cadence never cuts before a long GOP is known.
@main enum FuzzSEIEntry {
    static func main() { FuzzDriver.run(fuzzSEI) }
}

/// One libFuzzer input.
func fuzzSEI(_ bytes: [UInt8]) {
    _ = CaptureTimeSEI.captureTime(inAVCC: bytes)
    _ = CaptureTimeSEI.captureTime(inAnnexB: bytes)
    if let keyint = X264SettingsSEI.keyframeInterval(inAVCC: bytes) {
        precondition(keyint > 0, "keyint \(keyint) from the settings SEI")
    }
    // The input as one keyframe's bytes, then 300 frames at 30 fps with keyframes where the input's bits say.
    var cadence = KeyframeCadence(target: .seconds(2), frameRate: 30)
    var long = false
    for n in 0..<300 {
        let bit = bytes.isEmpty ? false : bytes[n % bytes.count] & (1 << UInt8(n % 8)) != 0
        let time = Int64(n) * 3_000
        if cadence.observe(time: time, isKeyframe: n == 0 || bit, data: n == 0 ? bytes : []) != nil { long = true }
        let cut = cadence.opensSegment(at: time)
        precondition(!cut || long, "grid cut at frame \(n) before a long GOP was known")
    }
    if bytes.count >= 64 {
        _ = PixelClockCode.time(from: bytes.prefix(64).map { $0 & 1 == 1 })
    }
}
