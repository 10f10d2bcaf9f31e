/// The information object of `onStatus` and of `connect`'s `_result`/`_error` (RTMP spec §7.2.1.1, §7.2.2).
public struct RTMPStatus: Sendable, Hashable {
    public enum Level: String, Sendable, Hashable {
        case status, warning, error
    }

    /// Codes this client acts on.
    public enum Code {
        public static let connectSuccess = "NetConnection.Connect.Success"
        public static let connectRejected = "NetConnection.Connect.Rejected"
        public static let connectReconnectRequest = "NetConnection.Connect.ReconnectRequest"
        public static let publishStart = "NetStream.Publish.Start"
        public static let publishBadName = "NetStream.Publish.BadName"
        public static let publishRejected = "NetStream.Publish.Rejected"
        public static let publishUnauthorized = "NetStream.Publish.Unauthorized"
    }

    /// `nil` when the server sent a level other than the three the spec names.
    public var level: Level?
    public var code: String
    public var description: String
    /// Where to reconnect, in `NetConnection.Connect.ReconnectRequest` (enhanced RTMP v2).
    public var tcURL: String?

    public init(level: Level?, code: String, description: String = "", tcURL: String? = nil) {
        self.level = level
        self.code = code
        self.description = description
        self.tcURL = tcURL
    }

    /// Reads an info object; `nil` when it has no `code`.
    public init?(_ info: AMF0Value) {
        guard let object = info.objectValue, let code = object["code"]?.stringValue else { return nil }
        self.init(
            level: object["level"]?.stringValue.flatMap(Level.init(rawValue:)),
            code: code,
            description: object["description"]?.stringValue ?? "",
            tcURL: object["tcUrl"]?.stringValue)
    }

    /// The info object as servers write it.
    public var infoObject: AMF0Value {
        var object: AMF0Object = [:]
        if let level {
            object.append("level", .string(level.rawValue))
        }
        object.append("code", .string(code))
        object.append("description", .string(description))
        if let tcURL {
            object.append("tcUrl", .string(tcURL))
        }
        return .object(object)
    }
}
