import Codec
import Foundation
import SRTP

/// The SDP (RFC 8866) file that describes a plain RTP/SRTP stream to receivers that cannot
/// negotiate: ffplay/ffmpeg (`-protocol_whitelist file,udp,rtp,srtp -i stream.sdp`), VLC, GStreamer's
/// `sdpdemux`, and by hand Janus's streaming plugin. A pure value: `text` is the file, byte for byte.
///
/// Choices, made for what those receivers accept:
/// - One `m=video` and, with audio, an `m=audio` Opus section two ports up (RFC 7587 §7:
///   `opus/48000/2` whatever the channel count), each with RTCP on its port + 1 (the RFC 3550
///   default the m-line implies, which ffmpeg and VLC follow; no `a=rtcp-mux`, which ffmpeg's SDP
///   reader does not honour).
/// - H.264 packetization-mode=1 with `profile-level-id` and `sprop-parameter-sets` from the encoder's
///   SPS/PPS (RFC 6184 §8.1), so a receiver that joins between key frames still knows the format.
/// - `RTP/AVP`, or `RTP/SAVP` with an RFC 4568 `a=crypto` line carrying base64(key ‖ salt) when SRTP is on.
/// - `a=rtcp-fb` announces what the sender answers (NACK, PLI, FIR); plain-AVP receivers ignore it.
public struct RTPSessionDescription: Sendable, Equatable {
    public struct Video: Sendable, Equatable {
        public var port: Int
        public var payloadType: UInt8
        public var ssrc: UInt32
        public var parameterSets: ParameterSets

        public init(port: Int, payloadType: UInt8 = 96, ssrc: UInt32, parameterSets: ParameterSets) {
            self.port = port
            self.payloadType = payloadType
            self.ssrc = ssrc
            self.parameterSets = parameterSets
        }
    }

    /// The Opus stream, when the stream has audio.
    public struct Audio: Sendable, Equatable {
        public var port: Int
        public var payloadType: UInt8
        public var ssrc: UInt32
        public var channels: Int

        public init(port: Int, payloadType: UInt8 = 97, ssrc: UInt32, channels: Int = 2) {
            self.port = port
            self.payloadType = payloadType
            self.ssrc = ssrc
            self.channels = channels
        }
    }

    /// Where receivers listen: the `c=` line (RTP is sent there).
    public var connectionAddress: String
    /// The `o=` session id: any number unique to this stream (RFC 8866 §5.2).
    public var sessionID: UInt64
    public var cname: String
    public var video: Video
    public var audio: Audio?
    public var keyingMaterial: SRTPKeyingMaterial?

    public init(connectionAddress: String, sessionID: UInt64, cname: String, video: Video, audio: Audio? = nil,
                keyingMaterial: SRTPKeyingMaterial? = nil) {
        self.connectionAddress = connectionAddress
        self.sessionID = sessionID
        self.cname = cname
        self.video = video
        self.audio = audio
        self.keyingMaterial = keyingMaterial
    }

    /// The SDP text, CRLF line endings (RFC 8866 §5).
    public var text: String {
        let addressType = connectionAddress.contains(":") ? "IP6" : "IP4"
        let profile = keyingMaterial == nil ? "RTP/AVP" : "RTP/SAVP"
        var lines = [
            "v=0",
            "o=- \(sessionID) 1 IN \(addressType) \(connectionAddress)",
            "s=livepush",
            "c=IN \(addressType) \(connectionAddress)",
            "t=0 0",
            "m=video \(video.port) \(profile) \(video.payloadType)",
            "a=rtpmap:\(video.payloadType) H264/90000",
            "a=fmtp:\(video.payloadType) \(Self.h264FormatParameters(video.parameterSets))",
            "a=rtcp-fb:\(video.payloadType) nack",
            "a=rtcp-fb:\(video.payloadType) nack pli",
            "a=rtcp-fb:\(video.payloadType) ccm fir",
            "a=ssrc:\(video.ssrc) cname:\(cname)",
        ]
        lines += mediaTail
        if let audio {
            lines += [
                "m=audio \(audio.port) \(profile) \(audio.payloadType)",
                "a=rtpmap:\(audio.payloadType) opus/48000/2",
                // RFC 7587 §6.1: what we send is stereo only when the source is.
                "a=fmtp:\(audio.payloadType) sprop-stereo=\(audio.channels == 2 ? 1 : 0)",
                "a=ssrc:\(audio.ssrc) cname:\(cname)",
            ]
            lines += mediaTail
        }
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// What ends each m-section: the SRTP key (the same for both streams; their SSRCs differ) and the direction.
    private var mediaTail: [String] {
        (keyingMaterial.map { ["a=crypto:1 \($0.profile.sdesName) inline:\($0.base64)"] } ?? []) + ["a=sendonly"]
    }

    /// RFC 6184 §8.1 `fmtp` parameters: packetization-mode=1, profile-level-id (the SPS's
    /// profile_idc, constraint flags and level_idc in hex) and sprop-parameter-sets (base64 SPS,PPS).
    static func h264FormatParameters(_ sets: ParameterSets) -> String {
        var parameters = ["packetization-mode=1"]
        if let sps = sets.sps.first, sps.count >= 4 {
            parameters.append("profile-level-id=" + sps[1...3].map { String(format: "%02x", $0) }.joined())
        }
        let all = sets.sps + sets.pps
        if !all.isEmpty {
            parameters.append("sprop-parameter-sets=" + all.map { Data($0).base64EncodedString() }.joined(separator: ","))
        }
        return parameters.joined(separator: ";")
    }
}
