/// A connection the stream has moved off (a backup's, when the stream returns to the primary), kept
/// open until its receiver has had the last packets: everything sent acknowledged, then one latency
/// window in which the receiver hands them to its application, as ``SRTSocket/drain(timeoutSeconds:)``
/// waits on a stop; at most `timeoutSeconds` in all. Closed at once, its receiver lost the last
/// 167–267 ms of the stream it had (BENCHMARKS.md, "SRT failover"). The output's thread asks at each
/// frame (``isDone(nowNanos:)``) instead of waiting, so the stream on the new connection never waits.
struct RetiringSRTConnection {
    let socket: SRTSocket
    private let deadlineNanos: Int64
    /// Set once everything sent was acknowledged: the end of the delivery window after that.
    private var closeAtNanos: Int64?

    init(socket: SRTSocket, nowNanos: Int64, timeoutSeconds: Double) {
        self.socket = socket
        deadlineNanos = nowNanos + Int64(timeoutSeconds * 1e9)
    }

    /// Whether it may be closed at `nowNanos`: its receiver has had everything, left, or the time is up.
    mutating func isDone(nowNanos: Int64) -> Bool {
        if nowNanos >= deadlineNanos || !socket.isConnected { return true }
        if closeAtNanos == nil, !socket.hasUnacknowledgedData { closeAtNanos = nowNanos + socket.deliveryWindowNanos }
        return closeAtNanos.map { nowNanos >= $0 } ?? false
    }
}
