/// RFC 6347 §4.1: DTLS records (13-byte header, 16-bit length at offset 11) and how we pack them into datagrams.
enum DTLSRecords {
    /// Record header length.
    static let headerLength = 13

    /// Splits a run of whole records and packs consecutive ones into datagrams up to `mtu` (§4.1.1 allows several
    /// records per datagram). An unparseable tail goes out as its own datagram rather than being lost.
    static func pack(_ bytes: [UInt8], mtu: Int) -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        var current: [UInt8] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= headerLength else { break }
            let length = Int(bytes[offset + 11]) << 8 | Int(bytes[offset + 12])
            let end = offset + headerLength + length
            guard end <= bytes.count else { break }
            if !current.isEmpty, current.count + (end - offset) > mtu {
                datagrams.append(current)
                current = []
            }
            current.append(contentsOf: bytes[offset..<end])
            offset = end
        }
        if !current.isEmpty { datagrams.append(current) }
        if offset < bytes.count { datagrams.append(Array(bytes[offset...])) }
        return datagrams
    }
}
