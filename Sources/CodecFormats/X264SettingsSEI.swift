/// ITU-T H.264 D.2.7: the `user_data_unregistered` SEI in which x264 (OBS, FFmpeg's libx264) writes its settings.
///
/// Its text reads `x264 - core 164 … - options: cabac=1 … keyint=250 keyint_min=25 scenecut=40 …`; the first IDR
/// of a session carries it, so the keyframe interval is known before the first GOP has passed.
public enum X264SettingsSEI {
    /// The longest keyframe interval x264 was told to use, in frames (`keyint=infinite` reads as `Int.max`).
    public static func keyframeInterval(inAVCC accessUnit: some Collection<UInt8>) -> Int? {
        guard let text = settingsText(inAVCC: Array(accessUnit)) else { return nil }
        for field in text.split(separator: " ") where field.hasPrefix("keyint=") {
            let value = field.dropFirst("keyint=".count)
            return value == "infinite" ? Int.max : Int(value)
        }
        return nil
    }

    /// How many consecutive B-frames x264 was told it may use (`bframes=0`: pictures never reorder).
    public static func bFrames(inAVCC accessUnit: some Collection<UInt8>) -> Int? {
        guard let text = settingsText(inAVCC: Array(accessUnit)) else { return nil }
        for field in text.split(separator: " ") where field.hasPrefix("bframes=") {
            return Int(field.dropFirst("bframes=".count))
        }
        return nil
    }

    /// The settings text of the first x264 UDU SEI in an access unit with 4-byte AVCC lengths.
    static func settingsText(inAVCC bytes: [UInt8]) -> String? {
        // The settings SEI precedes the first slice; nothing after a VCL NAL unit can carry it.
        H264.firstInSEI(avcc: bytes, pastSlices: false) { settingsText(inNALUnit: $0) }
    }

    /// The text of an x264 UDU message in one SEI NAL unit (header included, escaped).
    static func settingsText(inNALUnit nal: ArraySlice<UInt8>) -> String? {
        let rbsp = CaptureTimeSEI.unescape(nal.dropFirst())
        var i = 0
        while i < rbsp.count, !(i == rbsp.count - 1 && rbsp[i] == 0x80) {
            guard let type = CaptureTimeSEI.readCodedValue(rbsp, at: &i),
                let size = CaptureTimeSEI.readCodedValue(rbsp, at: &i), size <= rbsp.count - i
            else { return nil }
            // 16-byte UUID, then NUL-terminated text.
            if type == Int(CaptureTimeSEI.payloadType), size > 16 {
                let text = rbsp[(i + 16)..<(i + size)].prefix { $0 != 0 }
                if text.starts(with: Array("x264 - core".utf8)) { return String(decoding: text, as: UTF8.self) }
            }
            i += size
        }
        return nil
    }
}
