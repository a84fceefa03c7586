/// RFC 8489 §5: the message type interleaves a 12-bit method with the 2-bit class (C1 at bit 8, C0 at bit 4).
public struct STUNMessageType: Hashable, Sendable {
    /// RFC 8489 §5: request, indication, success or error response.
    public enum Class: UInt16, Sendable {
        case request = 0b00
        case indication = 0b01
        case successResponse = 0b10
        case errorResponse = 0b11
    }

    /// The method; Binding (0x001) is the only one ICE uses.
    public var method: UInt16
    /// The class.
    public var messageClass: Class

    /// A type from its parts; `method` is truncated to 12 bits.
    public init(method: UInt16, messageClass: Class) {
        self.method = method & 0x0FFF
        self.messageClass = messageClass
    }

    /// Splits the 14-bit wire value (the two top bits must already be zero).
    public init(rawValue: UInt16) {
        method = (rawValue & 0x000F) | (rawValue & 0x00E0) >> 1 | (rawValue & 0x3E00) >> 2
        messageClass = Class(rawValue: (rawValue & 0x0010) >> 4 | (rawValue & 0x0100) >> 7)!
    }

    /// The 14-bit wire value.
    public var rawValue: UInt16 {
        let c = messageClass.rawValue
        return (method & 0x000F) | (method & 0x0070) << 1 | (method & 0x0F80) << 2 | (c & 1) << 4 | (c & 2) << 7
    }

    /// The Binding method number.
    public static let bindingMethod: UInt16 = 0x001
    /// Binding request (0x0001).
    public static let bindingRequest = STUNMessageType(method: bindingMethod, messageClass: .request)
    /// Binding success response (0x0101).
    public static let bindingSuccess = STUNMessageType(method: bindingMethod, messageClass: .successResponse)
    /// Binding error response (0x0111).
    public static let bindingError = STUNMessageType(method: bindingMethod, messageClass: .errorResponse)
    /// Binding indication (0x0011), used as a keepalive.
    public static let bindingIndication = STUNMessageType(method: bindingMethod, messageClass: .indication)
}
