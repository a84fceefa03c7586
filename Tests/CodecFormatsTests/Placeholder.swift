import Testing

@Test func placeholderCodecFormatsTests() { #expect(Bool(true)) }
