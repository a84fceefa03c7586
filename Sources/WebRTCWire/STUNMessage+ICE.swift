/// RFC 8445 §7.1–7.3 and RFC 7675: typed views and builders for the Binding messages ICE-lite exchanges.
extension STUNMessage {
    /// USERNAME, if present.
    public var username: String? {
        attributes.lazy.compactMap { if case .username(let v) = $0 { v } else { nil } }.first
    }

    /// XOR-MAPPED-ADDRESS, if present.
    public var xorMappedAddress: TransportAddress? {
        attributes.lazy.compactMap { if case .xorMappedAddress(let v) = $0 { v } else { nil } }.first
    }

    /// PRIORITY, if present.
    public var priority: UInt32? {
        attributes.lazy.compactMap { if case .priority(let v) = $0 { v } else { nil } }.first
    }

    /// True when USE-CANDIDATE is present (the controlling agent nominates this pair).
    public var useCandidate: Bool { attributes.contains(.useCandidate) }

    /// ICE-CONTROLLING tie-breaker, if present.
    public var iceControlling: UInt64? {
        attributes.lazy.compactMap { if case .iceControlling(let v) = $0 { v } else { nil } }.first
    }

    /// ICE-CONTROLLED tie-breaker, if present.
    public var iceControlled: UInt64? {
        attributes.lazy.compactMap { if case .iceControlled(let v) = $0 { v } else { nil } }.first
    }

    /// ERROR-CODE, if present.
    public var errorCode: STUNErrorCode? {
        attributes.lazy.compactMap { if case .errorCode(let v) = $0 { v } else { nil } }.first
    }

    /// MESSAGE-INTEGRITY as found on the wire, if present.
    public var messageIntegrity: [UInt8]? {
        attributes.lazy.compactMap { if case .messageIntegrity(let v) = $0 { v } else { nil } }.first
    }

    /// The USERNAME split at its colon: RFC 8445 §7.2.2 puts the receiver's ufrag first (`local:remote` for us).
    public var iceUsernameFragments: (receiver: Substring, sender: Substring)? {
        guard let username, let colon = username.firstIndex(of: ":") else { return nil }
        return (username[..<colon], username[username.index(after: colon)...])
    }

    /// A Binding request as a controlling agent sends it (our WHIP publisher): USERNAME, PRIORITY, ICE-CONTROLLING,
    /// optionally USE-CANDIDATE; serialize with the remote ice-pwd as key and `fingerprint: true`.
    public static func bindingRequest(
        transactionID: STUNTransactionID,
        username: String,
        priority: UInt32,
        controllingTieBreaker: UInt64,
        useCandidate: Bool
    ) -> STUNMessage {
        var attributes: [STUNAttribute] = [
            .username(username), .priority(priority), .iceControlling(controllingTieBreaker),
        ]
        if useCandidate { attributes.append(.useCandidate) }
        return STUNMessage(type: .bindingRequest, transactionID: transactionID, attributes: attributes)
    }

    /// The success response to `request` seen from `source`; serialize with our ice-pwd as key and `fingerprint: true`.
    public static func bindingSuccess(to request: STUNMessage, source: TransportAddress) -> STUNMessage {
        STUNMessage(
            type: .bindingSuccess,
            transactionID: request.transactionID,
            attributes: [.xorMappedAddress(source)]
        )
    }

    /// The error response to `request` (e.g. 400 without USERNAME, 401 for a bad MESSAGE-INTEGRITY).
    public static func bindingError(to request: STUNMessage, error: STUNErrorCode) -> STUNMessage {
        STUNMessage(type: .bindingError, transactionID: request.transactionID, attributes: [.errorCode(error)])
    }
}
