/// Every way to cut `bytes` in two, plus one byte at a time.
func splits(_ bytes: [UInt8]) -> [[[UInt8]]] {
    var result = (0...bytes.count).map { [Array(bytes[..<$0]), Array(bytes[$0...])] }
    result.append(bytes.map { [$0] })
    return result
}
