import HTTPTypes
import NIOCore

/// RFC 9112 §4 and §5: an HTTP/1.1 response head (status line, field lines, empty line) encoded once to bytes, so a
/// shared answer's head is written to every HTTP/1.1 waiter as is; the `Date` value sits at a known offset, and its
/// IMF-fixdate form is always 29 bytes (RFC 9110 §5.6.7), so a later second is patched in place.
struct EncodedResponseHead: Sendable {
    let bytes: ByteBuffer
    /// Where the `Date` value starts in `bytes`, if the head has one.
    let dateOffset: Int?

    /// Encodes `head` as NIO's `HTTPResponseEncoder` does for a response with a `Content-Length`.
    init(_ head: HTTPResponse) {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(256)
        buffer.writeString("HTTP/1.1 \(head.status.code) \(head.status.reasonPhrase)\r\n")
        var dateOffset: Int?
        for field in head.headerFields {
            buffer.writeString(field.name.rawName)
            buffer.writeString(": ")
            if field.name == .date { dateOffset = buffer.writerIndex }
            buffer.writeString(field.value)
            buffer.writeString("\r\n")
        }
        buffer.writeString("\r\n")
        self.bytes = buffer
        self.dateOffset = dateOffset
    }

    /// The same head with `date` as its `Date` value (a copy; this one is shared), or nil if it cannot be patched.
    func dated(_ date: String) -> ByteBuffer? {
        guard let dateOffset, date.utf8.count == 29 else { return nil }
        var copy = bytes
        copy.setString(date, at: dateOffset)
        return copy
    }
}
