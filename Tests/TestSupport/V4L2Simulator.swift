import Foundation
import Harness

/// scripts/v4l2sim built into a temporary directory, and the environment that preloads it into a
/// process the test starts (LD_PRELOAD must be set before a process starts): simulated cameras
/// (`/dev/video-sim0` by default) and, when asked, simulated M2M H.264 encoders. Its logs say what
/// the process did to the nodes; its fault file (rewritten at any time) makes them misbehave.
public final class V4L2Simulator {
    public let directory: TemporaryDirectory
    /// `NODE open`, `NODE streamon …`, `NODE ctrl …`, `NODE frame seq=N idr=0|1 sps=0|1 bytes=N` (LIVEPUSH_SIM_ENC_LOG).
    public let encoderLog: String
    /// `NODE open` and `NODE close` for every node, camera or encoder (LIVEPUSH_SIM_LOG).
    public let nodeLog: String
    /// The fault file (LIVEPUSH_SIM_FAULTS), empty to start with: see ``setFaults(_:)``.
    public let faults: String
    public let encoders: [String]

    /// Builds the library (bounded); `encoders` are the M2M encoder nodes to simulate.
    public init(encoders: [String] = []) throws {
        directory = try TemporaryDirectory()
        encoderLog = directory.file("enc.log")
        nodeLog = directory.file("nodes.log")
        faults = directory.file("faults")
        self.encoders = encoders
        try "".write(toFile: faults, atomically: true, encoding: .utf8)
        try ExternalTool.run("make", ["-s", "-C", LivepushBinary.repository.appendingPathComponent("scripts/v4l2sim").path,
                                      "OUT=\(directory.path)"], timeoutSeconds: 120)
    }

    public var environment: [String: String] {
        var environment = ["LD_PRELOAD": directory.file("libv4l2sim.so"), "LIVEPUSH_SIM_ENC_LOG": encoderLog,
                           "LIVEPUSH_SIM_LOG": nodeLog, "LIVEPUSH_SIM_FAULTS": faults]
        if !encoders.isEmpty { environment["LIVEPUSH_SIM_ENCODERS"] = encoders.joined(separator: ",") }
        return environment
    }

    /// One fault per line (`NODE wedge`, `NODE stall`, `NODE unplug`…); an empty list ends them all.
    public func setFaults(_ lines: [String]) throws {
        try lines.map { $0 + "\n" }.joined().write(toFile: faults, atomically: true, encoding: .utf8)
    }

    /// The encoder log's lines that contain `event`.
    public func lines(_ event: String) -> [Substring] { Self.lines(of: encoderLog, containing: event) }

    /// The node log's lines that contain `event` (e.g. "/dev/video-sim0 open").
    public func nodeEvents(_ event: String) -> [Substring] { Self.lines(of: nodeLog, containing: event) }

    /// Opens of `node` minus its closes: how many descriptors of it the process holds now.
    public func openCount(_ node: String) -> Int { nodeEvents("\(node) open").count - nodeEvents("\(node) close").count }

    private static func lines(of path: String, containing event: String) -> [Substring] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains(event) }
    }
}
