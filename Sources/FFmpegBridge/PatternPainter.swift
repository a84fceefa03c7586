import CFFmpeg
import CodecFormats
import MediaCore

#if canImport(Glibc)
import Glibc
#endif

/// Draws the test picture into YUV 4:2:0 planes: colour bars, a moving box, a binary frame counter and the
/// capture clock as `PixelClockCode` cells across the top.
struct PatternPainter {
    let width: Int
    let height: Int
    /// Pre-drawn bar rows per plane, copied row by row each frame (cheap even in debug builds).
    private let barRows: [[UInt8]]
    /// BT.601 limited-range Y, U, V of white, yellow, cyan, green, magenta, red, blue.
    private static let bars: [(UInt8, UInt8, UInt8)] = [
        (235, 128, 128), (210, 16, 146), (170, 166, 16), (145, 54, 34), (106, 202, 222), (81, 90, 240),
        (41, 240, 110),
    ]
    private static let counterBits = 16

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        var rows: [[UInt8]] = []
        for plane in 0..<3 {
            let w = plane == 0 ? width : (width + 1) / 2
            rows.append(
                (0..<w).map { x in
                    let bar = Self.bars[min(Self.bars.count - 1, x * Self.bars.count / w)]
                    return plane == 0 ? bar.0 : plane == 1 ? bar.1 : bar.2
                }
            )
        }
        barRows = rows
    }

    /// Paints frame number `index`, made at `clock`, into `frame` (already allocated as YUV420P of this size).
    func paint(index: Int64, clock: WallTime, into frame: UnsafeMutablePointer<AVFrame>) {
        let planes = [frame.pointee.data.0!, frame.pointee.data.1!, frame.pointee.data.2!]
        let strides = [Int(frame.pointee.linesize.0), Int(frame.pointee.linesize.1), Int(frame.pointee.linesize.2)]
        for plane in 0..<3 {
            let rows = plane == 0 ? height : (height + 1) / 2
            barRows[plane].withUnsafeBufferPointer { src in
                for y in 0..<rows { memcpy(planes[plane] + y * strides[plane], src.baseAddress!, src.count) }
            }
        }
        // A box sliding left to right, one full sweep every few seconds, shows motion and freezes.
        let box = max(16, height / 6) & ~1
        let span = max(1, width - box)
        let x = Int(index * 8 % Int64(span)) & ~1
        let y = (height - box) / 2 & ~1
        fill(planes, strides, x: x, y: y, w: box, h: box, yuv: (16, 128, 128))
        // The counter: one square per bit of the frame number, white for 1, black for 0.
        let cell = max(4, width / 40) & ~1
        for bit in 0..<Self.counterBits where (bit + 1) * cell <= width {
            let on = (index >> Int64(Self.counterBits - 1 - bit)) & 1 == 1
            fill(
                planes,
                strides,
                x: bit * cell,
                y: height - cell - (cell / 2 & ~1),
                w: cell,
                h: cell,
                yuv: on ? (235, 128, 128) : (16, 128, 128)
            )
        }
        paintClock(clock, planes, strides)
    }

    /// The clock cells over the top rows: full-swing luma, neutral chroma, exact fractional cell edges.
    private func paintClock(_ clock: WallTime, _ planes: [UnsafeMutablePointer<UInt8>], _ strides: [Int]) {
        let cells = PixelClockCode.cells(for: clock)
        let bandRows = PixelClockCode.span(PixelClockCode.rows - 1, of: PixelClockCode.heightDivisor, extent: height)
            .upperBound
        for (i, white) in cells.enumerated() {
            let xs = PixelClockCode.span(i % PixelClockCode.columns, of: PixelClockCode.columns, extent: width)
            let ys = PixelClockCode.span(i / PixelClockCode.columns, of: PixelClockCode.heightDivisor, extent: height)
            for row in ys { memset(planes[0] + row * strides[0] + xs.lowerBound, white ? 235 : 16, xs.count) }
        }
        for row in 0..<((bandRows + 1) / 2) {
            memset(planes[1] + row * strides[1], 128, (width + 1) / 2)
            memset(planes[2] + row * strides[2], 128, (width + 1) / 2)
        }
    }

    private func fill(
        _ planes: [UnsafeMutablePointer<UInt8>],
        _ strides: [Int],
        x: Int,
        y: Int,
        w: Int,
        h: Int,
        yuv: (UInt8, UInt8, UInt8)
    ) {
        guard x >= 0, y >= 0, x + w <= width, y + h <= height else { return }
        for row in y..<(y + h) { memset(planes[0] + row * strides[0] + x, Int32(yuv.0), w) }
        for row in (y / 2)..<((y + h) / 2) {
            memset(planes[1] + row * strides[1] + x / 2, Int32(yuv.1), w / 2)
            memset(planes[2] + row * strides[2] + x / 2, Int32(yuv.2), w / 2)
        }
    }
}
