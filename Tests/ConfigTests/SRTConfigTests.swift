import Config
import Output
import Testing

/// `srt:` outputs: the fields from the URL's query or from keys, secrets from env:/file:, and every
/// bad value a config error naming the line.
@Suite struct SRTConfigTests {
    let parser = ConfigParser(file: "livepush.yaml", environment: ["SRT_PASS": "correct horse battery"],
                              readFile: { ["/run/secrets/srt": "from-a-file-1234\n"][$0] })

    func settings(_ output: String) throws -> SRTSettings {
        let config = try parser.parse("cameras:\n  - id: a\n    outputs:\n      - srt: \(output)\n")
        guard case let .srt(settings)? = config.cameras.first?.outputs.first?.settings else {
            throw ConfigError(file: "", line: nil, key: "", message: "not an srt output")
        }
        return settings
    }

    @Test func readsTheQueryOfAnSRTURL() throws {
        let srt = try settings("{url: 'srt://ingest.example:9000?streamid=live/cam&passphrase=0123456789abc&pbkeylen=32&latency=250'}")
        #expect(srt.host == "ingest.example" && srt.port == 9000 && srt.mode == .caller)
        #expect(srt.streamID?.value == "live/cam" && srt.passphrase?.value == "0123456789abc")
        #expect(srt.keyLengthBytes == 32 && srt.latencyMilliseconds == 250)
    }

    @Test func readsKeysAndSecretsFromTheEnvironmentAndFiles() throws {
        let srt = try settings("{url: 'srt://:9000', mode: listener, passphrase: env:SRT_PASS, streamid: file:/run/secrets/srt, latency: 400}")
        #expect(srt.host.isEmpty && srt.mode == .listener && srt.latencyMilliseconds == 400)
        #expect(srt.passphrase == Secret(origin: "env:SRT_PASS", value: "correct horse battery"))
        #expect(srt.streamID?.value == "from-a-file-1234")
    }

    /// AAC unless `audio_codec: opus` (a key, or the URL's query as `livepush stream` takes it).
    @Test func theAudioCodecIsAACUnlessOpusIsAskedFor() throws {
        #expect(try settings("{url: 'srt://h:9000'}").audioCodec == .aac)
        #expect(try settings("{url: 'srt://h:9000', audio_codec: opus}").audioCodec == .opus)
        let fromURL = try settings("{url: 'srt://h:9000?audio_codec=opus'}")
        #expect(fromURL.audioCodec == .opus && fromURL.maskedURL == "srt://h:9000?audio_codec=opus")
        #expect(throws: ConfigError.self) { try settings("{url: 'srt://h:9000', audio_codec: mp3}") }
    }

    /// The passphrase and the stream ID never show in names and the API; the mode does.
    @Test func theTargetMasksThePassphraseAndStreamID() throws {
        let config = try parser.parse("cameras:\n  - id: a\n    outputs:\n      - srt: {url: 'srt://10.0.0.5:9000?mode=listener&passphrase=0123456789abc&streamid=publish:key77'}\n")
        let target = try #require(config.cameras.first?.outputs.first).maskedTarget
        #expect(target == "srt://10.0.0.5:9000?streamid=***&passphrase=***&mode=listener")
        #expect(URLRedaction.mask("srt://h:1?passphrase=0123456789abc&latency=200") == "srt://h:1?passphrase=***&latency=***")
    }

    /// A percent-escaped passphrase (it may hold & or =) is decoded.
    @Test func decodesPercentEscapes() throws {
        #expect(try SRTURL("srt://h:1?passphrase=a%26b%3Dc0123456").query["passphrase"] == "a&b=c0123456")
        #expect(throws: SRTURL.Failure.badPercentEncoding(key: "passphrase")) { try SRTURL("srt://h:1?passphrase=a%2") }
    }

    @Test(arguments: [
        ("{url: 'srt://h:9000?passphrase=short'}", "livepush.yaml:4: cameras[0].outputs[0].srt.url?passphrase: the SRT passphrase must be 10 to 79 characters (it has 5)"),
        ("{url: 'srt://h:9000', passphrase: '\(String(repeating: "x", count: 80))'}", "livepush.yaml:4: cameras[0].outputs[0].srt.passphrase: the SRT passphrase must be 10 to 79 characters (it has 80)"),
        ("{url: 'srt://h:9000?passphrase=0123456789&pbkeylen=20'}", "livepush.yaml:4: cameras[0].outputs[0].srt.url?pbkeylen: pbkeylen '20' must be 16, 24 or 32"),
        ("{url: 'srt://h:9000', pbkeylen: 24}", "livepush.yaml:4: cameras[0].outputs[0].srt.pbkeylen: pbkeylen sets the AES key length: it needs a passphrase"),
        ("{url: 'srt://h:9000?latency=5'}", "livepush.yaml:4: cameras[0].outputs[0].srt.url?latency: latency '5' must be whole milliseconds from 20 to 8000"),
        ("{url: 'srt://h:9000', latency: 200ms}", "livepush.yaml:4: cameras[0].outputs[0].srt.latency: latency '200ms' must be whole milliseconds"),
        ("{url: 'srt://h:9000?mode=rendezvous'}", "livepush.yaml:4: cameras[0].outputs[0].srt.url?mode: 'rendezvous' is not one of caller, listener"),
        ("{url: 'srt://h:9000?latency=200', latency: 300}", "livepush.yaml:4: cameras[0].outputs[0].srt.latency: 'latency' is given in the url too"),
        ("{url: 'srt://h:9000?maxbw=100'}", "livepush.yaml:4: cameras[0].outputs[0].srt.url: 'srt://h:9000/…' unknown query key 'maxbw'"),
        ("{url: 'srt://h'}", "livepush.yaml:4: cameras[0].outputs[0].srt.url: 'srt://h' needs a port"),
        ("{url: 'srt://:9000'}", "livepush.yaml:4: cameras[0].outputs[0].srt.url: a caller needs the receiver's host"),
        ("{url: 'rtmp://h:9000/app'}", "livepush.yaml:4: cameras[0].outputs[0].srt.url: 'rtmp://h:9000/…' must be srt://HOST:PORT"),
        ("{url: 'srt://h:9000', passphrase: env:NOPE}", "livepush.yaml:4: cameras[0].outputs[0].srt.passphrase: environment variable NOPE is not set"),
        ("{url: 'srt://h:9000', send_queue: 2s}", "livepush.yaml:4: cameras[0].outputs[0].srt.send_queue: unknown key 'send_queue'"),
    ])
    func badValuesNameTheLine(output: String, expected: String) {
        do {
            _ = try settings(output)
            Issue.record("accepted: \(output)")
        } catch {
            #expect("\(error)".hasPrefix(expected), "got: \(error)")
        }
    }

    /// A bad passphrase's message names its length, never the passphrase itself.
    @Test func aBadPassphraseIsNotPrinted() {
        #expect(throws: ConfigError.self) { try settings("{url: 'srt://h:9000?passphrase=sesame'}") }
        do { _ = try settings("{url: 'srt://h:9000?passphrase=sesame'}") } catch { #expect(!"\(error)".contains("sesame"), "\(error)") }
    }
}
