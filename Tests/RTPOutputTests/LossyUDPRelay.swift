import TestSupport
import Foundation
import Synchronization

/// A UDP relay on 127.0.0.1 that loses a fraction of the packets going to the receiver, as a bad
/// network would, and passes the receiver's RTCP back to the sender unharmed. It runs on its own
/// thread until ``stop()`` or its deadline, whichever comes first.
final class LossyUDPRelay: Sendable {
    /// Where the sender sends (RTP); the receiver's feedback also comes in here.
    let socket: LoopbackUDPSocket
    private let receiverPort: Int
    private let lossPercent: Int
    private let running = Atomic<Bool>(true)
    private let counters = Mutex((forwarded: 0, dropped: 0, feedback: 0))
    private let finished = Atomic<Bool>(false)

    init(port: Int, receiverPort: Int, lossPercent: Int, deadlineSeconds: Double) throws {
        socket = try LoopbackUDPSocket(port: port)
        self.receiverPort = receiverPort
        self.lossPercent = lossPercent
        let thread = Thread { [self] in run(deadline: Date().addingTimeInterval(deadlineSeconds)) }
        thread.start()
    }

    var forwarded: Int { counters.withLock { $0.forwarded } }
    var dropped: Int { counters.withLock { $0.dropped } }
    var feedback: Int { counters.withLock { $0.feedback } }

    /// Stops the thread and waits (bounded) for it.
    func stop() {
        running.store(false, ordering: .releasing)
        let deadline = Date().addingTimeInterval(2)
        while !finished.load(ordering: .acquiring), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }

    /// Packet i is lost when `i × 19 mod 100 < lossPercent`: exactly that share, scattered evenly
    /// but not periodically within each 100 packets, and the same pattern every run.
    private func run(deadline: Date) {
        var senderPort: Int?
        var index = 0
        while running.load(ordering: .acquiring), Date() < deadline {
            guard let (bytes, from) = socket.receive(timeoutSeconds: 0.05) else { continue }
            if from == receiverPort {
                if let senderPort { socket.send(bytes, toPort: senderPort) }
                counters.withLock { $0.feedback += 1 }
            } else {
                senderPort = from
                defer { index += 1 }
                if index * 19 % 100 < lossPercent {
                    counters.withLock { $0.dropped += 1 }
                } else {
                    socket.send(bytes, toPort: receiverPort)
                    counters.withLock { $0.forwarded += 1 }
                }
            }
        }
        finished.store(true, ordering: .releasing)
    }
}
