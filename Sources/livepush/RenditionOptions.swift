import ArgumentParser
import Config

/// `livepush stream --rendition NAME=WxH[@FPS][:BITRATE][,KEY=VALUE…]` (repeatable, top first): the
/// camera's encodes, each inheriting the encoder flags it does not set; the `KEY=VALUE` pairs are the
/// rate-control keys of its `renditions:` entry (`maxrate`, `bufsize`, `tune`, `threads`). An output takes the first unless
/// its target is prefixed `NAME=` with one of these names (`sd=rtmp://…`, `--record low=cam.mp4`).
struct RenditionOptions: ParsableArguments {
    @Option(name: .customLong("rendition"),
            help: "An encode of the capture, NAME=WxH[@FPS][:BITRATE][,KEY=VALUE…] with KEY maxrate, bufsize, tune or threads (e.g. sd=640x360@30:800k,bufsize=0.5s,threads=1; repeatable, highest bitrate first); it inherits the encoder flags it does not set. Send an output one of them by prefixing its URL or path with NAME= (sd=rtmp://…, --record sd=cam.mp4); unprefixed outputs take the first.")
    var renditions: [String] = []

    /// The names given, in order.
    var names: [String] { renditions.compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) } }

    /// The `renditions:` list of the camera, or nil without --rendition.
    func mappings() throws -> [ConfigDraft.Mapping] {
        try renditions.map { text in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("--rendition '\(text)': write NAME=WxH[@FPS][:BITRATE], e.g. sd=640x360@30:800k") }
            let fields = parts[1].split(separator: ",", omittingEmptySubsequences: false)
            var rest = fields[0]
            var bitrate: String?
            if let colon = rest.firstIndex(of: ":") { bitrate = String(rest[rest.index(after: colon)...]); rest = rest[..<colon] }
            var fps: String?
            if let at = rest.firstIndex(of: "@") { fps = String(rest[rest.index(after: at)...]); rest = rest[..<at] }
            guard !rest.isEmpty, bitrate?.isEmpty != true, fps?.isEmpty != true else {
                throw ValidationError("--rendition '\(text)': write NAME=WxH[@FPS][:BITRATE], e.g. sd=640x360@30:800k")
            }
            var rendition = ConfigDraft.Mapping()
            rendition.set("name", parts[0])
            rendition.set("size", String(rest))
            rendition.set("fps", fps)
            rendition.set("bitrate", bitrate)
            for field in fields.dropFirst() {
                let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2, ConfigParser.rateControlKeys.contains(pair[0]), !pair[1].isEmpty else {
                    throw ValidationError("--rendition '\(text)': '\(field)' must be KEY=VALUE with KEY one of \(ConfigParser.rateControlKeys.joined(separator: ", ")), e.g. sd=640x360:800k,bufsize=0.5s")
                }
                rendition.set(pair[0], pair[1])
            }
            return rendition
        }
    }

    /// An output's target without its `NAME=` prefix, and that rendition's name; a prefix that is not
    /// a --rendition name is part of the target.
    func split(_ target: String) -> (rendition: String?, target: String) {
        guard let equals = target.firstIndex(of: "="), names.contains(String(target[..<equals])) else { return (nil, target) }
        return (String(target[..<equals]), String(target[target.index(after: equals)...]))
    }
}
