import HTTPClient
import Logging
import MediaCore
import WebRTCTransport
import WebRTCWire

/// The bench's own WHEP viewer (draft-ietf-wish-whep-03): POSTs a recvonly offer, connects with our WebRTC transport
/// (ICE controlling, DTLS client, SRTP via libsrtp2, as `WHIPPublisher` does), reassembles H.264 and reads each
/// frame's capture clock. The thin I/O loop around `WHEPClientStateMachine` and `WHEPVideoReceiver`.
struct WHEPBenchViewer: Sendable {
    /// `http://host:port/whep/KEY`.
    let endpoint: HTTPLocation
    /// H.264 profile-level-ids to offer (`WHEPViewerOffer.anyProfile`, `.constrainedBaseline`).
    let profiles: [String]
    /// Shared by every viewer of a run: generating one costs milliseconds of RSA/EC work.
    let certificate: DTLSCertificate
    let logger: Logger

    /// How often timers run (connect deadline, reorder expiry, the end of the run).
    static let tickInterval: Duration = .milliseconds(20)

    /// The inputs of the viewer's loop, in arrival order.
    enum Input: Sendable {
        case transport(WebRTCSessionEvent)
        case tick
    }

    /// Watches from now until `deadline`, then DELETEs its session; failures are recorded in the result.
    func run(until deadline: ContinuousClock.Instant) async -> WHEPViewerResult {
        var run = WHEPViewerRun(viewer: self, deadline: deadline)
        return await run.run()
    }
}

/// One WHEP viewer's session from POST to DELETE: carries out the machine's actions and feeds outcomes back.
struct WHEPViewerRun {
    let viewer: WHEPBenchViewer
    let deadline: ContinuousClock.Instant
    var machine: WHEPClientStateMachine
    let local = ICECredentials.random()
    let ourSSRC = UInt32.random(in: 1...UInt32.max)
    var plan: WHEPClientStateMachine.TransportPlan?
    var receiver: WHEPVideoReceiver?
    var transport: WebRTCTransportService?
    var session: WebRTCSession?
    var forward: Task<Void, Never>?
    var result: WHEPViewerResult
    let inputs: AsyncStream<WHEPBenchViewer.Input>
    let feed: AsyncStream<WHEPBenchViewer.Input>.Continuation

    init(viewer: WHEPBenchViewer, deadline: ContinuousClock.Instant) {
        self.viewer = viewer
        self.deadline = deadline
        let offer = WHEPViewerOffer(
            iceUfrag: local.ufrag,
            icePwd: local.password,
            fingerprint: viewer.certificate.fingerprint,
            profiles: viewer.profiles,
            sessionID: UInt64.random(in: 1...UInt64(Int64.max))
        )
        machine = WHEPClientStateMachine(endpoint: viewer.endpoint, offer: offer.description.text)
        result = WHEPViewerResult(joinedAt: .now())
        (inputs, feed) = AsyncStream.makeStream(
            of: WHEPBenchViewer.Input.self,
            bufferingPolicy: .bufferingNewest(65_536)
        )
    }

