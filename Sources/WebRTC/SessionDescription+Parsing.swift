/// The SDP parser (RFC 8866 §5, §9): line by line, each `<type>=<value>`, the session part up to
/// the first `m=`, then one media section per `m=`. Lenient where real stacks are (LF without CR,
/// blank lines, a trailing space), strict where a hostile peer could hurt us (sizes, counts).
extension SessionDescription {
    public init(parsing text: String, limits: SDPLimits = SDPLimits()) throws(WebRTCError) {
        guard text.utf8.count <= limits.maximumBytes else {
            throw .tooLarge(what: "session description bytes", limit: limits.maximumBytes)
        }
        var parser = SDPParser(limits: limits)
        // `isNewline` splits CRLF (one Character in Swift), bare LF and bare CR alike.
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            guard !line.isEmpty else { continue }
            try parser.consume(line: line, number: index + 1)
        }
        self = try parser.finish()
    }
}

/// The parser's state between lines.
private struct SDPParser {
    let limits: SDPLimits
    var version: Int?
    var origin: SDPOrigin?
    var sessionName: String?
    var timing: String?
    var session = SessionDescription(origin: SDPOrigin(sessionID: 0))
    var media: [MediaDescription] = []
    var attributeCount = 0

    init(limits: SDPLimits) {
        self.limits = limits
    }

    mutating func consume(line: Substring, number: Int) throws(WebRTCError) {
        guard line.utf8.count <= limits.maximumLineLength else {
            throw .tooLarge(what: "line \(number)", limit: limits.maximumLineLength)
        }
        let malformed = { (reason: String) in
            WebRTCError.malformedLine(number: number, line: String(line.prefix(120)), reason: reason)
        }
        let bytes = line.utf8
        guard bytes.count >= 2, let type = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(type),
              bytes.dropFirst().first == UInt8(ascii: "=") else {
            throw malformed("not '<letter>=<value>'")
        }
        let letter = Character(Unicode.Scalar(type))
        // Cut after the ASCII "<letter>=" by bytes: a combining mark after "=" must stay in the value.
        let value = Substring(bytes.dropFirst(2))
        do {
            try apply(letter, value)
        } catch let error as SDPFieldError {
            throw malformed(error.reason)
        } catch let error as WebRTCError {
            throw error
        } catch {
            throw malformed("\(error)")
        }
        guard version != nil || letter == "v" else {
            throw malformed("a description starts with v=")
        }
    }

    private mutating func apply(_ letter: Character, _ value: Substring) throws {
        switch letter {
        case "v":
            guard version == nil, value == "0" else {
                throw SDPFieldError("only one v=0 is allowed")
            }
            version = 0
        case "o":
            guard origin == nil, media.isEmpty else { throw SDPFieldError("o= must appear once, before m=") }
            origin = try SDPOrigin(sdp: value)
        case "s":
            guard sessionName == nil, media.isEmpty else { throw SDPFieldError("s= must appear once, before m=") }
            sessionName = String(value)
        case "t" where timing == nil && media.isEmpty:
            timing = String(value)
        case "c":
            let connection = try SDPConnection(sdp: value)
            if media.isEmpty {
                session.connection = connection
            } else {
                media[media.count - 1].connection = connection
            }
        case "m":
            guard media.count < limits.maximumMediaSections else {
                throw WebRTCError.tooLarge(what: "media sections", limit: limits.maximumMediaSections)
            }
            media.append(try MediaDescription(sdp: value))
        case "a":
            attributeCount += 1
            guard attributeCount <= limits.maximumAttributes else {
                throw WebRTCError.tooLarge(what: "attributes", limit: limits.maximumAttributes)
            }
            let attribute = try SDPAttribute(sdp: value)
            if media.isEmpty {
                session.attributes.append(attribute)
            } else {
                media[media.count - 1].attributes.append(attribute)
            }
        case "i", "b", "k":
            appendOther(SDPLine(type: letter, value: String(value)))
        case "u", "e", "p", "t", "r", "z":
            guard media.isEmpty else { throw SDPFieldError("\(letter)= is a session-level line") }
            session.otherLines.append(SDPLine(type: letter, value: String(value)))
        default:
            throw SDPFieldError("unknown line type '\(letter)'")
        }
    }

    private mutating func appendOther(_ line: SDPLine) {
        if media.isEmpty {
            session.otherLines.append(line)
        } else {
            media[media.count - 1].otherLines.append(line)
        }
    }

    func finish() throws(WebRTCError) -> SessionDescription {
        guard version != nil else { throw .missingLine(type: "v") }
        guard let origin else { throw .missingLine(type: "o") }
        guard let sessionName else { throw .missingLine(type: "s") }
        guard let timing else { throw .missingLine(type: "t") }
        var description = session
        description.otherLines = Self.inOrder(session.otherLines, "iuepbtrzk")
        description.origin = origin
        description.sessionName = sessionName
        description.timing = timing
        description.media = media.map { section in
            var section = section
            section.otherLines = Self.inOrder(section.otherLines, "ibk")
            return section
        }
        return description
    }

    /// Lines in RFC 8866 §5 order (stable within a type), the order serialization writes them in.
    private static func inOrder(_ lines: [SDPLine], _ order: String) -> [SDPLine] {
        let rank = { (line: SDPLine) in order.firstIndex(of: line.type) ?? order.endIndex }
        return lines.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    }
}
