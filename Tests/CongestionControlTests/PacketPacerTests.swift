import Testing
@testable import CongestionControl

@Suite struct PacketPacerTests {
    static let ms: Int64 = 1_000_000

    /// Drains the pacer at each 5 ms step up to `untilMillis`; returns (millis, packet) as they left.
    static func drain(_ pacer: inout PacketPacer<Int>, fromMillis: Int64 = 0, untilMillis: Int64) -> [(millis: Int64, packet: Int)] {
        var sent: [(Int64, Int)] = []
        var now = fromMillis * ms
        while now <= untilMillis * ms {
            while let (packet, _) = pacer.next(nowNanos: now) { sent.append((now / ms, packet)) }
            now += 5 * ms
        }
        return sent
    }

    @Test func aKeyFramesBurstLeavesAtThePacingRateInFiveMillisecondSteps() {
        // 1 Mbit/s estimate × 2.5 = 2.5 Mbit/s: 1562.5 bytes per 5 ms step, so 1200-byte packets
        // leave one or two per step, and 100 of them (120 kB) take about 384 ms, not 0.
        var pacer = PacketPacer<Int>(estimateBitsPerSecond: 1_000_000)
        for index in 0..<100 { pacer.enqueue(index, sizeBytes: 1200, kind: .video, nowNanos: 0) }
        let sent = Self.drain(&pacer, untilMillis: 1000)
        #expect(sent.map(\.packet) == Array(0..<100))
        let last = sent.last?.millis ?? 0
        #expect(last >= 360 && last <= 400)
        // Never more than two packets (one step's budget plus the packet that overdraws it) at one instant.
        let perStep = Dictionary(grouping: sent, by: \.millis).values.map(\.count)
        #expect(perStep.max() ?? 0 <= 2)
        #expect(pacer.isEmpty && pacer.queuedBytes == 0 && pacer.queuedVideoBytes == 0)
    }

    @Test func audioLeavesFirstAndOutsideTheBudgetThenRetransmissionsThenVideoThenPadding() {
        var pacer = PacketPacer<Int>(estimateBitsPerSecond: 1_000_000)
        pacer.enqueue(4, sizeBytes: 1200, kind: .padding, nowNanos: 0)
        pacer.enqueue(3, sizeBytes: 1200, kind: .video, nowNanos: 0)
        pacer.enqueue(2, sizeBytes: 1200, kind: .retransmission, nowNanos: 0)
        pacer.enqueue(1, sizeBytes: 100, kind: .audio, nowNanos: 0)
        let order = Self.drain(&pacer, untilMillis: 100).map(\.packet)
        #expect(order == [1, 2, 3, 4])
        // With the budget spent, audio still goes at once.
        var busy = PacketPacer<Int>(estimateBitsPerSecond: 1_000_000)
        for index in 0..<10 { busy.enqueue(index, sizeBytes: 1200, kind: .video, nowNanos: 0) }
        _ = busy.next(nowNanos: 0); _ = busy.next(nowNanos: 0)
        let spent = busy.next(nowNanos: 0)
        #expect(spent == nil)
        busy.enqueue(99, sizeBytes: 100, kind: .audio, nowNanos: 0)
        let audio = busy.next(nowNanos: 0)
        #expect(audio?.packet == 99)
    }

    @Test func anIdlePacerDoesNotSaveUpABurst() {
        var pacer = PacketPacer<Int>(estimateBitsPerSecond: 1_000_000)
        pacer.enqueue(0, sizeBytes: 1200, kind: .video, nowNanos: 0)
        _ = Self.drain(&pacer, untilMillis: 0)
        // A second later, 10 packets: the first step may send one interval's budget only.
        for index in 1...10 { pacer.enqueue(index, sizeBytes: 1200, kind: .video, nowNanos: 1000 * Self.ms) }
        let sent = Self.drain(&pacer, fromMillis: 1000, untilMillis: 1000)
        #expect(sent.count == 2)
    }

    /// With an idle burst of 40 ms (2.5 Mbit/s: 12.5 kB), a 12 kB frame that finds the pacer idle
    /// leaves at once; one twice that size leaves its first 12.5 kB at once and the rest at the
    /// pacing rate (``anIdlePacerDoesNotSaveUpABurst``: without it, two packets at once).
    @Test func anIdleBurstLetsAFrameThatFindsThePacerIdleLeaveWhole() {
        var settings = PacketPacer<Int>.Settings()
        settings.idleBurstNanos = 40 * Self.ms
        var pacer = PacketPacer<Int>(estimateBitsPerSecond: 1_000_000, settings: settings)
        pacer.enqueue(0, sizeBytes: 100, kind: .video, nowNanos: 0)
        #expect(Self.drain(&pacer, untilMillis: 0).count == 1)
        for index in 0..<10 { pacer.enqueue(index, sizeBytes: 1200, kind: .video, nowNanos: 1000 * Self.ms) }
        #expect(Self.drain(&pacer, fromMillis: 1000, untilMillis: 1000).map(\.packet) == Array(0..<10))
        for index in 0..<20 { pacer.enqueue(index, sizeBytes: 1200, kind: .video, nowNanos: 2000 * Self.ms) }
        let sent = Self.drain(&pacer, fromMillis: 2000, untilMillis: 2100)
        #expect(sent.filter { $0.millis == 2000 }.count == 11, "\(sent)")
        #expect(sent.map(\.packet) == Array(0..<20))
        // The other nine at 2.5 Mbit/s, one or two per 5 ms step: about 35 ms more.
        #expect((sent.last?.millis ?? 0) >= 2030 && (sent.last?.millis ?? 0) <= 2040, "\(sent)")

        // A probe cluster's padding that finds the pacer idle leaves at the probe's rate from its
        // first packet: one 5 ms step's budget at 2.5 Mbit/s (1562 bytes), two packets.
        pacer.setProbe(bitsPerSecond: 2_500_000)
        for index in 0..<10 { pacer.enqueue(index, sizeBytes: 1200, kind: .padding, nowNanos: 3000 * Self.ms) }
        #expect(Self.drain(&pacer, fromMillis: 3000, untilMillis: 3000).count == 2)
    }

