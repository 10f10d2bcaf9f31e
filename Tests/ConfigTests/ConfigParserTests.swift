import Capture
import Config
import MediaCore
import Output
import Testing

/// The YAML config: every error names file, line and key; unknown keys fail; secrets resolve and mask.
@Suite struct ConfigParserTests {
    /// Tokens as `openssl rand -hex 16` makes them (the config refuses weaker ones).
    static let token = "2a06825b5fb068fd77ba996b8897bd44", viewerToken = "8d265e36ed96189e431f57b2290fcaf1"
    let parser = ConfigParser(file: "livepush.yaml", environment: ["YT_KEY": "abcd-efgh-1234", "TOKEN": Self.token, "WEAK": "s3cret"],
                              readFile: { ["/run/secrets/key": "from-file\n", "/run/secrets/viewer": "\(Self.viewerToken)\n", "/etc/livepush/ca.pem": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
                                           "/etc/livepush/notes.txt": "not a certificate\n"][$0] })

    static let full = """
    listen: 127.0.0.1:9090
    api_token: env:TOKEN
    audio:
      device: hw:1,0
      sample_rate: 48000
    cameras:
      - id: front
        source: testpattern
        size: 640x360
        fps: 25
        rotation: 90
        mirror: true
        controls:
          brightness: 140
        encoder:
          name: libx264
          bitrate: 1500k
          keyint: 1s
          preset: ultrafast
          profile: high
        outputs:
          - record: {path: /tmp/front.mp4, segment: 10m, retention: 7d}
          - rtmp: {preset: youtube, key: env:YT_KEY, adaptive_bitrate: true}
          - rtmp: {url: rtmp://127.0.0.1/live, key: file:/run/secrets/key, id: local}
          - rtp: {destination: 127.0.0.1:5004}
          - whep: {max_viewers: 4, adaptive_bitrate: true}
    """

    @Test func parsesEverySection() throws {
        let config = try parser.parse(Self.full)
        #expect(config.listen == ListenAddress(host: "127.0.0.1", port: 9090))
        #expect(config.apiToken?.value == Self.token)
        #expect(config.audio?.device == "hw:1,0")
        let camera = try #require(config.cameras.first)
        #expect(camera.id == "front" && camera.source == .testPattern && camera.size == VideoSize(width: 640, height: 360))
        #expect(camera.framesPerSecond == 25 && camera.rotation == .clockwise90 && camera.mirror && camera.controls == ["brightness": "140"])
        #expect(camera.encoder.bitrateBitsPerSecond == 1_500_000 && camera.encoder.keyframeIntervalSeconds == 1 && camera.encoder.preset == "ultrafast")
        #expect(camera.outputs.map(\.id) == ["record", "rtmp", "local", "rtp", "whep"])
        #expect(camera.outputs[0].settings == .record(path: "/tmp/front.mp4", segmentSeconds: 600, retentionSeconds: 7 * 86_400))
        guard case let .rtmp(url, key, preset) = camera.outputs[1].settings else { Issue.record("not rtmp"); return }
        #expect(url == "rtmps://a.rtmps.youtube.com/live2" && key?.value == "abcd-efgh-1234" && preset == .youtube)
        guard case let .rtmp(_, fileKey, _) = camera.outputs[2].settings else { Issue.record("not rtmp"); return }
        #expect(fileKey?.value == "from-file")
        #expect(camera.outputs.map(\.adaptiveBitrate) == [false, true, false, false, true])
    }

    @Test func secretsAreMasked() throws {
        let config = try parser.parse(Self.full)
        let camera = try #require(config.cameras.first)
        #expect(!"\(config.apiToken!)".contains(Self.token))
        #expect(!camera.outputs[1].maskedTarget.contains("abcd"))
        #expect(camera.outputs[1].maskedTarget == "rtmps://a.rtmps.youtube.com/live2/***")
    }

    /// A key written into the URL is masked however short it is (logs, /api/status, check-config).
    @Test(arguments: [("rtmp://127.0.0.1:1935/live/short1", "rtmp://127.0.0.1:1935/live/***"),
                      ("rtmp://h/app/inst/k?auth=x", "rtmp://h/app/inst/***?auth=***"),
                      ("rtmps://u:pw@h/live/k2", "rtmps://h/live/***")])
    func keysInRTMPURLsAreMasked(url: String, masked: String) throws {
        let config = try parser.parse("cameras:\n  - id: a\n    outputs:\n      - rtmp: {url: '\(url)'}\n")
        #expect(config.cameras[0].outputs[0].maskedTarget == masked)
    }

