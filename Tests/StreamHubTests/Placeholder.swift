import Testing

@Test func placeholderStreamHubTests() { #expect(Bool(true)) }
