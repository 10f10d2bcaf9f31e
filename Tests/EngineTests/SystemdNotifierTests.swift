import Foundation
import Engine
import Testing
import TestSupport

/// sd_notify over a datagram socket the test owns; silent without NOTIFY_SOCKET.
@Suite struct SystemdNotifierTests {
    @Test func sendsToTheNotifySocket() throws {
        let directory = try TemporaryDirectory()
        let listener = try NotifySocketListener(path: directory.file("n.sock"))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "4000000"])
        #expect(notifier.watchdogIntervalSeconds == 2)
        #expect(notifier.notify("READY=1\nSTATUS=streaming"))
        #expect(listener.messages(until: "READY=1", seconds: 2) == ["READY=1\nSTATUS=streaming"])
    }

    @Test func withoutSocketNothingIsSent() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.notify("READY=1"))
        #expect(notifier.watchdogIntervalSeconds == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"]).watchdogIntervalSeconds == nil || getpid() == 1)
    }
}
