/// A command from the server, classified by what a publisher does with it.
public enum RTMPServerCommand: Sendable, Hashable {
    /// `_result`: the answer to `transactionID`. `connect` answers with properties and an info object,
    /// `createStream` with null and the new message stream id (§7.2.1.3).
    case result(transactionID: Double, commandObject: AMF0Value, information: AMF0Value?)
    /// `_error`: the request `transactionID` failed; `status` is `nil` when the server sent no info object.
    case error(transactionID: Double, status: RTMPStatus?)
    /// `onStatus` (§7.2.2): NetStream and NetConnection events.
    case onStatus(RTMPStatus)
    /// Anything a publisher does not act on (`onBWDone`, `onFCPublish`, `_checkbw`, `close`, …), and
    /// `onStatus` without an info object that has a code.
    case other(name: String)

    /// The names whose arguments a publisher reads; the body of any other command is never decoded.
    static let namesActedOn: Set<String> = ["_result", "_error", "onStatus"]

    /// Decodes what a publisher needs of a command message. Only the name of a command outside
    /// `namesActedOn` is read, so servers may send any body with it (FFmpeg and librtmp ignore them too);
    /// `_result`, `_error` and `onStatus` must decode, or the session could only end in a timeout.
    public init(_ message: RTMPMessage) throws(RTMPError) {
        var values = try RTMPCommand.amf0Values(of: message)
        let name = try RTMPCommand.name(from: &values)
        guard Self.namesActedOn.contains(name) else {
            self = .other(name: name)
            return
        }
        self.init(try RTMPCommand(message))
    }

    public init(_ command: RTMPCommand) {
        switch command.name {
        case "_result":
            self = .result(
                transactionID: command.transactionID, commandObject: command.commandObject,
                information: command.arguments.first)
        case "_error":
            self = .error(
                transactionID: command.transactionID,
                status: (command.arguments.first ?? command.commandObject).statusValue)
        case "onStatus":
            // The spec puts the info object after a null command object; a few servers put it first.
            if let status = (command.arguments.first ?? command.commandObject).statusValue ?? command.commandObject.statusValue {
                self = .onStatus(status)
            } else {
                self = .other(name: command.name)
            }
        default:
            self = .other(name: command.name)
        }
    }
}

extension AMF0Value {
    fileprivate var statusValue: RTMPStatus? { RTMPStatus(self) }
}
