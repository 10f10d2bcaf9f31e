import NIOCore
import Testing
import TestSupport
@testable import WebRTCTransport
import WebRTC

/// srflx candidates from STUN Binding answers: only answers to our requests, from the server asked,
/// count; a mapped address equal to the socket's own adds nothing.
@Suite struct ServerReflexiveGatheringTests {
    static let base = TransportAddress("127.0.0.1", 50000)!
    static let server = TransportAddress("192.0.2.1", 3478)!

    static func answer(_ request: ServerReflexiveGathering.Request, mapped: TransportAddress, type: STUNMessageType = .bindingSuccess) throws -> ByteBuffer {
        var bytes = request.bytes
        let id = try STUNMessage(from: &bytes).transactionID
        return try STUNMessage(type: type, transactionID: id, attributes: [.xorMappedAddress(mapped)]).encoded(integrityKey: nil)
    }

    @Test func answersBecomeSrflxCandidatesBasedOnTheirSocket() throws {
        var gathering = ServerReflexiveGathering()
        var random = SplitMix64(seed: 9)
        let requests = gathering.start(bases: [Self.base, TransportAddress("::1", 50001)!], servers: [Self.server], using: &random)
        #expect(requests.count == 1 && requests.first?.from == Self.base && requests.first?.to == Self.server)
        let request = try #require(requests.first)
        let mapped = TransportAddress("198.51.100.7", 61000)!
        #expect(!gathering.receive(try Self.answer(request, mapped: mapped), from: TransportAddress("192.0.2.99", 3478)!), "not the server asked")
        #expect(gathering.receive(try Self.answer(request, mapped: mapped), from: Self.server))
        #expect(gathering.isComplete)
        let candidate = try #require(gathering.candidates.first)
        #expect(candidate.kind == .srflx && candidate.transportAddress == mapped)
        #expect(candidate.relatedAddress == "127.0.0.1" && candidate.relatedPort == 50000)
        #expect(candidate.priority < ICECandidate.host(Self.base).priority)
        #expect(!gathering.receive(try Self.answer(request, mapped: mapped), from: Self.server), "answered once")
    }

    @Test func aMappedAddressEqualToTheSocketOrAnErrorAddsNothing() throws {
        var gathering = ServerReflexiveGathering()
        var random = SplitMix64(seed: 10)
        let requests = gathering.start(bases: [Self.base], servers: [Self.server, TransportAddress("192.0.2.2", 3478)!], using: &random)
        #expect(requests.count == 2)
        #expect(gathering.receive(try Self.answer(requests[0], mapped: Self.base), from: requests[0].to))
        #expect(gathering.receive(try Self.answer(requests[1], mapped: TransportAddress("198.51.100.7", 1)!, type: .bindingError), from: requests[1].to))
        #expect(gathering.isComplete && gathering.candidates.isEmpty)
    }
}
