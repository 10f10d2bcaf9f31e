/// Bash for a ``LoopbackNamespace`` script that stalls the namespace's loopback link: every
/// datagram, both ways, is held in the kernel (a token-bucket qdisc on `lo` turned down to 8 bit/s)
/// for the stall, then all of it passes again in order.
///
/// Why in the kernel and not in a userspace relay (``LossyUDPRelay``): a UDP sender on loopback never
/// waits, since the kernel hands each datagram straight to the receiving socket (or drops it there),
/// so a relay that stops forwarding never backs up the sender. Held in the qdisc, the datagrams stay
/// charged to the sender's socket: its send buffer fills, `sendmsg` says EAGAIN, and the sender's
/// own backlog grows, as on a real link that stalls.
public enum LoopbackStall {
    /// The token bucket when the link is open: far more than loopback media needs, with a bucket
    /// (4 MB) that holds any TCP segment loopback makes (64 KiB).
    public static let open = "tbf rate 20gbit burst 4mb limit 64mb"
    public static let stalled = "tbf rate 8bit burst 1600 limit 64mb"

    /// Where `tc` says why it failed (a kernel without the tbf qdisc, no CAP_NET_ADMIN).
    public static let errorFile = "tc.err"
    /// Installs the open qdisc; run first in the script (which ends if that fails).
    public static let setUp = "tc qdisc add dev lo root handle 1: \(open) 2> \(errorFile) || exit 1"

    /// Waits (up to `waitSeconds`) for the file `trigger`, then stalls for `seconds`. The epoch
    /// times the link stopped and came back go to `startFile` and `endFile` (`date +%s.%N`).
    public static func stall(when trigger: String, waitSeconds: Int, seconds: Double, startFile: String, endFile: String) -> String {
        """
        for i in $(seq 1 \(waitSeconds * 20)); do [ -e '\(trigger)' ] && break; sleep 0.05; done
        if [ -e '\(trigger)' ]; then
          tc qdisc change dev lo root handle 1: \(stalled) && date +%s.%N > '\(startFile)'
          sleep \(seconds)
          tc qdisc change dev lo root handle 1: \(open)
          # tbf's timer still waits for the slow rate: the next datagram makes the queue move.
          echo > /dev/udp/127.0.0.1/9
          date +%s.%N > '\(endFile)'
        fi
        """
    }
}
