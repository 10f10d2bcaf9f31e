/// The delay trend of draft-ietf-rmcat-gcc-02 §5.3 as libwebrtc realises it (a "trendline filter"
/// instead of the draft's Kalman filter): the inter-group delay variations are accumulated into a
/// one-way queuing delay, smoothed, and a least-squares line is fitted through the last
/// ``windowSize`` points against arrival time. Its slope is how fast the queue grows (ms per ms);
/// scaled by the number of samples (capped) and a gain it becomes the "modified trend" the overuse
/// detector compares with its adaptive threshold.
public struct TrendlineEstimator: Sendable {
    public static let defaultWindowSize = 20
    /// Weight of the previous smoothed delay (exponential smoothing).
    public static let smoothingCoefficient = 0.9
    public static let thresholdGain = 4.0
    /// The slope is multiplied by at most this many samples.
    public static let maximumSampleCount = 60

    public let windowSize: Int
    private var firstArrivalNanos: Int64?
    private var accumulatedDelayMillis = 0.0
    private var smoothedDelayMillis = 0.0
    private var sampleCount = 0
    /// The window, preallocated: x = arrival (ms since the first), y = smoothed delay (ms).
    private var points: [(x: Double, y: Double)]
    private var head = 0
    private var filled = 0
    /// The last fitted slope (0 until the window is full).
    public private(set) var slope = 0.0

    public init(windowSize: Int = defaultWindowSize) {
        self.windowSize = max(2, windowSize)
        points = Array(repeating: (0, 0), count: self.windowSize)
    }

    /// One group delta in; the modified trend out (ms, comparable to the detector's threshold).
    public mutating func update(_ delta: ArrivalGroupAccumulator.Delta) -> Double {
        let first = firstArrivalNanos ?? delta.arrivalTimeNanos
        firstArrivalNanos = first
        sampleCount = min(sampleCount + 1, Self.maximumSampleCount)
        accumulatedDelayMillis += Double(delta.delayVariationNanos) / 1e6
        smoothedDelayMillis = Self.smoothingCoefficient * smoothedDelayMillis + (1 - Self.smoothingCoefficient) * accumulatedDelayMillis
        points[head] = (Double(delta.arrivalTimeNanos - first) / 1e6, smoothedDelayMillis)
        head = (head + 1) % windowSize
        filled = min(filled + 1, windowSize)
        if filled == windowSize, let fitted = fittedSlope() { slope = fitted }
        return slope * Double(sampleCount) * Self.thresholdGain
    }

    /// Least squares over the window; nil when every x is the same.
    private func fittedSlope() -> Double? {
        var sumX = 0.0, sumY = 0.0
        for point in points { sumX += point.x; sumY += point.y }
        let meanX = sumX / Double(windowSize), meanY = sumY / Double(windowSize)
        var numerator = 0.0, denominator = 0.0
        for point in points {
            numerator += (point.x - meanX) * (point.y - meanY)
            denominator += (point.x - meanX) * (point.x - meanX)
        }
        return denominator == 0 ? nil : numerator / denominator
    }
}
