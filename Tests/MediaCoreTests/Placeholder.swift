import Testing

@Test func placeholderMediaCoreTests() { #expect(Bool(true)) }
