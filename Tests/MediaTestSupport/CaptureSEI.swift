import CodecFormats

/// ITU-T H.264 D.1.7: a `user_data_unregistered` SEI carrying a capture time (the latency bench's format).
public enum CaptureSEI {
    /// The fixed UUID the test publisher writes.
    public static let uuid: [UInt8] = [
        0x51, 0x75, 0x1C, 0xE0, 0x5E, 0x1A, 0x4B, 0x0C, 0x9A, 0x77, 0x3D, 0x15, 0xC0, 0x00, 0x00, 0x01,
    ]

    /// The SEI payload: UUID + 8-byte big-endian capture milliseconds.
    public static func payload(captureMS: Int64) -> [UInt8] {
        uuid + (0..<8).reversed().map { UInt8(truncatingIfNeeded: captureMS >> (8 * $0)) }
    }

    /// A whole SEI NAL unit (header, payloadType 5, size, payload, trailing bits) with emulation prevention.
    public static func nal(captureMS: Int64) -> [UInt8] {
        let body = payload(captureMS: captureMS)
        let rbsp: [UInt8] = [5, UInt8(body.count)] + body + [0x80]
        var out: [UInt8] = [0x06]
        var zeros = 0
        for b in rbsp {
            if zeros >= 2 && b <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(b)
            zeros = b == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// The access unit with the SEI NAL inserted after any leading AUD (4-byte AVCC lengths).
    public static func inject(captureMS: Int64, into avcc: [UInt8]) throws -> [UInt8] {
        let units = try H264.nalUnits(avcc: avcc)
        var out: [UInt8] = []
        var inserted = false
        func append(_ nal: [UInt8]) {
            let n = nal.count
            out += [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + nal
        }
        for unit in units {
            if !inserted && H264.nalType(unit) != H264NALUnitType.aud.rawValue {
                append(nal(captureMS: captureMS))
                inserted = true
            }
            append(Array(unit))
        }
        return out
    }

    /// Capture times from every UDU SEI with our UUID in an AVCC access unit.
    public static func captures(in avcc: [UInt8]) throws -> [Int64] {
        var found: [Int64] = []
        for unit in try H264.nalUnits(avcc: avcc) where H264.nalType(unit) == H264NALUnitType.sei.rawValue {
            let rbsp = unescape(Array(unit.dropFirst()))
            var i = 0
            while i < rbsp.count, rbsp[i] != 0x80 || i + 1 < rbsp.count {
                var type = 0
                while i < rbsp.count, rbsp[i] == 0xFF {
                    type += 255
                    i += 1
                }
                guard i < rbsp.count else { break }
                type += Int(rbsp[i])
                i += 1
                var size = 0
                while i < rbsp.count, rbsp[i] == 0xFF {
                    size += 255
                    i += 1
                }
                guard i < rbsp.count else { break }
                size += Int(rbsp[i])
                i += 1
                guard i + size <= rbsp.count else { break }
                let body = Array(rbsp[i..<i + size])
                if type == 5, body.count == 24, body.starts(with: uuid) {
                    found.append(body[16...].reduce(Int64(0)) { $0 << 8 | Int64($1) })
                }
                i += size
            }
        }
        return found
    }

    /// Removes emulation prevention bytes (00 00 03 → 00 00).
    public static func unescape(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var zeros = 0
        for b in bytes {
            if zeros >= 2 && b == 3 {
                zeros = 0
                continue
            }
            out.append(b)
            zeros = b == 0 ? zeros + 1 : 0
        }
        return out
    }
}
