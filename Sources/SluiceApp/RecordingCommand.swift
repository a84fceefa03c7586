import Foundation

/// What `POST /api/streams/{key}/recording` asks for: `{"action":"start"|"stop"}` as a JSON body, or `?action=`
/// (the query wins when both are given; an empty body with the query is fine).
enum RecordingCommand: String, Sendable, Equatable, CaseIterable {
    case start
    case stop

    /// Why a request names no action.
    enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// Neither a query nor a body said what to do.
        case missing
        /// The body is not a JSON object with a string `action`.
        case notJSON
        /// An action that is neither start nor stop.
        case unknown(String)

        var description: String {
            switch self {
            case .missing: #"say what to do: {"action":"start"} or {"action":"stop"} (or ?action=start|stop)"#
            case .notJSON: #"the body must be a JSON object such as {"action":"start"}"#
            case .unknown(let a): "unknown action \(a.debugDescription): start or stop"
            }
        }
    }

    /// Reads the command from the query's `action` and the body.
    init(query: String?, body: [UInt8]) throws(Problem) {
        let named: String
        if let query {
            named = query
        } else if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw .missing
        } else {
            guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
                let action = object["action"] as? String
            else { throw .notJSON }
            named = action
        }
        guard let command = RecordingCommand(rawValue: named.lowercased()) else { throw .unknown(named) }
        self = command
    }
}
