import LLHLSPackager
import Testing

@testable import HTTPOrigin

/// The Cache-Control line each kind of answer gets (checklist "Recommended Cache-Control").
@Suite("Cache-Control")
struct CacheControlTests {
    static func response(maxAge: Int, immutable: Bool = false, sharedOnly: Bool = false) -> HLSResponse {
        var r = HLSResponse(status: 200, contentType: nil, maxAge: maxAge, body: [])
        r.immutable = immutable
        r.sharedCachesOnly = sharedOnly
        return r
    }

    static let table: [(HLSResponse, String)] = [
        (response(maxAge: 12, immutable: true), "public, max-age=12, immutable"),  // part, segment, init
        (response(maxAge: 6), "public, max-age=6"),  // blocking playlist, TD 1
        (response(maxAge: 1), "public, max-age=1"),  // non-blocking playlist, TD 2
        (response(maxAge: 1, sharedOnly: true), "public, max-age=0, s-maxage=1"),  // non-blocking, TD 1: edges only
        (response(maxAge: 0), "no-cache"),
        (response(maxAge: 0, sharedOnly: true), "no-cache"),
    ]

    @Test(arguments: 0..<table.count)
    func eachAnswerGetsItsLine(_ i: Int) {
        #expect(OriginResponse.cacheControl(Self.table[i].0) == Self.table[i].1)
    }
}
