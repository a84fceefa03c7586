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

    /// True when the picture's pixel at (x, y) of a `width`×`height` slate is part of a letter.
    static func isLetter(x: Int, y: Int, width: Int, height: Int) -> Bool {
        let columns = text.count * 6 - 1
        // The line of text spans about 70 % of the width.
        let cell = max(1, min(width * 7 / 10 / columns, height / 20))
        let left = (width - columns * cell) / 2
        let top = (height - 7 * cell) / 2
        guard x >= left, y >= top else { return false }
        let column = (x - left) / cell
        let row = (y - top) / cell
        guard column < columns, row < 7 else { return false }
        let index = column / 6
        let within = column % 6
        guard within < 5 else { return false }
        let character = text[text.index(text.startIndex, offsetBy: index)]
        guard let glyph = glyphs[character] else { return false }
        let line = glyph[row]
        return line[line.index(line.startIndex, offsetBy: within)] == "#"
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
        for row in 0..<height {
            let line = y + row * yStride
            for column in 0..<width {
                line[column] = isLetter(x: column, y: row, width: width, height: height) ? letterY : fieldY
            }
        }
        for row in 0..<(height + 1) / 2 {
            (u + row * chromaStride).update(repeating: fieldU, count: (width + 1) / 2)
            (v + row * chromaStride).update(repeating: fieldV, count: (width + 1) / 2)
        }
    }
}
