// vault hooks: the agent protocol's frame decoder, reachable for fuzzing (Spec/agent.md, section 3).

import VaultIO

/// The agent's frame codec for the libFuzzer target in `Fuzz/`.
public enum AgentFrames {
    /// The body length a 4-byte prefix announces, or nil when the prefix is refused.
    public static func bodyCount(prefix: [UInt8]) -> Int? { try? AgentMessage.bodyCount(prefix: prefix) }

    /// Decodes `body` and encodes the message again; nil when the body is refused.
    public static func reencode(body: [UInt8]) -> [UInt8]? {
        guard let message = try? AgentMessage.decode(body: body) else { return nil }
        return message.encodeBody()
    }
}