    /// (yaml, expected error text): each names the line and the key path.
    @Test(arguments: [
        ("cameras:\n  - id: a\n    encoder:\n      bitrate: 2500\n", "livepush.yaml:4: cameras[0].encoder.bitrate: '2500' needs a unit, e.g. 2500k"),
        ("cameras:\n  - id: a\n    encoder:\n      bitrat: 2500k\n", "livepush.yaml:4: cameras[0].encoder.bitrat: unknown key 'bitrat'; did you mean 'bitrate'?"),
        ("cameras:\n  - id: a\n    colour: red\n", "livepush.yaml:3: cameras[0].colour: unknown key 'colour'"),
        ("cameras:\n  - id: a\n    size: 1280\n", "livepush.yaml:3: cameras[0].size:"),
        ("cameras:\n  - id: a\n    fps: 1000\n", "livepush.yaml:3: cameras[0].fps: '1000' must be a number from 1.0 to 240.0"),
        ("cameras:\n  - id: a\n    rotation: 45\n", "cameras[0].rotation: '45' must be 0, 90, 180 or 270"),
        ("cameras:\n  - id: a\n  - id: a\n", "livepush.yaml:3: cameras[1].id: camera id 'a' is used twice"),
        ("cameras:\n  - id: a\n    outputs:\n      - rtmp: {url: http://x, key: k}\n", "livepush.yaml:4: cameras[0].outputs[0].rtmp.url: 'http://x' must start with rtmp:// or rtmps://"),
        // A URL with the wrong scheme shows only its origin: the stream key in its path stays out of the message.
        ("cameras:\n  - id: a\n    outputs:\n      - rtmp: {url: rmtp://a.rtmp.youtube.com/live2/kq2m-9xa1}\n", "livepush.yaml:4: cameras[0].outputs[0].rtmp.url: 'rmtp://a.rtmp.youtube.com/…' must start with rtmp:// or rtmps://"),
        ("cameras:\n  - id: a\n    outputs:\n      - rtmp: {url: kq2m-9xa1}\n", "livepush.yaml:4: cameras[0].outputs[0].rtmp.url: '…' must start with rtmp:// or rtmps://"),
        ("cameras:\n  - id: a\n    outputs:\n      - whip: {url: 'ftp://u:pw@h/whip?token=t0k'}\n", "livepush.yaml:4: cameras[0].outputs[0].whip.url: 'ftp://h/…' must be an http:// or https:// WHIP endpoint"),
        ("cameras:\n  - id: a\n    outputs:\n      - rtmp: {preset: youtube, key: env:MISSING}\n", "cameras[0].outputs[0].rtmp.key: environment variable MISSING is not set"),
        ("cameras:\n  - id: a\n    outputs:\n      - rtmp: {url: rtmps://x/live, ca_file: /etc/livepush/missing.pem}\n", "livepush.yaml:4: cameras[0].outputs[0].rtmp.ca_file: '/etc/livepush/missing.pem' is not a readable PEM file"),
        ("cameras:\n  - id: a\n    outputs:\n      - whip: {url: https://x/whip, ca_file: /etc/livepush/notes.txt}\n", "cameras[0].outputs[0].whip.ca_file: '/etc/livepush/notes.txt' is not a readable PEM file"),
        ("cameras:\n  - id: a\n    outputs:\n      - record: {path: a.mp4, ca_file: /etc/livepush/ca.pem}\n", "cameras[0].outputs[0].record.ca_file: unknown key 'ca_file'"),
        ("cameras:\n  - id: a\n    outputs:\n      - rtp: {destination: 127.0.0.1:5004, adaptive_bitrate: true}\n", "cameras[0].outputs[0].rtp.adaptive_bitrate: unknown key 'adaptive_bitrate'"),
        ("cameras:\n  - id: a\n    outputs:\n      - rtmp: {url: rtmp://x/live, adaptive_bitrate: sometimes}\n", "livepush.yaml:4: cameras[0].outputs[0].rtmp.adaptive_bitrate:"),
        ("cameras:\n  - id: a\n    outputs:\n      - ftp: {path: x}\n", "cameras[0].outputs[0].ftp: unknown key 'ftp'"),
        ("cameras:\n  - id: a\n    encoder: {keyint: 4s}\n    outputs:\n      - rtmp: {preset: twitch, key: k}\n", "livepush.yaml:3: cameras[0].encoder.keyint: preset twitch (output rtmp) needs a keyframe at least every 2 s"),
        ("cameras:\n  - id: a\n    encoder: {bitrate: 8M}\n    outputs:\n      - rtmp: {preset: twitch, key: k}\n", "cameras[0].encoder.bitrate: preset twitch accepts at most 6000k"),
        ("listen: nowhere\ncameras:\n  - id: a\n", "livepush.yaml:1: listen: 'nowhere' must be HOST:PORT"),
        ("cameras: [\n", "livepush.yaml:2: not valid YAML"),
        ("", "livepush.yaml: the file is empty"),
        ("cameras:\n  - id: 'a b'\n", "livepush.yaml:2: cameras[0].id: 'a b' must be 1–32 letters"),
        ("cameras:\n  - source: testpattern\n", "livepush.yaml:2: cameras[0]: missing required key 'id'"),
        ("cameras:\n  - id: a\n    outputs:\n      - rtmp: {url: rtmp://x/live, reconnect: {delay: 1s, retries: 3}}\n", "cameras[0].outputs[0].rtmp.reconnect.retries: unknown key 'retries'"),
        ("cameras:\n  - id: a\n    outputs:\n      - rtmp: {url: rtmp://x/live, timeout: soon}\n", "cameras[0].outputs[0].rtmp.timeout: 'soon' is not a duration"),
        ("cameras:\n  - id: a\n    outputs:\n      - whip: {url: https://x/whip, send_queue: 2s}\n", "cameras[0].outputs[0].whip.send_queue: unknown key 'send_queue'"),
        ("cameras:\n  - id: a\n    outputs:\n      - whep: {udp_port: 70000}\n", "cameras[0].outputs[0].whep.udp_port:"),
        ("cameras:\n  - id: a\n    outputs:\n      - rtp: {destination: 127.0.0.1:5004, srtp_key: regenerate}\n", "cameras[0].outputs[0].rtp.srtp_key: the SRTP key must be 30 bytes"),
        ("cameras:\n  - id: a\n    encoder: {preset: 14}\n", "cameras[0].encoder.preset:"),
        ("cameras:\n  - id: a\n    encoder: {bitrate: 1M}\n    outputs:\n      - whep: {adaptive_bitrate: true, min_bitrate: 2M}\n", "livepush.yaml:5: cameras[0].outputs: output whep: min_bitrate 2000k is above the camera's bitrate (1000k)"),
        ("allowed_hosts: ['camera.local:8080']\ncameras:\n  - id: a\n", "livepush.yaml:1: allowed_hosts[0]: 'camera.local:8080' must be a host name"),
        ("viewer_token: env:TOKEN\ncameras:\n  - id: a\n", "livepush.yaml:1: viewer_token: a viewer_token needs an api_token for the admin too"),
        ("api_token: env:TOKEN\nviewer_token: env:TOKEN\ncameras:\n  - id: a\n", "livepush.yaml:2: viewer_token: viewer_token must differ from api_token"),
        ("api_token: 1234\ncameras:\n  - id: a\n", "livepush.yaml:1: api_token: api_token is too easy to guess"),
        ("api_token: env:WEAK\ncameras:\n  - id: a\n", "(made by `openssl rand -hex 16`)"),
        ("api_token: admin-7c1e9f0b2d\ncameras:\n  - id: a\n", "about 97 bits of randomness, at least 128 needed"),
        ("api_token: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\ncameras:\n  - id: a\n", "api_token is too easy to guess"),
        ("api_token: env:TOKEN\nviewer_token: viewer\ncameras:\n  - id: a\n", "livepush.yaml:2: viewer_token: viewer_token is too easy to guess"),
        ("cameras:\n  - id: a\n    outputs:\n      - whep: {token: \"1234\"}\n", "livepush.yaml:4: cameras[0].outputs[0].whep.token: token is too easy to guess"),
        ("cameras:\n  - id: a\n    outputs:\n      - whep: {token: env:WEAK}\n", "(made by `openssl rand -hex 16`)"),
        ("cors_origins: ['https://player.example/']\ncameras:\n  - id: a\n", "livepush.yaml:1: cors_origins[0]: 'https://player.example/' must be an origin"),
        ("cors_origins: ['*']\ncameras:\n  - id: a\n", "cors_origins[0]: '*' must be an origin"),
        ("limits: {request_timeout: 0}\ncameras:\n  - id: a\n", "livepush.yaml:1: limits.request_timeout: '0' must be a number from 1.0 to 300.0"),
        ("limits: {max_conections: 5}\ncameras:\n  - id: a\n", "limits.max_conections: unknown key 'max_conections'; did you mean 'max_connections'?"),
        ("tls: {cert: /etc/livepush/ca.pem}\ncameras:\n  - id: a\n", "livepush.yaml:1: tls: missing required key 'key'"),
        ("tls: {cert: /etc/livepush/ca.pem, key: /etc/livepush/nokey.pem}\ncameras:\n  - id: a\n", "tls.key: cannot read /etc/livepush/nokey.pem"),
    ])
    func errorsNameFileLineAndKey(yaml: String, expected: String) {
        do {
            _ = try parser.parse(yaml)
            Issue.record("accepted: \(yaml)")
        } catch {
            #expect(error.description.hasPrefix(expected) || error.description.contains(expected), "got: \(error.description)")
        }
    }

