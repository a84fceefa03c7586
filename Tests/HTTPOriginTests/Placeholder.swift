import Testing

@Test func placeholderHTTPOriginTests() { #expect(Bool(true)) }
