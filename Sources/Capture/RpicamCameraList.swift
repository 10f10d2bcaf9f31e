import Foundation
import MediaCore

/// The CSI cameras `rpicam-vid --list-cameras` prints, parsed from its text (rpicam-apps'
/// core/options.cpp writes it; there is no machine-readable form):
///
/// ```
/// Available cameras
/// -----------------
/// 0 : imx708 [4608x2592 10-bit RGGB] (/base/soc/i2c0mux/i2c@1/imx708@1a)
///     Modes: 'SRGGB10_CSI2P' : 1536x864 [120.13 fps - (768, 432)/3072x1728 crop]
///                              2304x1296 [56.03 fps - (0, 0)/4608x2592 crop]
///            'SRGGB8' : 1536x864 [120.13 fps - (768, 432)/3072x1728 crop]
/// ```
///
/// or `No cameras available!`. Lines it does not recognise (warnings, libcamera's log) are skipped.
public struct RpicamCameraInfo: Sendable, Equatable, Codable {
    public struct Mode: Sendable, Equatable, Codable {
        /// The sensor's raw format (`SRGGB10_CSI2P`).
        public var pixelFormat: String
        public var size: VideoSize
        /// The mode's top rate, nil when rpicam printed `nan`.
        public var maximumFramesPerSecond: Double?
        /// The sensor area it reads (`(0, 0)/4608x2592`).
        public var crop: String
    }

    /// The index `rpicam:N` and `--camera N` take.
    public var index: Int
    /// The sensor (`imx708`, `imx477`, `ov5647`).
    public var model: String
    /// Size, bit depth and colour filter (`4608x2592 10-bit RGGB`).
    public var sensor: String
    /// libcamera's id (the device-tree path).
    public var id: String
    public var modes: [Mode]

    /// Parses the whole output of `--list-cameras`.
    public static func parse(listing text: String) -> [RpicamCameraInfo] {
        var cameras: [RpicamCameraInfo] = []
        var pixelFormat = ""
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if let camera = parseHeader(line) {
                cameras.append(camera)
                pixelFormat = ""
                continue
            }
            guard !cameras.isEmpty else { continue }
            var rest = Substring(line)
            if rest.hasPrefix("Modes:") { rest = rest.dropFirst("Modes:".count).drop(while: { $0 == " " }) }
            if rest.hasPrefix("'"), let close = rest.dropFirst().firstIndex(of: "'") {
                pixelFormat = String(rest[rest.index(after: rest.startIndex)..<close])
                rest = rest[rest.index(after: close)...].drop(while: { $0 == " " })
                guard rest.hasPrefix(":") else { continue }
                rest = rest.dropFirst().drop(while: { $0 == " " })
            }
            if let mode = parseMode(rest, pixelFormat: pixelFormat) { cameras[cameras.count - 1].modes.append(mode) }
        }
        return cameras
    }

    /// `0 : imx708 [4608x2592 10-bit RGGB] (/base/...)`
    static func parseHeader(_ line: String) -> RpicamCameraInfo? {
        guard let colon = line.range(of: " : "), let index = Int(line[..<colon.lowerBound]),
              let open = line.range(of: " ["), let close = line.range(of: "] (", options: .backwards),
              line.hasSuffix(")"), colon.upperBound <= open.lowerBound, open.upperBound <= close.lowerBound else { return nil }
        return RpicamCameraInfo(index: index, model: String(line[colon.upperBound..<open.lowerBound]),
                                sensor: String(line[open.upperBound..<close.lowerBound]),
                                id: String(line[close.upperBound..<line.index(before: line.endIndex)]), modes: [])
    }

    /// `1536x864 [120.13 fps - (768, 432)/3072x1728 crop]`
    static func parseMode(_ text: Substring, pixelFormat: String) -> Mode? {
        guard !pixelFormat.isEmpty, let open = text.firstIndex(of: "["), text.hasSuffix(" crop]"),
              let size = try? VideoSize(parsing: text[..<open].trimmingCharacters(in: .whitespaces)) else { return nil }
        let inside = text[text.index(after: open)..<text.index(text.endIndex, offsetBy: -" crop]".count)]
        guard let dash = inside.range(of: " fps - ") else { return nil }
        let fps = Double(inside[..<dash.lowerBound])
        return Mode(pixelFormat: pixelFormat, size: size, maximumFramesPerSecond: fps.flatMap { $0.isNaN ? nil : $0 },
                    crop: String(inside[dash.upperBound...]))
    }
}

/// Runs `rpicam-vid --list-cameras` (bounded in time) for `livepush devices`.
public enum RpicamDiscovery {
    /// The CSI cameras, or [] when rpicam-vid is not installed; an error when it failed.
    public static func cameras(timeoutSeconds: Double = 10) throws(CaptureError) -> [RpicamCameraInfo] {
        guard let executable = RpicamCommand.resolveExecutable() else { return [] }
        let child = try ChildProcess(executable: executable, arguments: ["--list-cameras"])
        defer { child.terminate(graceSeconds: 0) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = MonotonicClock.nowNanos() + Int64(timeoutSeconds * 1e9)
        var descriptor = pollfd(fd: child.stdoutFD, events: Int16(POLLIN), revents: 0)
        while MonotonicClock.nowNanos() < deadline {
            descriptor.revents = 0
            guard poll(&descriptor, 1, 100) >= 0 || errno == EINTR else { break }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(child.stdoutFD, $0.baseAddress, $0.count) }
            if count == 0 { return parse(output) }
            if count > 0 { output += chunk.prefix(count) }
        }
        throw .childProcessFailed(command: "\(executable) --list-cameras", reason: "did not finish within \(timeoutSeconds) s")
    }

    private static func parse(_ output: [UInt8]) -> [RpicamCameraInfo] {
        RpicamCameraInfo.parse(listing: String(decoding: output, as: UTF8.self))
    }
}
