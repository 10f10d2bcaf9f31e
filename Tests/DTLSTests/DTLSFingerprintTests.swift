import Testing
@testable import DTLS

@Suite struct DTLSFingerprintTests {
    @Test func parsesAndFormatsSDPValue() throws {
        let hex = (0..<32).map { i in i < 16 ? "0\(String(i, radix: 16, uppercase: true))" : String(i, radix: 16, uppercase: true) }
            .joined(separator: ":")
        let fingerprint = try DTLSFingerprint(sdpValue: "SHA-256 \(hex.lowercased())")
        #expect(fingerprint.algorithm == .sha256)
        #expect(fingerprint.bytes == Array(0..<32))
        #expect(fingerprint.sdpValue == "sha-256 \(hex)")
    }

    @Test(arguments: [
        "", "sha-256", "sha-256 AB:CD", // too short
        "sha-256 " + String(repeating: "AB:", count: 31) + "ZZ", // not hex
        "sha-256 " + String(repeating: "ABC:", count: 31) + "AB", // three-digit octet
        "sha-256 " + String(repeating: "AB:", count: 32) + "AB", // 33 bytes
    ])
    func rejectsMalformed(_ text: String) {
        #expect(throws: DTLSError.malformedFingerprint(text)) { try DTLSFingerprint(sdpValue: text) }
    }

    @Test func rejectsUnknownHash() {
        #expect(throws: DTLSError.unsupportedFingerprintAlgorithm("md5")) { try DTLSFingerprint(sdpValue: "md5 AB:CD") }
    }

    @Test func certificateFingerprintIsSHA256OfItsDER() throws {
        let certificate = try DTLSCertificate()
        #expect(certificate.fingerprint.algorithm == .sha256)
        #expect(certificate.fingerprint.bytes.count == 32)
        #expect(try DTLSFingerprint(sdpValue: certificate.fingerprint.sdpValue) == certificate.fingerprint)
        #expect(try DTLSCertificate().fingerprint != certificate.fingerprint)
    }
}
