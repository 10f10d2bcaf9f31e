import Foundation
import Testing
import TestSupport

/// Janus's streaming plugin as the fan-out server a demo scales with: fed by livepush's plain RTP,
/// its HTTP API must report the mountpoint receiving video, and a WebRTC viewer (aiortc) watching
/// through Janus must decode livepush's frames.
@Suite(.serialized, .timeLimit(.minutes(2))) struct JanusStreamingTests {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static let mountpoint = 99

    /// The recipe's configuration (../shared/peers/janus), with this test's directory and ports.
    /// Janus gathers ICE candidates on `iceInterface` only.
    static func writeConfiguration(to directory: TemporaryDirectory, httpPort: Int, rtpPort: Int, iceInterface: String = "lo") throws {
        let files = [
            "janus.jcfg": """
                general: {
                    configs_folder = "\(directory.path)"
                    plugins_folder = "/usr/lib/x86_64-linux-gnu/janus/plugins"
                    transports_folder = "/usr/lib/x86_64-linux-gnu/janus/transports"
                    events_folder = "/usr/lib/x86_64-linux-gnu/janus/events"
                    loggers_folder = "/usr/lib/x86_64-linux-gnu/janus/loggers"
                    debug_level = 4
                    server_name = "livepush-test"
                }
                certificates: {}
                media: { rtp_port_range = "\(rtpPort + 10)-\(rtpPort + 40)" }
                nat: { nice_debug = false ice_enforce_list = "\(iceInterface)" ignore_mdns = true }
                plugins: { disable = "libjanus_audiobridge.so,libjanus_duktape.so,libjanus_echotest.so,libjanus_lua.so,libjanus_nosip.so,libjanus_recordplay.so,libjanus_sip.so,libjanus_textroom.so,libjanus_videocall.so,libjanus_videoroom.so,libjanus_voicemail.so" }
                transports: { disable = "libjanus_websockets.so,libjanus_mqtt.so,libjanus_nanomsg.so,libjanus_pfunix.so,libjanus_rabbitmq.so" }
                loggers: { disable = "libjanus_jsonlog.so" }
                events: { broadcast = false }
                """,
            "janus.transport.http.jcfg": """
                general: { json = "indented" base_path = "/janus" http = true port = \(httpPort) ip = "127.0.0.1" https = false }
                admin: { admin_base_path = "/admin" admin_http = false admin_https = false }
                cors: {}
                """,
            "janus.plugin.streaming.jcfg": """
                general: {}
                livepush: {
                    type = "rtp"
                    id = \(mountpoint)
                    description = "livepush H.264 RTP"
                    media = ({
                        type = "video" mid = "v" label = "video" port = \(rtpPort) iface = "127.0.0.1"
                        pt = 96 codec = "h264" fmtp = "profile-level-id=42e01f;packetization-mode=1"
                    })
                }
                """,
        ]
        for (name, text) in files { try text.write(toFile: directory.file(name), atomically: true, encoding: .utf8) }
    }

    /// One JSON request to Janus's HTTP API through curl (bounded), decoded.
    static func request(_ body: [String: Any], port: Int, path: String = "") throws -> [String: Any] {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let result = try ExternalTool.run("curl", ["-s", "--max-time", "5", "-d", json, "http://127.0.0.1:\(port)/janus\(path)"], timeoutSeconds: 10)
        guard let reply = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else {
            throw Failure(description: "Janus answered no JSON object: \(result.output)")
        }
        return reply
    }

    static func identifier(in reply: [String: Any]) throws -> Int {
        guard let data = reply["data"] as? [String: Any], let id = data["id"] as? Int else {
            throw Failure(description: "no id in Janus reply \(reply)")
        }
        return id
    }

    /// `media[0].age_ms` of the mountpoint: milliseconds since its last RTP packet (or since start-up).
    static func videoAgeMillis(port: Int, session: Int, handle: Int) throws -> Int? {
        let reply = try request(["janus": "message", "transaction": "info", "body": ["request": "info", "id": mountpoint]],
                                port: port, path: "/\(session)/\(handle)")
        let data = (reply["plugindata"] as? [String: Any])?["data"] as? [String: Any]
        let media = (data?["info"] as? [String: Any])?["media"] as? [[String: Any]]
        return media?.first?["age_ms"] as? Int
    }

    @Test func janusMountpointReceivesVideo() throws {
        let directory = try TemporaryDirectory()
        let rtpPort = try LoopbackUDPSocket.freePortPair()
        let httpPort = try LoopbackUDPSocket().port
        try Self.writeConfiguration(to: directory, httpPort: httpPort, rtpPort: rtpPort)
        let janus = try BackgroundProcess("timeout", ["-k", "2", "60", "janus", "-F", directory.path, "-C", directory.file("janus.jcfg")])
        var session: Int?
        _ = janus.waitUntil(timeoutSeconds: 10) {
            session = try? Self.identifier(in: Self.request(["janus": "create", "transaction": "create"], port: httpPort))
            return session != nil
        }
        let sessionID = try #require(session, "Janus did not come up: \(janus.output.suffix(2000))")
        let handle = try Self.identifier(in: Self.request(["janus": "attach", "plugin": "janus.plugin.streaming", "transaction": "attach"],
                                                          port: httpPort, path: "/\(sessionID)"))
        // Let Janus's "since start-up" age grow past what a receiving mountpoint can show.
        Thread.sleep(forTimeInterval: 2)
        let stream = try LivepushRTPStream(port: rtpPort)
        // Until the first packets reach the mountpoint (its age drops below the start-up age), however
        // long livepush takes to start on a busy machine (bounded); then it must stay fresh.
        _ = stream.process.waitUntil(timeoutSeconds: 30) {
            ((try? Self.videoAgeMillis(port: httpPort, session: sessionID, handle: handle)) ?? nil).map { $0 < 500 } ?? false
        }
        var ages: [Int] = []
        for _ in 0..<3 {
            ages.append(try #require(try Self.videoAgeMillis(port: httpPort, session: sessionID, handle: handle)))
            Thread.sleep(forTimeInterval: 0.5)
        }
        stream.process.kill(signal: SIGTERM)
        #expect(ages.allSatisfy { $0 < 500 }, "age_ms \(ages): Janus is not receiving video; log: \(janus.output.suffix(1500))")
    }

    /// Janus's libnice gathers no candidate on a loopback interface and sends through the
    /// candidate's interface (IP_UNICAST_IF), so in the loopback-only namespace Janus gets a veth
    /// pair of its own with 127.0.0.2, and the viewer uses that address too: every packet stays
    /// inside the namespace, on 127.0.0.0/8.
    static let viewerSetup = """
        ip link add janus0 type veth peer name janus1 && ip addr add 127.0.0.2/32 dev janus0 \
          && ip link set janus1 up && ip link set janus0 up || exit 1
        """

    @Test func aiortcWatchesLivepushThroughJanus() throws {
        try ExternalTool.require("janus"); try ExternalTool.require("unshare")
        let configuration = try TemporaryDirectory()
        let httpPort = 8088, rtpPort = 5004
        try Self.writeConfiguration(to: configuration, httpPort: httpPort, rtpPort: rtpPort, iceInterface: "janus0")
        let livepush = ([try LivepushBinary.path()] + LivepushRTPStream.arguments(port: rtpPort, seconds: 40)).map { "'\($0)'" }.joined(separator: " ")
        let namespace = try LoopbackNamespace.run(script: """
            set -u
            \(Self.viewerSetup)
            janus -F '\(configuration.path)' -C '\(configuration.file("janus.jcfg"))' > janus.log 2>&1 &
            JANUS=$!
            \(livepush) > livepush.log 2>&1 &
            LIVEPUSH=$!
            for i in $(seq 1 100); do curl -s -o /dev/null http://127.0.0.1:\(httpPort)/janus/info && break; sleep 0.1; done
            AIORTC_HOST_ADDRESS=127.0.0.2 timeout -k 5 30 '\(try PythonPeers.python())' '\(PythonPeers.scripts)/janus_watch.py' \
              http://127.0.0.1:\(httpPort)/janus \(Self.mountpoint) 90 25 > client.json 2> client.err
            kill $LIVEPUSH $JANUS; wait
            """, timeoutSeconds: 60)
        let logs = "janus: \(namespace.contents(of: "janus.log").suffix(1500))\nviewer: \(namespace.contents(of: "client.err").suffix(1500))"
        let result = try #require(PythonPeers.result(namespace.contents(of: "client.json")), "the viewer printed no JSON\n\(logs)")
        #expect(result["watchReply"] as? String == "ack" && result["startReply"] as? String == "ack", "\(result)\n\(logs)")
        #expect(result["offerStatus"] as? String == "preparing", "Janus's JSEP offer event: \(result)")
        #expect(result["frames"] as? Int == 90, "frames decoded through Janus: \(result)\n\(logs)")
        #expect((result["codes"] as? Int ?? 0) >= 85, "frame codes readable after Janus: \(result)")
        #expect(result["inOrder"] as? Bool == true, "\(result)")
        #expect(result["width"] as? Int == LivepushRTPStream.width && result["height"] as? Int == LivepushRTPStream.height, "\(result)")
        #expect((result["firstFrameSeconds"] as? Double ?? .infinity) < 5, "\(result)")
    }
}
