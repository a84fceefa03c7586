import StreamHub
import Testing

/// `role=backup` among a publish name's query items asks for the standby seat; the rest stays the credential.
struct OnAirRoleTests {
    @Test(
        arguments: [
            (nil, OnAirRole.primary, nil),
            ("s3cret", .primary, "s3cret"),
            ("role=backup", .backup, nil),
            ("s3cret&role=backup", .backup, "s3cret"),
            ("role=backup&exp=1&sig=ab", .backup, "exp=1&sig=ab"),
            ("role=primary", .primary, nil),
            // An unknown role is not a role: it stays in the credential (and fails auth there, visibly).
            ("role=spare", .primary, "role=spare"),
        ] as [(String?, OnAirRole, String?)]
    )
    func parsesTheRoleOutOfTheQuery(query: String?, role: OnAirRole, rest: String?) {
        let parsed = OnAirRole.parse(query: query)
        #expect(parsed.role == role && parsed.rest == rest)
    }

    @Test func anyQueryKeepsEveryOtherItemInOrder() {
        for _ in 0..<500 {
            let items = (0..<Int.random(in: 1...4)).map { _ in
                Bool.random()
                    ? ["role=backup", "role=primary"].randomElement()!
                    : String((0..<Int.random(in: 0...6)).map { _ in "ab=r".randomElement()! })
            }
            let kept = items.filter { $0 != "role=backup" && $0 != "role=primary" }
            let parsed = OnAirRole.parse(query: items.joined(separator: "&"))
            #expect(parsed.rest == (kept.isEmpty ? nil : kept.joined(separator: "&")), "\(items)")
        }
    }
}
