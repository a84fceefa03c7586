/// RFC 3533 §6 Ogg pages and RFC 7845 §3 Opus mapping: just enough to read packets the ffmpeg CLI wrote.
public enum OggOpus {
    /// Every packet of the first logical stream, reassembled from page segments (OpusHead, OpusTags, audio...).
    public static func packets(_ bytes: [UInt8]) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var current: [UInt8] = []
        var i = 0
        while i + 27 <= bytes.count, bytes[i..<i + 4].elementsEqual("OggS".utf8) {
            let segments = Int(bytes[i + 26])
            guard i + 27 + segments <= bytes.count else { break }
            let table = bytes[(i + 27)..<(i + 27 + segments)]
            var offset = i + 27 + segments
            for lacing in table {
                let n = Int(lacing)
                guard offset + n <= bytes.count else { return packets }
                current += bytes[offset..<offset + n]
                offset += n
                // A lacing value below 255 ends the packet.
                if n < 255 {
                    packets.append(current)
                    current = []
                }
            }
            i = offset
        }
        return packets
    }
}