    @Test func accessKeysAreRead() throws {
        let config = try parser.parse("""
        listen: 0.0.0.0:8443
        api_token: env:TOKEN
        viewer_token: file:/run/secrets/viewer
        cors_origins: [https://player.example, 'http://10.0.0.5:8000']
        limits: {max_connections: 64, request_timeout: 5, whep_viewers_per_address: 2, requests_per_minute: 12}
        tls: {cert: /etc/livepush/ca.pem, key: /etc/livepush/ca.pem}
        cameras:
          - id: a
        """)
        #expect(config.apiToken?.value == Self.token)
        #expect(config.viewerToken?.value == Self.viewerToken)
        #expect(config.viewerToken?.description.contains(Self.viewerToken) == false, "masked")
        #expect(config.corsOrigins == ["https://player.example", "http://10.0.0.5:8000"])
        #expect(config.limits.maximumConnections == 64 && config.limits.requestTimeoutSeconds == 5)
        #expect(config.limits.whepViewersPerAddress == 2 && config.limits.requestsPerMinutePerAddress == 12)
        #expect(config.tls == TLSFiles(certificatePath: "/etc/livepush/ca.pem", privateKeyPath: "/etc/livepush/ca.pem"))
        #expect(try parser.parse("cameras:\n  - id: a\n").limits == HTTPLimits(), "defaults")
    }

