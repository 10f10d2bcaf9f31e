import ArgumentParser
import Codec
import LibAV

/// `livepush encoders`: the video encoders this machine can actually open (each is opened and fed
/// one frame), so `--encoder` choices like h264_v4l2m2m on a Raspberry Pi are known to work.
struct EncodersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "encoders", abstract: "List the video encoders that work on this machine.")

    func run() async throws {
        FFmpegLogging.silent()
        let encoders = VideoEncoder.availableEncoders()
        if encoders.isEmpty { print("no usable video encoder: install libx264 (scripts/install-deps)") }
        for encoder in encoders {
            print("\(encoder.name)".padding(toLength: 16, withPad: " ", startingAt: 0) + "\(encoder.codec)".padding(toLength: 6, withPad: " ", startingAt: 0) + encoder.longName)
        }
        print("auto picks \(EncoderPick.automatic)")
    }
}
