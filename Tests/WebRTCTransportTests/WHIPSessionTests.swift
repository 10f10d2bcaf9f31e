import Output
import Testing
import TestSupport
@testable import WebRTCTransport
import WebRTC

/// The WHIP session on the shared connection lifecycle: events in, actions out, no socket and no
/// clock, with the backoff's jitter fixed by a seed.
@Suite struct WHIPSessionTests {
    typealias Machine = WHIPSession<SplitMix64>
    static let resource = WHIPSessionResource(url: try! WHIPURL("http://127.0.0.1/whip/cam/1"), answer: "v=0", iceServers: [], etag: "\"1\"")
    static let second = WHIPSessionResource(url: try! WHIPURL("http://127.0.0.1/whip/cam/2"), answer: "v=0", iceServers: [], etag: nil)
    static let fragment = WHIPICERestartFragment(credentials: ICECredentials(ufrag: "newUfrag", pwd: "newPassword0123456789abc"), mid: "0", candidates: [])

    static func connected() -> Machine {
        var machine = Machine(reconnect: ReconnectPolicy(initialDelaySeconds: 1, maximumDelaySeconds: 8), random: SplitMix64(seed: 3))
        #expect(machine.handle(.start) == [.post])
        #expect(machine.handle(.created(resource)) == [.connectMedia(resource)])
        #expect(machine.handle(.mediaConnected) == [])
        #expect(machine.state == .live && machine.sessionsConnected == 1)
        return machine
    }

    /// The single `scheduleRetry` delay among `actions`.
    static func retryDelay(_ actions: [Machine.Action]) -> Double? {
        actions.compactMap { if case .scheduleRetry(let seconds) = $0 { seconds } else { nil } }.first
    }

    static func isWaiting(_ machine: Machine) -> Bool {
        if case .waiting = machine.state { true } else { false }
    }

    @Test func lostConsentTriesAnICERestartFirst() {
        var machine = Self.connected()
        #expect(machine.handle(.mediaFailed(.consentLost)) == [.requestICERestart(Self.resource)])
        #expect(machine.handle(.restartAnswered(.accepted(Self.fragment, etag: "\"2\""))) == [.restartMedia(Self.fragment)])
        #expect(machine.resource?.etag == "\"2\"")
        #expect(machine.handle(.mediaConnected) == [])
        #expect(machine.state == .live && machine.sessionsConnected == 2)
    }

    /// Consent lost again during the ICE restart: the restart is abandoned for a fresh session
    /// after the first backoff step, and the PATCH's late answer changes nothing.
    @Test func mediaFailingDuringTheICERestartStartsAFreshSession() throws {
        var machine = Self.connected()
        _ = machine.handle(.mediaFailed(.consentLost))
        let actions = machine.handle(.mediaFailed(.consentLost))
        #expect(actions.first == .discard(Self.resource))
        let delay = try #require(Self.retryDelay(actions))
        #expect(delay >= 0.5 && delay <= 1)
        #expect(machine.handle(.restartAnswered(.accepted(Self.fragment, etag: nil))) == [])
        #expect(Self.isWaiting(machine) && machine.sessionsConnected == 1)
    }

    @Test(arguments: [405, 501])
    func aServerWithoutICERestartsGetsFreshSessionsFromThenOn(status: Int) throws {
        var machine = Self.connected()
        _ = machine.handle(.mediaFailed(.consentLost))
        let actions = machine.handle(.restartAnswered(.notSupported(status: status)))
        #expect(actions.first == .discard(Self.resource))
        let delay = try #require(Self.retryDelay(actions))
        #expect(delay >= 0.5 && delay <= 1)
        #expect(machine.handle(.retryDue) == [.post])
        #expect(machine.handle(.created(Self.second)) == [.connectMedia(Self.second)])
        _ = machine.handle(.mediaConnected)
        // No second PATCH: the server said it does not do ICE restarts.
        #expect(machine.handle(.mediaFailed(.consentLost)).first == .discard(Self.second))
    }

