import SRTWire
import StreamHub

extension SRTStreamID {
    /// The seat on the key's air the caller asks for (`role=backup`, else the primary's).
    var seat: OnAirRole { backup ? .backup : .primary }
}
