import Foundation
import Testing
import TestSupport

/// `livepush stream --whip` publishing to a real WHIP endpoint: aiortc behind Python's HTTP server
/// (Peers/aiortc_whip_server.py), both in one loopback-only network namespace. The endpoint
/// decodes the video and checks the burned-in frame codes arrive in order; it records every POST,
/// redirect, PATCH and DELETE, and the tests read that record.
@Suite(.serialized) struct WHIPPeerTests {
    static let token = "whip-test-token-5e1f9a"
    static let port = 8090

    struct Run {
        let namespace: LoopbackNamespace
        /// The endpoint's record from `file` (the first server writes server.json).
        func server(_ file: String = "server.json") throws -> [String: Any] {
            let text = namespace.contents(of: file)
            guard let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw LoopbackNamespace.Failure(description: "no endpoint record in \(file): \(text.prefix(300))\n\(log)")
            }
            return json
        }
        var log: String { "livepush:\n\(namespace.contents(of: "livepush.log").suffix(3000))\nserver:\n\(namespace.contents(of: "server.log").suffix(2000))" }
        var livepush: String { namespace.contents(of: "livepush.log") }

        func session(_ record: [String: Any], _ id: String) -> [String: Any] {
            (record["sessions"] as? [String: Any])?[id] as? [String: Any] ?? [:]
        }
    }

    /// Runs `body` (bash; $PY, $PEERS, $LIVEPUSH, $SERVER set; `start_server ARGS...` starts the
    /// endpoint on 127.0.0.1:8090 and waits until it listens, pid in $S; `wait_for_codes FILE SESSION
    /// CODES [AUDIO_FRAMES]` waits, at most 40 s, until the endpoint's record in FILE shows that
    /// session decoded that many frame codes and audio frames) in a fresh namespace.
    func run(_ body: String, timeoutSeconds: Int) throws -> Run {
        let script = """
            set -u
            PY='\(try PythonPeers.python())'
            PEERS='\(PythonPeers.scripts)'
            LIVEPUSH='\(try LivepushBinary.path())'
            SERVER="$PY $PEERS/aiortc_whip_server.py \(Self.port)"
            # A throwaway self-signed certificate for 127.0.0.1 (cert.pem, key.pem): the endpoint's --tls.
            make_certificate() {
              openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=127.0.0.1 \
                -addext subjectAltName=IP:127.0.0.1 -keyout key.pem -out cert.pem 2>/dev/null
            }
            start_server() {
              : > server.log
              $SERVER "$@" >> server.log 2>&1 &
              S=$!
              for i in $(seq 1 150); do grep -q listening server.log && break; sleep 0.1; done
            }
            wait_for_codes() {
              "$PY" - "$@" <<'PYEOF'
            import json, sys, time
            path, session, codes = sys.argv[1], sys.argv[2], int(sys.argv[3])
            audio = int(sys.argv[4]) if len(sys.argv) > 4 else 0
            end = time.time() + 40
            while time.time() < end:
                try:
                    with open(path) as record:
                        tally = json.load(record)["sessions"].get(session, {})
                    if tally.get("codes", 0) >= codes and tally.get("audioFrames", 0) >= audio:
                        break
                except (OSError, ValueError):
                    pass
                time.sleep(0.1)
            PYEOF
            }
            STREAM="--source testpattern --size 640x360 --fps 30 --profile baseline --keyint 30"
            \(body)
            kill $S 2>/dev/null; wait $S 2>/dev/null
            """
        return Run(namespace: try LoopbackNamespace.run(script: script, timeoutSeconds: timeoutSeconds))
    }

    @Test
    func publishesVideoAndAudioOverHTTPSThroughARedirectAndDeletesOnStop() throws {
        let run = try run("""
            make_certificate
            printf '%s\\n' '\(Self.token)' > token
            start_server server.json --token '\(Self.token)' --tls cert.pem key.pem
            "$LIVEPUSH" stream $STREAM --audio tone --whip https://127.0.0.1:\(Self.port)/moved/cam --bearer-file token \
              --whip-ca cert.pem --duration 60 > livepush.log 2>&1 &
            LP=$!
            # Stopped once the endpoint has what the test asks for (--duration only bounds a hang).
            wait_for_codes server.json s1 90 100
            kill -INT $LP; wait $LP
            echo "exit $?" >> livepush.log
            """, timeoutSeconds: 90)
        let record = try run.server()
        #expect(record["redirects"] as? Int == 1, "the 307 was followed: \(record)\n\(run.log)")
        #expect(record["posts"] as? [Int] == [201], "\(record)\n\(run.log)")
        let session = run.session(record, "s1")
        #expect((session["codes"] as? Int ?? 0) >= 90, "frame codes decoded at the endpoint: \(session)\n\(run.log)")
        #expect(session["inOrder"] as? Bool == true, "\(session)")
        #expect(session["width"] as? Int == 640 && session["height"] as? Int == 360, "\(session)")
        #expect((session["audioFrames"] as? Int ?? 0) >= 100 && session["audioRate"] as? Int == 48000, "Opus decoded: \(session)")
        #expect(record["deletes"] as? [String] == ["s1"], "DELETE on a clean stop: \(record)\n\(run.log)")
        #expect((record["authorizations"] as? [String])?.allSatisfy { $0 == "Bearer \(Self.token)" } == true, "\(record)")
        #expect(run.livepush.contains("exit 0"), "\(run.log)")
        #expect(!run.livepush.contains(Self.token), "the token must not reach the log: \(run.livepush)")
    }

    @Test
    func wrongBearerTokenFailsOnceWithAClearError() throws {
        let run = try run("""
            start_server server.json --token '\(Self.token)'
            "$LIVEPUSH" stream $STREAM --whip http://127.0.0.1:\(Self.port)/whip/cam --bearer wrong-token-0c4d --duration 4 > livepush.log 2>&1
            echo "exit $?" >> livepush.log
            """, timeoutSeconds: 45)
        let record = try run.server()
        #expect(record["posts"] as? [Int] == [401], "one refused POST, no retries: \(record)\n\(run.log)")
        #expect(run.livepush.contains("bearer token"), "the error names the token: \(run.log)")
        #expect(run.livepush.contains("failed"), "\(run.log)")
        #expect(!run.livepush.contains("wrong-token-0c4d"), "\(run.livepush)")
    }

    @Test
    func aRestartedEndpointGetsAFreshSessionAndMediaResumes() throws {
        let run = try run("""
            start_server server.json
            "$LIVEPUSH" stream $STREAM --whip http://127.0.0.1:\(Self.port)/whip/cam --whip-consent-timeout 2s \
              --reconnect-delay 0.3s --reconnect-max-delay 1s --duration 100 > livepush.log 2>&1 &
            LP=$!
            wait_for_codes server.json s1 30
            kill -9 $S; wait $S 2>/dev/null
            sleep 1
            start_server server2.json
            # Stopped once the new session has what the test asks for (--duration only bounds a hang).
            wait_for_codes server2.json s1 60
            kill -INT $LP; wait $LP
            echo "exit $?" >> livepush.log
            """, timeoutSeconds: 130)
        let first = run.session(try run.server(), "s1"), second = run.session(try run.server("server2.json"), "s1")
        #expect((first["codes"] as? Int ?? 0) >= 30, "\(first)\n\(run.log)")
        #expect((second["codes"] as? Int ?? 0) >= 60, "media resumed on a fresh session: \(second)\n\(run.log)")
        #expect(second["inOrder"] as? Bool == true, "\(second)")
        #expect((second["firstCode"] as? Int ?? 0) > (first["lastCode"] as? Int ?? .max), "the same encode continued: \(first) \(second)")
        #expect(run.livepush.contains("1 reconnects") || run.livepush.contains("2 reconnects"), "\(run.log)")
    }

    @Test
    func lostConsentTriesAnICERestartThenAFreshSession() throws {
        let run = try run("""
            start_server server.json --patch-status 405 --freeze-after 1.5
            "$LIVEPUSH" stream $STREAM --whip http://127.0.0.1:\(Self.port)/whip/cam --whip-consent-timeout 2s \
              --reconnect-delay 0.3s --reconnect-max-delay 1s --duration 60 > livepush.log 2>&1 &
            LP=$!
            wait_for_codes server.json s2 60
            kill -INT $LP; wait $LP
            echo "exit $?" >> livepush.log
            """, timeoutSeconds: 90)
        let record = try run.server()
        let patches = record["patches"] as? [[String: Any]] ?? []
        #expect(patches.count == 1, "one ICE restart attempt (405 → no more PATCH): \(record)\n\(run.log)")
        #expect(patches.first?["contentType"] as? String == "application/trickle-ice-sdpfrag", "\(patches)")
        #expect(patches.first?["ifMatch"] as? String == "\"*\"" && patches.first?["hasUfrag"] as? Bool == true, "\(patches)")
        #expect(record["posts"] as? [Int] == [201, 201], "a fresh session after the 405: \(record)\n\(run.log)")
        #expect(record["deletes"] as? [String] == ["s1", "s2"], "the old session and, on stop, the new one: \(record)")
        let second = run.session(record, "s2")
        #expect((second["codes"] as? Int ?? 0) >= 60 && second["inOrder"] as? Bool == true, "\(second)\n\(run.log)")
        // The summary's delivery line (docs/delivery-health.md) names the cause: consent, not a stall.
        #expect(run.livepush.contains("1 reconnect (ICE consent lost 1)"), "\(run.log)")
    }
}

