import NIOCore

/// The publisher's side of an RTMP session after the handshake, without I/O (RTMP spec §7.2):
/// ```
/// handshakeDone ─▶ Set Chunk Size + connect ─▶ _result ─▶ releaseStream, FCPublish, createStream
///   ─▶ _result(stream id) ─▶ publish(key, "live") ─▶ onStatus NetStream.Publish.Start ─▶ publishing
/// stopRequested ─▶ FCUnpublish + deleteStream ─▶ close
/// ```
/// The handler around it feeds events (messages from `RTMPChunkReader`, byte counts from the socket,
/// timer expiries) and performs the actions: writing messages with `RTMPChunkWriter`, starting a timer
/// for each `awaitingTransaction`, closing. It also answers pings and sends Acknowledgements each half
/// of the server's window (§5.4.3).
///
/// What a server sends unasked is ignored, as FFmpeg's and librtmp's publishers ignore it: commands
/// other than `_result`/`_error`/`onStatus`, answers to unknown transactions, status codes other than
/// the ones acted on unless their level is "error", user control events other than Ping Request, and
/// message types a publisher has no use for.
public struct RTMPPublishStateMachine: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var connect: RTMPConnectParameters
        /// What `publish` names: the stream key, with any query string.
        public var streamName: String
        /// Announced right after the handshake; 4096 like OBS, so a 1080p frame takes tens of chunks, not thousands.
        public var chunkSize: UInt32
        /// When set, announced with Window Acknowledgement Size right after the handshake and in every
        /// answer to Set Peer Bandwidth, so the server acknowledges our media every this many bytes
        /// (§5.4.3): the evidence that it takes the stream. nil answers with the server's own window.
        public var acknowledgementWindow: UInt32?

        public init(connect: RTMPConnectParameters, streamName: String, chunkSize: UInt32 = UInt32(RTMPSetChunkSize.recommendedChunkSize),
                    acknowledgementWindow: UInt32? = nil) {
            self.connect = connect
            self.streamName = streamName
            self.chunkSize = chunkSize
            self.acknowledgementWindow = acknowledgementWindow
        }

        public init(url: RTMPURL, fourCCList: [FourCC] = [], capabilities: RTMPConnectParameters.ExtendedCapabilities = []) {
            self.init(
                connect: RTMPConnectParameters(url: url, fourCCList: fourCCList, capabilities: capabilities),
                streamName: url.streamKey)
        }
    }

    public enum Event: Sendable, Hashable {
        /// `RTMPHandshake` completed.
        case handshakeDone
        /// A message from `RTMPChunkReader`.
        case messageReceived(RTMPMessage)
        /// Bytes read from the socket (chunk headers included), for acknowledgements.
        case bytesReceived(Int)
        /// The timer started for `awaitingTransaction` expired.
        case timeout(transactionID: Int)
        /// The user wants to stop streaming.
        case stopRequested
    }

    public enum Action: Sendable, Hashable {
        case none
        /// Write `messages` in order. If `awaitingTransaction` is set, start a timer and send
        /// `.timeout(transactionID:)` when it fires; a late timeout is ignored.
        case send([RTMPMessage], awaitingTransaction: Int?)
        /// The server accepted the stream: send metadata, then audio/video on `messageStreamID`.
        case publishingStarted(messageStreamID: UInt32)
        /// The server asks us to reconnect (enhanced RTMP), to `tcURL` if given, else to the same URL.
        case reconnectRequested(tcURL: String?, description: String)
        /// Close the connection and report `error`.
        case fail(RTMPError)
        /// Write `messages`, then close the connection.
        case close(send: [RTMPMessage])
    }

    enum State: Sendable, Hashable {
        case idle
        case connecting(transactionID: Int)
        case creatingStream(transactionID: Int)
        case awaitingPublishStart(messageStreamID: UInt32, transactionID: Int)
        case publishing(messageStreamID: UInt32)
        case closed
    }

    let configuration: Configuration
    private(set) var state = State.idle
    private var nextTransactionID = 1
    private var acknowledgementWindow: UInt32?
    private var totalBytesReceived: UInt64 = 0
    private var bytesAcknowledged: UInt64 = 0
    private var announcedWindow: UInt32?
    /// The acknowledgement window the server was last told (its acknowledgements come this far apart).
    public var announcedAcknowledgementWindow: UInt32? { announcedWindow }
    /// What the server's Acknowledgements say it received, unwrapped past 2^32.
    public private(set) var bytesAcknowledgedByPeer: UInt64 = 0
    /// Acknowledgement messages the server sent (those going backwards not counted).
    public private(set) var acknowledgementsReceived = 0
    /// Half the sequence number's range: a larger forward distance is a step back.
    static let largestForwardStep: UInt64 = 1 << 31
    /// The most bytes one Acknowledgement covered beyond the one before (from 0 for the first): how
    /// far apart this server really acknowledges, whatever window it was asked for.
    public private(set) var largestAcknowledgementStep: UInt64 = 0
    /// What the server announced in its answer to `connect`; empty until then and for servers that say nothing.
    public internal(set) var serverCapabilities = RTMPServerCapabilities()

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The message stream to send media on, once `createStream` has answered.
    public var messageStreamID: UInt32? {
        switch state {
        case .awaitingPublishStart(let id, _), .publishing(let id): return id
        default: return nil
        }
    }

    public var isPublishing: Bool {
        if case .publishing = state { return true }
        return false
    }

    public mutating func handle(_ event: Event) -> Action {
        guard state != .closed else { return .none }
        switch event {
        case .handshakeDone:
            guard state == .idle else { return .none }
            let connect = makeTransactionID()
            state = .connecting(transactionID: connect)
            var messages = [RTMPMessage(RTMPSetChunkSize(chunkSize: configuration.chunkSize))]
            if let window = configuration.acknowledgementWindow {
                announcedWindow = window
                messages.append(RTMPMessage(RTMPWindowAcknowledgementSize(windowSize: window)))
            }
            messages.append(commandMessage(.connect(configuration.connect, transactionID: Double(connect))))
            return .send(messages, awaitingTransaction: connect)
        case .messageReceived(let message):
            return received(message)
        case .bytesReceived(let count):
            return countReceived(count)
        case .timeout(let transactionID):
            guard let pending = pendingCommand, pending.transactionID == transactionID else { return .none }
            return fail(.transactionTimedOut(command: pending.name, transactionID: transactionID))
        case .stopRequested:
            let send = messageStreamID.map { streamID in
                [
                    commandMessage(.fcUnpublish(configuration.streamName, transactionID: Double(makeTransactionID()))),
                    commandMessage(.deleteStream(messageStreamID: streamID, transactionID: Double(makeTransactionID()))),
                ]
            }
            state = .closed
            return .close(send: send ?? [])
        }
    }

    /// The command whose answer the session is waiting for.
    private var pendingCommand: (name: String, transactionID: Int)? {
        switch state {
        case .connecting(let id): return ("connect", id)
        case .creatingStream(let id): return ("createStream", id)
        case .awaitingPublishStart(_, let id): return ("publish", id)
        case .idle, .publishing, .closed: return nil
        }
    }

    private mutating func received(_ message: RTMPMessage) -> Action {
        do {
            switch message.type {
            case .commandAMF0, .commandAMF3:
                return serverCommand(try RTMPServerCommand(message))
            case .userControl:
                // Only a Ping Request needs an answer, and only its timestamp is read; other events
                // (Stream Begin, Stream EOF, …) are ignored whatever their data, as FFmpeg and librtmp do.
                guard RTMPUserControlEvent.isPingRequest(message) else { return .none }
                var payload = message.payload
                guard case .pingRequest(let timestamp) = try RTMPUserControlEvent(from: &payload) else { return .none }
                return .send([RTMPMessage(RTMPUserControlEvent.pingResponse(timestamp: timestamp))], awaitingTransaction: nil)
            case .windowAcknowledgementSize:
                acknowledgementWindow = try RTMPWindowAcknowledgementSize(message).windowSize
                return .none
            case .acknowledgement:
                let sequence = try RTMPAcknowledgement(message).sequenceNumber
                // The sequence number wraps at 2^32: take the forward distance from the last one.
                let step = UInt64(sequence &- UInt32(truncatingIfNeeded: bytesAcknowledgedByPeer))
                // A "step" of 2 GiB or more is a number lower than the last, not a wrap (no server
                // takes 2 GiB between two acknowledgements): ignored, since taken as a ~4 GiB step
                // it would count every byte as acknowledged and switch stall detection off.
                guard step < Self.largestForwardStep else { return .none }
                bytesAcknowledgedByPeer += step
                largestAcknowledgementStep = max(largestAcknowledgementStep, step)
                acknowledgementsReceived += 1
                return .none
            case .setPeerBandwidth:
                // §5.4.5: answer with our window when it differs from the one last announced.
                // With our own window configured, it follows the answer again: the server keeps
                // acknowledging as often as we asked.
                let window = try RTMPSetPeerBandwidth(message).windowSize
                var windows = window != announcedWindow ? [window] : []
                if let own = configuration.acknowledgementWindow, own != window, !windows.isEmpty || announcedWindow != own {
                    windows.append(own)
                }
                guard let last = windows.last else { return .none }
                announcedWindow = last
                return .send(windows.map { RTMPMessage(RTMPWindowAcknowledgementSize(windowSize: $0)) }, awaitingTransaction: nil)
            default:
                return .none
            }
        } catch {
            return fail(error)
        }
    }

    /// Acknowledges every half window, as FFmpeg and librtmp do: §5.4.3 asks for one by the end of
    /// each window, and a server that waits for it there never stalls on one still in flight.
    private mutating func countReceived(_ count: Int) -> Action {
        totalBytesReceived += UInt64(max(0, count))
        guard let window = acknowledgementWindow, window > 0,
            totalBytesReceived - bytesAcknowledged >= UInt64(max(1, window / 2))
        else { return .none }
        bytesAcknowledged = totalBytesReceived
        let sequence = UInt32(truncatingIfNeeded: totalBytesReceived)
        return .send([RTMPMessage(RTMPAcknowledgement(sequenceNumber: sequence))], awaitingTransaction: nil)
    }

    mutating func makeTransactionID() -> Int {
        defer { nextTransactionID += 1 }
        return nextTransactionID
    }

    func commandMessage(_ command: RTMPCommand, messageStreamID: UInt32 = 0) -> RTMPMessage {
        RTMPMessage(
            command,
            chunkStreamID: messageStreamID == 0 ? RTMPChunkStreamID.command : RTMPChunkStreamID.stream,
            messageStreamID: messageStreamID)
    }

    mutating func fail(_ error: RTMPError) -> Action {
        state = .closed
        return .fail(error)
    }

    mutating func enter(_ newState: State) {
        state = newState
    }
}
