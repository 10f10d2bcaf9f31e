/// The HTTP client an offer came from and how many viewers it may have at once.
public struct WHEPClientLimit: Sendable, Equatable {
    public let address: String
    public let maximumViewers: Int

    public init(address: String, maximumViewers: Int) {
        self.address = address
        self.maximumViewers = maximumViewers
    }
}
