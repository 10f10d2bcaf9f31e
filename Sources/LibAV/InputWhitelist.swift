/// The demuxers a file source may use. A file is opened by what its bytes look like, not by its
/// name, and some demuxers open more than the file: concat (`ffconcat`) and image sequences read
/// other paths, HLS and DASH playlists fetch segments, `tee` and `data:` URLs open whatever they
/// name. So a file source gets the container its extension names, or, without a known extension,
/// any of the self-contained containers livepush plays; never a playlist or a list of files.
public enum InputWhitelist {
    /// Demuxer names by file extension (libavformat's names, as `ffmpeg -formats` lists them).
    static let byExtension: [String: String] = [
        "mp4": mov, "m4v": mov, "mov": mov, "3gp": mov,
        "mkv": "matroska,webm", "webm": "matroska,webm",
        "ts": "mpegts", "m2ts": "mpegts", "mts": "mpegts",
        "flv": "flv", "avi": "avi", "y4m": "yuv4mpegpipe", "ivf": "ivf", "obu": "obu",
        "h264": "h264", "264": "h264", "hevc": "hevc", "h265": "hevc", "265": "hevc",
        "mjpeg": "mjpeg", "mjpg": "mjpeg",
    ]
    private static let mov = "mov,mp4,m4a,3gp,3g2,mj2"

    /// The libavformat protocols a config may allow a file source beyond `file`
    /// (`source_protocols`), for a `file:` source that is a URL (`file:https://host/clip.mp4`).
    /// Nested protocols are checked too: `https` needs `tcp` and `tls` in the list as well.
    /// Left out on purpose: `concat`, `subfile`, `data`, `pipe` and `fd`, which read other
    /// files, inline data or descriptors rather than fetch one stream.
    public static let protocols = ["file", "http", "https", "tcp", "tls", "udp", "rtp", "rtsp", "rtmp", "rtmps", "srt", "crypto"]

    /// The `format_whitelist` for a path: its extension's demuxer, else every self-contained one above.
    public static func formats(forPath path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if let dot = name.lastIndex(of: "."), let formats = byExtension[name[name.index(after: dot)...].lowercased()] {
            return formats
        }
        var all: [String] = []
        for formats in byExtension.values.sorted() {
            for format in formats.split(separator: ",").map(String.init) where !all.contains(format) { all.append(format) }
        }
        return all.joined(separator: ",")
    }
}
