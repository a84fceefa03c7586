import Foundation
import LLHLSPackager
import Logging
import Testing

@testable import SluiceApp

/// Every key documented in Config/sluice.yaml reaches a field, SLUICE_* overrides beat the file, and bad values
/// name their key.
@Suite("Configuration: documented keys and environment overrides")
struct ConfigurationEnvironmentTests {
    static let shippedText =
        (try? String(contentsOfFile: SluiceConfigurationTests.shippedConfig, encoding: .utf8)) ?? ""

    /// A value other than the default, valid for the key (strings from the allowed sets where there is one).
    static func otherValue(_ path: String, _ current: ConfigNode) -> (env: String, expected: ConfigNode) {
        switch (path, current) {
        case ("log.level", _): return ("debug", .string("debug"))
        case ("log.format", _): return ("json", .string("json"))
        case ("transcode.preset", _): return ("faster", .string("faster"))
        case ("transcode.source_rendition", _): return ("transcode", .string("transcode"))
        case ("transcode.shed.preset", _): return ("none", .string("none"))
        case ("ingest.slate_image", _): return ("/tmp/slate.png", .string("/tmp/slate.png"))
        case ("ingest.failback", _): return ("manual", .string("manual"))
        case ("bind", _): return ("127.0.0.2", .string("127.0.0.2"))
        case ("srt.key_length", _): return ("32", .int(32))
        case ("cluster.nodes", _):
            return ("[origin_1=http://127.0.0.1:8081]", .list([.string("origin_1=http://127.0.0.1:8081")]))
        // A passphrase is printed as "(set)", never itself.
        case ("srt.passphrase", _): return ("0123456789ab", .string("(set)"))
        case ("pages.hlsjs_url", _): return ("http://127.0.0.1:9/hls.mjs", .string("http://127.0.0.1:9/hls.mjs"))
        case ("auth.publish.webhook_url", _): return ("http://127.0.0.1:9/hook", .string("http://127.0.0.1:9/hook"))
        case ("auth.publish.anonymous", _): return ("any", .string("any"))
        case ("auth.publish.keys", _): return ("cam1,cam2?s", .list([.string("cam1"), .string("cam2?s")]))
        case ("webrtc.hosts", _): return ("127.0.0.2,::1", .list([.string("127.0.0.2"), .string("::1")]))
        case ("webrtc.additional_hosts", _): return ("203.0.113.7", .list([.string("203.0.113.7")]))
        case ("record.renditions", _): return ("video,480p", .list([.string("480p"), .string("video")]))
        case ("transcode.rungs", _):
            return (
                "[{height: 540, video_kbps: 2000}]",
                .list([
                    .map([
                        .init(key: "name", value: .string("540p")), .init(key: "height", value: .int(540)),
                        .init(key: "video_kbps", value: .int(2000)),
                    ])
                ])
            )
        case (_, .int(let i)): return ("\(i + 1)", .int(i + 1))
        case (_, .double(let d)): return ("\(Int(d) + 1)", .double(Double(Int(d) + 1)))
        case (_, .bool(let b)): return ("\(!b)", .bool(!b))
        case (_, .string(let s)): return ("\(s)x", .string("\(s)x"))
        default: return ("", current)
        }
    }

    static func envName(_ path: String) -> String {
        "SLUICE_" + path.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    static func value(at path: String, in tree: ConfigNode) -> ConfigNode? {
        path.split(separator: ".").reduce(Optional(tree)) { node, k in node?[String(k)] }
    }

    @Test func shippedFileDocumentsExactlyTheKeysTheGatewayReads() throws {
        let documented = try SluiceConfiguration.keyPaths(yaml: Self.shippedText)
        let read = SluiceConfiguration().tree.leafPaths
        #expect(documented.count >= 20)
        #expect(
            Set(documented) == Set(read),
            "documented but not printed: \(Set(documented).subtracting(read)); printed but not documented: \(Set(read).subtracting(documented))"
        )
    }

