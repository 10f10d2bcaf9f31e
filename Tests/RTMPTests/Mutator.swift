import TestSupport
/// Byte-level mutations for the fuzz tests: flips, interesting values, insertions, deletions, cuts, splices.
struct Mutator {
    var random: SplitMix64

    static let interestingBytes: [UInt8] = [0x00, 0x01, 0x02, 0x03, 0x09, 0x3F, 0x7F, 0x80, 0xC0, 0xFE, 0xFF]

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    mutating func int(_ upperBound: Int) -> Int {
        Int(random.next() % UInt64(max(1, upperBound)))
    }

    mutating func bytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// Applies one to four mutations to a copy of `input`, sometimes splicing in part of `other`.
    mutating func mutate(_ input: [UInt8], other: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0...int(4) {
            let position = int(bytes.count + 1)
            switch int(7) {
            case 0 where !bytes.isEmpty:
                bytes[min(position, bytes.count - 1)] ^= UInt8(1 << int(8))
            case 1 where !bytes.isEmpty:
                bytes[min(position, bytes.count - 1)] = Self.interestingBytes[int(Self.interestingBytes.count)]
            case 2:
                bytes.insert(contentsOf: self.bytes(count: 1 + int(8)), at: position)
            case 3 where !bytes.isEmpty:
                bytes.removeSubrange(min(position, bytes.count - 1)..<min(bytes.count, position + 1 + int(16)))
            case 4:
                bytes = Array(bytes.prefix(position))
            case 5 where !other.isEmpty:
                let start = int(other.count)
                bytes.insert(contentsOf: other[start..<min(other.count, start + 1 + int(64))], at: position)
            default:
                // 4 bytes of 0xFF: lengths, sizes and timestamps at their maximum
                bytes.insert(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF], at: position)
            }
        }
        return bytes
    }
}
