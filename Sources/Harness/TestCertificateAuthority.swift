import Foundation

/// A throwaway certificate authority and one server certificate it issued for localhost and 127.0.0.1,
/// made with the openssl CLI (P-256 keys, valid two days), for TLS servers the tests start.
/// The CA is in no trust store: a client trusts it only when given `caCertificatePath`.
public struct TestCertificateAuthority {
    public let directory: TemporaryDirectory
    public var caCertificatePath: String { directory.file("ca.pem") }
    public var serverCertificatePath: String { directory.file("server.pem") }
    public var serverKeyPath: String { directory.file("server.key") }

    public init() throws {
        directory = try TemporaryDirectory()
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Self.openssl(["req", "-x509"] + newKey + ["-keyout", directory.file("ca.key"), "-out", caCertificatePath,
                                                      "-days", "2", "-subj", "/CN=livepush test CA"])
        try Self.openssl(["req"] + newKey + ["-keyout", serverKeyPath, "-out", directory.file("server.csr"), "-subj", "/CN=localhost"])
        try """
        subjectAltName=DNS:localhost,IP:127.0.0.1
        basicConstraints=CA:FALSE
        extendedKeyUsage=serverAuth
        """.write(toFile: directory.file("server.ext"), atomically: true, encoding: .utf8)
        try Self.openssl(["x509", "-req", "-in", directory.file("server.csr"), "-CA", caCertificatePath,
                          "-CAkey", directory.file("ca.key"), "-CAcreateserial", "-days", "2",
                          "-extfile", directory.file("server.ext"), "-out", serverCertificatePath])
    }

    private static func openssl(_ arguments: [String]) throws {
        try ExternalTool.run("openssl", arguments, timeoutSeconds: 20)
    }
}
