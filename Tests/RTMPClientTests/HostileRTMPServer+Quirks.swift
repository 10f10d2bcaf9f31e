import NIOCore
import RTMP
import Testing

extension HostileRTMPServer {
    /// What a `publishes` server does beyond a plain publish: things FFmpeg's and librtmp's publishers
    /// accept that nginx-rtmp never sends.
    enum Quirk: Sendable, CustomTestStringConvertible {
        /// Set Chunk Size with this raw 32-bit field after the handshake (a set top bit is not part of the size).
        case chunkSize(field: UInt32)
        /// Cuts connect's `_result` after its first 128-byte chunk, and sends Set Chunk Size `size` and
        /// an Abort for a half-sent message on another chunk stream before the rest.
        case controlInsideAMessage(size: UInt32)
        /// Commands nobody asked for, in shapes FFmpeg ignores, before every answer.
        case unaskedCommands
        /// createStream's `_result` carries the stream id where the null command object goes.
        case streamIDWithoutNull
        /// Window Acknowledgement Size `window`, then `padding` bytes of data messages once publishing.
        case acknowledgementWindow(UInt32, padding: Int)
        /// A Ping Request with this timestamp once publishing.
        case ping(timestamp: UInt32)
        /// Set Peer Bandwidth with each of these windows, limit types hard, soft, dynamic, then none.
        case peerBandwidth([UInt32])
        /// Acknowledges every `step` bytes (whatever window it is asked for), then ends as `ending` says.
        case acknowledgesEvery(Int, then: SparseEnding)
        /// Once publishing, asks the client to reconnect to `tcURL` (enhanced RTMP's ReconnectRequest).
        case reconnectRequest(tcURL: String)
        /// connect's `_result` announces multitrack in `capsEx` (enhanced RTMP v2), as a multitrack ingest does.
        case announcesMultitrack

        var testDescription: String {
            switch self {
            case .chunkSize(let field): "Set Chunk Size field 0x\(String(field, radix: 16))"
            case .controlInsideAMessage(let size): "Set Chunk Size \(size) and Abort inside a message"
            case .unaskedCommands: "unasked commands"
            case .streamIDWithoutNull: "stream id without the null"
            case .acknowledgementWindow(let window, let padding): "window \(window), \(padding) bytes"
            case .ping(let timestamp): "ping \(timestamp)"
            case .peerBandwidth: "Set Peer Bandwidth, every limit type"
            case .acknowledgesEvery(let step, let ending): "acknowledges every \(step) bytes, then \(ending)"
            case .reconnectRequest(let tcURL): "reconnect request to \(tcURL)"
            case .announcesMultitrack: "announces multitrack"
            }
        }

        func afterHandshake(_ handler: HostileHandler) -> ByteBuffer {
            switch self {
            case .chunkSize(let field):
                return handler.chunks([RTMPMessage(RTMPSetChunkSize(chunkSize: field))])
            case .acknowledgementWindow(let window, _):
                return handler.chunks([RTMPMessage(RTMPWindowAcknowledgementSize(windowSize: window))])
            case .peerBandwidth(let windows):
                let limits: [RTMPSetPeerBandwidth.LimitType?] = [.hard, .soft, .dynamic, nil]
                return handler.chunks(zip(windows, limits).map { RTMPMessage(RTMPSetPeerBandwidth(windowSize: $0, limitType: $1)) })
            default:
                return ByteBuffer()
            }
        }

        func answer(to command: RTMPCommand, handler: HostileHandler) -> ByteBuffer {
            var bytes = ByteBuffer()
            if case .unaskedCommands = self {
                bytes.writeImmutableBuffer(handler.chunks(Self.unasked(before: command)))
            }
            var answer = Self.plainAnswer(to: command, handler: handler)
            var after: [RTMPMessage] = []
            switch (self, command.name) {
            case (.controlInsideAMessage(let size), "connect"):
                bytes.writeImmutableBuffer(Self.cut(answer, around: size, handler: handler))
                return bytes
            case (.announcesMultitrack, "connect"):
                let success = RTMPStatus(level: .status, code: RTMPStatus.Code.connectSuccess, description: "Connection succeeded.")
                let properties: AMF0Object = ["fmsVer": .string("FMS/3,0,1,123"), "capabilities": .number(31), "mode": .number(1),
                                              "capsEx": .number(Double(RTMPConnectParameters.ExtendedCapabilities.multitrack.rawValue))]
                answer = handler.result(command.transactionID, commandObject: .object(properties), information: success.infoObject)
            case (.streamIDWithoutNull, "createStream"):
                answer = RTMPMessage(
                    RTMPCommand(name: "_result", transactionID: command.transactionID, commandObject: .number(1)), chunkStreamID: RTMPChunkStreamID.command)
            case (.acknowledgementWindow(_, let padding), "publish"):
                let message = RTMPMessage(
                    chunkStreamID: RTMPChunkStreamID.stream, messageStreamID: 1, timestamp: 0, type: .dataAMF0,
                    payload: ByteBuffer(repeating: 0x2E, count: 1000))
                after = Array(repeating: message, count: padding / 1000)
            case (.ping(let timestamp), "publish"):
                after = [RTMPMessage(RTMPUserControlEvent.pingRequest(timestamp: timestamp))]
            case (.reconnectRequest(let tcURL), "publish"):
                let request = RTMPStatus(level: .status, code: RTMPStatus.Code.connectReconnectRequest, description: "please move", tcURL: tcURL)
                after = [RTMPMessage(RTMPCommand(name: "onStatus", transactionID: 0, arguments: [request.infoObject]), chunkStreamID: RTMPChunkStreamID.command)]
            default:
                break
            }
            bytes.writeImmutableBuffer(handler.chunks((answer.map { [$0] } ?? []) + after))
            return bytes
        }

