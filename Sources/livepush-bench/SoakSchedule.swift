/// When the soak's second WHEP viewer is attached and when its RTMP destination is down, as pure
/// functions of the elapsed time, so the run loop only compares what should be with what is.
///
/// Viewer A stays for the whole run. Viewer B joins at ``viewerJoinSeconds``, stays
/// ``viewerStaySeconds``, leaves for ``viewerAwaySeconds``, and so on. With a restart period, the
/// RTMP destination (nginx-rtmp) is stopped once per period, half a period in (so the stops fall
/// between samples taken on the minute), and started again ``rtmpDownSeconds`` later.
struct SoakSchedule: Equatable {
    /// false: viewer A alone, no churn.
    var secondViewer = true
    var viewerJoinSeconds = 30
    var viewerStaySeconds = 120
    var viewerAwaySeconds = 60
    /// 0: the destination never restarts.
    var rtmpRestartSeconds = 0
    var rtmpDownSeconds = 5

    /// Whether viewer B should be attached `elapsed` seconds into the run.
    func viewerBPresent(at elapsed: Double) -> Bool {
        guard secondViewer, elapsed >= Double(viewerJoinSeconds) else { return false }
        let phase = (elapsed - Double(viewerJoinSeconds)).truncatingRemainder(dividingBy: Double(viewerStaySeconds + viewerAwaySeconds))
        return phase < Double(viewerStaySeconds)
    }

    /// Whether the RTMP destination should be stopped `elapsed` seconds into the run.
    func rtmpDown(at elapsed: Double) -> Bool {
        let first = Double(rtmpRestartSeconds) / 2
        guard rtmpRestartSeconds > 0, elapsed >= first else { return false }
        return (elapsed - first).truncatingRemainder(dividingBy: Double(rtmpRestartSeconds)) < Double(rtmpDownSeconds)
    }

    /// One paragraph for the start of the run, so a reader of its output knows what happened when.
    var description: String {
        let viewers = !secondViewer ? "one WHEP viewer attached throughout" : "viewer A attached throughout; viewer B joins at \(viewerJoinSeconds) s, stays \(viewerStaySeconds) s, "
            + "leaves for \(viewerAwaySeconds) s, repeating (joins at \(viewerJoinSeconds) + k × \(viewerStaySeconds + viewerAwaySeconds) s)"
        let rtmp = rtmpRestartSeconds > 0
            ? "nginx-rtmp stopped every \(rtmpRestartSeconds) s (at \(rtmpRestartSeconds / 2) + k × \(rtmpRestartSeconds) s) and started again \(rtmpDownSeconds) s later"
            : "nginx-rtmp up throughout"
        return viewers + "; " + rtmp
    }
}
