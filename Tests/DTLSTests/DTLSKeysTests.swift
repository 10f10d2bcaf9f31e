import Testing
@testable import DTLS

@Suite struct DTLSSRTPKeysTests {
    /// RFC 5764 §4.2: client_write_SRTP_master_key[16] ‖ server_…key[16] ‖ client_…salt[14] ‖ server_…salt[14].
    let exported: [UInt8] = Array(repeating: 0xC1, count: 16) + Array(repeating: 0x5E, count: 16)
        + Array(repeating: 0xC2, count: 14) + Array(repeating: 0x5F, count: 14)

    @Test func clientSendsWithTheClientHalf() throws {
        let keys = try #require(DTLSSRTPKeys(exported: exported, role: .client))
        #expect(keys.localMasterKey == Array(repeating: 0xC1, count: 16))
        #expect(keys.localMasterSalt == Array(repeating: 0xC2, count: 14))
        #expect(keys.remoteMasterKey == Array(repeating: 0x5E, count: 16))
        #expect(keys.remoteMasterSalt == Array(repeating: 0x5F, count: 14))
    }

    @Test func serverSendsWithTheServerHalf() throws {
        let keys = try #require(DTLSSRTPKeys(exported: exported, role: .server))
        #expect(keys.localMasterKey == Array(repeating: 0x5E, count: 16))
        #expect(keys.remoteMasterSalt == Array(repeating: 0xC2, count: 14))
    }

    @Test func rejectsWrongLength() {
        #expect(DTLSSRTPKeys(exported: Array(exported.dropLast()), role: .client) == nil)
    }
}
