/// The commands a publisher sends (RTMP spec §7.2; FMLE's releaseStream/FCPublish/FCUnpublish,
/// which YouTube, Twitch and nginx-rtmp expect from encoders).
extension RTMPCommand {
    public static func connect(_ parameters: RTMPConnectParameters, transactionID: Double) -> RTMPCommand {
        RTMPCommand(name: "connect", transactionID: transactionID, commandObject: .object(parameters.commandObject))
    }

    /// Asks the server to drop a stale publisher of the same name.
    public static func releaseStream(_ streamName: String, transactionID: Double) -> RTMPCommand {
        RTMPCommand(name: "releaseStream", transactionID: transactionID, arguments: [.string(streamName)])
    }

    public static func fcPublish(_ streamName: String, transactionID: Double) -> RTMPCommand {
        RTMPCommand(name: "FCPublish", transactionID: transactionID, arguments: [.string(streamName)])
    }

    public static func createStream(transactionID: Double) -> RTMPCommand {
        RTMPCommand(name: "createStream", transactionID: transactionID)
    }

    /// §7.2.2.6. Sent on the message stream `createStream` returned; "live" means neither record nor append.
    public static func publish(_ streamName: String, type: String = "live", transactionID: Double) -> RTMPCommand {
        RTMPCommand(name: "publish", transactionID: transactionID, arguments: [.string(streamName), .string(type)])
    }

    public static func fcUnpublish(_ streamName: String, transactionID: Double) -> RTMPCommand {
        RTMPCommand(name: "FCUnpublish", transactionID: transactionID, arguments: [.string(streamName)])
    }

    /// §7.2.2.3
    public static func deleteStream(messageStreamID: UInt32, transactionID: Double) -> RTMPCommand {
        RTMPCommand(name: "deleteStream", transactionID: transactionID, arguments: [.number(Double(messageStreamID))])
    }
}
