import Logging
import MediaCore
import Synchronization
import WebRTCTransport
import WebRTCWire

/// One publish from POST to DELETE: carries out the state machines' actions and feeds their outcomes back.
struct WHIPPublishRun {
    let publisher: WHIPPublisher
    var machine: WHIPClientStateMachine
    let certificate: DTLSCertificate
    let local: ICECredentials
    let offer: WHIPPublisherOffer
    let avcC: [UInt8]
    let pump: WHIPMediaPump
    var sender: WHIPMediaSender?
    var transport: WebRTCTransportService?
    var session: WebRTCSession?
    var tasks: [Task<Void, Never>] = []
    var pumpTask: Task<Void, Never>?
    var report = WHIPPublishReport()
    let inputs: AsyncStream<WHIPRunInput>
    let feed: AsyncStream<WHIPRunInput>.Continuation
    /// How often the sender's reports and the connect deadline are checked.
    static let tickInterval: Duration = .milliseconds(50)

    init(
        publisher: WHIPPublisher,
        machine: WHIPClientStateMachine,
        certificate: DTLSCertificate,
        local: ICECredentials,
        offer: WHIPPublisherOffer,
        avcC: [UInt8],
        pump: WHIPMediaPump
    ) {
        self.publisher = publisher
        self.machine = machine
        self.certificate = certificate
        self.local = local
        self.offer = offer
        self.avcC = avcC
        self.pump = pump
        (inputs, feed) = AsyncStream.makeStream(of: WHIPRunInput.self, bufferingPolicy: .bufferingNewest(16_384))
    }

    var logger: Logger { publisher.logger }

