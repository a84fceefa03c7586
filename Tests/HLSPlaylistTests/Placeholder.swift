import Testing

@Test func placeholderHLSPlaylistTests() { #expect(Bool(true)) }