        /// connect → `_result` with properties and NetConnection.Connect.Success; createStream → stream 1;
        /// publish → NetStream.Publish.Start.
        private static func plainAnswer(to command: RTMPCommand, handler: HostileHandler) -> RTMPMessage? {
            switch command.name {
            case "connect":
                let success = RTMPStatus(level: .status, code: RTMPStatus.Code.connectSuccess, description: "Connection succeeded.")
                let properties: AMF0Object = ["fmsVer": .string("FMS/3,0,1,123"), "capabilities": .number(31), "mode": .number(1)]
                return handler.result(command.transactionID, commandObject: .object(properties), information: success.infoObject)
            case "createStream":
                return handler.result(command.transactionID, information: .number(1))
            case "publish":
                return handler.status(RTMPStatus(level: .status, code: RTMPStatus.Code.publishStart, description: "Start publishing"))
            default:
                return nil
            }
        }

        /// Sends `answer` on chunk stream 3 by hand: its first 128-byte chunk, then Set Chunk Size `size`
        /// and an Abort of a half-sent message on chunk stream 7, then the rest in chunks of the new size.
        private static func cut(_ answer: RTMPMessage?, around size: UInt32, handler: HostileHandler) -> ByteBuffer {
            guard var payload = answer?.payload, let first = payload.readSlice(length: min(RTMPSetChunkSize.defaultChunkSize, payload.readableBytes))
            else { return ByteBuffer() }
            var bytes = ByteBuffer()
            // fmt=0 csid=3 ts=0, 24-bit length, type 20 (AMF0 command), stream 0
            bytes.writeBytes([UInt8(RTMPChunkStreamID.command), 0, 0, 0])
            _ = bytes.write24UInt(UInt32(first.readableBytes + payload.readableBytes))
            bytes.writeBytes([RTMPMessageType.commandAMF0.rawValue, 0, 0, 0, 0])
            bytes.writeImmutableBuffer(first)
            // fmt=0 csid=7 ts=0 len=300 type 18 stream 0, then the first 128 of its 300 bytes
            bytes.writeBytes([0x07, 0, 0, 0, 0, 0x01, 0x2C, 0x12, 0, 0, 0, 0])
            bytes.writeRepeatingByte(0x41, count: RTMPSetChunkSize.defaultChunkSize)
            bytes.writeImmutableBuffer(handler.chunks([RTMPMessage(RTMPSetChunkSize(chunkSize: size)), RTMPMessage(RTMPAbort(chunkStreamID: 7))]))
            // the rest of the answer in chunks of the new size, each behind a fmt=3 csid=3 basic header
            while payload.readableBytes > 0, let piece = payload.readSlice(length: min(Int(size), payload.readableBytes)) {
                bytes.writeInteger(UInt8(0xC0 | RTMPChunkStreamID.command))
                bytes.writeImmutableBuffer(piece)
            }
            return bytes
        }

        /// What servers send on their own: FMS's onBWDone and _onbwcheck, onFCPublish in FFmpeg's bare
        /// form, answers to transactions nobody started, onStatus the publisher has no use for, and
        /// bodies that do not even decode.
        private static func unasked(before command: RTMPCommand) -> [RTMPMessage] {
            func message(_ values: [AMF0Value], raw: [UInt8] = [], type: RTMPMessageType = .commandAMF0) -> RTMPMessage {
                var payload = ByteBuffer()
                AMF0Value.write(values, to: &payload)
                payload.writeBytes(raw)
                return RTMPMessage(chunkStreamID: RTMPChunkStreamID.command, messageStreamID: 0, timestamp: 0, type: type, payload: payload)
            }
            let idle = RTMPStatus(level: .status, code: "NetStream.Publish.Idle", description: "idle").infoObject
            return [
                message([.string("onBWDone"), .number(0), .null, .number(8192)]),
                message([.string("onFCPublish")]),
                message([.string("onFCPublish"), .string("a string where the transaction id goes")]),
                // AMF3 object marker after the null
                message([.string("_onbwcheck"), .number(0), .null], raw: [0x11, 0x0A, 0x0B]),
                message([.string("_result"), .number(command.transactionID + 1000), .null, .number(1)]),
                message([.string("_error"), .number(command.transactionID + 1000)]),
                message([.string("onStatus"), .number(0), .null, idle]),
                message([.string("|RtmpSampleAccess"), .boolean(true), .boolean(true)], type: .dataAMF0),
                RTMPMessage(RTMPUserControlEvent.streamBegin(messageStreamID: 0)),
            ]
        }
    }
}
