import Testing
import WHIPIngest
import WebRTCTransport
import WebRTCWire

@testable import SluiceApp

/// The `webrtc` section: every key reaches the transport or the WHIP service, bad values name their key, and the
/// environment beats the file.
@Suite("Configuration: webrtc section")
struct WebRTCConfigurationTests {
    @Test func defaultsMatchTheShippedFile() throws {
        let c = try SluiceConfiguration.load(path: SluiceConfigurationTests.shippedConfig)
        #expect(c.webrtcPort == 8189 && c.webrtcHosts == ["127.0.0.1"] && c.whip.additionalHosts.isEmpty)
        #expect(c.webrtcConsentTimeout == .seconds(10) && c.whip.reorderWait == .milliseconds(150))
        #expect(c.whip.maxSessions == 0 && c.whip.maxOfferBytes == 65_536)
    }

    @Test func everyKeyIsReadAndReachesTransportAndService() throws {
        let c = try SluiceConfiguration.parse(
            yaml: """
                webrtc:
                  port: 9189
                  hosts: [127.0.0.1, "::1"]
                  additional_hosts: [203.0.113.7]
                  consent_timeout_s: 30
                  reorder_wait_ms: 400
                  max_sessions: 4
                  max_offer_bytes: 4096
                """
        )
        let transport = c.webrtcTransport
        #expect(transport.port == 9189 && transport.hosts == ["127.0.0.1", "::1"])
        #expect(transport.consentTimeout == .seconds(30))
        #expect(c.whip.additionalHosts == ["203.0.113.7"] && c.whip.reorderWait == .milliseconds(400))
        #expect(c.whip.maxSessions == 4 && c.whipIngest.maxOfferBytes == 4096)
        let back = try SluiceConfiguration.parse(yaml: c.yamlText())
        #expect(back.tree == c.tree)
    }

    @Test(arguments: [
        ("webrtc: { port: 70000 }", "webrtc.port"),
        ("webrtc: { port: udp }", "webrtc.port"),
        ("webrtc: { hosts: [0.0.0.0] }", "webrtc.hosts"),
        ("webrtc: { hosts: [gateway.example] }", "webrtc.hosts"),
        ("webrtc: { hosts: [] }", "webrtc.hosts"),
        ("webrtc: { additional_hosts: [\"::\"] }", "webrtc.additional_hosts"),
        ("webrtc: { additional_hosts: [1.2.3] }", "webrtc.additional_hosts"),
        ("webrtc: { consent_timeout_s: 0 }", "webrtc.consent_timeout_s"),
        ("webrtc: { reorder_wait_ms: 5 }", "webrtc.reorder_wait_ms"),
        ("webrtc: { reorder_wait_ms: 2.5 }", "webrtc.reorder_wait_ms"),
        ("webrtc: { max_sessions: -1 }", "webrtc.max_sessions"),
        ("webrtc: { max_offer_bytes: 100 }", "webrtc.max_offer_bytes"),
        ("webrtc: { public_ip: 1.2.3.4 }", "webrtc.public_ip"),
    ])
    func badValueNamesItsKey(yaml: String, key: String) {
        #expect {
            _ = try SluiceConfiguration.parse(yaml: yaml)
        } throws: { error in
            (error as? ConfigurationError)?.key == key
        }
    }

    @Test func environmentBeatsTheFile() throws {
        let c = try SluiceConfiguration.parse(
            yaml: "webrtc: { port: 9000, reorder_wait_ms: 100, additional_hosts: [198.51.100.1] }\n",
            environment: [
                "SLUICE_WEBRTC_PORT": "9001", "SLUICE_WEBRTC_REORDER_WAIT_MS": "250",
                "SLUICE_WEBRTC_ADDITIONAL_HOSTS": "203.0.113.7,203.0.113.8", "SLUICE_WEBRTC_MAX_SESSIONS": "2",
                "SLUICE_WEBRTC_CONSENT_TIMEOUT_S": "20", "SLUICE_WEBRTC_HOSTS": "127.0.0.3",
            ]
        )
        #expect(c.webrtcPort == 9001 && c.whip.reorderWait == .milliseconds(250) && c.whip.maxSessions == 2)
        #expect(c.whip.additionalHosts == ["203.0.113.7", "203.0.113.8"] && c.webrtcHosts == ["127.0.0.3"])
        #expect(c.webrtcConsentTimeout == .seconds(20))
    }

    @Test func badEnvironmentValueNamesItsKey() {
        #expect {
            _ = try SluiceConfiguration.parse(yaml: "", environment: ["SLUICE_WEBRTC_REORDER_WAIT_MS": "soon"])
        } throws: { error in
            (error as? ConfigurationError)?.key == "webrtc.reorder_wait_ms"
        }
    }

    /// `--webrtc-port` is applied after the file and environment, then validated like them.
    @Test func aFlagValueOutOfRangeIsNamedByValidate() {
        var c = SluiceConfiguration()
        c.webrtcPort = 65536
        #expect {
            try c.validate()
        } throws: { error in
            (error as? ConfigurationError)?.key == "webrtc.port"
        }
    }

    @Test func additionalHostsAreAnnouncedAfterTheBoundOnesOnTheBoundPort() throws {
        var w = WHIPIngestConfiguration()
        w.additionalHosts = ["203.0.113.7", "127.0.0.1", "2001:db8::1"]
        let bound = [try #require(TransportAddress("127.0.0.1:40000"))]
        #expect(
            w.candidates(bound: bound).map(\.description) == [
                "127.0.0.1:40000", "203.0.113.7:40000", "[2001:db8::1]:40000",
            ]
        )
        #expect(w.candidates(bound: []).isEmpty)
    }
}
