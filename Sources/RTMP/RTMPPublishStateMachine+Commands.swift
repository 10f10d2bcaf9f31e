/// How the publisher reacts to `_result`, `_error` and `onStatus` (RTMP spec §7.2.1.1, §7.2.2.6).
extension RTMPPublishStateMachine {
    mutating func serverCommand(_ command: RTMPServerCommand) -> Action {
        switch command {
        case .result(let transactionID, let commandObject, let information):
            return result(transactionID: Int(exactly: transactionID), commandObject: commandObject, information: information)
        case .error(let transactionID, let status):
            return error(transactionID: Int(exactly: transactionID), status: status)
        case .onStatus(let status):
            return onStatus(status)
        case .other:
            return .none
        }
    }

    private mutating func result(transactionID: Int?, commandObject: AMF0Value, information: AMF0Value?) -> Action {
        switch state {
        case .connecting(let id) where id == transactionID:
            if let status = information.flatMap(RTMPStatus.init), status.level == .error {
                return fail(.connectRejected(code: status.code, description: status.description))
            }
            serverCapabilities = RTMPServerCapabilities(connectResult: commandObject, information)
            let name = configuration.streamName
            let release = commandMessage(.releaseStream(name, transactionID: Double(makeTransactionID())))
            let fcPublish = commandMessage(.fcPublish(name, transactionID: Double(makeTransactionID())))
            let create = makeTransactionID()
            enter(.creatingStream(transactionID: create))
            return .send(
                [release, fcPublish, commandMessage(.createStream(transactionID: Double(create)))],
                awaitingTransaction: create)
        case .creatingStream(let id) where id == transactionID:
            // §7.2.1.3 puts the id after a null command object; a server that leaves the null out puts it first.
            guard let number = (information ?? commandObject).numberValue, let streamID = UInt32(exactly: number) else {
                return fail(.unexpectedResponse(command: "createStream", reason: "no message stream id (a whole number) in the answer"))
            }
            let publish = makeTransactionID()
            enter(.awaitingPublishStart(messageStreamID: streamID, transactionID: publish))
            return .send(
                [
                    commandMessage(
                        .publish(configuration.streamName, transactionID: Double(publish)), messageStreamID: streamID)
                ], awaitingTransaction: publish)
        default:
            // Answers to releaseStream/FCPublish, or to publish on servers that send one: nothing to do.
            return .none
        }
    }

    private mutating func error(transactionID: Int?, status: RTMPStatus?) -> Action {
        let code = status?.code ?? "_error"
        let description = status?.description ?? ""
        switch state {
        case .connecting(let id) where id == transactionID:
            return fail(.connectRejected(code: code, description: description))
        case .creatingStream(let id) where id == transactionID:
            return fail(.publishRejected(code: code, description: description))
        case .awaitingPublishStart(_, let id) where id == transactionID:
            return fail(.publishRejected(code: code, description: description))
        default:
            // Many servers answer releaseStream/FCPublish with _error for a stream that does not exist yet.
            return .none
        }
    }

    private mutating func onStatus(_ status: RTMPStatus) -> Action {
        switch status.code {
        case RTMPStatus.Code.connectReconnectRequest:
            return .reconnectRequested(tcURL: status.tcURL, description: status.description)
        case RTMPStatus.Code.publishStart:
            guard case .awaitingPublishStart(let streamID, _) = state else { return .none }
            enter(.publishing(messageStreamID: streamID))
            return .publishingStarted(messageStreamID: streamID)
        case RTMPStatus.Code.publishBadName, RTMPStatus.Code.publishRejected, RTMPStatus.Code.publishUnauthorized:
            return fail(.publishRejected(code: status.code, description: status.description))
        case let code where code.hasPrefix("NetConnection.Connect.") && status.level == .error:
            return fail(.connectRejected(code: code, description: status.description))
        default:
            guard status.level == .error else { return .none }
            if isPublishing {
                return fail(.streamError(code: status.code, description: status.description))
            }
            return fail(.publishRejected(code: status.code, description: status.description))
        }
    }
}
