/// Media file names inside `{epoch}/{rendition}/`: `init-N.mp4`, `MSN.m4s`, `MSN.PART.m4s`.
enum MediaFileName: Equatable {
    case initSection(Int)
    case segment(Int)
    case part(Int, Int)

    init?(_ file: String) {
        if file.hasPrefix("init-"), file.hasSuffix(".mp4"), let i = Int(file.dropFirst(5).dropLast(4)), i >= 0 {
            self = .initSection(i)
            return
        }
        guard file.hasSuffix(".m4s") else { return nil }
        let stem = file.dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        switch stem.count {
        case 1:
            guard let m = Int(stem[0]), m >= 0 else { return nil }
            self = .segment(m)
        case 2:
            guard let m = Int(stem[0]), let p = Int(stem[1]), m >= 0, p >= 0 else { return nil }
            self = .part(m, p)
        default:
            return nil
        }
    }
}
