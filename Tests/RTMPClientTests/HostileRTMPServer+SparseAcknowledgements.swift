import NIOCore
import RTMP

/// How a server that acknowledges rarely (`acknowledgesEvery` quirk) stops taking the stream,
/// after `acknowledgements` of its steps.
enum SparseEnding: Sendable, Equatable, CustomStringConvertible {
    /// Goes on acknowledging (the path in front of it may still black-hole: ``StallingProxy``).
    case keepsAcknowledging
    /// Stops reading: its kernel takes bytes until the receive buffer is full, then none.
    case stopsReading(afterAcknowledgements: Int)
    /// Sends one Acknowledgement half a step lower than the last, then keeps reading and never acknowledges again.
    case goesBackwards(afterAcknowledgements: Int)

    var description: String {
        switch self {
        case .keepsAcknowledging: "keeps acknowledging"
        case .stopsReading(let count): "stops reading after \(count) acknowledgements"
        case .goesBackwards(let count): "goes backwards after \(count) acknowledgements"
        }
    }
}

/// One connection's progress through its sparse acknowledgements.
struct SparseAcknowledgements {
    var sent = 0
    var silent = false
}

extension HostileHandler {
    /// Acknowledges each whole `step` of the bytes received after the handshake, then ends as `ending` says.
    func acknowledgeSparsely(every step: Int, then ending: SparseEnding, bytesAfterHandshake: Int, context: ChannelHandlerContext) {
        while !sparseAcknowledgements.silent, bytesAfterHandshake >= (sparseAcknowledgements.sent + 1) * step {
            sparseAcknowledgements.sent += 1
            let sequence = sparseAcknowledgements.sent * step
            write(chunks([RTMPMessage(RTMPAcknowledgement(sequenceNumber: UInt32(truncatingIfNeeded: sequence)))]), context: context)
            record.acknowledged()
            switch ending {
            case .keepsAcknowledging:
                continue
            case .stopsReading(let count) where sparseAcknowledgements.sent == count:
                sparseAcknowledgements.silent = true
                context.channel.setOption(.autoRead, value: false).whenFailure { _ in }
            case .goesBackwards(let count) where sparseAcknowledgements.sent == count:
                sparseAcknowledgements.silent = true
                let lower = UInt32(truncatingIfNeeded: sequence - step / 2)
                write(chunks([RTMPMessage(RTMPAcknowledgement(sequenceNumber: lower))]), context: context)
            default:
                continue
            }
        }
    }
}
