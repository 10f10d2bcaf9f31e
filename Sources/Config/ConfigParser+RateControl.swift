import MediaCore

/// The encoder's rate-control and threading keys, in a camera's `encoder:` and in each rendition
/// (which inherits what it leaves out): `maxrate` (a bitrate, like `bitrate`), `bufsize` (bits
/// like a bitrate, `1M`, or a time, `0.5s`, meaning that much of the encode's bitrate), `tune`
/// (the encoder family's names, comma-separated, or `none`) and `threads` (0 = the encoder decides).
/// Values the encoder refuses (maxrate below the bitrate, a tune its family does not know, more
/// than 64 threads) are refused by ``checkEncoder(_:size:framesPerSecond:keys:fallback:)`` at their line.
extension ConfigParser {
    /// The keys, as `stream --rendition NAME=…,KEY=VALUE` takes them too.
    public static let rateControlKeys = ["maxrate", "bufsize", "tune", "threads"]

    /// The longest `bufsize` written as a time: more only delays a live stream.
    static let maximumBufferSeconds = 10.0

    func parseRateControlKeys(_ map: ConfigMapping, into encoder: inout EncoderConfig) throws(ConfigError) {
        if let maxrate = map["maxrate"] { encoder.maxBitrateBitsPerSecond = try Self.bitrate(maxrate) }
        if let bufsize = map["bufsize"] { encoder.bufferSize = try Self.bufferSize(bufsize) }
        if let tune = map["tune"] {
            let text = try tune.string()
            guard !text.isEmpty else { throw tune.error("write a tune such as zerolatency or film, or none for no tune") }
            encoder.tune = text == "none" ? nil : text
        }
        if let threads = map["threads"] {
            do { encoder.threads = try threads.int(in: 0...64) } catch {
                throw threads.error("'\((try? threads.string()) ?? "")' must be 0 (the encoder decides) … 64; on a Pi, 2 leaves a core for capture and outputs")
            }
        }
    }

    /// `1M`, `800k` (bits, with a unit as a bitrate takes) or `0.5s`, `2s` (that much of the bitrate).
    static func bufferSize(_ node: ConfigNode) throws(ConfigError) -> EncoderConfig.BufferSize {
        let text = try node.string()
        if text.hasSuffix("s"), !text.hasSuffix("ms"), let seconds = try? DurationParser.seconds(parsing: text), seconds <= maximumBufferSeconds {
            return .seconds(seconds)
        }
        if let unit = text.last, "kKmM".contains(unit), let bits = try? BitrateParser.bitsPerSecond(parsing: text) { return .bits(bits) }
        throw node.error("'\(text)' is not a buffer size; write bits like 1M or 800k, or a time like 0.5s (at most \(Int(maximumBufferSeconds))s)")
    }
}
