import Testing

@testable import RTMP

@Suite("RTMPURL")
struct RTMPURLTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var input: String
        var key: String? = nil
        var host: String
        var port: Int
        var app: String
        var streamKey: String
        var tcURL: String
        var redacted: String
        var testDescription: String { input }
    }

    static let vectors: [Vector] = [
        Vector(
            input: "rtmp://live.twitch.tv/app/live_123_abc", host: "live.twitch.tv", port: 1935, app: "app",
            streamKey: "live_123_abc", tcURL: "rtmp://live.twitch.tv/app", redacted: "rtmp://live.twitch.tv/app/<key redacted>"),
        Vector(
            input: "rtmp://a.rtmp.youtube.com/live2", key: "xxxx-yyyy", host: "a.rtmp.youtube.com", port: 1935, app: "live2",
            streamKey: "xxxx-yyyy", tcURL: "rtmp://a.rtmp.youtube.com/live2", redacted: "rtmp://a.rtmp.youtube.com/live2/<key redacted>"),
        // Facebook-style: rtmps, explicit port, trailing slash, key given separately
        Vector(
            input: "rtmps://live-api-s.facebook.com:443/rtmp/", key: "FB-1", host: "live-api-s.facebook.com", port: 443,
            app: "rtmp", streamKey: "FB-1", tcURL: "rtmps://live-api-s.facebook.com:443/rtmp",
            redacted: "rtmps://live-api-s.facebook.com:443/rtmp/<key redacted>"),
        Vector(
            input: "rtmps://ingest.example.com/live/k", host: "ingest.example.com", port: 443, app: "live", streamKey: "k",
            tcURL: "rtmps://ingest.example.com/live", redacted: "rtmps://ingest.example.com/live/<key redacted>"),
        // app/instance stays together
        Vector(
            input: "rtmp://host:1936/app/instance/key", host: "host", port: 1936, app: "app/instance", streamKey: "key",
            tcURL: "rtmp://host:1936/app/instance", redacted: "rtmp://host:1936/app/instance/<key redacted>"),
        // query after the key belongs to the stream name
        Vector(
            input: "rtmp://host/live/key?token=abc", host: "host", port: 1935, app: "live", streamKey: "key?token=abc",
            tcURL: "rtmp://host/live", redacted: "rtmp://host/live/<key redacted>"),
        // query after an app-only path stays with the app and tcUrl
        Vector(
            input: "rtmp://host/live?token=abc", key: "key", host: "host", port: 1935, app: "live?token=abc", streamKey: "key",
            tcURL: "rtmp://host/live?token=abc", redacted: "rtmp://host/live?<redacted>/<key redacted>"),
        // separate key overrides the URL's key
        Vector(
            input: "rtmp://host/live/old", key: "new", host: "host", port: 1935, app: "live", streamKey: "new",
            tcURL: "rtmp://host/live", redacted: "rtmp://host/live/<key redacted>"),
        // IPv6 with and without port; pasted whitespace; upper-case scheme
        Vector(
            input: "  RTMP://[::1]:1935/live/k\n", host: "::1", port: 1935, app: "live", streamKey: "k",
            tcURL: "rtmp://[::1]:1935/live", redacted: "rtmp://[::1]:1935/live/<key redacted>"),
        Vector(
            input: "rtmp://[2001:db8::2]/live/k", host: "2001:db8::2", port: 1935, app: "live", streamKey: "k",
            tcURL: "rtmp://[2001:db8::2]/live", redacted: "rtmp://[2001:db8::2]/live/<key redacted>"),
        Vector(
            input: "rtmp://127.0.0.1/live/k", key: "  ", host: "127.0.0.1", port: 1935, app: "live", streamKey: "k",
            tcURL: "rtmp://127.0.0.1/live", redacted: "rtmp://127.0.0.1/live/<key redacted>"),
    ]

    @Test(arguments: vectors)
    func parses(_ vector: Vector) throws {
        let url = try RTMPURL(vector.input, streamKey: vector.key)
        #expect(url.host == vector.host)
        #expect(url.port == vector.port)
        #expect(url.app == vector.app)
        #expect(url.streamKey == vector.streamKey)
        #expect(url.tcURL == vector.tcURL)
        #expect(url.redacted == vector.redacted)
        #expect("\(url)" == vector.redacted)
    }

    @Test(arguments: [
        ("live.twitch.tv/app/key", RTMPError.urlMissingScheme),
        ("http://host/app/key", .urlUnsupportedScheme("http")),
        ("rtmpe://host/app/key", .urlUnsupportedScheme("rtmpe")),
        ("rtmp:///app/key", .urlInvalidHost(reason: "the URL has no host")),
        ("rtmp://host:0/app/key", .urlInvalidPort("0")),
        ("rtmp://host:70000/app/key", .urlInvalidPort("70000")),
        ("rtmp://host:abc/app/key", .urlInvalidPort("abc")),
        ("rtmp://host:/app/key", .urlInvalidPort("")),
        ("rtmp://::1/app/key", .urlInvalidHost(reason: "put IPv6 addresses in brackets, e.g. rtmp://[::1]:1935/live/KEY")),
        ("rtmp://[::1/app/key", .urlInvalidHost(reason: "an IPv6 address needs a closing bracket, e.g. rtmp://[::1]/live/KEY")),
        ("rtmp://user:pw@host/app/key", .urlInvalidHost(reason: "user names and passwords in the URL are not supported; put credentials in the query string")),
        ("rtmp://ho st/app/key", .urlInvalidHost(reason: "\"ho st\" contains characters a host name cannot have")),
        ("rtmp://host", .urlMissingApplication),
        ("rtmp://host/", .urlMissingApplication),
        ("rtmp://host/app", .urlMissingStreamKey),
        ("rtmp://host/app/", .urlMissingStreamKey),
        ("rtmp://host/app/?x=1", .urlMissingStreamKey),
    ])
    func rejects(input: String, expected: RTMPError) {
        #expect(rtmpError { _ = try RTMPURL(input) } == expected)
    }

    @Test func errorsSayHowToFixAndNeverEchoTheKey() {
        let error = rtmpError { _ = try RTMPURL("rtmp://host:99999/app/SECRET") }
        #expect(error.map { "\($0)" }?.contains("1 to 65535") == true)
        #expect(error.map { "\($0)" }?.contains("SECRET") == false)
        #expect("\(RTMPError.urlMissingStreamKey)".contains("pass it separately"))
    }

    @Test func schemeDefaults() throws {
        #expect(try RTMPURL("rtmps://h/a/k").scheme.usesTLS)
        #expect(try !RTMPURL("rtmp://h/a/k").scheme.usesTLS)
    }
}
