import CSRT
import Output

extension SRTLinkStatistics {
    /// Totals of earlier connections plus libsrt's sample of the current one.
    init(earlier: SRTLinkStatistics, current sample: SRT_TRACEBSTATS, latencyMilliseconds: Int) {
        self = earlier
        rttMilliseconds = sample.msRTT
        sendBufferMilliseconds = Int(sample.msSndBuf)
        sendBufferBytes = Int(sample.byteSndBuf)
        self.latencyMilliseconds = latencyMilliseconds
        packetsSent += sample.pktSentTotal
        packetsLost += Int64(sample.pktSndLossTotal)
        packetsRetransmitted += Int64(sample.pktRetransTotal)
        packetsDroppedTooLate += Int64(sample.pktSndDropTotal)
        acknowledgementsReceived += Int64(sample.pktRecvACKTotal)
        bytesSent += Int64(sample.byteSentTotal)
        bandwidthMegabitsPerSecond = sample.mbpsBandwidth
    }
}
