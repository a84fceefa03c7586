import Testing

@Test func placeholderLLHLSPackagerTests() { #expect(Bool(true)) }
