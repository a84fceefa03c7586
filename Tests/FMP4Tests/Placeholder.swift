import Testing

@Test func placeholderFMP4Tests() { #expect(Bool(true)) }
