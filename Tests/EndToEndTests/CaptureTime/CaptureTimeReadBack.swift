import Foundation
import Harness
import MediaCore
import Testing
import TestSupport

/// Reads the capture-time SEI (docs/capture-time.md) back from a received stream with FFmpeg's own
/// parsers, and checks it against the frame codes the test pattern burned into the same pictures.
enum CaptureTimeReadBack {
    /// Our UUID as docs/capture-time.md gives it, written out here so the check does not borrow the sender's constant.
    static let uuid: [UInt8] = [0xA0, 0x31, 0x19, 0xB8, 0x5F, 0x6B, 0x48, 0x17, 0xBA, 0x4B, 0xA9, 0x57, 0xC3, 0xAC, 0xF2, 0xBB]
    static let sideDataType = "H.26[45] User Data Unregistered SEI message"

    /// Per decoded video frame of `path`, in presentation order: its pts and how many user-data-unregistered
    /// SEI messages ffprobe's `-show_frames` lists for it.
    static func probedFrames(_ path: String) throws -> [(pts: Int, userDataMessages: Int)] {
        let json = try FFmpegCLI.probe(path, extra: ["-select_streams", "v:0", "-show_frames",
                                                     "-show_entries", "frame=pts:frame_side_data=side_data_type"])
        return (json["frames"] as? [[String: Any]] ?? []).map { frame in
            let sideData = frame["side_data_list"] as? [[String: Any]] ?? []
            return (frame["pts"] as? Int ?? -1, sideData.filter { $0["side_data_type"] as? String == sideDataType }.count)
        }
    }

    /// The capture time (Unix nanoseconds) in our SEI of each video packet of `path`, by pts, as FFmpeg's
    /// `trace_headers` bitstream filter (its own H.264/H.265 syntax parser) prints the SEI's fields.
    static func seiTimes(_ path: String) throws -> [Int: Int64] {
        let trace = try ExternalTool.run("ffmpeg", ["-hide_banner", "-nostdin", "-nostats", "-copyts", "-i", path, "-map", "0:v", "-c", "copy",
                                                    "-bsf:v", "trace_headers", "-f", "null", "-"], timeoutSeconds: 60).errorOutput
        var times: [Int: Int64] = [:]
        var pts: Int?
        var messageUUID: [UInt8] = []
        var payload: [UInt8] = []
        for line in trace.split(separator: "\n") {
            if let packet = line.firstMatch(of: /Packet: .* pts (-?\d+),/) {
                pts = Int(packet.1)
            } else if let field = line.firstMatch(of: /(uuid_iso_iec_11578|user_data_payload_byte)\[(\d+)\]\s+[01]+ = (\d+)$/),
                      let index = Int(field.2), let value = UInt8(field.3) {
                if field.1 == "uuid_iso_iec_11578" {
                    if index == 0 { messageUUID = []; payload = [] }
                    messageUUID.append(value)
                } else {
                    payload.append(value)
                    if index == 7, messageUUID == uuid, let pts { times[pts] = unixNanos(ntp: payload) }
                }
            }
        }
        return times
    }

    /// NTP (32.32 since 1900, big-endian) to Unix nanoseconds.
    static func unixNanos(ntp bytes: [UInt8]) -> Int64 {
        let ntp = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let seconds = Int64(ntp >> 32) - 2_208_988_800
        return seconds * 1_000_000_000 + Int64(((ntp & 0xFFFF_FFFF) * 1_000_000_000) >> 32)
    }

    /// Every decoded frame of `path` shows our SEI in ffprobe, and the capture time in it matches the
    /// frame code's: on the wall clock within 1 ms (the code keeps whole milliseconds), and frame to frame
    /// on the capture clock within a microsecond. Returns how many frames were compared.
    @discardableResult
    static func expectCaptureTimesMatchFrameCodes(_ path: String, width: Int, height: Int, minimumFrames: Int,
                                                  sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let frames = try probedFrames(path)
        let times = try seiTimes(path)
        let codes = try FrameCodeReadBack.codes(of: path, width: width, height: height)
        #expect(frames.count >= minimumFrames && codes.count == frames.count,
                "\(frames.count) frames probed, \(codes.count) decoded", sourceLocation: sourceLocation)
        #expect(frames.allSatisfy { $0.userDataMessages >= 1 }, "ffprobe shows the SEI on every frame: \(frames.prefix(5))…",
                sourceLocation: sourceLocation)
        var compared: [(sei: Int64, code: FrameCode)] = []
        // A receiver that joined mid-stream (RTP) decodes a few pictures before the first key frame into
        // concealment whose code does not read: those are skipped, every other frame is compared.
        for (frame, code) in zip(frames, codes) {
            guard let code else { continue }
            guard let sei = times[frame.pts] else {
                Issue.record("frame \(code.frameNumber) (pts \(frame.pts)) has no capture-time SEI", sourceLocation: sourceLocation)
                continue
            }
            let offset = sei - Int64(code.wallClockMillis) * 1_000_000
            #expect(abs(offset) < 1_000_000, "frame \(code.frameNumber): SEI \(sei) ns vs code \(code.wallClockMillis) ms", sourceLocation: sourceLocation)
            compared.append((sei, code))
        }
        if let first = compared.first {
            let worst = compared.map { abs(($0.sei - first.sei) - Int64(bitPattern: $0.code.captureTimeNanos &- first.code.captureTimeNanos)) }.max() ?? 0
            #expect(worst < 1_000, "SEI steps differ from the capture clock's by up to \(worst) ns", sourceLocation: sourceLocation)
        }
        #expect(compared.count >= minimumFrames, "\(compared.count) frames compared", sourceLocation: sourceLocation)
        return compared.count
    }
}
