import HTTPOrigin
import MediaCore
import RTMPIngest

extension PublishAuthorizer {
    /// WHIP POSTs under the RTMP publish rules: the bearer token stands where an RTMP name carries its query.
    ///
    /// `POST /whip/cam1` with `Authorization: Bearer s3cret` is judged as the RTMP name `cam1?s3cret`; a signed
    /// token `exp=UNIX&sig=HEX` as `cam1?exp=UNIX&sig=HEX`; no token as the bare `cam1`. Key list, signed keys, the
    /// webhook (with `"protocol": "whip"`) and the anonymous loopback rule therefore apply unchanged.
    public func whipAuthorizer() -> WHIPAuthorizer {
        { request in
            let name = request.token.map { "\(request.key.rawValue)?\($0)" } ?? request.key.rawValue
            let publish = PublishAuthRequest(key: request.key, name: name, peerIP: request.peerIP, transport: "whip")
            switch await authorize(publish, now: WallTime.now().nanosecondsSince1970 / 1_000_000_000) {
            case .allowed(let by): return .allowed(by: by)
            case .denied(let reason): return .denied(reason: reason)
            }
        }
    }
}