    /// For each documented key: its SLUICE_* variable over the shipped file changes exactly that value.
    @Test func everyDocumentedKeyHasAWorkingEnvironmentOverride() throws {
        let pem = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-test-\(getpid()).pem").path
        try Data("not checked until serve".utf8).write(to: URL(fileURLWithPath: pem))
        defer { try? FileManager.default.removeItem(atPath: pem) }
        let base = try SluiceConfiguration.parse(yaml: Self.shippedText).tree
        for path in try SluiceConfiguration.keyPaths(yaml: Self.shippedText) {
            let current = try #require(Self.value(at: path, in: base), "\(path) not in the effective tree")
            var env: [String: String]
            let expected: ConfigNode
            if path.hasPrefix("http.tls.") {
                // Certificate and key only come together.
                env = ["SLUICE_HTTP_TLS_CERT": pem, "SLUICE_HTTP_TLS_KEY": pem]
                expected = .string(pem)
            } else if path == "cluster.redis_url" || path == "cluster.node_url" {
                // Registry and node URL only come together.
                env = [
                    "SLUICE_CLUSTER_REDIS_URL": "redis://127.0.0.1:6379",
                    "SLUICE_CLUSTER_NODE_URL": "http://127.0.0.1:8080",
                ]
                expected = .string(path == "cluster.redis_url" ? "redis://127.0.0.1:6379" : "http://127.0.0.1:8080")
            } else if path == "rtmp.tls.cert" || path == "rtmp.tls.key" {
                env = ["SLUICE_RTMP_TLS_CERT": pem, "SLUICE_RTMP_TLS_KEY": pem]
                expected = .string(pem)
            } else {
                let other = Self.otherValue(path, current)
                env = [Self.envName(path): other.env]
                expected = other.expected
            }
            let c = try SluiceConfiguration.parse(yaml: Self.shippedText, environment: env)
            #expect(Self.value(at: path, in: c.tree) == expected, "\(path) via \(env)")
            #expect(expected != current, "\(path): the probe value must differ from the file's")
        }
    }

    @Test func environmentBeatsTheFileAndPrintReadsBack() throws {
        let c = try SluiceConfiguration.parse(
            yaml: "http: { port: 8080 }\nhls: { part_target_ms: 200 }\n",
            environment: [
                "SLUICE_HTTP_PORT": "9090", "SLUICE_HLS_PART_TARGET_MS": "300", "SLUICE_BIN": "/x", "PATH": "/bin",
            ]
        )
        #expect(c.httpPort == 9090 && c.hls.partTarget == .milliseconds(300))
        let back = try SluiceConfiguration.parse(yaml: c.yamlText())
        #expect(back.tree == c.tree)
    }

    @Test(arguments: [
        (["SLUICE_HLS_PART_TARGET_MS": "abc"], "hls.part_target_ms"),
        (["SLUICE_HTTP_PORT": "99999"], "http.port"),
        (["SLUICE_LOG_FORMAT": "xml"], "log.format"),
        (["SLUICE_HTTP_PROT": "1"], "SLUICE_HTTP_PROT"),
        (["SLUICE_HTTP_TLS_CERT": "/nonexistent.pem"], "http.tls.key"),
        (["SLUICE_PAGES_HLSJS_URL": "javascript:alert(1)"], "pages.hlsjs_url"),
        (["SLUICE_HTTP_HTTP2": "perhaps"], "http.http2"),
    ])
    func badEnvironmentValueNamesItsKey(env: [String: String], key: String) {
        #expect {
            _ = try SluiceConfiguration.parse(yaml: "", environment: env)
        } throws: { error in
            (error as? ConfigurationError)?.key == key
        }
    }

    @Test func unreadableCertificateIsNamed() {
        #expect {
            _ = try SluiceConfiguration.parse(
                yaml: "http: { tls: { cert: /nonexistent/c.pem, key: /nonexistent/k.pem } }"
            )
        } throws: { error in
            (error as? ConfigurationError)?.key == "http.tls.cert"
        }
    }
}
