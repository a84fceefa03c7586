import Testing

@Test func placeholderRTMPWireTests() { #expect(Bool(true)) }
