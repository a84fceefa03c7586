import Testing

@Test func placeholderSluiceAppTests() { #expect(Bool(true)) }
