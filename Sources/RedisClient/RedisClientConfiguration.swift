import RedisWire

extension RedisClient {
    /// Where Redis is and how long the client waits for it.
    public struct Configuration: Sendable {
        /// The server, credentials and database.
        public var url: RedisURL
        /// Bound on TCP connect (AUTH and SELECT are commands, bound by `commandTimeout`).
        public var connectTimeout: Duration = .seconds(1)
        /// Bound on each command's reply; past it the connection closes and its pending commands fail.
        public var commandTimeout: Duration = .seconds(1)
        /// What one reply may claim (bulk length, array size, nesting).
        public var parserLimits = RESPParser.Limits()

        /// The defaults for `url`.
        public init(url: RedisURL) {
            self.url = url
        }
    }
}
