import Hummingbird
import Synchronization

/// Allows each client address `perMinute` requests a minute (a token bucket refilled continuously,
/// so a burst of `perMinute` is allowed, then one every 60/perMinute s). Used for WHEP offers and
/// login attempts: each offer costs a DTLS context and a viewer slot, each login a guess at a token.
/// Tracks at most `capacity` addresses; the least recently seen is forgotten first.
final class AddressRateLimiter: Sendable {
    private struct Bucket { var tokens: Double; var updated: ContinuousClock.Instant }
    private let buckets = Mutex<[String: Bucket]>([:])
    private let perMinute = Atomic<Int>(0)
    let capacity: Int

    init(perMinute: Int, capacity: Int = 4096) {
        self.perMinute.store(perMinute, ordering: .relaxed)
        self.capacity = capacity
    }

    /// Changes the rate (a config reload); buckets keep what they hold.
    func setPerMinute(_ value: Int) { perMinute.store(value, ordering: .relaxed) }

    /// Takes one request from `address`'s bucket; false when it is empty.
    func allow(_ address: String, now: ContinuousClock.Instant = .now) -> Bool {
        withBucket(of: address, now: now) { bucket in
            guard bucket.tokens >= 1 else { return false }
            bucket.tokens -= 1
            return true
        }
    }

    /// Whether `address` has a request left, without taking it: a check that costs only when it
    /// fails (a wrong token) asks first, and ``allow(_:now:)`` takes one after the failure.
    func hasAllowance(_ address: String, now: ContinuousClock.Instant = .now) -> Bool {
        withBucket(of: address, now: now) { $0.tokens >= 1 }
    }

    /// Refills `address`'s bucket up to `now`, lets `body` look at it or take from it, and keeps it
    /// (forgetting the stalest address when a new one would pass `capacity`).
    private func withBucket(of address: String, now: ContinuousClock.Instant, _ body: (inout Bucket) -> Bool) -> Bool {
        let rate = Double(perMinute.load(ordering: .relaxed))
        return buckets.withLock { buckets in
            var bucket = buckets[address] ?? Bucket(tokens: rate, updated: now)
            let elapsed = Double((now - bucket.updated).components.seconds) + Double((now - bucket.updated).components.attoseconds) / 1e18
            bucket.tokens = min(rate, bucket.tokens + elapsed * rate / 60)
            bucket.updated = now
            let result = body(&bucket)
            if buckets[address] == nil, buckets.count >= capacity,
               let stalest = buckets.min(by: { $0.value.updated < $1.value.updated })?.key {
                buckets[stalest] = nil
            }
            buckets[address] = bucket
            return result
        }
    }

    /// The answer to an address whose bucket is empty: 429 with `Retry-After`, naming what it did
    /// too often and the config key that sets the rate.
    static func refusal(_ address: String, tooMany what: String) -> HTTPError {
        HTTPError(.tooManyRequests, headers: [.retryAfter: "60"],
                  message: "too many \(what) from \(address) (limits.requests_per_minute): wait a minute")
    }

    var trackedAddresses: Int { buckets.withLock { $0.count } }
}