    mutating func run() async -> WHEPViewerResult {
        let feed = self.feed
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: WHEPBenchViewer.tickInterval)
                feed.yield(.tick)
            }
        }
        var finished = await perform(machine.start())
        var iterator = inputs.makeAsyncIterator()
        while !finished, let input = await iterator.next() {
            finished = await handle(input)
        }
        ticker.cancel()
        forward?.cancel()
        session?.close()
        await transport?.shutdown()
        feed.finish()
        if let receiver {
            result.videoPacketsReceived = receiver.packetsReceived
            result.videoPacketsLost = max(Int(receiver.cumulativeLost), receiver.packetsLost)
        }
        return result
    }

    /// One input; true once the viewer is finished.
    private mutating func handle(_ input: WHEPBenchViewer.Input) async -> Bool {
        let now = ContinuousClock.now
        switch input {
        case .tick:
            if now >= deadline { return await perform(machine.stop()) }
            if let output = receiver?.expire(now: now, wall: .now()) { take(output, now: now) }
            return await perform(machine.tick(now: now))
        case .transport(.connected):
            result.connectedAt = .now()
            return await perform(machine.transportConnected())
        case .transport(.iceConnected):
            return false
        case .transport(.rtp(let bytes, let arrival)):
            if bytes.count > 1, bytes[1] & 0x7F == plan?.audioPayloadType {
                result.audioPacketsReceived += 1
            } else if var current = receiver {
                let output = current.receive(bytes, arrival: arrival, now: now)
                receiver = current
                take(output, now: now)
                if output.needsKeyframe { return await perform(machine.needsKeyframe(now: now)) }
            }
            return false
        case .transport(.rtcp):
            return false
        case .transport(.closed(let error)):
            return await perform(machine.transportClosed(error.map { "\($0)" } ?? "closed"))
        }
    }

    /// Records complete frames: the first one is the join's first frame.
    private mutating func take(_ output: WHEPVideoReceiver.Output, now: ContinuousClock.Instant) {
        for frame in output.frames {
            if result.firstFrameAt == nil { result.firstFrameAt = frame.completed }
            if let last = result.lastFrameAt, frame.completed.duration(since: last) > WHEPViewerResult.stallGap {
                result.stalls += 1
            }
            result.lastFrameAt = frame.completed
            result.framesReceived += 1
            if frame.isKeyframe { result.keyframes += 1 }
            guard let capture = frame.capture else {
                result.framesWithoutCapture += 1
                continue
            }
            result.frames.append(ViewerFrame(capture: capture, available: frame.completed, displayed: frame.completed))
        }
    }

    /// Carries out machine actions (HTTP and transport steps feed their outcome back); true once finished.
    private mutating func perform(_ initial: [WHEPClientStateMachine.Action]) async -> Bool {
        var queue = initial
        while !queue.isEmpty {
            switch queue.removeFirst() {
            case .postOffer(let sdp):
                let client = HTTPClient(userAgent: "sluice-bench-whep")
                do {
                    let response = try await client.request(
                        "POST",
                        viewer.endpoint,
                        headers: [("Content-Type", "application/sdp")],
                        body: Array(sdp.utf8)
                    )
                    result.answeredAt = response.completedWall
                    queue += machine.received(response, now: .now)
                } catch {
                    queue += machine.postFailed(error.description)
                }
            case .openTransport(let plan):
                do throws(WebRTCTransportError) {
                    try await open(plan)
                } catch {
                    queue += machine.transportFailed("\(error)")
                }
            case .sendPLI:
                result.keyframeRequests += 1
                let rtcp = RTCPPacket.serializeCompound([
                    .receiverReport(RTCPReceiverReport(ssrc: ourSSRC, reports: [])),
                    .pictureLossIndication(senderSSRC: ourSSRC, mediaSSRC: plan?.videoSSRC ?? 0),
                ])
                session?.sendRTCP(rtcp)
            case .closeTransport:
                session?.close()
            case .deleteSession(let url):
                _ = try? await HTTPClient(timeout: .seconds(3), userAgent: "sluice-bench-whep").request("DELETE", url)
                queue += machine.deleted()
            case .finish(let failure):
                if let failure { result.errors.append(failure) }
                return true
            }
        }
        if case .finished = machine.state { return true }
        return false
    }

    /// Binds our own UDP socket and opens the controlling session towards the answer's candidates.
    private mutating func open(_ plan: WHEPClientStateMachine.TransportPlan) async throws(WebRTCTransportError) {
        self.plan = plan
        if let pt = plan.videoPayloadType { receiver = WHEPVideoReceiver(payloadType: pt) }
        var configuration = WebRTCTransportConfiguration()
        configuration.port = 0
        configuration.hosts = [plan.candidates.contains { $0.isIPv4 } ? "127.0.0.1" : "::1"]
        configuration.consentTimeout = .seconds(10)
        var quiet = viewer.logger
        quiet.logLevel = .error
        let service = WebRTCTransportService(
            configuration: configuration,
            certificate: viewer.certificate,
            logger: quiet
        )
        transport = service
        try await service.start()
        let opened = try await service.openSession(
            WebRTCSessionParameters(
                local: local,
                remote: plan.remote,
                remoteFingerprint: plan.remoteFingerprint,
                dtlsRole: plan.dtlsRole,
                iceRole: .controlling,
                remoteCandidates: plan.candidates.filter { $0.isIPv4 == (configuration.hosts == ["127.0.0.1"]) }
            )
        )
        session = opened
        let feed = self.feed
        forward = Task { for await event in opened.events { feed.yield(.transport(event)) } }
    }
}
