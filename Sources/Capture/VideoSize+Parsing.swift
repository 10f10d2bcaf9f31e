import MediaCore

/// `VideoSize` is a MediaCore value; reading it from text lives here, beside the capture settings
/// whose errors (``CaptureError/invalidSetting(name:value:hint:)``) it reports.
extension VideoSize {
    /// Parses `WIDTHxHEIGHT`.
    public init(parsing text: String) throws(CaptureError) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw .invalidSetting(name: "size", value: text, hint: "write it as WIDTHxHEIGHT, e.g. 1280x720")
        }
        do { try I420Buffer.validate(width: width, height: height) } catch {
            throw .invalidSetting(name: "size", value: text, hint: "\(error)")
        }
        self.init(width: width, height: height)
    }
}
