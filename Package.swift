// swift-tools-version:6.0
import PackageDescription

/// livepush: camera → encoder → RTMP / RTP / WebRTC / recording.
/// One module per concern; thin C-interop modules (module map + shim header) wrap system libraries.
let package = Package(
    name: "livepush",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "livepush", targets: ["livepush"]),
        .executable(name: "livepush-bench", targets: ["livepush-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // MARK: C interop (system libraries from Debian)
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavcodec",
            providers: [.apt(["libavcodec-dev", "libavformat-dev", "libavutil-dev", "libswscale-dev"])]
        ),
        // libavformat opened on first use (recording, file source), not linked: see its header.
        .target(name: "CFFmpegFormat"),
        .systemLibrary(name: "CYUV", providers: [.apt(["libyuv-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CV4L2", providers: [.apt(["linux-libc-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "CSRT", pkgConfig: "srt", providers: [.apt(["libsrt-gnutls-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CProcess"),
        // The loader's lock around a look at the loaded objects (dl_iterate_phdr needs _GNU_SOURCE in its own C file).
        .target(name: "CLoadedObjects"),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        // Process-wide memory housekeeping for the long-running commands.
        .target(name: "ProcessFootprint", dependencies: ["CProcess", "CLoadedObjects", .product(name: "Logging", package: "swift-log")]),

        // MARK: Media core and libraries (frames, capture, encoders, burned-in text)
        .target(name: "MediaCore", dependencies: ["CYUV", "CProcess"]),
        .target(name: "LibAV", dependencies: ["CFFmpeg", "CFFmpegFormat", "CYUV", "MediaCore"]),
        .target(
            name: "Capture",
            dependencies: ["MediaCore", "LibAV", "CFFmpeg", "CV4L2", "CYUV", "CALSA", "CProcess", .product(name: "Logging", package: "swift-log")]
        ),
        .target(name: "Codec", dependencies: ["MediaCore", "LibAV", "CFFmpeg", "CV4L2"]),
        // Text and clock burned into frames before encoding (FreeType glyphs, libyuv blending).
        .target(name: "Overlay", dependencies: ["MediaCore", "CFreeType", "CYUV"]),

        // MARK: Pure protocol codecs (bytes ⇄ values, no I/O)
        .target(name: "RTMP", dependencies: [.product(name: "NIOCore", package: "swift-nio")]),
        .target(name: "RTP", dependencies: ["MediaCore", .product(name: "NIOCore", package: "swift-nio")]),
        .target(name: "SRTP", dependencies: ["CSRTP", .product(name: "NIOCore", package: "swift-nio")]),
        // Send-side bandwidth estimation (Google Congestion Control): values in, estimate out, no I/O.
        .target(name: "CongestionControl"),
        .target(name: "DTLS", dependencies: ["COpenSSL"]),
        // SDP carries DTLS's fingerprint type (`a=fingerprint`, RFC 8122).
        .target(name: "WebRTC", dependencies: ["COpenSSL", "DTLS", .product(name: "NIOCore", package: "swift-nio")]),

        // MARK: The output contract: what a sender needs to be one of a camera's outputs, without the
        // camera graph (StreamOutput and its status, delivery health and report, the reconnect and
        // redirect policies, URL redaction, the key-frame and socket-backlog gates, adaptive bitrate).
        .target(name: "Output", dependencies: ["Codec", "MediaCore", .product(name: "Logging", package: "swift-log")]),

        // MARK: Senders and the recording: each depends on Output, never on Pipeline
        .target(
            name: "Recording",
            dependencies: ["Codec", "MediaCore", "Output", "CFFmpeg", "CFFmpegFormat", .product(name: "Logging", package: "swift-log")]
        ),
        // RTMP publishing: the NIO channel layer (TCP/TLS, handshake, session) and the stream output.
        .target(
            name: "RTMPClient",
            dependencies: [
                "RTMP", "Codec", "Output", "MediaCore",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "RTPOutput",
            dependencies: [
                "RTP", "SRTP", "Codec", "Output", "MediaCore", "CongestionControl",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // MPEG-TS over SRT: libsrt on the output's own thread, libavformat's mpegts muxer, and the
        // adaptive bitrate controller it shares with RTMP (in Output).
        .target(
            name: "SRTOutput",
            dependencies: ["CSRT", "CFFmpeg", "CFFmpegFormat", "LibAV", "Codec", "Output", "MediaCore", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "WebRTCTransport",
            dependencies: [
                "DTLS", "WebRTC", "SRTP", "RTP", "RTPOutput", "Codec", "MediaCore", "Output", "CongestionControl",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                // The WHIP client's HTTP(S) requests.
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: The camera graph (capture → shared encode → the outputs), one config model, one
        // engine (config → running cameras), the HTTP front end
        .target(
            name: "Pipeline",
            dependencies: ["Capture", "Codec", "Output", "MediaCore", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "Config",
            dependencies: ["Capture", "Codec", "Output", "MediaCore", "Overlay", "LibAV", .product(name: "Yams", package: "Yams")]
        ),
        // Turns a config into running cameras for `stream` and `serve` alike: capture → resilient
        // source → encode → every output kind, status, metrics, the watchdog and reload.
        .target(
            name: "Engine",
            dependencies: [
                "Config", "Pipeline", "Output", "Capture", "Codec", "Recording", "MediaCore", "LibAV", "Overlay",
                "RTMP", "RTMPClient", "RTPOutput", "SRTP", "SRTOutput", "WebRTCTransport",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Server",
            dependencies: [
                "Engine", "Config", "Capture", "MediaCore", "WebRTCTransport", "Overlay",
                // TokenDigest: access tokens compared by SHA-256 digest.
                "WebRTC",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: The executable
        .executableTarget(
            name: "livepush",
            dependencies: [
                "MediaCore", "LibAV", "Capture", "ProcessFootprint", "Codec", "Output",
                "RTMPClient", "WebRTCTransport", "Config", "Engine", "Server",
                .product(name: "Yams", package: "Yams"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: The harness the tests and the benchmarks share: nginx-rtmp, loopback-only network
        // namespaces, background processes ended with all they started, external tools. No Testing
        // framework (livepush-bench is an executable): a failure is a thrown error.
        .target(name: "Harness", dependencies: ["RTMP", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")]),

        // MARK: Benchmarks (their own executable: the product binary carries no peer orchestration)
        .executableTarget(
            name: "livepush-bench",
            dependencies: [
                "Harness", "MediaCore", "LibAV", "CFFmpeg", "Capture", "Codec", "Output", "RTPOutput", "SRTP", "Engine", "Server", "Overlay", "SRTOutput",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: Fuzz checks: what each fuzz target asserts of its parser, one check per Fuzz/<Target>
        // (FuzzTarget.all). The libFuzzer executables (below, with LIVEPUSH_FUZZ) and
        // FuzzCorpusTests, which replays every corpus in `make test`, both run these. A module per
        // parser area, so a fuzz executable links only its parser: libFuzzer scans every coverage
        // counter in the binary after each input, and the whole package's (685k) cost fast targets
        // two thirds of their time.
        .target(name: "FuzzCore", dependencies: [.product(name: "NIOCore", package: "swift-nio")], path: "Fuzz/FuzzChecks/Core"),
        .target(name: "RTPFuzzChecks", dependencies: ["FuzzCore", "RTP", .product(name: "NIOCore", package: "swift-nio")], path: "Fuzz/FuzzChecks/RTP"),
        .target(name: "RTMPFuzzChecks", dependencies: ["FuzzCore", "RTMP", .product(name: "NIOCore", package: "swift-nio")], path: "Fuzz/FuzzChecks/RTMP"),
        .target(
            name: "WebRTCFuzzChecks", dependencies: ["FuzzCore", "WebRTC", "DTLS", .product(name: "NIOCore", package: "swift-nio")],
            path: "Fuzz/FuzzChecks/WebRTC"
        ),
        .target(name: "CodecFuzzChecks", dependencies: ["FuzzCore", "Codec"], path: "Fuzz/FuzzChecks/Codec"),
        .target(name: "ConfigFuzzChecks", dependencies: ["FuzzCore", "Config"], path: "Fuzz/FuzzChecks/Config"),
        .target(name: "ServerFuzzChecks", dependencies: ["FuzzCore", "Server", "Capture", "MediaCore"], path: "Fuzz/FuzzChecks/Server"),
        .target(
            name: "FuzzChecks",
            dependencies: ["FuzzCore", "RTPFuzzChecks", "RTMPFuzzChecks", "WebRTCFuzzChecks", "CodecFuzzChecks", "ConfigFuzzChecks", "ServerFuzzChecks"],
            path: "Fuzz/FuzzChecks/All"
        ),

        // MARK: Tests
        .target(
            name: "TestSupport",
            // RTMP: StallingProxy reads the server's side of a connection as RTMP. CSRT: SRTBusyListener.
            dependencies: ["MediaCore", "RTMP", "Harness", "CSRT", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            path: "Tests/TestSupport", exclude: ["StandIns"]
        ),
        .testTarget(name: "ProcessFootprintTests", dependencies: ["ProcessFootprint", "CLoadedObjects", "TestSupport", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "MediaCoreTests", dependencies: ["MediaCore", "LibAV", "CFFmpeg", "TestSupport"]),
        .testTarget(name: "OverlayTests", dependencies: ["Overlay", "MediaCore", "TestSupport"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "MediaCore", "LibAV", "TestSupport"]),
        .testTarget(name: "V4L2Tests", dependencies: ["Capture", "MediaCore"]),
        .testTarget(name: "CodecTests", dependencies: ["Codec", "MediaCore", "LibAV", "Capture", "TestSupport"]),
        .testTarget(name: "RecordingTests", dependencies: ["Recording", "Codec", "LibAV", "MediaCore", "TestSupport"]),
        .testTarget(name: "OutputTests", dependencies: ["Output", "Codec", "TestSupport"]),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "Output", "Capture", "Codec", "Recording", "MediaCore", "TestSupport"]),
        .testTarget(name: "RTMPTests", dependencies: ["RTMP", "TestSupport", .product(name: "NIOCore", package: "swift-nio")]),
        .testTarget(
            name: "RTMPClientTests",
            dependencies: [
                "RTMPClient", "RTMP", "Codec", "MediaCore", "Output", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                // The hostile server's rtmps.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(name: "RTPTests", dependencies: ["RTP", "MediaCore", "TestSupport", .product(name: "NIOCore", package: "swift-nio")]),
        .testTarget(name: "CongestionControlTests", dependencies: ["CongestionControl"]),
        .testTarget(name: "SRTPTests", dependencies: ["SRTP", .product(name: "NIOCore", package: "swift-nio")]),
        .testTarget(name: "DTLSTests", dependencies: ["DTLS", "TestSupport"]),
        .testTarget(
            name: "WebRTCTransportTests",
            dependencies: ["WebRTCTransport", "WebRTC", "DTLS", "SRTP", "RTP", "Codec", "MediaCore", "Output", "TestSupport"]
        ),
        .testTarget(
            name: "RTPOutputTests",
            dependencies: [
                "RTPOutput", "RTP", "SRTP", "Codec", "MediaCore", "Output",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "WebRTCTests",
            dependencies: ["WebRTC", "DTLS", "TestSupport", .product(name: "NIOCore", package: "swift-nio")],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "ConfigTests", dependencies: ["Config", "Capture", "Codec", "MediaCore", "Output"]),
        .testTarget(name: "SRTOutputTests", dependencies: ["SRTOutput", "Codec", "Output", "MediaCore", "TestSupport"]),
        .testTarget(name: "EngineTests", dependencies: ["Engine", "Config", "Pipeline", "Output", "Capture", "Codec", "MediaCore", "TestSupport", "RTMPClient", "SRTOutput", "Overlay"]),
        .testTarget(
            name: "ServerTests",
            dependencies: ["Server", "Engine", "Config", "Capture", "MediaCore", "WebRTCTransport", "TestSupport",
                           .product(name: "HummingbirdTesting", package: "hummingbird")]
        ),
        // Every test that runs the built `livepush` or a real peer (nginx-rtmp, Chromium, aiortc,
        // GStreamer, Janus, srt-live-transmit, ffmpeg as a receiver) or a network
        // namespace, by area. The unit targets above run without a `livepush` binary or a peer
        // (docs/features.md, "How it is tested": one target's tests, `swift build --target <X>Tests`).
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "Engine", "Server", "Config", "RTMPClient", "RTMP", "WebRTCTransport", "DTLS", "RTP", "Recording", "Output", "Codec", "MediaCore", "Pipeline", "Capture",
                "TestSupport", .product(name: "NIOCore", package: "swift-nio"),
            ],
            exclude: ["WebRTC/Peers", "Serve/Dashboard"]
        ),
        // Every input of Fuzz/Corpus through its target's check, without libFuzzer or sanitizers.
        .testTarget(name: "FuzzCorpusTests", dependencies: ["FuzzChecks", "FuzzCore"]),
    ]
)

// MARK: Fuzzing (coverage-guided, libFuzzer): only when LIVEPUSH_FUZZ is set, so `swift build` and
// `make test` never build these executables. scripts/fuzz builds them into .build-fuzz with
// `-sanitize=fuzzer,address`; each `Fuzz/<Target>/main.swift` hands its check (its area's FuzzChecks module) to
// libFuzzer (FuzzSupport's `runLibFuzzer`). FuzzCorpusTests requires every target listed here.
if Context.environment["LIVEPUSH_FUZZ"] != nil {
    package.targets.append(.target(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["CLibFuzzer", "FuzzCore"], path: "Fuzz/FuzzSupport"))
    // Each fuzzer with the module of its check (and so only its parser's code).
    let fuzzers: KeyValuePairs<String, String> = [
        "FuzzRTPPacket": "RTPFuzzChecks", "FuzzRTCP": "RTPFuzzChecks", "FuzzRTMPChunkStream": "RTMPFuzzChecks",
        "FuzzAMF0": "RTMPFuzzChecks", "FuzzFLVTag": "RTMPFuzzChecks", "FuzzSTUN": "WebRTCFuzzChecks",
        "FuzzICECandidate": "WebRTCFuzzChecks", "FuzzSDP": "WebRTCFuzzChecks", "FuzzH264SPS": "CodecFuzzChecks",
        "FuzzHEVCSPS": "CodecFuzzChecks", "FuzzAV1": "CodecFuzzChecks", "FuzzConfigYAML": "ConfigFuzzChecks",
        "FuzzAPIBodies": "ServerFuzzChecks", "FuzzCaptureTimeSEI": "CodecFuzzChecks",
    ]
    for (fuzzer, checks) in fuzzers {
        package.targets.append(.executableTarget(name: fuzzer, dependencies: ["FuzzSupport", .target(name: checks)], path: "Fuzz/\(fuzzer)"))
    }
}
