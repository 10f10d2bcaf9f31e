import ArgumentParser
import MediaCore

/// `livepush sources`: what can feed the pipeline on this machine.
struct SourcesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sources", abstract: "List the video sources and the formats they take.")

    func run() async throws {
        print("testpattern        moving colour bars with a burned-in frame code; any size ≥ \(FrameCode.minimumWidth) px wide, any fps")
        print("testpattern:busy   the same with fresh grain every frame: an encoder spends its whole bitrate, as on a camera")
        print("file:PATH[?loop]   any video file FFmpeg can decode, paced at its frame rate, converted to I420")
        print("                   raw input formats converted through libyuv: \(PixelFormat.allCases.map(\.rawValue).joined(separator: ", "))")
    }
}
