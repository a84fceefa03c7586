import NIOCore
import WebRTCWire

/// RFC 8445 §7 connectivity checks: answering them (ICE-lite, and consent for our publisher) and sending them
/// (controlling), with RFC 7675 consent freshness riding on the same Binding transactions.
extension TransportSession {
    /// RFC 8445 §5.1.2.1 priority of a peer-reflexive candidate for component 1 (type preference 110).
    static let checkPriority: UInt32 = (1 << 24) * 110 + (1 << 8) * 65_535 + 255

    /// A Binding message the router matched to us (requests by USERNAME, responses by address).
    mutating func receiveSTUN(
        _ message: STUNMessage,
        from source: TransportAddress,
        now: NIODeadline
    )
        -> [TransportSessionAction]
    {
        guard phase != .closed, message.type.method == STUNMessageType.bindingMethod else { return [] }
        statistics.datagramsReceived += 1
        switch message.type.messageClass {
        case .request: return answerCheck(message, from: source, now: now)
        case .successResponse: return checkSucceeded(message, from: source, now: now)
        case .errorResponse:
            pendingChecks[message.transactionID] = nil
            return []
        case .indication: return []
        }
    }

    /// §7.3: USERNAME must read `ourUfrag:theirUfrag` and MESSAGE-INTEGRITY verify under our password.
    private mutating func answerCheck(
        _ request: STUNMessage,
        from source: TransportAddress,
        now: NIODeadline
    )
        -> [TransportSessionAction]
    {
        guard let fragments = request.iceUsernameFragments, fragments.receiver == parameters.local.ufrag,
            fragments.sender == parameters.remote.ufrag, request.isAuthentic(key: parameters.local.integrityKey)
        else {
            statistics.stunRequestsRejected += 1
            let refusal = STUNMessage.bindingError(to: request, error: .unauthorized).serialized(fingerprint: true)
            return [countSend(refusal, to: source)]
        }
        statistics.stunRequestsAnswered += 1
        lastHeard = now
        var actions: [TransportSessionAction] = []
        if authenticated.insert(source).inserted { actions.append(.learn(source)) }
        let response = STUNMessage.bindingSuccess(to: request, source: source)
            .serialized(integrityKey: parameters.local.integrityKey, fingerprint: true)
        actions.append(countSend(response, to: source))
        if parameters.iceRole == .controlled, request.useCandidate { actions += nominate(source) }
        return actions
    }

    /// §8.1.1: a success response to one of our checks nominates its pair (we always send USE-CANDIDATE).
    private mutating func checkSucceeded(
        _ response: STUNMessage,
        from source: TransportAddress,
        now: NIODeadline
    )
        -> [TransportSessionAction]
    {
        guard parameters.iceRole == .controlling, let target = pendingChecks[response.transactionID],
            target == source, response.isAuthentic(key: parameters.remote.integrityKey)
        else { return [] }
        pendingChecks[response.transactionID] = nil
        lastHeard = now
        var actions: [TransportSessionAction] = []
        if authenticated.insert(source).inserted { actions.append(.learn(source)) }
        if selected == nil || phase == .checking { actions += nominate(source) }
        return actions
    }

    /// Selects `address` for DTLS and media; the first nomination starts DTLS (a client sends its ClientHello).
    private mutating func nominate(_ address: TransportAddress) -> [TransportSessionAction] {
        // The controlling agent may move the pair later (§8.1.1); media then follows the newest nomination.
        selected = address
        var actions: [TransportSessionAction] = []
        if !announcedICE {
            announcedICE = true
            actions.append(.emit(.iceConnected(remote: address)))
        }
        if phase == .checking {
            phase = .securing
            actions += carryOut(dtls.start())
        }
        return actions
    }

    /// Controlling: one check per candidate before nomination, then one consent check to the selected address.
    mutating func sendChecks() -> [TransportSessionAction] {
        // Unanswered old transactions only grow the table; a lost response is replaced by the next round.
        if pendingChecks.count > 64 { pendingChecks.removeAll() }
        let targets = selected.map { [$0] } ?? parameters.remoteCandidates
        var generator = SystemRandomNumberGenerator()
        var actions: [TransportSessionAction] = []
        for target in targets {
            let id = STUNTransactionID.random(using: &generator)
            pendingChecks[id] = target
            let request = STUNMessage.bindingRequest(
                transactionID: id,
                username: "\(parameters.remote.ufrag):\(parameters.local.ufrag)",
                priority: Self.checkPriority,
                controllingTieBreaker: tieBreaker,
                useCandidate: true
            )
            let bytes = request.serialized(integrityKey: parameters.remote.integrityKey, fingerprint: true)
            actions.append(countSend(bytes, to: target))
        }
        return actions
    }
}
