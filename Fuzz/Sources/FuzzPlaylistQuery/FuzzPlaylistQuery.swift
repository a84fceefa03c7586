import FuzzSupport
import LLHLSPackager

/// Playlist delivery directives (RFC 8216bis §6.2.5.2): any query string parses or is refused, never more.
///
/// The input is read as the query string of a playlist URL, `name=value` pairs joined by `&`.
@main enum FuzzPlaylistQueryEntry {
    static func main() { FuzzDriver.run(fuzzPlaylistQuery) }
}

/// One libFuzzer input.
func fuzzPlaylistQuery(_ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)
    let query = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> (String, String) in
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    }
    guard let request = try? PlaylistRequest(query: query) else { return }
    // B3: a part without an MSN never gets through; blocking means an MSN was given.
    precondition(request.part == nil || request.msn != nil, "_HLS_part accepted without _HLS_msn")
    precondition(request.isBlocking == (request.msn != nil), "isBlocking disagrees with msn")
    precondition((request.msn ?? 0) >= 0 && (request.part ?? 0) >= 0, "negative directive accepted")
}
