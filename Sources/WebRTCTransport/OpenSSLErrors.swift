import COpenSSL

/// Reads and clears OpenSSL's thread-local error queue into one readable line.
enum OpenSSLErrors {
    /// Drains the queue; returns `fallback` when OpenSSL recorded nothing.
    static func drain(fallback: String = "unknown error") -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? fallback : messages.joined(separator: "; ")
    }
}
