/// Finds a mapping key that may be a collection, in the text, before Yams composes it.
///
/// Why: Yams checks each mapping for duplicate keys by sorting them, and it compares two collection
/// keys by recursing twice at every level, so a couple of kilobytes of nested collection keys
/// (`? - ? - …`) keep the composer busy for minutes (FuzzConfigYAML found such a file:
/// `Fuzz/Corpus/FuzzConfigYAML/repro-nested-complex-keys`). A livepush config's keys are plain
/// names, so the parser refuses, naming the line, any explicit key (`? `), any flow collection used as
/// a key (`[a]: b`, `{a: b}: c`) and any alias used as a key (`*name : b`).
///
/// The scan is a small YAML lexer, one pass over the bytes: it knows quoted scalars (which may span
/// lines), comments, block scalars (`|`, `>`) and flow collections, enough to tell these keys from the
/// same characters inside a value (`url: rtmp://host/app?key=x`, `text: "[a]: b"`).
struct YAMLKeyShapeCheck {
    /// A key that may be a collection: the 1-based line and what the key is.
    struct Finding: Equatable, Sendable {
        var line: Int
        var what: String
    }

    static func firstCollectionKey(in yaml: String) -> Finding? {
        var scan = YAMLKeyShapeCheck()
        for (index, line) in yaml.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if let what = scan.read(Array(line)) { return Finding(line: index + 1, what: what) }
        }
        return nil
    }

    /// The open quoted scalar's quote character, carried across lines.
    private var quote: UInt8?
    private var flowDepth = 0
    /// Inside a block scalar: its lines are those indented deeper than this column (or blank).
    private var blockScalarParentColumn: Int?

    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), colon = UInt8(ascii: ":")
    private static let flowIndicators: Set<UInt8> = Set(",[]{}".utf8)

    /// A space, a tab, or the CR of a CRLF line end: what separates tokens.
    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == space || byte == tab || byte == UInt8(ascii: "\r")
    }

    /// One line; returns what the offending key is, or nil.
    private mutating func read(_ line: [UInt8]) -> String? {
        let indent = line.prefix { $0 == Self.space }.count
        if let parent = blockScalarParentColumn {
            let blank = line.allSatisfy(Self.isBlank)
            if blank || indent > parent { return nil }
            blockScalarParentColumn = nil
        }
        var lexer = LineLexer(line: line, quote: quote, flowDepth: flowDepth)
        let finding = lexer.run()
        quote = lexer.quote
        flowDepth = lexer.flowDepth
        if let column = lexer.blockScalarParentColumn { blockScalarParentColumn = column }
        return finding
    }

    /// The lexer of one line, starting in the state the previous line left.
    private struct LineLexer {
        let line: [UInt8]
        var quote: UInt8?
        var flowDepth: Int
        var blockScalarParentColumn: Int?
        var index = 0
        /// At a place where a new node may begin (line start, after `- `, `? `, `: `, `[`, `{`, `,`).
        var atNodeStart = true
        var inPlainScalar = false
        /// A flow collection or quoted scalar just ended: a `:` next makes it a key.
        var afterClosedCollection = false
        var afterQuoted = false
        /// The column of the innermost block node begun on this line (a block scalar's parent).
        var nodeColumn: Int?

        init(line: [UInt8], quote: UInt8?, flowDepth: Int) {
            self.line = line
            self.quote = quote
            self.flowDepth = flowDepth
        }

        func byte(_ offset: Int = 0) -> UInt8? {
            index + offset < line.count ? line[index + offset] : nil
        }

        /// Whether the byte at `offset` ends a token: the line's end, a space, or (in a flow collection) an indicator.
        func endsToken(at offset: Int) -> Bool {
            guard let next = byte(offset) else { return true }
            if YAMLKeyShapeCheck.isBlank(next) { return true }
            return flowDepth > 0 && YAMLKeyShapeCheck.flowIndicators.contains(next)
        }

        mutating func run() -> String? {
            while let c = byte() {
                if quote != nil {
                    readQuoted(c)
                    continue
                }
                if YAMLKeyShapeCheck.isBlank(c) {
                    index += 1
                    continue
                }
                if c == UInt8(ascii: "#"), index == 0 || YAMLKeyShapeCheck.isBlank(line[index - 1]) {
                    return nil
                }
                if afterClosedCollection, c == YAMLKeyShapeCheck.colon { return "a flow collection ([…] or {…}) used as a key" }
                afterClosedCollection = false
                if c == YAMLKeyShapeCheck.colon, endsToken(at: 1) || afterQuoted {
                    startNode()
                    index += 1
                    continue
                }
                afterQuoted = false
                if let finding = readToken(c) { return finding }
            }
            return nil
        }

        mutating func startNode() {
            atNodeStart = true
            inPlainScalar = false
            afterQuoted = false
        }

        mutating func readQuoted(_ c: UInt8) {
            if quote == UInt8(ascii: "\""), c == UInt8(ascii: "\\") {
                index += 2
                return
            }
            if c == quote {
                if c == UInt8(ascii: "'"), byte(1) == c {
                    index += 2
                    return
                }
                quote = nil
                afterQuoted = true
            }
            index += 1
        }

        /// A byte that is neither space, comment nor a value indicator.
        mutating func readToken(_ c: UInt8) -> String? {
            if flowDepth > 0, YAMLKeyShapeCheck.flowIndicators.contains(c) {
                readFlowIndicator(c)
                return nil
            }
            guard atNodeStart else {
                index += 1
                return nil
            }
            switch c {
            case UInt8(ascii: "?") where endsToken(at: 1):
                return "an explicit key ('? ')"
            case UInt8(ascii: "-") where endsToken(at: 1):
                nodeColumn = index
                index += 1
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                readFlowIndicator(c)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                nodeColumn = nodeColumn ?? index
                quote = c
                atNodeStart = false
                index += 1
            case UInt8(ascii: "*"):
                return readAlias()
            case UInt8(ascii: "&"), UInt8(ascii: "!"):
                skipWord()
            case UInt8(ascii: "|") where flowDepth == 0, UInt8(ascii: ">") where flowDepth == 0:
                blockScalarParentColumn = nodeColumn ?? index
                index = line.count
            default:
                if !inPlainScalar { nodeColumn = index }
                inPlainScalar = true
                atNodeStart = false
                index += 1
            }
            return nil
        }

        mutating func readFlowIndicator(_ c: UInt8) {
            switch c {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                flowDepth += 1
                startNode()
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                flowDepth = max(0, flowDepth - 1)
                afterClosedCollection = true
                atNodeStart = false
                inPlainScalar = false
            default:
                startNode()
            }
            index += 1
        }

        /// `*name`, then a `:` after it makes the alias a key.
        mutating func readAlias() -> String? {
            skipWord()
            while let next = byte(), YAMLKeyShapeCheck.isBlank(next) { index += 1 }
            if byte() == YAMLKeyShapeCheck.colon, endsToken(at: 1) { return "an alias ('*name') used as a key" }
            atNodeStart = false
            return nil
        }

        mutating func skipWord() {
            index += 1
            while !endsToken(at: 0) { index += 1 }
        }
    }
}
