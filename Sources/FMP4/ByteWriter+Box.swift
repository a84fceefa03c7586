import MediaCore

/// ISO/IEC 14496-12 §4.2: box and full-box framing with the size patched after the body is written.
extension ByteWriter {
    /// Writes `type` with a 32-bit size around whatever `body` writes.
    mutating func box(_ type: String, _ body: (inout ByteWriter) -> Void) {
        let start = count
        writeUInt32(0)
        write(Array(type.utf8.prefix(4)))
        body(&self)
        patchUInt(UInt64(count - start), width: 4, at: start)
    }

    /// A FullBox: version and 24-bit flags before the body.
    mutating func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ body: (inout ByteWriter) -> Void) {
        box(type) { w in
            w.writeUInt8(version)
            w.writeUInt24(flags)
            body(&w)
        }
    }

    /// Appends `count` zero bytes (reserved and pre_defined fields).
    mutating func writeZeros(_ count: Int) { write(repeatElement(UInt8(0), count: count)) }

    /// The unity transformation matrix of mvhd and tkhd (§8.2.2.3).
    mutating func writeUnityMatrix() {
        for value: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { writeUInt32(value) }
    }
}