extension WHIPPeerTests {
    /// Shell lines that write serve.yaml: one test-pattern camera with one WHIP output (`whip` is its mapping's body).
    static func writeServeConfig(whip: String) -> String {
        """
        cat > serve.yaml <<'YAML'
        listen: 127.0.0.1:8080
        cameras:
          - id: cam0
            source: testpattern
            size: 640x360
            fps: 30
            encoder: {bitrate: 1000k, profile: baseline, preset: ultrafast}
            outputs:
              - whip: {\(whip)}
        YAML
        """
    }

    @Test
    func serveRunsTheConfigsWHIPOutputAndReportsIt() throws {
        let run = try run("""
            make_certificate
            start_server server.json --token '\(Self.token)' --tls cert.pem key.pem
            \(Self.writeServeConfig(whip: "url: 'https://127.0.0.1:\(Self.port)/whip/cam?app=live', token: 'env:WHIP_TOKEN', ca_file: cert.pem"))
            WHIP_TOKEN='\(Self.token)' "$LIVEPUSH" serve --config serve.yaml > livepush.log 2>&1 &
            LP=$!
            wait_for_codes server.json s1 60
            "$PY" -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:8080/api/status', timeout=5).read().decode())" > status.json
            kill -TERM $LP; wait $LP
            echo "exit $?" >> livepush.log
            """, timeoutSeconds: 60)
        let record = try run.server()
        let session = run.session(record, "s1")
        #expect((session["codes"] as? Int ?? 0) >= 60 && session["inOrder"] as? Bool == true, "\(session)\n\(run.log)")
        #expect(record["deletes"] as? [String] == ["s1"], "SIGTERM deletes the session: \(record)\n\(run.log)")
        let status = try JSONSerialization.jsonObject(with: Data(run.namespace.contents(of: "status.json").utf8)) as? [String: Any]
        let output = ((status?["cameras"] as? [[String: Any]])?.first?["outputs"] as? [[String: Any]])?.first ?? [:]
        #expect(output["kind"] as? String == "whip" && output["state"] as? String == "running", "\(output)\n\(run.log)")
        #expect((output["framesSent"] as? Int ?? 0) > 0 && (output["bytesSent"] as? Int ?? 0) > 0, "\(output)")
        #expect(output["target"] as? String == "https://127.0.0.1:\(Self.port)/whip/cam?app=***", "\(output)")
        #expect(run.livepush.contains("exit 0") && !run.livepush.contains(Self.token), "\(run.log)")
    }
}

