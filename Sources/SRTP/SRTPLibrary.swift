import CSRTP

/// libsrtp2's process-wide `srtp_init`, run once however many sessions exist: a Swift global is
/// initialized lazily and exactly once, under a lock the runtime provides.
enum SRTPLibrary {
    private static let initializationStatus: UInt32 = srtp_init().rawValue

    static func initialize() throws(SRTPError) {
        guard initializationStatus == srtp_err_status_ok.rawValue else {
            throw .libraryInitializationFailed(status: Int(initializationStatus))
        }
    }
}
