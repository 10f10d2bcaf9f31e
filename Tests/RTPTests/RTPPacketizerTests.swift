import NIOCore
import Testing
import TestSupport
@testable import RTP

@Suite("RTP packetizer, sequencer and clock")
struct RTPPacketizerTests {
    @Test func numbersStampsAndMarksOneFrame() throws {
        var packetizer = try RTPPacketizer(
            ssrc: 0xCAFE, payloadType: 96, payloader: try H264Payloader(maxPayloadSize: 16),
            sequencer: RTPSequencer(start: 65534), timestampOffset: 0xFFFF_FFF0
        )
        let cvo = try VideoOrientation(rotation: .degrees90).headerExtension(id: 3)
        // 1/30 s → 3000 ticks; 0xFFFFFFF0 + 3000 wraps to 2984.
        let packets = try packetizer.packetize(
            [H264Samples.sps, H264Samples.pps, H264Samples.idr], captureTimeNanos: 33_333_334, extensions: FrameHeaderExtensions(last: cvo)
        )
        #expect(packets.map(\.header.sequenceNumber) == [65534, 65535, 0])
        #expect(packets.map(\.header.marker) == [false, false, true])
        #expect(packets.allSatisfy { $0.header.timestamp == 2984 && $0.header.ssrc == 0xCAFE && $0.header.payloadType == 96 })
        #expect(packets.map { $0.header.headerExtension != nil } == [false, false, true])
        #expect(packetizer.sequencer.nextSequenceNumber == 1)
    }

    @Test func firstPacketOnTheWire() throws {
        var packetizer = try RTPPacketizer(
            ssrc: 0x0102_0304, payloadType: 111, payloader: OpusPayloader(),
            sequencer: RTPSequencer(start: 0x1234), timestampOffset: 1000
        )
        // 20 ms at 48 kHz = 960 ticks, + offset 1000 = 1960 = 0x7A8
        let packets = try packetizer.packetize(bytes("FC FF FE"), captureTimeNanos: 20_000_000)
        // v=2 p=0 x=0 cc=0 | m=1 pt=111 | seq 0x1234 | ts 0x7A8 | ssrc | Opus packet
        #expect(encode(packets[0].write) == bytes("80 EF 12 34 | 00 00 07 A8 | 01 02 03 04 | FC FF FE"))
    }

    @Test func randomStartsComeFromTheInjectedGenerator() throws {
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        let a = try RTPPacketizer(ssrc: 1, payloadType: 111, payloader: OpusPayloader(), using: &first)
        let b = try RTPPacketizer(ssrc: 1, payloadType: 111, payloader: OpusPayloader(), using: &second)
        #expect(a.sequencer == b.sequencer)
        #expect(a.timestampOffset == b.timestampOffset)
        var generator = SplitMix64(seed: 7)
        for _ in 0..<1000 {
            #expect(RTPSequencer(using: &generator).nextSequenceNumber <= RTPSequencer.maxRandomStart)
        }
    }

    @Test func rejectsWidePayloadType() {
        #expect(throws: RTPError.valueOutOfRange(field: "payload type", value: 128)) {
            try RTPPacketizer(ssrc: 1, payloadType: 128, payloader: OpusPayloader(), sequencer: RTPSequencer(start: 0), timestampOffset: 0)
        }
    }

    @Test func opusRejectsEmptyAndOversizedPackets() {
        let payloader = OpusPayloader(maxPayloadSize: 2)
        #expect(throws: RTPError.emptyPayload) { try payloader.payloads(for: ByteBuffer()) }
        #expect(throws: RTPError.payloadTooLarge(size: 3, maximum: 2)) { try payloader.payloads(for: bytes("01 02 03")) }
    }

    static let conversions: [(nanos: Int64, ticks: Int64)] = [
        (0, 0),
        (1_000_000_000, 90000),
        // 1/30 s floors to 2999 ticks; one more nanosecond reaches 3000
        (33_333_333, 2999),
        (33_333_334, 3000),
        // floors toward −∞
        (-1, -1),
        // Int64.max × 9/100000 = 830103483316929.8…: no overflow in the product
        (Int64.max, 830_103_483_316_929),
        (Int64.min, -830_103_483_316_930),
    ]

    @Test(arguments: conversions.indices)
    func nanosToVideoTicks(index: Int) {
        let (nanos, ticks) = Self.conversions[index]
        #expect(RTPClock.video90kHz.ticks(fromNanos: nanos) == ticks)
    }

    @Test func ticksToNanos() {
        #expect(RTPClock.video90kHz.nanos(fromTicks: 90000) == 1_000_000_000)
        #expect(RTPClock.opus48kHz.nanos(fromTicks: 960) == 20_000_000)
        #expect(RTPClock.video90kHz.nanos(fromTicks: -1) == -11112)
        #expect(RTPClock.video90kHz.nanos(fromTicks: .max) == .max)
        #expect(RTPClock.video90kHz.nanos(fromTicks: .min) == .min)
    }

    @Test func noDriftOverTenHoursAt30fps() {
        // Frame i is captured at floor(i × 10⁹ / 30) ns; its timestamp must be exactly 3000 × i.
        let clock = RTPClock.video90kHz
        for frame in stride(from: Int64(0), through: 30 * 3600 * 10, by: 997) {
            let nanos = frame * 1_000_000_000 / 30 + (frame % 3 == 0 ? 0 : 1)
            #expect(clock.ticks(fromNanos: nanos) == frame * 3000)
        }
    }

    @Test func timestampsWrapModulo2To32() {
        let clock = RTPClock.video90kHz
        // 2^32 ticks at 90 kHz ≈ 13.25 h: one full wrap returns the same timestamp.
        // nanos(fromTicks:) floors 47 721 858 844 444.4 ns, so one more nanosecond reaches the tick.
        let wrapNanos = clock.nanos(fromTicks: 1 << 32) + 1
        #expect(clock.timestamp(fromNanos: wrapNanos, offset: 5) == 5)
        #expect(clock.timestamp(fromNanos: 0, offset: .max) == .max)
        #expect(clock.timestamp(fromNanos: 1_000_000_000, offset: .max) == 89999)
    }

    @Test(arguments: [Int64(0), -1, 1_000_000_001])
    func rejectsImpossibleClockRates(rate: Int64) {
        #expect(throws: RTPError.valueOutOfRange(field: "clock rate", value: Int(rate))) { try RTPClock(ticksPerSecond: rate) }
    }
}