    @Test func aLateTimerCatchesUpButALongStallDoesNotReleaseEverything() {
        var pacer = PacketPacer<Int>(estimateBitsPerSecond: 1_000_000)
        for index in 0..<100 { pacer.enqueue(index, sizeBytes: 1200, kind: .video, nowNanos: 0) }
        _ = pacer.next(nowNanos: 0)
        // 20 ms late: 20 ms of budget (6250 bytes: about 6 packets).
        var late = 0
        while pacer.next(nowNanos: 20 * Self.ms) != nil { late += 1 }
        #expect(late >= 5 && late <= 7)
        // 2 s stalled: at most 30 ms of budget.
        var stalled = 0
        while pacer.next(nowNanos: 2020 * Self.ms) != nil { stalled += 1 }
        #expect(stalled >= 8 && stalled <= 10)
    }

    @Test func theVideoQueueIsBoundedInTimeAtThePacingRate() {
        var pacer = PacketPacer<Int>(estimateBitsPerSecond: 400_000)
        // 50 kB = 400 ms at 1 Mbit/s (2.5 × 400 kbit/s): past the 250 ms bound.
        for index in 0..<50 { pacer.enqueue(index, sizeBytes: 1000, kind: .video, nowNanos: 0) }
        #expect(pacer.videoQueueNanos(nowNanos: 0) == 400 * Self.ms)
        #expect(pacer.isVideoQueueFull(nowNanos: 0))
        // 20 kB = 160 ms: under it.
        var short = PacketPacer<Int>(estimateBitsPerSecond: 400_000)
        for index in 0..<20 { short.enqueue(index, sizeBytes: 1000, kind: .video, nowNanos: 0) }
        #expect(!short.isVideoQueueFull(nowNanos: 0))
        // The oldest packet's age counts too.
        var old = PacketPacer<Int>(estimateBitsPerSecond: 10_000_000)
        old.enqueue(0, sizeBytes: 1000, kind: .video, nowNanos: 0)
        #expect(old.videoQueueNanos(nowNanos: 300 * Self.ms) == 300 * Self.ms)
        #expect(old.isVideoQueueFull(nowNanos: 300 * Self.ms))
    }

    @Test func aFullClassRefusesAndCounts() {
        var settings = PacketPacer<Int>.Settings()
        settings.capacity = 4
        var pacer = PacketPacer<Int>(estimateBitsPerSecond: 1_000_000, settings: settings)
        let accepted = (0..<4).map { pacer.enqueue($0, sizeBytes: 100, kind: .video, nowNanos: 0) }
        let overflow = pacer.enqueue(4, sizeBytes: 100, kind: .video, nowNanos: 0)
        let audio = pacer.enqueue(5, sizeBytes: 100, kind: .audio, nowNanos: 0)
        #expect(accepted == [true, true, true, true] && !overflow && audio)
        #expect(pacer.packetsRefused == 1 && pacer.count(of: .video) == 4)
    }

    @Test func theRingKeepsOrderAcrossItsEnd() {
        var ring = PacketRing<Int>(capacity: 3)
        var out: [Int] = []
        for value in 0..<10 {
            let pushed = ring.push(value)
            #expect(pushed)
            if ring.count == 2, let first = ring.pop() { out.append(first) }
        }
        while let value = ring.pop() { out.append(value) }
        #expect(out == Array(0..<10))
        #expect(ring.isEmpty && ring.pop() == nil)
    }

    /// The storage grows as the queue first gets longer (in order across the ring's end), up to
    /// the capacity and no further.
    @Test func theRingGrowsToItsCapacityOnlyAsTheQueueGetsLong() {
        var ring = PacketRing<Int>(capacity: 100)
        #expect(ring.allocatedSlots == 16)
        for value in 0..<10 { ring.push(value) }
        for _ in 0..<8 { _ = ring.pop() }
        for value in 10..<40 { ring.push(value) }
        #expect(ring.allocatedSlots == 32 && ring.count == 32)
        for value in 40..<150 { ring.push(value) }
        #expect(ring.allocatedSlots == 100 && ring.count == 100 && ring.isFull)
        var out: [Int] = []
        while let value = ring.pop() { out.append(value) }
        #expect(out == Array(8..<108))
    }
}
