import Codec
import Foundation
import MediaCore
import Output
@testable import SRTOutput
import Synchronization
import Testing
import TestSupport

/// An SRT caller output whose connection breaks while the receiver still holds the stream ID
/// (``SRTBusyListener`` refusing with SRT_REJX_CONFLICT, 1409): it retries every 250 ms, as RTMP does
/// for a key in use (``KeyInUseRetry``), says so in the status, and sends media again on the first
/// try after the receiver lets go. With `in_use_retry: off` the normal backoff applies instead.
/// Spacing is judged by the listener's own clock, from each refusal to the caller's next attempt.
@Suite(.serialized) struct SRTStreamIDInUseTests {
    struct Outcome {
        var record: SRTBusyListener.Record
        var releasedAt: Double
        /// The status's reason while refused, and once connected again.
        var reasonWhileRefused: String?
        var reasonAfter: String?
        var stateAfter: OutputStatus.State
        /// From each refusal to the next attempt (refused or accepted).
        var gaps: [Double] {
            let attempts = record.refusedAt + record.acceptedAt.suffix(1)
            return zip(attempts, attempts.dropFirst()).map { $1 - $0 }
        }
    }

    /// Far above a retry interval plus a frame and a loopback handshake, far below the backoff's
    /// second step (at least 1 s with a 1 s first delay).
    static let quickGapBound = 0.9

    @Test func aStreamIDInUseAfterOurLossIsRetriedEvery250ms() async throws {
        let outcome = try await run(inUseRetrySeconds: nil, refusals: 6)
        let gaps = outcome.gaps
        #expect(outcome.record.refusedAt.count >= 6)
        #expect(gaps.allSatisfy { $0 >= KeyInUseRetry.Settings.defaultIntervalSeconds - 0.02 && $0 < Self.quickGapBound }, "\(gaps)")
        let accepted = try #require(outcome.record.acceptedAt.last)
        #expect(accepted - outcome.releasedAt < Self.quickGapBound, "the first try after the release is taken: \(accepted - outcome.releasedAt) s")
        #expect(outcome.record.firstMediaAt != nil, "media flows again")
        let reason = try #require(outcome.reasonWhileRefused)
        #expect(reason.hasPrefix("key in use (") && reason.hasSuffix("since our connection was lost), retrying every 250 ms"), "\(reason)")
        #expect(outcome.reasonAfter == nil && outcome.stateAfter == .running)
    }

    @Test func withInUseRetryOffTheRefusalTakesTheBackoff() async throws {
        let outcome = try await run(inUseRetrySeconds: 0, refusals: 2)
        let gaps = outcome.gaps
        #expect(gaps.first.map { $0 >= 1 } == true, "the backoff's second step is 1 to 2 s: \(gaps)")
        #expect(outcome.reasonWhileRefused == nil)
        #expect(outcome.record.firstMediaAt != nil, "media flows again")
    }

