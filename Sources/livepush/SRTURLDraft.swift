import ArgumentParser
import Config
import Output

/// A positional `srt://HOST:PORT?streamid=…&passphrase=…&pbkeylen=…&latency=…&mode=…&audio_codec=…` of
/// `livepush stream`, as the `srt:` output a user would write: the passphrase and stream ID go in
/// as `env:` references (never as text in --print-config), the other fields as keys, so the
/// config parser checks them with the same messages as in a file.
enum SRTURLDraft {
    static let passphraseVariable = "LIVEPUSH_SRT_PASSPHRASE"
    static let streamIDVariable = "LIVEPUSH_SRT_STREAMID"

    /// `index` numbers the variables of a second and later SRT URL (…_2, …_3); `backups` are
    /// `srt://HOST:PORT` ingests that take this URL's settings (`backup:`, with `backup_mode`).
    static func output(_ text: String, index: Int, timeout: String?, stallTimeout: String?, inUseRetry: String?, reconnect: ConfigDraft.Mapping, adaptiveBitrate: Bool,
                       backups: [String] = [], backupMode: String? = nil, into draft: inout ConfigDraft) throws -> ConfigDraft.Mapping {
        let url: SRTURL
        do { url = try SRTURL(text) } catch { throw ValidationError("\(URLRedaction.origin(of: text)): \(error)") }
        let suffix = index == 0 ? "" : "_\(index + 1)"
        var srt = ConfigDraft.Mapping()
        srt.set("url", "srt://\(url.host.contains(":") ? "[\(url.host)]" : url.host):\(url.port)")
        srt.set("mode", url.query["mode"])
        srt.set("streamid", url.query["streamid"].map { draft.secret($0, name: streamIDVariable + suffix) })
        srt.set("passphrase", url.query["passphrase"].map { draft.secret($0, name: passphraseVariable + suffix) })
        srt.set("pbkeylen", url.query["pbkeylen"])
        srt.set("latency", url.query["latency"])
        srt.set("audio_codec", url.query["audio_codec"])
        if adaptiveBitrate { srt.set("adaptive_bitrate", "true") }
        srt.set("timeout", timeout)
        srt.set("stall_timeout", stallTimeout)
        srt.set("in_use_retry", inUseRetry)
        srt.set("reconnect", reconnect)
        srt.set("backup", strings: backups)
        if !backups.isEmpty { srt.set("backup_mode", backupMode) }
        return .output("srt", srt)
    }
}
