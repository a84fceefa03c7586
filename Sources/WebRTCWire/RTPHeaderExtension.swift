/// RFC 8285 §4: the RTP header extension block, one-byte (0xBEDE) or two-byte (0x100x) element forms.
public struct RTPHeaderExtension: Equatable, Sendable {
    /// One ID/value pair (ID 1…14 one-byte, 1…255 two-byte), as negotiated by `a=extmap`.
    public struct Element: Equatable, Sendable {
        /// The extmap ID.
        public var id: UInt8
        /// The value (1…16 bytes one-byte form, 0…255 two-byte form).
        public var value: [UInt8]

        /// An element.
        public init(id: UInt8, value: [UInt8]) {
            self.id = id
            self.value = value
        }
    }

    /// §4.2 one-byte form marker.
    public static let oneByteProfile: UInt16 = 0xBEDE
    /// The 16-bit "defined by profile" field.
    public var profile: UInt16
    /// The block after the 4-byte extension header, a multiple of 4 bytes.
    public var data: [UInt8]

    /// A raw block (profile as found; `data` should be a multiple of 4 bytes).
    public init(profile: UInt16, data: [UInt8]) {
        self.profile = profile
        self.data = data
    }

    /// §4.2: the one-byte form (IDs 1…14, values 1…16 bytes); nil when an element does not fit it.
    public static func oneByte(_ elements: [Element]) -> RTPHeaderExtension? {
        var data: [UInt8] = []
        for e in elements {
            guard (1...14).contains(e.id), (1...16).contains(e.value.count) else { return nil }
            data.append(e.id << 4 | UInt8(e.value.count - 1))
            data += e.value
        }
        return RTPHeaderExtension(
            profile: oneByteProfile,
            data: data + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4)
        )
    }

    /// §4.3: the two-byte form (IDs 1…255, values 0…255 bytes); nil when an element does not fit it.
    public static func twoByte(_ elements: [Element], appBits: UInt8 = 0) -> RTPHeaderExtension? {
        var data: [UInt8] = []
        for e in elements {
            guard e.id >= 1, e.value.count <= 255 else { return nil }
            data += [e.id, UInt8(e.value.count)] + e.value
        }
        let profile = 0x1000 | UInt16(appBits & 0x0F)
        return RTPHeaderExtension(profile: profile, data: data + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4))
    }

    /// The elements of a one- or two-byte block; other profiles (RFC 3550 §5.3.1 generic) yield none.
    public func elements() throws(WebRTCWireError) -> [Element] {
        var result: [Element] = []
        var i = 0
        if profile == Self.oneByteProfile {
            while i < data.count {
                let id = data[i] >> 4
                let length = Int(data[i] & 0x0F) + 1
                if id == 0 {
                    i += 1  // Padding byte.
                    continue
                }
                if id == 15 { break }  // §4.2: stop parsing.
                guard i + 1 + length <= data.count else {
                    throw .rtpBadField(field: "one-byte extension \(id) length", value: length)
                }
                result.append(Element(id: id, value: Array(data[(i + 1)..<(i + 1 + length)])))
                i += 1 + length
            }
        } else if profile & 0xFFF0 == 0x1000 {
            while i < data.count {
                let id = data[i]
                if id == 0 {
                    i += 1
                    continue
                }
                guard i + 2 <= data.count, i + 2 + Int(data[i + 1]) <= data.count else {
                    throw .rtpBadField(
                        field: "two-byte extension \(id) length",
                        value: i + 1 < data.count ? Int(data[i + 1]) : -1
                    )
                }
                let length = Int(data[i + 1])
                result.append(Element(id: id, value: Array(data[(i + 2)..<(i + 2 + length)])))
                i += 2 + length
            }
        }
        return result
    }
}
