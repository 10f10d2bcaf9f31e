import Codec
import RTPOutput
import SRTP
import Testing

@Suite struct RTPSessionDescriptionTests {
    // SPS: NAL header 0x67, profile_idc 100 (High), constraint flags 0, level_idc 31, then the rest.
    static let sps: [UInt8] = [0x67, 0x64, 0x00, 0x1f, 0xac, 0xd9, 0x40, 0x50]
    static let pps: [UInt8] = [0x68, 0xeb, 0xe3, 0xcb, 0x22, 0xc0]

    static func description(keyingMaterial: SRTPKeyingMaterial? = nil) -> RTPSessionDescription {
        RTPSessionDescription(
            connectionAddress: "127.0.0.1", sessionID: 42, cname: "livepush-abc",
            video: .init(port: 5004, ssrc: 0x1234_5678, parameterSets: ParameterSets(codec: .h264, sps: [sps], pps: [pps])),
            keyingMaterial: keyingMaterial)
    }

    @Test func plainRTP() {
        #expect(Self.description().text == """
            v=0\r
            o=- 42 1 IN IP4 127.0.0.1\r
            s=livepush\r
            c=IN IP4 127.0.0.1\r
            t=0 0\r
            m=video 5004 RTP/AVP 96\r
            a=rtpmap:96 H264/90000\r
            a=fmtp:96 packetization-mode=1;profile-level-id=64001f;sprop-parameter-sets=Z2QAH6zZQFA=,aOvjyyLA\r
            a=rtcp-fb:96 nack\r
            a=rtcp-fb:96 nack pli\r
            a=rtcp-fb:96 ccm fir\r
            a=ssrc:305419896 cname:livepush-abc\r
            a=sendonly\r

            """)
    }

    /// RFC 4568: RTP/SAVP and the base64 of key ‖ salt, the form ffmpeg's SDP reader takes.
    @Test func srtpAddsTheCryptoLine() throws {
        let key = try SRTPKeyingMaterial(concatenated: Array(0..<30))
        let text = Self.description(keyingMaterial: key).text
        #expect(text.contains("m=video 5004 RTP/SAVP 96\r\n"))
        #expect(text.contains("a=ssrc:305419896 cname:livepush-abc\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd\r\na=sendonly\r\n"))
    }

    /// RFC 7587 §7: `opus/48000/2` whatever the channels (sprop-stereo says), two ports above the
    /// video, with its own SSRC line and, under SRTP, its own crypto line (the same key).
    @Test(arguments: [1, 2]) func audioIsASecondSection(channels: Int) throws {
        var description = Self.description(keyingMaterial: try SRTPKeyingMaterial(concatenated: Array(0..<30)))
        description.audio = .init(port: 5006, payloadType: 97, ssrc: 7, channels: channels)
        let text = description.text
        let video = "a=ssrc:305419896 cname:livepush-abc\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd\r\na=sendonly\r\n"
        #expect(text.hasSuffix(video + """
            m=audio 5006 RTP/SAVP 97\r
            a=rtpmap:97 opus/48000/2\r
            a=fmtp:97 sprop-stereo=\(channels == 2 ? 1 : 0)\r
            a=ssrc:7 cname:livepush-abc\r
            a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd\r
            a=sendonly\r

            """), "\(text)")
    }

    @Test func ipv6AndMissingParameterSets() {
        var description = Self.description()
        description.connectionAddress = "::1"
        description.video.parameterSets = ParameterSets(codec: .h264)
        let text = description.text
        #expect(text.contains("o=- 42 1 IN IP6 ::1\r\ns=livepush\r\nc=IN IP6 ::1\r\n"))
        #expect(text.contains("a=fmtp:96 packetization-mode=1\r\n"))
    }
}

@Suite struct RTPDestinationTests {
    @Test func parses() throws {
        let destination = try RTPDestination(url: "rtp://127.0.0.1:5004")
        #expect(destination.host == "127.0.0.1")
        #expect(destination.port == 5004)
        #expect(destination.rtcpPort == 5005)
        #expect(destination.description == "rtp://127.0.0.1:5004")
        #expect(try RTPDestination(url: "rtp://[::1]:6000").host == "::1")
        #expect(try RTPDestination(url: "rtp://[::1]:6000").description == "rtp://[::1]:6000")
    }

    @Test func rejects() {
        for url in ["http://127.0.0.1:5004", "rtp://127.0.0.1", "rtp://:5004", "rtp://127.0.0.1:65535", "127.0.0.1:5004"] {
            #expect(throws: RTPOutputError.self, "\(url)") { try RTPDestination(url: url) }
        }
    }
}
