import ArgumentParser
import Foundation

/// `livepush stream --whip URL`: publish to WebRTC servers over WHIP (RFC 9725). The bearer token
/// can stay out of process listings (--bearer-file, LIVEPUSH_WHIP_TOKEN); logs never show it.
struct WHIPOptions: ParsableArguments {
    static let tokenEnvironmentVariable = "LIVEPUSH_WHIP_TOKEN"

    @Option(help: "Publish over WebRTC to this WHIP endpoint, e.g. https://server/whip/cam0 (repeat for several).")
    var whip: [String] = []

    @Option(help: "Bearer token for --whip. Prefer --bearer-file or \(tokenEnvironmentVariable): they stay out of process listings.")
    var bearer: String?

    @Option(help: "Read the --whip bearer token from this file.")
    var bearerFile: String?

    @Option(help: "PEM file of CA certificates to trust for https --whip endpoints besides the system trust store.")
    var whipCA: String?

    @Option(help: "With --whip: how long ICE consent checks may go unanswered before the session is restarted or replaced (default 10s).")
    var whipConsentTimeout: String?

    @Option(help: "With --whip: replace a session whose server's RTCP receiver reports acknowledged no video for this long while it was sent (default 5s).")
    var whipStallTimeout: String?

    @Option(help: "With --whip: how long each HTTP request, and ICE + DTLS after the answer, may take (default 10s for a request, 15s for ICE + DTLS).")
    var whipTimeout: String?

    /// One `whip:` output per URL; `reconnect` is the backoff between dead sessions (shared with RTMP's options).
    func outputs(reconnect: ConfigDraft.Mapping, into draft: inout ConfigDraft) throws -> [ConfigDraft.Mapping] {
        guard !whip.isEmpty else { return [] }
        if let whipCA, !FileManager.default.isReadableFile(atPath: whipCA) {
            throw ValidationError("--whip-ca \(whipCA): no readable file there; give a PEM file of CA certificates")
        }
        let token = try tokenReference(into: &draft)
        return whip.map { url in
            var mapping = ConfigDraft.Mapping()
            mapping.set("url", url)
            mapping.set("token", token)
            mapping.set("ca_file", whipCA)
            mapping.set("timeout", whipTimeout)
            mapping.set("consent_timeout", whipConsentTimeout)
            mapping.set("stall_timeout", whipStallTimeout)
            mapping.set("reconnect", reconnect)
            return .output("whip", mapping)
        }
    }

    /// The token as a secret reference: the file itself, or the environment variable.
    private func tokenReference(into draft: inout ConfigDraft) throws -> String? {
        if let bearerFile {
            guard let contents = try? String(contentsOfFile: bearerFile, encoding: .utf8) else {
                throw ValidationError("--bearer-file \(bearerFile): cannot read it")
            }
            guard !contents.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ValidationError("--bearer-file \(bearerFile) is empty") }
            return "file:\(bearerFile)"
        }
        guard let token = bearer ?? ProcessInfo.processInfo.environment[Self.tokenEnvironmentVariable], !token.isEmpty else { return nil }
        return draft.secret(token, name: Self.tokenEnvironmentVariable)
    }
}
