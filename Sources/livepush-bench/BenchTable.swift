/// A Markdown table of benchmark rows.
struct BenchTable {
    var title: String
    var columns: [String]
    var rows: [[String]] = []

    var markdown: String {
        var lines = ["### \(title)", "", "| " + columns.joined(separator: " | ") + " |",
                     "|" + String(repeating: " --- |", count: columns.count)]
        lines += rows.map { "| " + $0.joined(separator: " | ") + " |" }
        return lines.joined(separator: "\n") + "\n"
    }
}
