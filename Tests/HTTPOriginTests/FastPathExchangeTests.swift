import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Testing

@testable import HTTPOrigin

/// The per-connection exchange of the fast path: who answers, what waits, and responses kept in request order.
@Suite("Fast path exchange")
struct FastPathExchangeTests {
    static let head = HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/x"))
    static let body = HTTPRequestPart.body(ByteBuffer(string: "b"))
    static let end = HTTPRequestPart.end(nil)

    @Test func aRequestWithNothingInProgressIsDecided() {
        var x = FastPathExchange()
        #expect(x.read(Self.head) == .decide)
        #expect(x.responder == nil)
    }

    @Test func theFastPathDropsTheRestOfItsRequestAndTheRouterGetsAllOfItsOwn() {
        var fast = FastPathExchange()
        _ = fast.read(Self.head)
        fast.begin(.fastPath)
        #expect(fast.read(Self.body) == .drop && fast.read(Self.end) == .drop)
        var routed = FastPathExchange()
        _ = routed.read(Self.head)
        routed.begin(.router)
        #expect(routed.read(Self.body) == .forward && routed.read(Self.end) == .forward)
    }

    @Test func aPipelinedRequestIsHeldUntilBothRequestAndResponseAreOver() {
        var x = FastPathExchange()
        _ = x.read(Self.head)
        x.begin(.router)
        // The next request arrives before the first's response: held, with its parts, in order.
        #expect(x.read(Self.end) == .forward)
        #expect(x.read(Self.head) == .hold && x.read(Self.end) == .hold)
        #expect(x.settle() == nil)
        x.endResponse()
        #expect(x.settle() == [Self.head, Self.end])
        #expect(x.responder == nil && x.held.isEmpty)
        #expect(x.read(Self.head) == .decide)
    }

    @Test func aResponseBeforeTheRequestEndsWaitsForItsEnd() {
        var x = FastPathExchange()
        _ = x.read(Self.head)
        x.begin(.fastPath)
        x.endResponse()
        #expect(x.settle() == nil)
        #expect(x.read(Self.end) == .drop)
        #expect(x.settle() == [])
    }

    @Test func oncePartsAreHeldEverythingAfterThemIsHeldToo() {
        var x = FastPathExchange()
        _ = x.read(Self.head)
        x.begin(.router)
        #expect(x.read(Self.head) == .hold)
        // The first request's end arrives late (not possible on one HTTP/1.1 stream, but order is kept anyway).
        #expect(x.read(Self.body) == .hold)
        #expect(x.held.count == 2)
    }
}
