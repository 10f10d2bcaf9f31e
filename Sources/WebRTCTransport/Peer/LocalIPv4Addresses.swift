import NIOCore

/// The host's IPv4 interface addresses, sorted and without repeats: the host candidates a WHEP
/// endpoint bound to 0.0.0.0 or the WHIP client offers when no address is configured (IPv6 host
/// candidates are not offered yet).
enum LocalIPv4Addresses {
    static func all() -> [String] {
        let interfaces = (try? System.enumerateDevices()) ?? []
        return Set(interfaces.compactMap { $0.address?.ipAddress }.filter { !$0.contains(":") }).sorted()
    }
}
