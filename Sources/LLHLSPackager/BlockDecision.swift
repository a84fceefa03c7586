/// Whether a playlist request can be answered now (RFC 8216bis §6.2.5.2, checklist B1–B7).
enum BlockDecision: Equatable {
    case ready
    case wait(until: Duration)
    case badRequest(String)
}
