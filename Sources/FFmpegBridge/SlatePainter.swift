/// Draws the slate's still picture into YUV 4:2:0 planes: a dark field with "BACK SHORTLY" in a 5×7 block font,
/// scaled to the picture (no font library: the slate must draw on any machine the gateway runs on).
struct SlatePainter {
    /// The words on the slate.
    static let text = "BACK SHORTLY"

    /// 5×7 glyphs, one string per row, `#` lit.
    private static let glyphs: [Character: [String]] = [
        "A": [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
        "B": ["####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."],
        "C": [".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."],
        "H": ["#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
        "K": ["#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"],
        "L": ["#....", "#....", "#....", "#....", "#....", "#....", "#####"],
        "O": [".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
        "R": ["####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"],
        "S": [".####", "#....", "#....", ".###.", "....#", "....#", "####."],
        "T": ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."],
        "Y": ["#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."],
        " ": [".....", ".....", ".....", ".....", ".....", ".....", "....."],
    ]

    /// BT.601 limited-range luma of the field and of the letters; chroma of the field (a dark blue).
    static let fieldY: UInt8 = 40
    static let letterY: UInt8 = 220
    static let fieldU: UInt8 = 150
    static let fieldV: UInt8 = 118

    /// The lit cells of the text, row by row (7 rows of `text.count * 6 - 1` columns), built once.
    private static let cells: [[Bool]] = {
        let characters = Array(text)
        return (0..<7).map { row in
            characters.enumerated().flatMap { i, c -> [Bool] in
                let line = Array((glyphs[c] ?? glyphs[" "]!)[row]).map { $0 == "#" }
                return i == characters.count - 1 ? line : line + [false]
            }
        }
    }()

    /// Where the text sits on a `width`×`height` picture: its cell size and top-left corner.
    private static func layout(width: Int, height: Int) -> (cell: Int, left: Int, top: Int) {
        let columns = text.count * 6 - 1
        // The line of text spans about 70 % of the width.
        let cell = max(1, min(width * 7 / 10 / columns, height / 20))
        return (cell, (width - columns * cell) / 2, (height - 7 * cell) / 2)
    }

    /// True when the picture's pixel at (x, y) of a `width`×`height` slate is part of a letter.
    static func isLetter(x: Int, y: Int, width: Int, height: Int) -> Bool {
        let (cell, left, top) = layout(width: width, height: height)
        guard x >= left, y >= top else { return false }
        let column = (x - left) / cell
        let row = (y - top) / cell
        guard row < 7, column < cells[row].count else { return false }
        return cells[row][column]
    }

    /// Fills the planes (luma `y` of `width`×`height`, chroma `u`, `v` at half size) with the slate.
    static func paint(
        y: UnsafeMutablePointer<UInt8>,
        yStride: Int,
        u: UnsafeMutablePointer<UInt8>,
        v: UnsafeMutablePointer<UInt8>,
        chromaStride: Int,
        width: Int,
        height: Int
    ) {
        let (cell, left, top) = layout(width: width, height: height)
        for row in 0..<height {
            let line = y + row * yStride
            line.update(repeating: fieldY, count: width)
            let textRow = (row - top) / cell
            guard row >= top, textRow < 7 else { continue }
            // Runs of lit cells, a cell wide each: no per-pixel test (a 1080p slate is two million pixels).
            for (column, lit) in cells[textRow].enumerated() where lit {
                let x = left + column * cell
                guard x >= 0, x + cell <= width else { continue }
                (line + x).update(repeating: letterY, count: cell)
            }
        }
        for row in 0..<(height + 1) / 2 {
            (u + row * chromaStride).update(repeating: fieldU, count: (width + 1) / 2)
            (v + row * chromaStride).update(repeating: fieldV, count: (width + 1) / 2)
        }
    }
}
