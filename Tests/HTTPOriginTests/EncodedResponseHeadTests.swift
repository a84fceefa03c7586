import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

@testable import HTTPOrigin

/// `EncodedResponseHead` and `PreEncodedResponseWriter`: the bytes are those NIO's own HTTP/1.1 encoder writes for
/// the same response, the `Date` patch keeps them so, and an HTTP/1.1 pipeline carries them with keep-alive intact.
@Suite("Pre-encoded HTTP/1.1 heads")
struct EncodedResponseHeadTests {
    /// What NIO writes for `head` through Hummingbird's HTTP/1.1 pipeline (HTTPTypes codec, then NIO's encoder).
    static func nioBytes(_ head: HTTPResponse) throws -> String {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(HTTPResponseEncoder())
        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
        try channel.writeOutbound(HTTPResponsePart.head(head))
        var out = ""
        while let b = try channel.readOutbound(as: ByteBuffer.self) { out += String(buffer: b) }
        _ = try channel.finish()
        return out
    }

    static func response(_ status: HTTPResponse.Status, _ fields: [(String, String)]) -> HTTPResponse {
        var f = HTTPFields()
        for (name, value) in fields { f.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return HTTPResponse(status: status, headerFields: f)
    }

    static let golden: [HTTPResponse] = [
        response(
            .ok,
            [
                ("Content-Type", "video/mp4"), ("Cache-Control", "public, max-age=12, immutable"),
                ("Access-Control-Allow-Origin", "*"), ("Access-Control-Expose-Headers", "Age, X-Sluice-Published"),
                ("Content-Length", "59041"), ("X-Sluice-Published", "1795690022.207823"),
                ("Date", "Thu, 26 Nov 2026 16:48:13 GMT"), ("Server", "Sluice"),
            ]
        ),
        response(.notFound, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "0")]),
        response(
            .serviceUnavailable,
            [("Retry-After", "1"), ("Content-Length", "5"), ("Date", "Mon, 01 Jan 2024 00:00:00 GMT")]
        ),
        response(HTTPResponse.Status(code: 599), [("Content-Length", "0")]),
    ]

    @Test(arguments: golden) func encodesAsNIODoes(_ head: HTTPResponse) throws {
        #expect(String(buffer: EncodedResponseHead(head).bytes) == (try Self.nioBytes(head)))
    }

    @Test func aLaterDateIsPatchedInPlace() throws {
        var head = Self.golden[0]
        let encoded = EncodedResponseHead(head)
        let later = "Fri, 27 Nov 2026 00:00:01 GMT"
        head.headerFields[.date] = later
        #expect(encoded.dated(later).map { String(buffer: $0) } == (try Self.nioBytes(head)))
        // The shared bytes stay as they were; a date of another length cannot be patched.
        #expect(String(buffer: encoded.bytes).contains("16:48:13 GMT"))
        #expect(encoded.dated("now") == nil && EncodedResponseHead(Self.golden[1]).dated(later) == nil)
    }

    @Test func theWriterReplacesOnlyAPreparedEnd() throws {
        let channel = EmbeddedChannel()
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(HTTPResponseEncoder())
        try sync.addHandler(HTTP1ToHTTPServerCodec(secure: false))
        let writer = PreEncodedResponseWriter(encoder: try sync.context(handlerType: HTTPResponseEncoder.self))
        try sync.addHandler(writer)
        func read() throws -> String {
            var out = ""
            while let b = try channel.readOutbound(as: ByteBuffer.self) { out += String(buffer: b) }
            return out
        }
        // A router response (chunked: no length) leaves NIO's encoder in chunked mode ...
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.body(ByteBuffer(string: "ab")))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        #expect(try read().hasSuffix("2\r\nab\r\n0\r\n\r\n"))
        // ... and the prepared answer after it is its bytes alone, no chunk terminator.
        let head = Self.golden[1]
        writer.prepare(head: EncodedResponseHead(head).bytes, body: ByteBuffer(string: "hello"))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        #expect(try read() == (try Self.nioBytes(head)) + "hello")
        // An unprepared end passes through to NIO's encoder again.
        try channel.writeOutbound(HTTPResponsePart.head(Self.response(.ok, [("Content-Length", "0")])))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        #expect(try read() == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        _ = try channel.finish()
    }
}
