import Foundation
import Testing
import TestSupport

/// The control plane's limits and roles on a real `livepush serve`, from outside: slow clients,
/// WHEP viewers per address and in total, offers per minute, a SIGHUP that rotates the token and
/// admits a host name, HTTPS with a certificate renewed by SIGHUP, and a non-loopback listener
/// (inside a network namespace the test makes) with an admin and a viewer token.
@Suite(.serialized) struct ServeAccessProcessTests {
    static let camera = """
        cameras:
          - id: cam0
            source: testpattern
            size: 320x240
            fps: 10
            encoder: {bitrate: 300k, preset: ultrafast}

        """

    /// A client that never finishes its request head, silent or trickling a header a second, loses
    /// its connection after `request_timeout`; everyone else is still answered.
    @Test func slowClientsLoseTheirConnection() throws {
        let serve = try ServeUnderTest(yaml: "listen: 127.0.0.1:0\nlimits: {request_timeout: 2}\n" + Self.camera)
        let silent = try ExternalTool.run("bash", ["-c", """
            exec 3<>/dev/tcp/127.0.0.1/\(serve.port)
            printf 'GET /api/status HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n' >&3
            timeout 20 cat <&3 > answer.txt; echo "cat exit $?"
            """], timeoutSeconds: 30, check: false)
        #expect(silent.output.contains("cat exit 0"), "closed by the server, not by the test's 20 s bound: \(silent.output)")
        let trickle = try ExternalTool.run("bash", ["-c", """
            trap '' PIPE
            exec 3<>/dev/tcp/127.0.0.1/\(serve.port)
            printf 'GET /api/status HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n' >&3
            sent=0
            for i in $(seq 1 15); do printf 'X-Slow: %d\\r\\n' $i >&3 2>/dev/null || break; sent=$i; sleep 1; done
            echo "headers sent $sent"
            """], timeoutSeconds: 40, check: false)
        let sent = Int(trickle.output.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 99
        #expect(sent < 15, "a header a second does not keep the connection: \(trickle.output)")
        #expect(try Curl.status(["\(serve.baseURL)/api/status"]) == "200")
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
    }

    /// 128 clients (all of `max_connections`) ask for /openapi.yaml (25 KB) and never read the
    /// answers: 120 pipeline 200 requests at once (past the pipelining cap), 8 send one every 50 ms
    /// (never far ahead of their answers, which fill the socket's send buffer and theirs within
    /// half a second; without a deadline on writing, such a client held its connection for ever).
    /// The server closes each, saying why (the event this waits for): none is left established,
    /// and an operator's curl is then answered within a second.
    @Test func clientsThatNeverReadLoseTheirConnection() throws {
        let serve = try ServeUnderTest(yaml: "listen: 127.0.0.1:0\nlimits: {request_timeout: 2, max_connections: 128}\n" + Self.camera)
        let hogs = try BackgroundProcess("python3", ["-c", """
            import socket, sys, time
            port, eager, paced = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
            request = b'GET /openapi.yaml HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n'
            def connect():
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.connect(('127.0.0.1', port))
                s.setblocking(False)
                return s
            def send(s, data):
                try:
                    s.send(data)
                    return True
                except BlockingIOError:
                    return True
                except OSError:
                    return False
            held = [connect() for _ in range(eager + paced)]
            for s in held[:eager]:
                send(s, request * 200)
            print('hogs connected', flush=True)
            steady = held[eager:]
            for _ in range(200):
                steady = [s for s in steady if send(s, request)]
                time.sleep(0.05)
            time.sleep(600)
            """, serve.port, "120", "8"])
        #expect(hogs.waitUntil(timeoutSeconds: 20) { hogs.output.contains("hogs connected") }, "\(hogs.errorOutput)")
        let closed = { serve.process.errorOutput.components(separatedBy: "closed the connection from").count - 1 }
        #expect(serve.process.waitUntil(timeoutSeconds: 30) { closed() >= 128 }, "closed \(closed()): \(serve.process.errorOutput.suffix(1500))")
        let log = serve.process.errorOutput
        #expect(log.contains("requests without reading the answers") && log.contains("took none of its answer"), "both defences: \(log.suffix(1500))")
        let held = try ExternalTool.run("ss", ["-Htn", "state", "established", "( sport = :\(serve.port) )"], timeoutSeconds: 10).output
        #expect(held.split(separator: "\n").isEmpty, "connections the server still holds: \(held)")
        #expect(try ExternalTool.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "1", "\(serve.baseURL)/api/status"],
                                     timeoutSeconds: 10, check: false).output == "200")
        hogs.kill(signal: SIGKILL)
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
    }

    /// WHEP offers: at most `whep_viewers_per_address` per client address (429), `max_viewers` in
    /// all (503), and `requests_per_minute` offers per address (429). Client addresses are
    /// 127.0.0.1–4 (curl --interface), all loopback.
    @Test func whepViewersAreLimitedPerAddressAndInTotal() throws {
        let offer = LivepushBinary.repository.appendingPathComponent("Tests/WebRTCTests/Fixtures/chromium-156-recvonly-offer.sdp").path
        let serve = try ServeUnderTest(yaml: """
            listen: 127.0.0.1:0
            limits: {whep_viewers_per_address: 2, requests_per_minute: 6}
            \(Self.camera)    outputs:
                  - whep: {max_viewers: 3}
            """)
        let whep = "\(serve.baseURL)/whep/cam0"
        #expect(serve.waitForOutput("whep", of: "cam0"), "the whep output never ran: \(serve.process.errorOutput.suffix(1000))")
        func post(from address: String, body: String = "@\(offer)") throws -> String {
            try Curl.status(["--interface", address, "-X", "POST", "-H", "Content-Type: application/sdp", "--data-binary", body, whep])
        }
        #expect(try post(from: "127.0.0.1") == "201")
        #expect(try post(from: "127.0.0.1") == "201")
        #expect(try post(from: "127.0.0.1") == "429", "a third viewer from one address")
        let refusal = try Curl.body(["--interface", "127.0.0.1", "-X", "POST", "-H", "Content-Type: application/sdp", "--data-binary", "@\(offer)", whep])
        #expect(refusal.contains("whep_viewers_per_address"), "\(refusal)")
        #expect(try post(from: "127.0.0.2") == "201")
        #expect(try post(from: "127.0.0.3") == "503", "max_viewers reached")
        for attempt in 1...6 {
            #expect(try post(from: "127.0.0.4", body: "v=0") == "400", "attempt \(attempt)")
        }
        #expect(try post(from: "127.0.0.4") == "429", "the seventh offer in a minute")
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
    }

    /// SIGHUP applies a rotated token and a new `allowed_hosts` entry without a restart.
    @Test func aReloadRotatesTheTokenAndAdmitsAHost() throws {
        let serve = try ServeUnderTest(yaml: "listen: 127.0.0.1:0\napi_token: a9b664d415f7765ddbef685809a9ce54\n" + Self.camera)
        let status = "\(serve.baseURL)/api/status"
        #expect(try Curl.status(["-H", "Authorization: Bearer a9b664d415f7765ddbef685809a9ce54", status]) == "200")
        #expect(try Curl.status(["-H", "Authorization: Bearer a9b664d415f7765ddbef685809a9ce54", "-H", "Host: camera.example", status]) == "421")
        #expect(try serve.reload(yaml: "listen: 127.0.0.1:0\napi_token: e31547d60e231800da68b6f7a32a8989\nallowed_hosts: [camera.example]\n" + Self.camera),
                "\(serve.process.errorOutput.suffix(1500))")
        #expect(try Curl.status(["-H", "Authorization: Bearer a9b664d415f7765ddbef685809a9ce54", status]) == "401", "the old token is gone")
        #expect(try Curl.status(["-H", "Authorization: Bearer e31547d60e231800da68b6f7a32a8989", status]) == "200")
        #expect(try Curl.status(["-H", "Authorization: Bearer e31547d60e231800da68b6f7a32a8989", "-H", "Host: camera.example", status]) == "200")
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
    }

    /// `tls: {cert, key}`: HTTPS with the configured certificate; plain HTTP gets no answer; a
    /// certificate renewed in place is served after SIGHUP.
    @Test func httpsWithACertificateRenewedBySighup() throws {
        let directory = try TemporaryDirectory()
        func makeCertificate(_ name: String) throws {
            _ = try ExternalTool.run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                                                 "-subj", "/CN=\(name)", "-addext", "subjectAltName=IP:127.0.0.1",
                                                 "-keyout", directory.file("\(name).key"), "-out", directory.file("\(name).pem")], timeoutSeconds: 30)
        }
        /// Puts a certificate where the config points, as a renewal would.
        func install(_ name: String) throws {
            for (from, to) in [("\(name).pem", "cert.pem"), ("\(name).key", "key.pem")] {
                try? FileManager.default.removeItem(atPath: directory.file(to))
                try FileManager.default.copyItem(atPath: directory.file(from), toPath: directory.file(to))
            }
        }
        try makeCertificate("first")
        try makeCertificate("second")
        try install("first")
        let yaml = "listen: 127.0.0.1:0\ntls: {cert: \(directory.file("cert.pem")), key: \(directory.file("key.pem"))}\n" + Self.camera
        let serve = try ServeUnderTest(yaml: yaml, in: directory)
        #expect(serve.baseURL.hasPrefix("https://127.0.0.1:"), "\(serve.baseURL)")
        let status = "\(serve.baseURL)/api/status"
        #expect(try Curl.status(["--cacert", directory.file("first.pem"), status]) == "200")
        #expect(try Curl.status(["--cacert", directory.file("second.pem"), status]) == "000", "not yet the renewed certificate")
        #expect(try Curl.status([status.replacingOccurrences(of: "https://", with: "http://")]) != "200", "no plain HTTP")

        try install("second")
        #expect(try serve.reload(yaml: yaml), "\(serve.process.errorOutput.suffix(1500))")
        #expect(try Curl.status(["--cacert", directory.file("second.pem"), status]) == "200", "renewed without a restart")
        #expect(try Curl.status(["--cacert", directory.file("first.pem"), status]) == "000")
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
    }

    /// HTTPS takes TLS 1.2 or 1.3 with forward-secret AEAD suites only: `openssl s_client` (with its
    /// own floor lowered, so only the server decides) completes a handshake with TLS 1.2 and
    /// ECDHE-RSA-AES128-GCM-SHA256 and with TLS 1.3, and fails with TLS 1.0, TLS 1.1, RSA key
    /// exchange (AES128-GCM-SHA256) and a CBC suite (ECDHE-RSA-AES128-SHA). An RSA certificate,
    /// so the RSA suites could be chosen at all.
    @Test func httpsRefusesOldProtocolsAndWeakSuites() throws {
        let directory = try TemporaryDirectory()
        _ = try ExternalTool.run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=livepush-test",
                                             "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", directory.file("key.pem"),
                                             "-out", directory.file("cert.pem")], timeoutSeconds: 60)
        let serve = try ServeUnderTest(yaml: "listen: 127.0.0.1:0\ntls: {cert: \(directory.file("cert.pem")), key: \(directory.file("key.pem"))}\n"
                                       + Self.camera, in: directory)
        func handshake(_ options: [String]) throws -> String {
            let run = try ExternalTool.run("openssl", ["s_client", "-connect", "127.0.0.1:\(serve.port)", "-brief"] + options,
                                           timeoutSeconds: 20, check: false)
            let text = run.output + run.errorOutput
            return run.status == 0 && text.contains("Protocol version") ? "accepted" : "refused"
        }
        let anyLevel = "DEFAULT:@SECLEVEL=0"
        #expect(try handshake(["-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"]) == "accepted")
        #expect(try handshake(["-tls1_3"]) == "accepted")
        #expect(try handshake(["-tls1", "-cipher", anyLevel]) == "refused", "TLS 1.0")
        #expect(try handshake(["-tls1_1", "-cipher", anyLevel]) == "refused", "TLS 1.1")
        #expect(try handshake(["-tls1_2", "-cipher", "AES128-GCM-SHA256:@SECLEVEL=0"]) == "refused", "RSA key exchange: no forward secrecy")
        #expect(try handshake(["-tls1_2", "-cipher", "ECDHE-RSA-AES128-SHA:@SECLEVEL=0"]) == "refused", "CBC")
        #expect(try Curl.status(["--cacert", directory.file("cert.pem"), "\(serve.baseURL)/api/status"]) == "200")
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
    }

    /// Listening on a non-loopback address (10.99.0.1 on the namespace's `lo`) with an admin and a
    /// viewer token: every request is checked as on the embedded default, plus the roles.
    @Test func aNonLoopbackListenerChecksRolesHostsAndOrigins() throws {
        let binary = try LivepushBinary.path()
        let base = "http://10.99.0.1:18080"
        let run = try LoopbackNamespace.run(script: """
            ip addr add 10.99.0.1/32 dev lo
            printf 'listen: 10.99.0.1:18080\\napi_token: dde93381970f517a274a93c91291fac9\\nviewer_token: 2a06825b5fb068fd77ba996b8897bd44\\n%s' '\(Self.camera)' > lp.yaml
            '\(binary)' serve --config lp.yaml > serve.log 2>&1 &
            LP=$!
            for i in $(seq 1 200); do grep -q "dashboard at" serve.log && break; sleep 0.1; done
            c() { echo "$1 $(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "${@:2}")" >> results.txt; }
            A='Authorization: Bearer dde93381970f517a274a93c91291fac9'; V='Authorization: Bearer 2a06825b5fb068fd77ba996b8897bd44'; J='Content-Type: application/json'
            c healthz \(base)/healthz
            c status-none \(base)/api/status
            c status-wrong -H 'Authorization: Bearer nope' \(base)/api/status
            c status-viewer -H "$V" \(base)/api/status
            c snapshot-viewer -H "$V" \(base)/api/cameras/cam0/snapshot.jpg
            c metrics-viewer -H "$V" \(base)/metrics
            c keyframe-none -X POST \(base)/api/cameras/cam0/keyframe
            c keyframe-viewer -X POST -H "$V" \(base)/api/cameras/cam0/keyframe
            c keyframe-admin -X POST -H "$A" \(base)/api/cameras/cam0/keyframe
            c keyframe-admin-foreign-origin -X POST -H "$A" -H 'Origin: http://evil.example' \(base)/api/cameras/cam0/keyframe
            c keyframe-admin-own-origin -X POST -H "$A" -H 'Origin: \(base)' \(base)/api/cameras/cam0/keyframe
            c status-foreign-host -H "$A" -H 'Host: evil.example:18080' \(base)/api/status
            c bitrate-form -X POST -H "$A" -H 'Content-Type: application/x-www-form-urlencoded' -d 'bitrate=100k' \(base)/api/cameras/cam0/bitrate
            c source-file -X POST -H "$A" -H "$J" -d '{"source":"file:/etc/passwd"}' \(base)/api/cameras/cam0/source
            c source-unknown -X POST -H "$A" -H "$J" -d '{"source":"/dev/video7"}' \(base)/api/cameras/cam0/source
            head -c 100000 /dev/zero | tr '\\0' ' ' > big.json
            c body-too-large -X POST -H "$A" -H "$J" --data-binary @big.json \(base)/api/cameras/cam0/bitrate
            c bad-json -X POST -H "$A" -H "$J" -d '{"bitrat":"1M"}' \(base)/api/cameras/cam0/bitrate
            curl -s --max-time 5 -X POST -H "$A" -H "$J" -d '{"bitrat":"1M"}' \(base)/api/cameras/cam0/bitrate > bad-json.txt
            kill -TERM $LP; wait $LP; echo "exit $?" > serve.status
            """, timeoutSeconds: 90)
        var codes: [String: String] = [:]
        for line in run.contents(of: "results.txt").split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2 { codes[String(parts[0])] = String(parts[1]) }
        }
        let log = run.contents(of: "serve.log").suffix(1500)
        let expected = ["healthz": "200", "status-none": "401", "status-wrong": "401", "status-viewer": "200", "snapshot-viewer": "200",
                        "metrics-viewer": "200", "keyframe-none": "401", "keyframe-viewer": "403", "keyframe-admin": "200",
                        "keyframe-admin-foreign-origin": "403", "keyframe-admin-own-origin": "200", "status-foreign-host": "421",
                        "bitrate-form": "415", "bad-json": "400", "source-unknown": "400", "body-too-large": "413"]
        for (name, code) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(codes[name] == code, "\(name): got \(codes[name] ?? "nothing"); serve: \(log)")
        }
        #expect(codes["source-file"].map { $0.hasPrefix("4") } == true, "a file path as a source: \(codes["source-file"] ?? "nothing")")
        #expect(run.contents(of: "bad-json.txt").contains("bitrate"), "the error names the field: \(run.contents(of: "bad-json.txt"))")
        #expect(run.contents(of: "serve.status").contains("exit 0"), "\(log)")
    }
}