    /// rtmps:// and https:// WHIP outputs may trust a private CA besides the system store.
    @Test func tlsOutputsTakeACAFile() throws {
        let config = try parser.parse("""
        cameras:
          - id: a
            outputs:
              - rtmp: {url: rtmps://ingest.example/live, key: k, ca_file: /etc/livepush/ca.pem}
              - whip: {url: https://whip.example/whip/cam, ca_file: /etc/livepush/ca.pem}
              - rtmp: {url: rtmp://127.0.0.1/live, key: k}
        """)
        #expect(config.cameras[0].outputs.map(\.caFile) == ["/etc/livepush/ca.pem", "/etc/livepush/ca.pem", nil])
    }

    /// What `livepush stream`'s flags need: connection behaviour, the SDP file, WHEP's viewer side.
    @Test func outputsTakeConnectionAndViewerSettings() throws {
        let config = try parser.parse("""
        cameras:
          - id: a
            encoder: {preset: "8"}
            outputs:
              - rtmp: {url: rtmp://127.0.0.1/live, key: k, timeout: 5s, send_queue: 3s, reconnect: {delay: 2s, max_delay: 1m, attempts: 4}}
              - whip: {url: https://whip.example/whip, timeout: 7s, consent_timeout: 20s, stall_timeout: 3s}
              - rtp: {destination: 127.0.0.1:5004, srtp_key: generate, sdp_file: /tmp/cam.sdp}
              - whep: {udp_port: 40000, token: env:TOKEN, adaptive_bitrate: true, min_bitrate: 400k}
        """)
        let outputs = config.cameras[0].outputs
        #expect(config.cameras[0].encoder.preset == "8")
        #expect(outputs[0].connection == ConnectionConfig(timeoutSeconds: 5, reconnect: ReconnectPolicy(initialDelaySeconds: 2, maximumDelaySeconds: 60, maximumAttempts: 4),
                                                          sendQueueSeconds: 3))
        var whipConnection = ConnectionConfig(timeoutSeconds: 7, consentTimeoutSeconds: 20)
        whipConnection.stallTimeoutSeconds = 3
        #expect(outputs[1].connection == whipConnection)
        #expect(outputs[2].sdpFile == "/tmp/cam.sdp")
        guard case let .rtp(_, _, _, key) = outputs[2].settings else { Issue.record("not rtp"); return }
        #expect(key?.value == ConfigParser.generatedSRTPKey)
        #expect(outputs[3].viewers == WHEPViewerConfig(udpPort: 40000, token: Secret(origin: "env:TOKEN", value: Self.token), minimumBitrateBitsPerSecond: 400_000))
        #expect(outputs[1].viewers == WHEPViewerConfig(), "whip's token is its own, not a viewer token")
    }

    /// `in_use_retry` on an rtmp or srt output: a duration, or `off` (0: the backoff alone); left out, the output's default.
    @Test(arguments: ["rtmp: {url: rtmp://127.0.0.1/live, key: k", "srt: {url: 'srt://127.0.0.1:9000'"])
    func takesTheKeyInUseRetryWindow(output: String) throws {
        let yaml = { (value: String) in "cameras:\n  - id: a\n    outputs:\n      - \(output)\(value)}\n" }
        #expect(try parser.parse(yaml(", in_use_retry: 20s")).cameras[0].outputs[0].connection.inUseRetrySeconds == 20)
        #expect(try parser.parse(yaml(", in_use_retry: off")).cameras[0].outputs[0].connection.inUseRetrySeconds == 0)
        #expect(try parser.parse(yaml("")).cameras[0].outputs[0].connection.inUseRetrySeconds == nil)
        #expect(throws: ConfigError.self) { try parser.parse(yaml(", in_use_retry: soon")) }
    }

    /// `backup:` on an rtmp output: RTMP(S) URLs in order, checked like `url`; `backup_return_after` a duration.
    @Test func rtmpTakesBackupIngests() throws {
        let yaml = { (value: String) in "cameras:\n  - id: a\n    outputs:\n      - rtmp: {url: rtmp://127.0.0.1/live, key: k\(value)}\n" }
        let connection = try parser.parse(yaml(", backup: [rtmp://b.example/live, 'rtmps://c.example/live/own'], backup_return_after: 20s"))
            .cameras[0].outputs[0].connection
        #expect(connection.backupURLs == ["rtmp://b.example/live", "rtmps://c.example/live/own"])
        #expect(connection.backupReturnAfterSeconds == 20)
        #expect(try parser.parse(yaml("")).cameras[0].outputs[0].connection.backupURLs.isEmpty)
        #expect(throws: ConfigError.self) { try parser.parse(yaml(", backup: [http://b.example/live]")) }
        #expect(throws: ConfigError.self) { try parser.parse(yaml(", backup: rtmp://b.example/live")) }
    }

    /// A whep output's viewer token is held to the rule `--whep-token` and `api_token` are
    /// (``TokenStrength``): a guessable one is refused, naming the key and how to make a good one.
    @Test func whepTokenMustBeStrong() throws {
        let yaml = { (token: String) in "cameras:\n  - id: a\n    outputs:\n      - whep: {token: \"\(token)\"}\n" }
        let error = #expect(throws: ConfigError.self) { try parser.parse(yaml("1234")) }
        let message = error?.description ?? ""
        #expect(message.contains("livepush.yaml:4: cameras[0].outputs[0].whep.token: token is too easy to guess"), "got: \(message)")
        #expect(message.contains("(made by `openssl rand -hex 16`)"), "got: \(message)")
        let config = try parser.parse(yaml(Self.viewerToken))
        #expect(config.cameras[0].outputs[0].viewers.token?.value == Self.viewerToken)
    }

    @Test func presetFillsKeyintWhenNotGiven() throws {
        let config = try parser.parse("cameras:\n  - id: a\n    encoder: {bitrate: 3M}\n    outputs:\n      - rtmp: {preset: youtube, key: env:YT_KEY}\n")
        #expect(config.cameras[0].encoder.keyframeIntervalSeconds <= 2)
        #expect(config.cameras[0].encoder.profile == .high)
    }

    @Test func listenAddresses() {
        #expect(ListenAddress(parsing: ":8080") == ListenAddress(host: "0.0.0.0", port: 8080))
        #expect(ListenAddress(parsing: "[::1]:80")?.isAllInterfacesOrPublic == false)
        #expect(ListenAddress(parsing: "0.0.0.0:80")?.isAllInterfacesOrPublic == true)
        #expect(ListenAddress(parsing: "127.0.0.1:99999") == nil)
    }
}
