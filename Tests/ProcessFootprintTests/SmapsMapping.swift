@testable import ProcessFootprint

/// One mapping of this test process's /proc/self/smaps: its permissions and resident KiB.
struct SmapsMapping {
    var perms: Substring
    var rssKiB: Int

    /// The mapping that holds `address`, or nil when none does.
    static func containing(_ address: UnsafeRawPointer) -> SmapsMapping? {
        let smaps = String(decoding: ProcessFootprint.readProcBytes("/proc/self/smaps") ?? [], as: UTF8.self)
        let target = UInt(bitPattern: address)
        var current: SmapsMapping?
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, fields.count >= 5, range.contains("-"), !range.hasSuffix(":") {
                if current != nil { return current }
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                if bounds.count == 2, (bounds[0]..<bounds[1]).contains(target) { current = SmapsMapping(perms: fields[1], rssKiB: -1) }
            } else if current != nil, fields.first == "Rss:", fields.count > 1 {
                current?.rssKiB = Int(fields[1]) ?? -1
            }
        }
        return current
    }
}
