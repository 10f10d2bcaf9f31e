import Foundation
import Harness
import MediaCore
import Synchronization

/// One CSI camera of the stand-in `rpicam-vid` (Tests/TestSupport/StandIns/rpicam-vid), which
/// the tests put first on PATH: it speaks rpicam-vid's command line, logs the arguments it got,
/// plays the raw frames the test wrote, and crashes, hangs or sends a short frame on request.
///
/// PATH and `RPICAM_STANDIN_HOME` are set once for the whole test process (to the same values, so
/// tests running at once agree); each instance is a camera index of its own, so tests never share
/// a camera's frames, faults or argument log. Its directory goes away with it.
public final class RpicamStandIn: @unchecked Sendable {
    /// The camera index (`rpicam:N`, `--camera N`).
    public let index: Int
    public let directory: URL

    private static let nextIndex = Atomic(10)
    private static let home: Result<String, ExternalTool.Failure> = {
        let script = LivepushBinary.repository.appendingPathComponent("Tests/TestSupport/StandIns/rpicam-vid").path
        guard FileManager.default.fileExists(atPath: "/usr/bin/python3") else {
            return .failure(ExternalTool.Failure(description: "the rpicam-vid stand-in needs /usr/bin/python3: install python3"))
        }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-rpicam-standin-\(getpid())")
        let bin = home.appendingPathComponent("bin")
        do {
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(atPath: bin.appendingPathComponent("rpicam-vid").path)
            try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent("rpicam-vid").path, withDestinationPath: script)
        } catch {
            return .failure(ExternalTool.Failure(description: "cannot set up the rpicam-vid stand-in in \(home.path): \(error)"))
        }
        setenv("RPICAM_STANDIN_HOME", home.path, 1)
        setenv("PATH", bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), 1)
        return .success(home.path)
    }()

    /// A camera playing `frameCount` frames of `width`×`height` in a loop (``frames(width:height:count:)``).
    public init(width: Int, height: Int, frameCount: Int) throws {
        let frames = try Self.frames(width: width, height: height, count: frameCount)
        let home = try Self.home.get()
        index = Self.nextIndex.add(1, ordering: .relaxed).newValue
        directory = URL(fileURLWithPath: home).appendingPathComponent("camera-\(index)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("\(width) \(height)".utf8).write(to: directory.appendingPathComponent("size"))
        try Data(frames).write(to: directory.appendingPathComponent("frames"))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Frames numbered 1...count (burned-in ``FrameCode``; an all-zero code does not read back) on
    /// grey, laid out as rpicam-vid's yuv420 output (written here independently of livepush's
    /// reader): Y rows padded to a multiple of 64 bytes, U and V rows to half that, the padding
    /// holding junk (0xAA) so a reader that ignores the stride reads garbage codes.
    public static func frames(width: Int, height: Int, count: Int) throws -> [UInt8] {
        let lumaStride = (width + 63) / 64 * 64
        var bytes: [UInt8] = []
        let buffer = try I420Buffer(width: width, height: height)
        for number in 0..<count {
            buffer.fill(y: 100, u: 128, v: 128)
            try FrameCode(frameNumber: UInt32(number + 1), captureTimeNanos: UInt64(number + 1) * 33_333_333, wallClockMillis: 1).burn(into: buffer)
            let planes: [(UnsafeMutablePointer<UInt8>, Int, Int, Int, Int)] = [
                (buffer.dataY, buffer.strideY, width, height, lumaStride),
                (buffer.dataU, buffer.strideU, buffer.chromaWidth, buffer.chromaHeight, lumaStride / 2),
                (buffer.dataV, buffer.strideV, buffer.chromaWidth, buffer.chromaHeight, lumaStride / 2),
            ]
            for (data, stride, rowBytes, rows, outStride) in planes {
                for row in 0..<rows {
                    bytes += UnsafeBufferPointer(start: data + row * stride, count: rowBytes)
                    bytes += [UInt8](repeating: 0xAA, count: outStride - rowBytes)
                }
            }
        }
        return bytes
    }

    /// The places where `codes` (what came out, the stand-in looping 1...frameCount) are not in
    /// order: an unreadable code, or one that is not the previous plus one. A jump back to 1 is a
    /// restart of the stand-in and allowed `restarts` times. Unreadable codes before the first
    /// readable one are the no-signal cards shown while rpicam-vid starts, and are skipped.
    public static func outOfOrder(_ codes: [FrameCode?], frameCount: Int, restarts: Int) -> [Int] {
        var bad: [Int] = [], restartsLeft = restarts
        let first = codes.firstIndex { $0 != nil } ?? codes.count
        for (index, code) in codes.enumerated() where index >= first {
            guard let number = code.map({ Int($0.frameNumber) }) else { bad.append(index); continue }
            guard index > 0, let previous = codes[index - 1].map({ Int($0.frameNumber) }) else { continue }
            if number == previous % frameCount + 1 { continue }
            if number == 1, restartsLeft > 0 { restartsLeft -= 1; continue }
            bad.append(index)
        }
        return bad
    }

    /// Puts the stand-in first on PATH (once per process); throws naming what is missing.
    public static func install() throws { _ = try home.get() }

    /// The variables a livepush child process needs to find the stand-in.
    public static func environment() throws -> [String: String] {
        let home = try home.get()
        return ["RPICAM_STANDIN_HOME": home, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""]
    }

    public enum Fault: String, Sendable { case crash, hang, short }

    /// Makes the next start wait `seconds` before its first frame (a camera slow to start).
    public func delayStart(seconds: Double) throws {
        try Data(String(seconds).utf8).write(to: directory.appendingPathComponent("start-delay"))
    }

    /// Makes the running stand-in fail before its next frame (once).
    public func inject(_ fault: Fault) throws {
        try Data(fault.rawValue.utf8).write(to: directory.appendingPathComponent("fault"))
    }

    /// The argument lists of every start so far, oldest first.
    public var invocations: [[String]] {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("args"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String]
        }
    }

    /// Stand-in processes still running for this camera (found by their `--camera N` argument).
    public var runningProcesses: [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry), ProcessTree.isAlive(pid),
                  let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard arguments.contains(where: { $0.hasSuffix("/rpicam-vid") }),
                  let camera = arguments.firstIndex(of: "--camera"), camera + 1 < arguments.count,
                  arguments[camera + 1] == String(index) else { return nil }
            return pid
        }
    }
}