extension WHIPPeerTests {
    @Test
    func anUntrustedCertificateIsRefusedAndTheErrorNamesTheCAOption() throws {
        let run = try run("""
            make_certificate
            start_server server.json --tls cert.pem key.pem
            "$LIVEPUSH" stream $STREAM --whip https://127.0.0.1:\(Self.port)/whip/cam --duration 3 > livepush.log 2>&1
            echo "exit $?" >> livepush.log
            """, timeoutSeconds: 45)
        let record = try run.server()
        #expect(record["posts"] as? [Int] == [], "no request got past TLS: \(record)\n\(run.log)")
        #expect(run.livepush.contains("--whip-ca"), "\(run.log)")
    }
}

extension WHIPPeerTests {
    @Test
    func aSessionTheServerClosesIsReplacedWithoutAnICERestartAndOffersASrflxCandidate() throws {
        let run = try run("""
            start_server server.json --close-after 1.5
            "$LIVEPUSH" stream $STREAM --whip http://127.0.0.1:\(Self.port)/whip/cam --reconnect-delay 0.3s --reconnect-max-delay 1s \
              --duration 60 > livepush.log 2>&1 &
            LP=$!
            wait_for_codes server.json s2 60
            kill -INT $LP; wait $LP
            echo "exit $?" >> livepush.log
            """, timeoutSeconds: 90)
        let record = try run.server()
        #expect(record["posts"] as? [Int] == [201, 201], "a fresh session after DTLS closed: \(record)\n\(run.log)")
        #expect((record["patches"] as? [Any])?.isEmpty == true, "a closed DTLS session is not ICE-restarted: \(record)")
        let second = run.session(record, "s2")
        #expect((second["codes"] as? Int ?? 0) >= 60 && second["inOrder"] as? Bool == true, "\(second)\n\(run.log)")
        #expect(run.livepush.contains("the server ended DTLS"), "\(run.log)")
        // The first 201 named the endpoint's STUN server: the second offer has a srflx candidate.
        #expect(record["offerCandidateTypes"] as? [[String]] == [["host"], ["host", "srflx"]], "\(record)")
        #expect(record["stunRequests"] as? Int == 1, "\(record)")
    }
}
