import HTTPOrigin
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import LLHLSPackager

/// `GET /metrics` through the router: request kinds, the deliver hop once per part, the Prometheus content type.
struct MetricsRouteTests {
    @Test func metricsCountRequestsByKindAndDeliverOncePerPart() async throws {
        try await OriginRoutesTests.withOrigin { fixture, client in
            let epoch = try await fixture.epoch()
            let stream = try #require(fixture.packager.stream(for: OriginFixture.key))
            let msn = try #require(stream.summary().lastMSN)
            _ = try await client.execute(uri: "/live/demo/index.m3u8", method: .get)
            _ = try await client.execute(uri: "/live/demo/video.m3u8", method: .get)
            _ = try await client.execute(uri: "/live/demo/video.m3u8?_HLS_msn=\(msn)", method: .get)
            _ = try await client.execute(uri: "/live/demo/\(epoch)/video/init-0.mp4", method: .get)
            // The same part twice: the deliver hop counts its first response only.
            for _ in 0..<2 {
                let part = try await client.execute(uri: "/live/demo/\(epoch)/video/\(msn).0.m4s", method: .get)
                #expect(part.status == .ok)
            }
            _ = try await client.execute(uri: "/live/demo/\(epoch)/audio/\(msn - 1).m4s", method: .get)
            _ = try await client.execute(uri: "/healthz", method: .get)

            let r = try await client.execute(uri: "/metrics", method: .get)
            #expect(r.status == .ok)
            #expect(r.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = String(buffer: r.body)
            for line in [
                #"sluice_http_requests_total{stream="demo",kind="multivariant"} 1"#,
                #"sluice_http_requests_total{stream="demo",kind="playlist"} 1"#,
                #"sluice_http_requests_total{stream="demo",kind="playlist-blocking"} 1"#,
                #"sluice_http_requests_total{stream="demo",kind="init"} 1"#,
                #"sluice_http_requests_total{stream="demo",kind="part"} 2"#,
                #"sluice_http_requests_total{stream="demo",kind="segment"} 1"#,
                // `/healthz`, and this `/metrics` request itself.
                #"sluice_http_requests_total{stream="",kind="other"} 2"#,
                #"sluice_hop_latency_seconds_count{hop="deliver",stream="demo",rendition="video"} 1"#,
                #"sluice_hop_latency_seconds_count{hop="deliver",stream="demo",rendition="audio"} 1"#,
                #"sluice_blocking_requests_waiting{stream="demo"} 0.0"#,
            ] {
                #expect(text.contains(line), "missing \(line)")
            }
            #expect(text.contains(#"sluice_parts_published_total{stream="demo",rendition="audio"}"#))
        }
    }

    @Test func apiStreamsListsRenditionsWithTheirHops() async throws {
        try await OriginRoutesTests.withOrigin { fixture, client in
            let epoch = try await fixture.epoch()
            let msn = try #require(fixture.packager.stream(for: OriginFixture.key)?.summary().lastMSN)
            _ = try await client.execute(uri: "/live/demo/\(epoch)/video/\(msn).0.m4s", method: .get)
            let r = try await client.execute(uri: "/api/streams", method: .get)
            let text = String(buffer: r.body)
            // Old fields stay; renditions carry codec, size and hop percentiles.
            for field in [
                #""packageSamples""#, #""renditions""#, #""name":"video""#, #""width":"#, #""deliver":{"#, #""p90Ms""#,
                #""viewers""#,
            ] {
                #expect(text.contains(field), "missing \(field) in \(text)")
            }
        }
    }
}
