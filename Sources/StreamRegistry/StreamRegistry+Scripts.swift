/// Ownership-checked writes as Lua scripts (https://redis.io/docs/latest/develop/interact/programmability/eval-intro/):
/// a script runs atomically, so no other node's registration can slip in between the check and the write.
extension StreamRegistry {
    /// KEYS[1] entry, KEYS[2] position, ARGV[1] this node, ARGV[2] TTL in ms, ARGV[3] the stream's position ('' for
    /// none), ARGV[4] its TTL in ms: renews the TTL (`SET … PX ttl XX`) and records the position only if the entry is
    /// this node's. Answers 1 (renewed), nil (gone) or the other holder's node URL.
    static let refreshScript = """
        local holder = redis.call('GET', KEYS[1])
        if holder == ARGV[1] then
            redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'XX')
            if ARGV[3] ~= '' then
                redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
            end
            return 1
        end
        return holder
        """

    /// KEYS[1] entry, ARGV[1] this node: deletes the entry only if it is this node's. Answers 1 (deleted) or 0.
    static let releaseScript = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then
            return redis.call('DEL', KEYS[1])
        end
        return 0
        """
}
