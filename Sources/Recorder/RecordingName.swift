/// The names a recording's path is made of (stream key, recording id, rendition, file): plain names only, so no
/// request can leave the recording directory (no `/`, no leading `.`, nothing but letters, digits, `-`, `_`, `.`).
enum RecordingName {
    /// True when `name` is safe as one path component.
    static func isValid(_ name: String) -> Bool {
        guard !name.isEmpty, name.count <= 200, !name.hasPrefix(".") else { return false }
        return name.unicodeScalars.allSatisfy { c in
            (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "-" || c == "_"
                || c == "."
        }
    }

    /// `name`, or the error that names it.
    static func checked(_ name: String) throws(RecorderError) -> String {
        guard isValid(name) else { throw .invalidName(name) }
        return name
    }
}
