import Testing

@Test func placeholderRTMPIngestTests() { #expect(Bool(true)) }
