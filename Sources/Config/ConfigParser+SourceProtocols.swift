import Capture
import LibAV

extension ConfigParser {
    /// `source_protocols: [file, https, tcp, tls]`: what libavformat may open for a `file:` source.
    /// Only for `file:` sources, and only protocols from ``InputWhitelist/protocols``: the default,
    /// `file` alone, is what keeps a file's contents from sending livepush to other files or URLs,
    /// so widening it is spelled out, one known protocol at a time.
    func parseSourceProtocols(_ node: ConfigNode, source: SourceSpec) throws(ConfigError) -> [String] {
        guard case .file = source else {
            throw node.error("source_protocols applies to a file: source only (this camera's source is \(source))")
        }
        var protocols: [String] = []
        for item in try node.sequence() {
            let name = try item.string().lowercased()
            guard InputWhitelist.protocols.contains(name) else {
                throw item.error("'\(name)' is not a protocol livepush lets a file source use; choose from \(InputWhitelist.protocols.joined(separator: ", "))")
            }
            if !protocols.contains(name) { protocols.append(name) }
        }
        guard !protocols.isEmpty else { throw node.error("source_protocols needs at least one protocol, e.g. [file]") }
        return protocols
    }
}
