import MediaCore

/// The capture clock drawn into the picture itself (no SEI, nothing the gateway could rewrite): 64 big black or
/// white cells across the top of the picture, two rows of 32, read back from whatever a player presents.
///
/// Cells in reading order (row 0 left to right, then row 1): sync `1010`, the capture time as 48 bits of
/// milliseconds since the Unix epoch (big-endian), a CRC-8 (polynomial 0x07) of those 6 bytes, sync `0101`.
/// Cell `c` of row `r` covers x in [c·W/32, (c+1)·W/32) and y in [r·H/18, (r+1)·H/18), rounded down, so the
/// code scales with the picture: at 640x360 a cell is 20x20 pixels, which survives x264 at low bit rates.
/// The bench player page (`BenchPlayerPage`) decodes the same layout in JavaScript.
public enum PixelClockCode {
    /// Cells per row.
    public static let columns = 32
    /// Rows of cells.
    public static let rows = 2
    /// A cell's height is the picture's height divided by this (square cells at 16:9).
    public static let heightDivisor = 18
    /// Leading and trailing sync patterns: a picture without them is not carrying a clock.
    static let leadingSync: [Bool] = [true, false, true, false]
    static let trailingSync: [Bool] = [false, true, false, true]
    /// Bits of the millisecond clock (2^48 ms is about 8900 years).
    static let clockBits = 48

    /// Total cells.
    public static var cellCount: Int { columns * rows }

    /// The 64 cell values (true = white) that encode `time`, truncated to whole milliseconds.
    public static func cells(for time: WallTime) -> [Bool] {
        let ms = UInt64(bitPattern: time.millisecondsSince1970) & ((1 << 48) - 1)
        let bytes = (0..<6).reversed().map { UInt8(truncatingIfNeeded: ms >> (8 * $0)) }
        var out = leadingSync
        out += (0..<clockBits).reversed().map { ms >> UInt64($0) & 1 == 1 }
        out += (0..<8).reversed().map { crc8(bytes) >> UInt8($0) & 1 == 1 }
        out += trailingSync
        return out
    }

    /// The time the cells encode; nil when a sync pattern or the CRC does not match (no clock, or unreadable).
    public static func time(from cells: [Bool]) -> WallTime? {
        guard cells.count == cellCount, Array(cells.prefix(4)) == leadingSync, Array(cells.suffix(4)) == trailingSync
        else { return nil }
        let ms = cells[4..<(4 + clockBits)].reduce(UInt64(0)) { $0 << 1 | ($1 ? 1 : 0) }
        let crc = cells[(4 + clockBits)..<(12 + clockBits)].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        let bytes = (0..<6).reversed().map { UInt8(truncatingIfNeeded: ms >> (8 * $0)) }
        // WallTime holds Int64 nanoseconds (to year 2262): a larger reading is not a time.
        guard crc8(bytes) == crc, ms <= UInt64(Int64.max / 1_000_000) else { return nil }
        return WallTime(millisecondsSince1970: Int64(ms))
    }

    /// Pixels [start, end) of cell `index` when `extent` pixels hold `count` cells (columns: width; rows: height).
    public static func span(_ index: Int, of count: Int, extent: Int) -> Range<Int> {
        (index * extent / count)..<((index + 1) * extent / count)
    }

    /// Where to sample cell `index` (reading order) in a `width`x`height` picture: the middle half of the cell.
    public static func sampleRect(cell index: Int, width: Int, height: Int) -> (x: Range<Int>, y: Range<Int>) {
        let x = span(index % columns, of: columns, extent: width)
        let y = span(index / columns, of: heightDivisor, extent: height)
        func middle(_ r: Range<Int>) -> Range<Int> {
            let quarter = r.count / 4
            return (r.lowerBound + quarter)..<max(r.lowerBound + quarter + 1, r.upperBound - quarter)
        }
        return (middle(x), middle(y))
    }

    /// CRC-8, polynomial x^8 + x^2 + x + 1, initial value 0 (as the page's decoder computes it).
    static func crc8(_ bytes: [UInt8]) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }
}