    /// Runs to the end; a cancelled task stops cleanly (DELETE sent) and returns what was sent.
    mutating func run() async throws(WHIPPublishError) -> WHIPPublishReport {
        let feed = self.feed
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.tickInterval)
                feed.yield(.tick)
            }
        }
        defer { ticker.cancel() }
        var outcome: WHIPPublishError?
        var finished = false
        finished = await perform(machine.start(), outcome: &outcome)
        var iterator = inputs.makeAsyncIterator()
        while !finished {
            if Task.isCancelled, machine.state == .publishing || isConnecting {
                finished = await perform(machine.stop(), outcome: &outcome)
                continue
            }
            guard let input = await iterator.next() else {
                // Cancelled while waiting: stop cleanly (NIO's HTTP futures still complete for the DELETE).
                if case .finished = machine.state { break }
                finished = await perform(machine.stop(), outcome: &outcome)
                break
            }
            finished = await handle(input, outcome: &outcome)
        }
        await tearDown()
        report.loops = pump.loops
        report.mediaTime = pump.mediaTime
        report.sender = sender?.counters ?? WHIPSenderCounters()
        report.videoFrames = report.sender.videoFrames
        report.audioFrames = report.sender.audioFrames
        if let outcome { throw outcome }
        return report
    }

    private var isConnecting: Bool {
        if case .connecting = machine.state { return true }
        return false
    }

    /// One input through the state machines; true once the run is finished.
    private mutating func handle(_ input: WHIPRunInput, outcome: inout WHIPPublishError?) async -> Bool {
        switch input {
        case .tick:
            let now = ContinuousClock.now
            if let actions = sender?.tick(now: now, wall: .now()) { carryOut(actions) }
            return await perform(machine.tick(now: now), outcome: &outcome)
        case .transport(.connected(let profile)):
            logger.info("WHIP DTLS connected", metadata: ["srtp": "\(profile)"])
            return await perform(machine.transportConnected(), outcome: &outcome)
        case .transport(.iceConnected(let remote)):
            logger.debug("WHIP ICE connected", metadata: ["remote": "\(remote)"])
            return false
        case .transport(.rtcp(let bytes, _)):
            if let actions = sender?.received(rtcp: bytes, now: .now) { carryOut(actions) }
            return false
        case .transport(.rtp):
            return false  // A sendonly publisher ignores media sent to it.
        case .transport(.closed(let error)):
            return await perform(machine.transportClosed(error), outcome: &outcome)
        case .pump(.frame(let frame, let wall)):
            guard machine.state == .publishing, var current = sender else { return false }
            do {
                let actions =
                    frame.kind == .video
                    ? try current.send(video: frame, now: .now, wall: wall) : current.send(audio: frame, wall: wall)
                sender = current
                carryOut(actions)
                return false
            } catch {
                outcome = outcome ?? error
                return await perform(machine.stop(), outcome: &outcome)
            }
        case .pump(.ended(let error)):
            if let error { outcome = outcome ?? error }
            return await perform(machine.stop(), outcome: &outcome)
        }
    }

    /// Sender actions go straight to the transport (or the source, for keyframes).
    private func carryOut(_ actions: [WHIPMediaSender.Action]) {
        for action in actions {
            switch action {
            case .sendRTP(let bytes): session?.sendRTP(bytes)
            case .sendRTCP(let bytes): session?.sendRTCP(bytes)
            case .requestKeyframe: pump.keyframeRequested.store(true, ordering: .relaxed)
            }
        }
    }

    /// Carries out machine actions (HTTP and transport steps feed their outcome back); true once finished.
    private mutating func perform(
        _ initial: [WHIPClientStateMachine.Action],
        outcome: inout WHIPPublishError?
    ) async -> Bool {
        var queue = initial
        while !queue.isEmpty {
            let action = queue.removeFirst()
            switch action {
            case .postOffer(let sdp):
                do {
                    let response = try await publisher.signaling.post(offer: sdp, to: publisher.endpoint)
                    queue += machine.received(response, now: .now)
                    report.resource = machine.resource
                } catch {
                    queue += machine.postFailed(error)
                }
            case .openTransport(let plan):
                do throws(WHIPPublishError) {
                    try await openTransport(plan)
                } catch {
                    outcome = outcome ?? error
                    queue += machine.stop()
                }
            case .startMedia:
                let pump = self.pump
                let feed = self.feed
                pumpTask = Task { await pump.run { feed.yield(.pump($0)) } }
            case .closeTransport:
                pumpTask?.cancel()
                session?.close()
            case .deleteSession(let url):
                pumpTask?.cancel()
                let response = try? await publisher.signaling.delete(url, endpoint: publisher.endpoint)
                logger.info("WHIP session deleted", metadata: ["url": "\(url)", "status": "\(response?.status ?? 0)"])
                queue += machine.deleted()
            case .finish(let error):
                pumpTask?.cancel()
                if let error { outcome = outcome ?? error }
                return true
            }
        }
        if case .finished = machine.state { return true }
        return false
    }

    /// Binds our UDP socket (ephemeral port, the answer's address families) and opens the controlling session.
    private mutating func openTransport(_ plan: WHIPClientStateMachine.TransportPlan) async throws(WHIPPublishError) {
        var configuration = WebRTCTransportConfiguration()
        configuration.port = 0
        var hosts: [String] = []
        let v4 = plan.candidates.filter(\.isIPv4)
        let v6 = plan.candidates.filter { !$0.isIPv4 }
        if !v4.isEmpty { hosts.append(v4.allSatisfy { $0.ip[0] == 127 } ? "127.0.0.1" : "0.0.0.0") }
        if !v6.isEmpty { hosts.append(v6.allSatisfy { $0.ipText == "::1" } ? "::1" : "::") }
        configuration.hosts = hosts
        configuration.consentTimeout = .seconds(10)
        let service = WebRTCTransportService(configuration: configuration, certificate: certificate, logger: logger)
        transport = service
        do {
            try await service.start()
            let parameters = WebRTCSessionParameters(
                local: local,
                remote: ICECredentials(ufrag: plan.remoteUfrag, password: plan.remotePassword),
                remoteFingerprint: plan.remoteFingerprint,
                dtlsRole: plan.dtlsRole,
                iceRole: .controlling,
                remoteCandidates: plan.candidates
            )
            let opened = try await service.openSession(parameters)
            session = opened
            let feed = self.feed
            tasks.append(Task { for await event in opened.events { feed.yield(.transport(event)) } })
        } catch {
            throw .transport(error)
        }
        var configurationOfSender = WHIPMediaSender.Configuration(
            videoSSRC: offer.videoSSRC,
            videoPayloadType: plan.videoPayloadType,
            audioSSRC: offer.audioSSRC ?? 0,
            audioPayloadType: offer.audioSSRC == nil ? nil : plan.audioPayloadType,
            cname: offer.cname,
            videoSequence: UInt16.random(in: 0...UInt16.max),
            audioSequence: UInt16.random(in: 0...UInt16.max),
            videoTimestampOffset: UInt32.random(in: 0...UInt32.max),
            audioTimestampOffset: UInt32.random(in: 0...UInt32.max)
        )
        configurationOfSender.reportInterval = .seconds(1)
        sender = try WHIPMediaSender(configuration: configurationOfSender, avcC: avcC)
        logger.info(
            "WHIP answer applied",
            metadata: [
                "candidates": "\(plan.candidates)", "dtls_role": "\(plan.dtlsRole)",
                "audio": "\(plan.audioPayloadType != nil)",
            ]
        )
    }

    private mutating func tearDown() async {
        pumpTask?.cancel()
        _ = await pumpTask?.value
        session?.close()
        for task in tasks { task.cancel() }
        await transport?.shutdown()
        feed.finish()
    }
}