    /// A backup ingest is treated the same: the primary drops the stream and turns busy, the stream
    /// moves to the backup, which then drops it too; the primary, dialled next, refuses as in use and
    /// is retried every 250 ms (the backup not dialled meanwhile) until it lets go.
    @Test func withABackupTheIngestThatRefusesAsInUseIsRetriedEvery250ms() async throws {
        let (primary, backup) = (try SRTBusyListener(), try SRTBusyListener())
        defer { primary.close(); backup.close() }
        var configuration = Self.configuration(port: primary.port)
        configuration.backups = [.init(host: "127.0.0.1", port: backup.port, streamID: "publish/cam0", passphrase: nil,
                                       maskedTarget: "srt://127.0.0.1:\(backup.port)")]
        let (output, feeding) = try await Self.publish(configuration)
        defer { feeding.cancel() }
        #expect(await eventually { primary.record.firstMediaAt != nil }, "the primary carries media")
        primary.busy = true
        primary.dropConnection()
        #expect(await eventually { backup.record.firstMediaAt != nil }, "the backup takes over: \(output.status)")
        let backupDroppedAt = ProcessInfo.processInfo.systemUptime
        backup.busy = true
        backup.dropConnection()
        let refusedAfter = { primary.record.refusedAt.filter { $0 >= backupDroppedAt } }  // not the probes before
        #expect(await eventually(within: 30) { refusedAfter().count >= 4 }, "\(primary.record); \(output.status)")
        primary.busy = false
        #expect(await eventually { primary.record.acceptedAt.count == 2 && primary.record.firstMediaAt != nil }, "\(output.status)")
        await output.stop()
        let attempts = refusedAfter() + primary.record.acceptedAt.suffix(1)
        let gaps = zip(attempts, attempts.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 >= KeyInUseRetry.Settings.defaultIntervalSeconds - 0.02 && $0 < Self.quickGapBound }, "\(gaps)")
        #expect(backup.record.refusedAt.isEmpty, "the backup is not dialled while the primary refuses as in use: \(backup.record)")
    }

    static func configuration(port: Int) -> SRTOutputConfiguration {
        var configuration = SRTOutputConfiguration(host: "127.0.0.1", port: port, maskedTarget: "srt://127.0.0.1:\(port)")
        configuration.streamID = "publish/cam0"
        configuration.captureTime = .none
        configuration.reconnect = ReconnectPolicy(initialDelaySeconds: 1, maximumDelaySeconds: 4)
        return configuration
    }

    /// Starts `configuration`'s output, fed test frames at 30 fps (a keyframe every second, and when asked).
    static func publish(_ configuration: SRTOutputConfiguration) async throws -> (SRTStreamOutput, Task<Void, Never>) {
        let output = SRTStreamOutput(configuration: configuration)
        let keyFrameAsked = Atomic<Bool>(true)
        try await output.start(OutputStartContext(requestKeyFrame: { keyFrameAsked.store(true, ordering: .relaxed) }))
        let feeding = Task {
            var index = 0
            while !Task.isCancelled {
                let key = keyFrameAsked.exchange(false, ordering: .relaxed) || index % 30 == 0
                output.onEncodedFrame(MPEGTSMuxerTests.frame(index, payload: 2000, key: key))
                index += 1
                try? await Task.sleep(for: .milliseconds(33))
            }
        }
        return (output, feeding)
    }

    /// Publishes test frames to the listener; once media flows, the listener turns busy and drops
    /// the connection, refuses `refusals` attempts, then lets go.
    func run(inUseRetrySeconds: Double?, refusals: Int) async throws -> Outcome {
        let listener = try SRTBusyListener()
        defer { listener.close() }
        var configuration = Self.configuration(port: listener.port)
        if let inUseRetrySeconds { configuration.keyInUseRetry.windowSeconds = inUseRetrySeconds }
        let (output, feeding) = try await Self.publish(configuration)
        defer { feeding.cancel() }

        #expect(await eventually { listener.record.firstMediaAt != nil }, "the first connection carries media")
        listener.busy = true
        listener.dropConnection()
        var reasonWhileRefused: String?
        let refused = await eventually(within: 30) {
            if listener.record.refusedAt.count >= 2 { reasonWhileRefused = reasonWhileRefused ?? output.status.stateReason }
            return listener.record.refusedAt.count >= refusals
        }
        #expect(refused, "\(listener.record.refusedAt.count) refusals; \(output.status)")
        listener.busy = false
        let releasedAt = ProcessInfo.processInfo.systemUptime
        #expect(await eventually { listener.record.acceptedAt.count == 2 && listener.record.firstMediaAt != nil }, "\(output.status)")
        let status = output.status
        await output.stop()
        return Outcome(record: listener.record, releasedAt: releasedAt, reasonWhileRefused: reasonWhileRefused,
                       reasonAfter: status.stateReason, stateAfter: status.state)
    }
}
