import Testing
@testable import WHIPPublish

@Suite struct WHIPPublishErrorTests {
    @Test func errorsCarryTheEndpointTheyRefuse() {
        #expect(WHIPPublishError.badEndpoint("ftp://x") != WHIPPublishError.badEndpoint("http://y"))
    }
}