    /// A garbled or refused PATCH answer falls back to a fresh session instead of ending the output,
    /// and that server is not PATCHed again.
    @Test func aBrokenICERestartAnswerFallsBackToAFreshSession() throws {
        var machine = Self.connected()
        _ = machine.handle(.mediaFailed(.consentLost))
        let actions = machine.handle(.restartFailed(.badAnswer("no ice-ufrag in the fragment")))
        #expect(actions.first == .discard(Self.resource))
        #expect(try #require(Self.retryDelay(actions)) > 0)
        #expect(Self.isWaiting(machine))
        #expect(machine.handle(.retryDue) == [.post])
        #expect(machine.handle(.created(Self.second)) == [.connectMedia(Self.second)])
        _ = machine.handle(.mediaConnected)
        #expect(machine.handle(.mediaFailed(.consentLost)).first == .discard(Self.second))
    }

    @Test func deadSessionsBackOffExponentiallyWithJitterAndResetOnSuccess() throws {
        var machine = Self.connected()
        var delays: [Double] = []
        _ = machine.handle(.mediaFailed(.dtlsClosed("close_notify")))
        for _ in 0..<4 {
            #expect(machine.handle(.retryDue) == [.post])
            let actions = machine.handle(.postFailed(.connectionFailed(host: "127.0.0.1", port: 80, reason: "refused")))
            delays.append(try #require(Self.retryDelay(actions)))
        }
        for (delay, step) in zip(delays, [2.0, 4, 8, 8]) {
            #expect(delay >= step / 2 && delay <= step, "\(delays)")
        }
        _ = machine.handle(.retryDue)
        _ = machine.handle(.created(Self.second))
        _ = machine.handle(.mediaConnected)
        let actions = machine.handle(.mediaFailed(.mediaConnectFailed("ICE")))
        #expect(try #require(Self.retryDelay(actions)) <= 1, "the backoff starts over after a good session")
    }

    @Test(arguments: [WHIPError.unauthorized(status: 401, url: "u"), .endpointNotFound(url: "u"), .tooManyRedirects(limit: 5)])
    func errorsARetryCannotFixEndThePublish(error: WHIPError) {
        var machine = Machine(reconnect: ReconnectPolicy(), random: SplitMix64(seed: 1))
        _ = machine.handle(.start)
        #expect(machine.handle(.postFailed(error)) == [.discard(nil), .fail(error)])
        #expect(machine.state == .failed)
        #expect(machine.handle(.retryDue) == [])
    }

    @Test func attemptsRunOutWhenThePolicySaysSo() {
        var machine = Machine(reconnect: ReconnectPolicy(maximumAttempts: 1), random: SplitMix64(seed: 1))
        _ = machine.handle(.start)
        #expect(Self.retryDelay(machine.handle(.postFailed(.endpointBusy(status: 503)))) != nil)
        _ = machine.handle(.retryDue)
        #expect(machine.handle(.postFailed(.endpointBusy(status: 503))).last == .fail(.endpointBusy(status: 503)))
    }

    @Test func stopDeletesTheSessionThenFinishes() {
        var machine = Self.connected()
        #expect(machine.handle(.stop) == [.delete(Self.resource)])
        #expect(machine.handle(.mediaFailed(.consentLost)) == [])
        #expect(machine.handle(.deleted) == [.finished])
        #expect(machine.state == .stopped)
    }

    @Test func stopDuringThePOSTWaitsForItAndDeletesWhatItCreated() {
        var machine = Machine(reconnect: ReconnectPolicy(), random: SplitMix64(seed: 1))
        _ = machine.handle(.start)
        #expect(machine.handle(.stop) == [.discard(nil)])
        #expect(machine.handle(.created(Self.resource)) == [.delete(Self.resource)])
        #expect(machine.handle(.deleted) == [.finished])

        var failing = Machine(reconnect: ReconnectPolicy(), random: SplitMix64(seed: 1))
        _ = failing.handle(.start)
        _ = failing.handle(.stop)
        #expect(failing.handle(.postFailed(.timedOut(method: "POST", seconds: 10))) == [.discard(nil), .finished])
    }

    @Test func stopWhileWaitingFinishesAtOnce() {
        var machine = Self.connected()
        _ = machine.handle(.mediaFailed(.dtlsClosed("alert")))
        #expect(Self.isWaiting(machine))
        #expect(machine.handle(.stop) == [.discard(nil), .finished])
        #expect(machine.handle(.retryDue) == [])
    }
}
