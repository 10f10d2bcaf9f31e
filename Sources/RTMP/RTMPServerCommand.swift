/// A command from the server, classified by what a publisher does with it.
public enum RTMPServerCommand: Sendable, Hashable {
    /// `_result`: the answer to `transactionID`. `connect` answers with properties and an info object,
    /// `createStream` with null and the new message stream id (§7.2.1.3).
    case result(transactionID: Double, commandObject: AMF0Value, information: AMF0Value?)
    /// `_error`: the request `transactionID` failed; `status` is `nil` when the server sent no info object.
    case error(transactionID: Double, status: RTMPStatus?)
    /// `onStatus` (§7.2.2): NetStream and NetConnection events.
    case onStatus(RTMPStatus)
    /// `onBWDone`: the end of FMS's bandwidth check; needs no answer.
    case onBWDone
    /// Anything else (`onFCPublish`, `_checkbw`, …).
    case other(RTMPCommand)

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
                self = .other(command)
            }
        case "onBWDone":
            self = .onBWDone
        default:
            self = .other(command)
        }
    }
}

extension AMF0Value {
    fileprivate var statusValue: RTMPStatus? { RTMPStatus(self) }
}
