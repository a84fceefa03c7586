/// The seat a publisher takes on its key: the primary, or a hot standby that goes on air when the primary leaves.
public enum OnAirRole: String, Sendable, Equatable, CaseIterable {
    case primary
    case backup

    /// Why an ingest session closes when its publication ended under it (`OnAirSwitch.Arrival.replaced`).
    public static let replacedReason = "replaced: a newer publish of this key took the seat after this one went silent"

    /// The role a publish name's query asks for (`role=backup` among its `&`-separated items) and the query without
    /// it, which is the credential: `s3cret&role=backup` → (.backup, "s3cret"), `role=backup` → (.backup, nil).
    public static func parse(query: String?) -> (role: OnAirRole, rest: String?) {
        guard let query else { return (.primary, nil) }
        var role = OnAirRole.primary
        var kept: [Substring] = []
        for item in query.split(separator: "&", omittingEmptySubsequences: false) {
            if item.hasPrefix("role="), let asked = OnAirRole(rawValue: String(item.dropFirst(5))) {
                role = asked
            } else {
                kept.append(item)
            }
        }
        let rest = kept.joined(separator: "&")
        return (role, kept.isEmpty ? nil : rest)
    }
}
